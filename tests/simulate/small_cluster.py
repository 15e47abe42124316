"""Small clusters for the scheduler's tests: nodes of 1 CPU / 1000 bytes unless a test
says otherwise, and pods whose one ``size`` is both their millicores and their bytes."""

from __future__ import annotations

from cdk8s_headroom.simulate import (
    ClusterState,
    DisruptionBudget,
    Node,
    Placement,
    Pod,
    Resources,
)
from cdk8s_headroom.simulate.model import LabelSelector
from cdk8s_headroom.vocabulary.placement import Taint
from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy

NEVER = PreemptionPolicy.NEVER
LOWER = PreemptionPolicy.PREEMPT_LOWER_PRIORITY


def node(
    name: str,
    cpu: int = 1000,
    *,
    pods: int = 110,
    labels: dict[str, str] | None = None,
    taints: tuple[Taint, ...] = (),
) -> Node:
    return Node(name, Resources(cpu, cpu), pods, labels or {}, taints)


def pod(
    name: str,
    size: int,
    priority: int = 0,
    *,
    start: int | None = 0,
    policy: PreemptionPolicy = LOWER,
    placement: Placement | None = None,
    nominated_node: str | None = None,
    terminating_by_preemption: bool = False,
) -> Pod:
    return Pod(
        name,
        "default",
        priority,
        policy,
        Resources(size, size),
        start_time=start,
        placement=placement or Placement(),
        nominated_node=nominated_node,
        terminating_by_preemption=terminating_by_preemption,
    )


def cluster(
    nodes: list[Node], bound: dict[str, list[Pod]], pdbs: tuple[DisruptionBudget, ...] = ()
) -> ClusterState:
    state = ClusterState(nodes, pdbs)
    for name, pods in bound.items():
        for p in pods:
            state.bind(p, name)
    return state


def names(pods: tuple[Pod, ...] | list[Pod]) -> list[str]:
    return [p.name for p in pods]


def web_pod(name: str, start: int, namespace: str = "default") -> Pod:
    """A pod of 500 labelled ``app: web``, which ``WEB_BUDGET`` selects."""
    return Pod(name, namespace, 0, LOWER, Resources(500, 500), {"app": "web"}, start_time=start)


WEB_BUDGET = LabelSelector((("app", "web"),))
