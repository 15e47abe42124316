"""cdk8s constructs for the node reserved headroom pattern.

A DaemonSet of low-priority pods reserves a slice of CPU and memory on each node of a
pool; burst-critical pods preempt them and take the slice at once.
"""

from __future__ import annotations

# The package is layered, bottom up; each layer imports only the layers below it
# (tests/test_layout.py's LAYERS, docs/architecture.md):
#
# - ``vocabulary``: the plain-Python terms (quantities, names, rules, placement, priority
#   models, the reserver's task, node sizes). No cdk8s, no Node.
# - ``files``: reading users' files and publishing synthesized folders.
# - ``simulate``: kube-scheduler's fit and preemption decisions, and the what-if.
# - ``core``: the construct base (``HeadroomConstruct``, ``RenderedApiObject``), the
#   whole-app checks and synthesis; they start Node through jsii.
# - ``karpenter``: Karpenter's node pools and node classes, as constructs.
# - ``objects``: the headroom's constructs, which may emit or reference those pools.
# - ``cluster``: ``plan`` and ``status`` on a kubectl snapshot (no construct).
# - ``gitops``: the Argo CD and Flux objects that pull the manifests (no construct).
# - ``validate``: whether a folder of manifests would be accepted (no construct).
# - ``helm``: the chart generated from the constructs and rules.
# - ``cli``: the ``cdk8s-headroom`` command.
from typing import TYPE_CHECKING

from cdk8s_headroom._exports import lazy_module

# The public names, each declared once: type checkers read these imports, and
# `_exports` serves them lazily at run time (see its docstring for why).
if TYPE_CHECKING:
    from cdk8s_headroom.core.app_checks import validate_app as validate_app
    from cdk8s_headroom.core.synthesis import synth as synth
    from cdk8s_headroom.karpenter.disruption import BudgetNodes as BudgetNodes
    from cdk8s_headroom.karpenter.disruption import BudgetSchedule as BudgetSchedule
    from cdk8s_headroom.karpenter.disruption import ConsolidationPolicy as ConsolidationPolicy
    from cdk8s_headroom.karpenter.disruption import DisruptionBudget as DisruptionBudget
    from cdk8s_headroom.karpenter.disruption import DisruptionReason as DisruptionReason
    from cdk8s_headroom.karpenter.node_class import Ec2NodeClass as Ec2NodeClass
    from cdk8s_headroom.karpenter.node_class import NodeClassRef as NodeClassRef
    from cdk8s_headroom.karpenter.node_pool import KarpenterNodePool as KarpenterNodePool
    from cdk8s_headroom.karpenter.pool_ref import KarpenterNodePoolRef as KarpenterNodePoolRef
    from cdk8s_headroom.karpenter.pool_ref import NodePoolFlavour as NodePoolFlavour
    from cdk8s_headroom.objects.alerts import HeadroomAlerts as HeadroomAlerts
    from cdk8s_headroom.objects.app_runner import run_app as run_app
    from cdk8s_headroom.objects.burst import BurstWorkload as BurstWorkload
    from cdk8s_headroom.objects.burst import BurstWorkloadProps as BurstWorkloadProps
    from cdk8s_headroom.objects.burst import ImagePullPolicy as ImagePullPolicy
    from cdk8s_headroom.objects.capacity_buffer import BufferHold as BufferHold
    from cdk8s_headroom.objects.capacity_buffer import CapacityBuffer as CapacityBuffer
    from cdk8s_headroom.objects.capacity_buffer import CapacityBufferForm as CapacityBufferForm
    from cdk8s_headroom.objects.headroom import NodeHeadroom as NodeHeadroom
    from cdk8s_headroom.objects.headroom_charts import HeadroomCharts as HeadroomCharts
    from cdk8s_headroom.objects.headroom_charts import headroom_charts as headroom_charts
    from cdk8s_headroom.objects.headroom_cost import HeadroomSummary as HeadroomSummary
    from cdk8s_headroom.objects.namespace import HeadroomNamespace as HeadroomNamespace
    from cdk8s_headroom.objects.prepuller import ImagePrepuller as ImagePrepuller
    from cdk8s_headroom.objects.priority_classes import (
        HeadroomPriorityClasses as HeadroomPriorityClasses,
    )
    from cdk8s_headroom.objects.reserver import HeadroomReserver as HeadroomReserver
    from cdk8s_headroom.objects.workload import PlacementOptions as PlacementOptions
    from cdk8s_headroom.vocabulary.alert_rules import AlertSeverity as AlertSeverity
    from cdk8s_headroom.vocabulary.capacity_buffer_api import (
        CapacityBufferVersion as CapacityBufferVersion,
    )
    from cdk8s_headroom.vocabulary.errors import HeadroomConfigError as HeadroomConfigError
    from cdk8s_headroom.vocabulary.errors import HeadroomWarning as HeadroomWarning
    from cdk8s_headroom.vocabulary.node_pools import INodePool as INodePool
    from cdk8s_headroom.vocabulary.node_pools import NodePoolRef as NodePoolRef
    from cdk8s_headroom.vocabulary.node_share import NodeType as NodeType
    from cdk8s_headroom.vocabulary.node_sizes import NodeSize as NodeSize
    from cdk8s_headroom.vocabulary.placement import (
        DEFAULT_DEDICATED_TAINT as DEFAULT_DEDICATED_TAINT,
    )
    from cdk8s_headroom.vocabulary.placement import NodeSelectorOperator as NodeSelectorOperator
    from cdk8s_headroom.vocabulary.placement import (
        NodeSelectorRequirement as NodeSelectorRequirement,
    )
    from cdk8s_headroom.vocabulary.placement import Taint as Taint
    from cdk8s_headroom.vocabulary.placement import TaintEffect as TaintEffect
    from cdk8s_headroom.vocabulary.placement import Toleration as Toleration
    from cdk8s_headroom.vocabulary.placement import TolerationOperator as TolerationOperator
    from cdk8s_headroom.vocabulary.pod_security import PodSecurityControl as PodSecurityControl
    from cdk8s_headroom.vocabulary.priority_models import ModelClasses as ModelClasses
    from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy as PreemptionPolicy
    from cdk8s_headroom.vocabulary.priority_models import PriorityClassSpec as PriorityClassSpec
    from cdk8s_headroom.vocabulary.priority_models import PriorityModel as PriorityModel
    from cdk8s_headroom.vocabulary.reserver_task import HostPathMount as HostPathMount
    from cdk8s_headroom.vocabulary.reserver_task import ReserverTask as ReserverTask
    from cdk8s_headroom.vocabulary.reserver_task import TaskKind as TaskKind
    from cdk8s_headroom.vocabulary.rollout import UpdateStrategy as UpdateStrategy
    from cdk8s_headroom.vocabulary.schedule import HeadroomSchedule as HeadroomSchedule
    from cdk8s_headroom.vocabulary.schedule import HeadroomWindow as HeadroomWindow
    from cdk8s_headroom.vocabulary.schedule import OpenWindow as OpenWindow

__getattr__, __dir__ = lazy_module(__name__, __file__)

__version__ = "0.1.0"
