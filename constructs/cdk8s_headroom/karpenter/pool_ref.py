"""Which Karpenter runs a pool (``NodePoolFlavour``), and a reference to a NodePool that
exists already (``KarpenterNodePoolRef``). Plain Python."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from cdk8s_headroom.vocabulary import node_labels
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.node_pools import NodePoolRef
from cdk8s_headroom.vocabulary.node_sizes import (
    INSTANCE_LABEL_PREFIXES,
    KWOK_LABEL_PREFIX,
    NodeSize,
    smallest_node,
)

# Taint is unused here, but named by the __init__ that @dataclass writes in this module
# from NodePoolRef's field `taints: tuple[Taint, ...]`: typing.get_type_hints and pdoc
# read that annotation in this module's namespace.
from cdk8s_headroom.vocabulary.placement import NodeSelectorRequirement, Taint  # noqa: F401
from cdk8s_headroom.vocabulary.quantity import parse_quantity


class NodePoolFlavour(Enum):
    """Who runs the pool's nodes, named by the API group of its node class (``OTHER``
    for a Karpenter provider whose instance labels this project does not read)."""

    KARPENTER_EC2 = "karpenter.k8s.aws"
    """Karpenter on EC2: an ``EC2NodeClass``; instance labels ``karpenter.k8s.aws/*``."""
    EKS_AUTO_MODE = node_labels.AUTO_MODE_DOMAIN
    """EKS Auto Mode: its ``NodeClass``; instance labels ``eks.amazonaws.com/*``."""
    KWOK = KWOK_LABEL_PREFIX.removesuffix("/")
    """Karpenter's KWOK provider (fake nodes, for tests): a ``KWOKNodeClass``; instance
    labels ``karpenter.kwok.sh/*``."""
    OTHER = "other"
    """Any other provider (Azure's ``AKSNodeClass``, ...): node sizes are those declared."""

    @staticmethod
    def of_group(group: str) -> NodePoolFlavour:
        """The flavour of a node class's API group."""
        known = {flavour.value: flavour for flavour in NodePoolFlavour}
        return known.get(group, NodePoolFlavour.OTHER)

    @property
    def label_prefix(self) -> str | None:
        """The prefix of the instance labels (``instance-category``, ``instance-cpu``...),
        or ``None`` for ``OTHER``."""
        return None if self is NodePoolFlavour.OTHER else f"{self.value}/"


KNOWN_INSTANCE_LABEL_PREFIXES = (*INSTANCE_LABEL_PREFIXES, KWOK_LABEL_PREFIX)
"""Every provider's instance-label prefix this project knows (one per flavour but ``OTHER``)."""


@dataclass(frozen=True)
class KarpenterNodePoolRef(NodePoolRef):
    """A Karpenter or Auto Mode NodePool that exists already (``KarpenterNodePool.from_name``).

    It selects nodes by ``karpenter.sh/nodepool``, like ``NodePoolRef.karpenter``, and
    also knows the sizes and limits you declare, for the fit check and the summary.

    Args:
        pool_name: the NodePool's name.
        taints: the taints its nodes carry. Default: none.
        requirements: its requirements, as far as they bound instance sizes. Default:
            none (node size unknown).
        limits: its ``limits`` as (resource, quantity) pairs. Default: ``None``, not
            declared.
        declared_node: the smallest node the user says it launches, a lower bound
            beside the requirements'. Default: ``None``, not declared.
    """

    requirements: tuple[NodeSelectorRequirement, ...] = ()
    limits: tuple[tuple[str, str], ...] | None = None
    declared_node: NodeSize | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "requirements", tuple(self.requirements))
        for requirement in self.requirements:
            if not isinstance(requirement, NodeSelectorRequirement):
                raise HeadroomConfigError(
                    "node_pool.requirements", requirement, "NodeSelectorRequirement objects"
                )
        # Surfaces requirements that exclude every instance now, not at synth.
        smallest_node(self.requirements, field="node_pool.requirements")

    @property
    def smallest_node(self) -> NodeSize:
        return smallest_node(
            self.requirements, field="node_pool.requirements", declared=self.declared_node
        )

    @property
    def limit_amounts(self) -> Mapping[str, Fraction] | None:
        if self.limits is None:
            return None
        return {key: parse_quantity(value, field=f"limits[{key}]") for key, value in self.limits}
