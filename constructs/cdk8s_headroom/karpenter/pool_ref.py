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
from cdk8s_headroom.vocabulary.node_sizes import NodeSize, smallest_node

# Taint is unused here, but named by the __init__ that @dataclass writes in this module
# from NodePoolRef's field `taints: tuple[Taint, ...]`: typing.get_type_hints and pdoc
# read that annotation in this module's namespace.
from cdk8s_headroom.vocabulary.placement import NodeSelectorRequirement, Taint  # noqa: F401
from cdk8s_headroom.vocabulary.quantity import parse_quantity


class NodePoolFlavour(Enum):
    """Who runs the pool's nodes, named by the API group of its node class."""

    KARPENTER_EC2 = "karpenter.k8s.aws"
    """Karpenter on EC2: an ``EC2NodeClass``; instance labels ``karpenter.k8s.aws/*``."""
    EKS_AUTO_MODE = node_labels.AUTO_MODE_DOMAIN
    """EKS Auto Mode: its ``NodeClass``; instance labels ``eks.amazonaws.com/*``."""

    @property
    def label_prefix(self) -> str:
        """The prefix of the instance labels (``instance-category``, ``instance-cpu``...)."""
        return f"{self.value}/"


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
    """

    requirements: tuple[NodeSelectorRequirement, ...] = ()
    limits: tuple[tuple[str, str], ...] | None = None

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
        return smallest_node(self.requirements, field="node_pool.requirements")

    @property
    def limit_amounts(self) -> Mapping[str, Fraction] | None:
        if self.limits is None:
            return None
        return {key: parse_quantity(value, field=f"limits[{key}]") for key, value in self.limits}
