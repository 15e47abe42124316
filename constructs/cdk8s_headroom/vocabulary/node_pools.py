"""Node pools, and where a construct's pods go: the pool's selector and taints plus the
user's node selector, tolerations and node affinity."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from cdk8s_headroom.vocabulary import names, node_labels, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.placement import (
    KARPENTER_ONLY_OPERATORS,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Placement,
    Taint,
    Toleration,
)


@runtime_checkable
class INodePool(Protocol):
    """A pool of nodes that the headroom and its burst workloads target.

    ``NodePoolRef`` implements it for a pool that exists already;
    ``KarpenterNodePool`` for one this app emits.
    """

    @property
    def pool_name(self) -> str:
        """The pool's name."""

    @property
    def node_selector(self) -> Mapping[str, str]:
        """The node labels that select the pool's nodes."""

    @property
    def taints(self) -> Sequence[Taint]:
        """The taints the pool's nodes carry; pods on the pool must tolerate them."""


KARPENTER_NODEPOOL_LABEL = node_labels.KARPENTER_NODEPOOL_LABEL


@dataclass(frozen=True)
class NodePoolRef:
    """A node pool that exists in the cluster already, selected by a node label.

    Args:
        pool_name: the pool's name, a DNS-1123 label.
        label_key: the node label whose value is the pool's name.
            Default: ``karpenter.sh/nodepool``, the label Karpenter puts on its nodes.
        taints: the taints the pool's nodes carry. Default: none.
    """

    pool_name: str
    label_key: str = KARPENTER_NODEPOOL_LABEL
    taints: tuple[Taint, ...] = ()

    def __post_init__(self) -> None:
        names.dns_label(self.pool_name, field="node_pool.pool_name")
        names.label_key(self.label_key, field="node_pool.label_key")
        object.__setattr__(
            self,
            "taints",
            names.sequence(
                self.taints, field="node_pool.taints", allowed="a list of Taint objects"
            ),
        )
        for taint in self.taints:
            if not isinstance(taint, Taint):
                raise HeadroomConfigError("node_pool.taints", taint, "Taint objects")

    @staticmethod
    def karpenter(pool_name: str, *, taints: Sequence[Taint] = ()) -> NodePoolRef:
        """An existing Karpenter NodePool, selected by ``karpenter.sh/nodepool``."""
        # A sequence, not yet a tuple: __post_init__ validates and converts it.
        return NodePoolRef(pool_name, taints=taints)  # type: ignore[arg-type]

    @property
    def node_selector(self) -> Mapping[str, str]:
        return {self.label_key: self.pool_name}


def tolerations_for(taints: Sequence[Taint]) -> list[Toleration]:
    return [taint.toleration() for taint in taints]


def check_tolerations(value: Sequence[Toleration], *, field: str) -> list[Toleration]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise HeadroomConfigError(field, value, "a sequence of Toleration objects")
    for item in value:
        if not isinstance(item, Toleration):
            raise HeadroomConfigError(field, item, "a Toleration object")
    return list(value)


def check_requirements(
    value: Sequence[NodeSelectorRequirement], *, field: str
) -> list[NodeSelectorRequirement]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise HeadroomConfigError(field, value, "a sequence of NodeSelectorRequirement objects")
    for item in value:
        if not isinstance(item, NodeSelectorRequirement):
            raise HeadroomConfigError(field, item, "a NodeSelectorRequirement object")
        if item.operator in KARPENTER_ONLY_OPERATORS or item.min_values is not None:
            raise HeadroomConfigError(
                f"{field}[{item.key}]",
                item.operator.value if item.min_values is None else f"min_values={item.min_values}",
                "a requirement Kubernetes node affinity has: In, NotIn, Exists, DoesNotExist, "
                "Gt or Lt, without min_values (Gte, Lte and minValues are Karpenter's, for "
                "KarpenterNodePool requirements)",
            )
    return list(value)


@dataclass(frozen=True)
class Targeting:
    """The nodes a construct's pods target: a pool (its selector and taints) and the
    user's node selector, tolerations and node affinity (one term: all must hold)."""

    pool: INodePool | None
    node_selector: dict[str, str]
    tolerations: tuple[Toleration, ...]
    node_affinity: tuple[NodeSelectorRequirement, ...]

    @staticmethod
    def of(
        *,
        node_pool: INodePool | None,
        node_selector: Mapping[str, str] | None,
        tolerations: Sequence[Toleration],
        node_affinity: Sequence[NodeSelectorRequirement],
    ) -> Targeting:
        """Merges a pool's targeting with the user's, rejecting contradictions."""
        if node_pool is not None and not isinstance(node_pool, INodePool):
            raise HeadroomConfigError(
                "node_pool", node_pool, "a node pool: NodePoolRef, KarpenterNodePool or None"
            )
        selector = names.labels(node_selector, field="node_selector")
        merged: dict[str, str] = dict(node_pool.node_selector) if node_pool else {}
        for key, value in selector.items():
            rules.SELECTOR_KEEPS_POOL.check(
                f"node_selector[{shown(key)}]",
                value,
                selected=merged.get(key),
                pool=node_pool.pool_name if node_pool else None,
            )
            merged[key] = value
        own = check_tolerations(tolerations, field="tolerations")
        pool_tolerations = tolerations_for(node_pool.taints) if node_pool else []
        return Targeting(
            pool=node_pool,
            node_selector=dict(sorted(merged.items())),
            tolerations=tuple(dict.fromkeys(pool_tolerations + own)),
            node_affinity=tuple(check_requirements(node_affinity, field="node_affinity")),
        )

    def with_tolerations(self, extra: Sequence[Toleration]) -> Targeting:
        return Targeting(
            pool=self.pool,
            node_selector=self.node_selector,
            tolerations=tuple(dict.fromkeys((*self.tolerations, *extra))),
            node_affinity=self.node_affinity,
        )

    def same_target(self, other: Targeting) -> bool:
        """Whether two targetings select the same nodes (same pool, selector, affinity)."""
        return (
            (self.pool.pool_name if self.pool else None)
            == (other.pool.pool_name if other.pool else None)
            and self.node_selector == other.node_selector
            and self.node_affinity == other.node_affinity
        )

    def placement(self) -> Placement:
        """Where the pods may go, in the scheduler's terms."""
        # The pool's taints are read again here: a pool this app emits may be tainted
        # after the pod template was targeted at it (DEDICATED_POOL taints it last).
        pool_tolerations = tolerations_for(self.pool.taints) if self.pool else []
        return Placement(
            node_selector=tuple(self.node_selector.items()),
            affinity=(NodeSelectorTerm(self.node_affinity),) if self.node_affinity else None,
            tolerations=tuple(dict.fromkeys((*pool_tolerations, *self.tolerations))),
        )

    def apply(self, spec: dict[str, Any]) -> None:
        """Sets nodeSelector, affinity and tolerations on a PodSpec manifest."""
        spec.update(self.placement().to_manifest())
