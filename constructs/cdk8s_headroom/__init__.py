"""cdk8s constructs for the node reserved headroom pattern.

A DaemonSet of low-priority pods reserves a slice of CPU and memory on each node of a
pool; burst-critical pods preempt them and take the slice at once.
"""

from .app import synth, validate_app
from .blueprint import DEFAULT_DEDICATED_TAINT, NodeHeadroom
from .burst import BurstWorkload, BurstWorkloadProps, ImagePullPolicy
from .errors import HeadroomConfigError, HeadroomWarning
from .karpenter import (
    ConsolidationPolicy,
    Ec2NodeClass,
    KarpenterNodePool,
    KarpenterNodePoolRef,
    NodeClassRef,
    NodePoolFlavour,
)
from .namespace import HeadroomNamespace
from .podsecurity import PodSecurityControl
from .priority import (
    HeadroomPriorityClasses,
    PreemptionPolicy,
    PriorityClassSpec,
    PriorityModel,
)
from .reserver import HeadroomReserver
from .sizing import HeadroomSummary, NodeSize
from .targeting import (
    INodePool,
    NodePoolRef,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from .task import HostPathMount, ReserverTask, TaskKind

__all__ = [
    "DEFAULT_DEDICATED_TAINT",
    "BurstWorkload",
    "BurstWorkloadProps",
    "ConsolidationPolicy",
    "Ec2NodeClass",
    "HeadroomConfigError",
    "HeadroomNamespace",
    "HeadroomPriorityClasses",
    "HeadroomReserver",
    "HeadroomSummary",
    "HeadroomWarning",
    "HostPathMount",
    "INodePool",
    "ImagePullPolicy",
    "KarpenterNodePool",
    "KarpenterNodePoolRef",
    "NodeClassRef",
    "NodeHeadroom",
    "NodePoolFlavour",
    "NodePoolRef",
    "NodeSelectorOperator",
    "NodeSelectorRequirement",
    "NodeSize",
    "PodSecurityControl",
    "PreemptionPolicy",
    "PriorityClassSpec",
    "PriorityModel",
    "ReserverTask",
    "Taint",
    "TaintEffect",
    "TaskKind",
    "Toleration",
    "TolerationOperator",
    "synth",
    "validate_app",
]

__version__ = "0.1.0"
