"""How kube-scheduler's default profile scores the nodes a pod fits on
(``pkg/scheduler/schedule_one.go`` ``prioritizeNodes``): the pod binds to the best, and
the scheduler picks at random among equal scores (``selectHost``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cdk8s_headroom.simulate.model import Node, Pod, Resources
from cdk8s_headroom.simulate.versions import KubernetesVersion
from cdk8s_headroom.vocabulary.placement import TaintEffect

if TYPE_CHECKING:
    from cdk8s_headroom.simulate.node_fit import NodeState

DEFAULT_MILLI_CPU_REQUEST = 100
"""``schedutil.DefaultMilliCPURequest``: what a pod without a cpu request counts as when
NodeResourcesFit scores nodes."""
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
"""``schedutil.DefaultMemoryRequest``, likewise for memory."""
MAX_NODE_SCORE = 100

TAINT_TOLERATION_WEIGHT = 3
NODE_RESOURCES_FIT_WEIGHT = 1
BALANCED_ALLOCATION_WEIGHT = 1
"""The default profile's score weights (``pkg/scheduler/apis/config/v1/default_plugins.go``).
The other score plugins give every node the same score for the pods modelled here: no
preferred affinity (NodeAffinity), no pod affinity (InterPodAffinity), no images on the
nodes (ImageLocality), no volumes (VolumeBinding), and spreading only for pods that a
Service or workload selects (PodTopologySpread's default constraints)."""


def _non_zero(requests: Resources) -> Resources:
    """``NonMissingContainerRequests`` per pod: a missing request counts as the default
    (the scheduler applies it per container; the model keeps the pod's sum only)."""
    return Resources(
        requests.cpu or DEFAULT_MILLI_CPU_REQUEST, requests.memory or DEFAULT_MEMORY_REQUEST
    )


def _least_allocated(request: Resources, state: NodeState) -> int:
    """NodeResourcesFit's default score (``least_allocated.go`` ``leastResourceScorer``):
    the free share left after the pod, averaged over cpu and memory (0-100), every pod
    counted with its non-zero requests."""
    pod = _non_zero(request)
    used = Resources()
    for other in state.pods:
        used += _non_zero(other.requests)
    total = weights = 0
    for capacity, requested in (
        (state.node.allocatable.cpu, used.cpu + pod.cpu),
        (state.node.allocatable.memory, used.memory + pod.memory),
    ):
        if capacity == 0:
            continue
        weights += 1
        if requested <= capacity:
            total += (capacity - requested) * MAX_NODE_SCORE // capacity
    return total // weights if weights else 0


def _balance(cpu: int, memory: int, node: Node) -> int:
    """``balancedResourceScore``: 100 times one minus half the gap between the cpu and
    memory shares (each capped at 1)."""
    fractions = [
        min(requested / capacity, 1.0)
        for requested, capacity in ((cpu, node.allocatable.cpu), (memory, node.allocatable.memory))
        if capacity
    ]
    deviation = abs(fractions[0] - fractions[1]) / 2 if len(fractions) == 2 else 0.0
    return int((1 - deviation) * MAX_NODE_SCORE)


def _balanced_allocation(request: Resources, state: NodeState, version: KubernetesVersion) -> int:
    """NodeResourcesBalancedAllocation (``balanced_allocation.go``
    ``balancedResourceScorer``), on the actual requests: the balance with the pod, or
    from 1.36 the change in balance the pod brings (``KubernetesVersion``)."""
    node = state.node
    with_pod = _balance(state.cpu + request.cpu, state.memory + request.memory, node)
    if not version.balanced_allocation_scores_the_change:
        return with_pod
    without_pod = _balance(state.cpu, state.memory, node)
    return MAX_NODE_SCORE // 2 + (MAX_NODE_SCORE // 2 + with_pod - without_pod) // 2


def _intolerable_prefer_no_schedule(pod: Pod, node: Node) -> int:
    """TaintToleration's raw score: the node's PreferNoSchedule taints that no
    toleration with that effect (or none) tolerates."""
    tolerations = [
        t
        for t in pod.placement.tolerations
        if t.effect is None or t.effect is TaintEffect.PREFER_NO_SCHEDULE
    ]
    return sum(
        1
        for taint in node.taints
        if taint.effect is TaintEffect.PREFER_NO_SCHEDULE
        and not any(t.tolerates(taint) for t in tolerations)
    )


def node_scores(version: KubernetesVersion, pod: Pod, feasible: Sequence[NodeState]) -> list[int]:
    """The default profile's weighted score of each feasible node
    (``schedule_one.go`` ``prioritizeNodes``), each plugin normalized as upstream."""
    taints = [_intolerable_prefer_no_schedule(pod, node.node) for node in feasible]
    most = max(taints, default=0)
    # DefaultNormalizeScore(MaxNodeScore, reverse=true)
    taint_scores = [
        MAX_NODE_SCORE - (MAX_NODE_SCORE * count // most if most else 0) for count in taints
    ]
    balanced = pod.requests.cpu > 0 or pod.requests.memory > 0  # best-effort pods skip it
    return [
        TAINT_TOLERATION_WEIGHT * taint_score
        + NODE_RESOURCES_FIT_WEIGHT * _least_allocated(pod.requests, node)
        + (
            BALANCED_ALLOCATION_WEIGHT * _balanced_allocation(pod.requests, node, version)
            if balanced
            else 0
        )
        for node, taint_score in zip(feasible, taint_scores, strict=True)
    ]
