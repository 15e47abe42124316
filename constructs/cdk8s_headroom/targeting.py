"""Where pods may run: taints, tolerations, node selector requirements, node pools."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from . import names
from .errors import HeadroomConfigError


class TaintEffect(Enum):
    """What a node taint does to pods that do not tolerate it."""

    NO_SCHEDULE = "NoSchedule"
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    NO_EXECUTE = "NoExecute"


class TolerationOperator(Enum):
    """How a toleration matches a taint's value."""

    EQUAL = "Equal"
    EXISTS = "Exists"


MAX_MIN_VALUES = 50
"""The largest ``minValues`` Karpenter's NodePool schema accepts."""


class NodeSelectorOperator(Enum):
    """Operators of a node selector requirement (node affinity, Karpenter requirements)."""

    IN = "In"
    NOT_IN = "NotIn"
    EXISTS = "Exists"
    DOES_NOT_EXIST = "DoesNotExist"
    GT = "Gt"
    LT = "Lt"
    GTE = "Gte"
    """Karpenter NodePool requirements only (Karpenter v1.9 and later), with one integer
    of zero or more: Kubernetes node affinity has no ``Gte``, so a pod's requirement
    refuses it."""
    LTE = "Lte"
    """Karpenter NodePool requirements only, like ``GTE``."""


INTEGER_OPERATORS = frozenset(
    {
        NodeSelectorOperator.GT,
        NodeSelectorOperator.LT,
        NodeSelectorOperator.GTE,
        NodeSelectorOperator.LTE,
    }
)
"""The operators that compare a label, read as an integer, with one integer value."""

KARPENTER_ONLY_OPERATORS = frozenset({NodeSelectorOperator.GTE, NodeSelectorOperator.LTE})
"""Operators Karpenter adds to its NodePool requirements; pods' node affinity lacks them."""


def _sequence(value: object, *, field: str, allowed: str) -> tuple[object, ...]:
    """A list or tuple as a tuple; a string, which is a sequence of characters, is not."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise HeadroomConfigError(field, value, allowed)
    return tuple(value)


def _enum(value: object, enum: type[Enum], *, field: str) -> Enum:
    if isinstance(value, enum):
        return value
    allowed = ", ".join(f"{enum.__name__}.{member.name}" for member in enum)
    raise HeadroomConfigError(field, value, f"one of {allowed}")


@dataclass(frozen=True)
class Taint:
    """A node taint, e.g. ``Taint("headroom.cdk8s.io/burst", "true", TaintEffect.NO_SCHEDULE)``.

    Args:
        key: the taint key, a qualified label key.
        value: the taint value, a label value. Default: empty.
        effect: default: ``TaintEffect.NO_SCHEDULE``.
    """

    key: str
    value: str = ""
    effect: TaintEffect = TaintEffect.NO_SCHEDULE

    def __post_init__(self) -> None:
        names.label_key(self.key, field="taint.key")
        names.label_value(self.value, field="taint.value")
        _enum(self.effect, TaintEffect, field="taint.effect")

    def toleration(self) -> Toleration:
        """The toleration that matches exactly this taint."""
        return Toleration(
            key=self.key,
            operator=TolerationOperator.EQUAL,
            value=self.value,
            effect=self.effect,
        )

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect.value}"


@dataclass(frozen=True)
class Toleration:
    """A pod toleration.

    Args:
        key: the taint key to match; empty with ``EXISTS`` matches every taint.
        operator: default: ``TolerationOperator.EQUAL``.
        value: the value to match with ``EQUAL``; must be empty with ``EXISTS``.
        effect: the effect to match. Default: ``None``, every effect.
        toleration_seconds: for ``NO_EXECUTE`` only: how long the pod stays bound
            after the taint appears. Default: ``None``, for ever.
    """

    key: str = ""
    operator: TolerationOperator = TolerationOperator.EQUAL
    value: str = ""
    effect: TaintEffect | None = None
    toleration_seconds: int | None = None

    def __post_init__(self) -> None:
        _enum(self.operator, TolerationOperator, field="toleration.operator")
        if self.effect is not None:
            _enum(self.effect, TaintEffect, field="toleration.effect")
        if not isinstance(self.key, str):
            raise HeadroomConfigError(
                "toleration.key", self.key, "a label key, or '' with EXISTS to match every key"
            )
        if self.key:
            names.label_key(self.key, field="toleration.key")
        elif self.operator is not TolerationOperator.EXISTS:
            raise HeadroomConfigError(
                "toleration.key", self.key, "a key, unless the operator is EXISTS"
            )
        names.label_value(self.value, field="toleration.value")
        if self.operator is TolerationOperator.EXISTS and self.value:
            raise HeadroomConfigError(
                "toleration.value", self.value, "an empty value with operator EXISTS"
            )
        if self.toleration_seconds is not None:
            if self.effect is not TaintEffect.NO_EXECUTE:
                raise HeadroomConfigError(
                    "toleration.toleration_seconds",
                    self.toleration_seconds,
                    "None unless the effect is TaintEffect.NO_EXECUTE",
                )
            names.int32(self.toleration_seconds, field="toleration.toleration_seconds")

    def tolerates(self, taint: Taint) -> bool:
        """Whether this toleration lets a pod onto a node with ``taint``."""
        if self.effect is not None and self.effect is not taint.effect:
            return False
        if self.operator is TolerationOperator.EXISTS:
            return not self.key or self.key == taint.key
        return self.key == taint.key and self.value == taint.value

    def to_manifest(self) -> dict[str, Any]:
        """The toleration as it appears in a PodSpec."""
        return {
            "key": self.key or None,
            "operator": self.operator.value,
            "value": self.value or None,
            "effect": self.effect.value if self.effect else None,
            "tolerationSeconds": self.toleration_seconds,
        }


@dataclass(frozen=True)
class NodeSelectorRequirement:
    """A required node affinity term: ``key operator values``.

    Args:
        key: a node label key.
        operator: a ``NodeSelectorOperator``.
        values: the values; non-empty for ``IN``/``NOT_IN``, empty for ``EXISTS`` and
            ``DOES_NOT_EXIST``, a single integer for ``GT``/``LT``. Default: empty.
        min_values: Karpenter NodePools only (``minValues``): the fewest distinct values
            of the key among the instance types a node claim may launch, 1-50, and no
            more than the values of an ``IN``; not with ``DOES_NOT_EXIST``. A pod's node
            affinity refuses it. Default: ``None``, no minimum.
    """

    key: str
    operator: NodeSelectorOperator
    values: tuple[str, ...] = field(default_factory=tuple)
    min_values: int | None = None

    def __post_init__(self) -> None:
        names.label_key(self.key, field="node_affinity.key")
        op = _enum(self.operator, NodeSelectorOperator, field="node_affinity.operator")
        object.__setattr__(
            self,
            "values",
            _sequence(
                self.values,
                field=f"node_affinity[{self.key}].values",
                allowed="a list of label values",
            ),
        )
        for value in self.values:
            names.label_value(value, field=f"node_affinity[{self.key}].values")
        if op in (NodeSelectorOperator.IN, NodeSelectorOperator.NOT_IN) and not self.values:
            raise HeadroomConfigError(
                f"node_affinity[{self.key}].values",
                list(self.values),
                f"at least one value for operator {op.value}",
            )
        if op in (NodeSelectorOperator.EXISTS, NodeSelectorOperator.DOES_NOT_EXIST) and self.values:
            raise HeadroomConfigError(
                f"node_affinity[{self.key}].values",
                list(self.values),
                f"no values for operator {op.value}",
            )
        if op in INTEGER_OPERATORS and (
            len(self.values) != 1 or not self.values[0].lstrip("-").isdigit()
        ):
            raise HeadroomConfigError(
                f"node_affinity[{self.key}].values",
                list(self.values),
                f"exactly one integer for operator {op.value}",
            )
        if op in KARPENTER_ONLY_OPERATORS and int(self.values[0]) < 0:
            raise HeadroomConfigError(
                f"node_affinity[{self.key}].values",
                list(self.values),
                f"one integer of zero or more for operator {op.value} (Karpenter's rule)",
            )
        if self.min_values is not None:
            self._check_min_values(op)

    def _check_min_values(self, op: Enum) -> None:
        field = f"node_affinity[{self.key}].min_values"
        wanted = names.int32(self.min_values, field=field, minimum=1, maximum=MAX_MIN_VALUES)
        if op is NodeSelectorOperator.DOES_NOT_EXIST:
            raise HeadroomConfigError(
                field,
                wanted,
                "None with operator DoesNotExist: a key no node has has no values to count",
            )
        if op is NodeSelectorOperator.IN and wanted > len(self.values):
            raise HeadroomConfigError(
                field,
                wanted,
                f"at most {len(self.values)}, the number of values of this In requirement "
                "(Karpenter launches nothing that needs more distinct values than it allows)",
            )

    def matches(self, value: str | None) -> bool:
        """Whether a node whose label ``key`` is ``value`` (``None``: no such label)
        satisfies the requirement. The integer operators compare integers; a label
        that is not one matches none of them."""
        op = self.operator
        if op is NodeSelectorOperator.IN:
            return value is not None and value in self.values
        if op is NodeSelectorOperator.NOT_IN:
            return value is None or value not in self.values
        if op is NodeSelectorOperator.EXISTS:
            return value is not None
        if op is NodeSelectorOperator.DOES_NOT_EXIST:
            return value is None
        if value is None or not value.lstrip("-").isdigit():
            return False
        have, bound = int(value), int(self.values[0])
        return {
            NodeSelectorOperator.GT: have > bound,
            NodeSelectorOperator.LT: have < bound,
            NodeSelectorOperator.GTE: have >= bound,
            NodeSelectorOperator.LTE: have <= bound,
        }[op]

    def to_manifest(self) -> dict[str, Any]:
        """The requirement as it appears in a node selector term."""
        return {
            "key": self.key,
            "operator": self.operator.value,
            "values": list(self.values) or None,
        }


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


KARPENTER_NODEPOOL_LABEL = "karpenter.sh/nodepool"


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
            _sequence(self.taints, field="node_pool.taints", allowed="a list of Taint objects"),
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


def node_affinity(requirements: Sequence[NodeSelectorRequirement]) -> dict[str, Any] | None:
    """Required node affinity: all requirements must hold (one term, ANDed)."""
    if not requirements:
        return None
    term = {"matchExpressions": [r.to_manifest() for r in requirements]}
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
        }
    }


@dataclass(frozen=True)
class Placement:
    """Where a pod template may land: the pool's selector and taints, plus the user's."""

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
    ) -> Placement:
        """Merges a pool's targeting with the user's, rejecting contradictions."""
        if node_pool is not None and not isinstance(node_pool, INodePool):
            raise HeadroomConfigError(
                "node_pool", node_pool, "a node pool: NodePoolRef, KarpenterNodePool or None"
            )
        selector = names.labels(node_selector, field="node_selector")
        merged: dict[str, str] = dict(node_pool.node_selector) if node_pool else {}
        for key, value in selector.items():
            if key in merged and merged[key] != value:
                raise HeadroomConfigError(
                    f"node_selector[{key!r}]",
                    value,
                    f"{merged[key]!r}, the value that selects node pool {node_pool.pool_name!r}"
                    if node_pool
                    else "a single value per key",
                )
            merged[key] = value
        own = check_tolerations(tolerations, field="tolerations")
        pool_tolerations = tolerations_for(node_pool.taints) if node_pool else []
        return Placement(
            pool=node_pool,
            node_selector=dict(sorted(merged.items())),
            tolerations=tuple(dict.fromkeys(pool_tolerations + own)),
            node_affinity=tuple(check_requirements(node_affinity, field="node_affinity")),
        )

    def with_tolerations(self, extra: Sequence[Toleration]) -> Placement:
        return Placement(
            pool=self.pool,
            node_selector=self.node_selector,
            tolerations=tuple(dict.fromkeys((*self.tolerations, *extra))),
            node_affinity=self.node_affinity,
        )

    def same_target(self, other: Placement) -> bool:
        """Whether two placements select the same nodes (same pool, selector, affinity)."""
        return (
            (self.pool.pool_name if self.pool else None)
            == (other.pool.pool_name if other.pool else None)
            and self.node_selector == other.node_selector
            and self.node_affinity == other.node_affinity
        )

    def apply(self, spec: dict[str, Any]) -> None:
        """Sets nodeSelector, affinity and tolerations on a PodSpec manifest."""
        # The pool's taints are read again here: a pool this app emits may be tainted
        # after the pod template was targeted at it (DEDICATED_POOL taints it last).
        pool_tolerations = tolerations_for(self.pool.taints) if self.pool else []
        tolerations = dict.fromkeys((*pool_tolerations, *self.tolerations))
        spec["nodeSelector"] = self.node_selector or None
        spec["affinity"] = node_affinity(self.node_affinity)
        spec["tolerations"] = [t.to_manifest() for t in tolerations] or None
