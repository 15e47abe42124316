"""cdk8s constructs for the node reserved headroom pattern.

A DaemonSet of low-priority pods reserves a slice of CPU and memory on each node of a
pool; burst-critical pods preempt them and take the slice at once.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import synth, validate_app
    from .burst import BurstWorkload, BurstWorkloadProps, ImagePullPolicy
    from .capacitybuffer import BufferHold, CapacityBuffer, CapacityBufferForm
    from .capacitybufferapi import CapacityBufferVersion
    from .errors import HeadroomConfigError, HeadroomWarning
    from .headroom import HeadroomSummary, NodeHeadroom
    from .karpenter import (
        BudgetNodes,
        BudgetSchedule,
        ConsolidationPolicy,
        DisruptionBudget,
        DisruptionReason,
        Ec2NodeClass,
        KarpenterNodePool,
        KarpenterNodePoolRef,
        NodeClassRef,
        NodePoolFlavour,
    )
    from .namespace import HeadroomNamespace
    from .podsecurity import PodSecurityControl
    from .prepull import ImagePrepuller
    from .priority import ModelClasses, PreemptionPolicy, PriorityClassSpec, PriorityModel
    from .priorityclasses import HeadroomPriorityClasses
    from .reserver import HeadroomReserver
    from .scheduling import (
        DEFAULT_DEDICATED_TAINT,
        NodeSelectorOperator,
        NodeSelectorRequirement,
        Taint,
        TaintEffect,
        Toleration,
        TolerationOperator,
    )
    from .sizing import NodeSize
    from .targeting import INodePool, NodePoolRef
    from .task import HostPathMount, ReserverTask, TaskKind

# Every name is re-exported lazily (PEP 562): `import cdk8s_headroom` loads nothing, and
# a name loads only its own module. So the plain-Python parts (the vocabulary, the
# simulator) never start Node through jsii, and `python main.py` pays only for the
# constructs it uses. The imports above are for type checkers and editors.
_EXPORTS = {
    "DEFAULT_DEDICATED_TAINT": "scheduling",
    "BudgetNodes": "karpenter",
    "BudgetSchedule": "karpenter",
    "BufferHold": "capacitybuffer",
    "BurstWorkload": "burst",
    "BurstWorkloadProps": "burst",
    "CapacityBuffer": "capacitybuffer",
    "CapacityBufferForm": "capacitybuffer",
    "CapacityBufferVersion": "capacitybufferapi",
    "ConsolidationPolicy": "karpenter",
    "DisruptionBudget": "karpenter",
    "DisruptionReason": "karpenter",
    "Ec2NodeClass": "karpenter",
    "HeadroomConfigError": "errors",
    "HeadroomNamespace": "namespace",
    "HeadroomPriorityClasses": "priorityclasses",
    "HeadroomReserver": "reserver",
    "HeadroomSummary": "headroom",
    "HeadroomWarning": "errors",
    "HostPathMount": "task",
    "INodePool": "targeting",
    "ImagePrepuller": "prepull",
    "ImagePullPolicy": "burst",
    "KarpenterNodePool": "karpenter",
    "KarpenterNodePoolRef": "karpenter",
    "ModelClasses": "priority",
    "NodeClassRef": "karpenter",
    "NodeHeadroom": "headroom",
    "NodePoolFlavour": "karpenter",
    "NodePoolRef": "targeting",
    "NodeSelectorOperator": "scheduling",
    "NodeSelectorRequirement": "scheduling",
    "NodeSize": "sizing",
    "PodSecurityControl": "podsecurity",
    "PreemptionPolicy": "priority",
    "PriorityClassSpec": "priority",
    "PriorityModel": "priority",
    "ReserverTask": "task",
    "Taint": "scheduling",
    "TaintEffect": "scheduling",
    "TaskKind": "task",
    "Toleration": "scheduling",
    "TolerationOperator": "scheduling",
    "synth": "app",
    "validate_app": "app",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


__all__ = [
    "DEFAULT_DEDICATED_TAINT",
    "BudgetNodes",
    "BudgetSchedule",
    "BufferHold",
    "BurstWorkload",
    "BurstWorkloadProps",
    "CapacityBuffer",
    "CapacityBufferForm",
    "CapacityBufferVersion",
    "ConsolidationPolicy",
    "DisruptionBudget",
    "DisruptionReason",
    "Ec2NodeClass",
    "HeadroomConfigError",
    "HeadroomNamespace",
    "HeadroomPriorityClasses",
    "HeadroomReserver",
    "HeadroomSummary",
    "HeadroomWarning",
    "HostPathMount",
    "INodePool",
    "ImagePrepuller",
    "ImagePullPolicy",
    "KarpenterNodePool",
    "KarpenterNodePoolRef",
    "ModelClasses",
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
