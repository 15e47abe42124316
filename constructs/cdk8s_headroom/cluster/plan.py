"""``cdk8s-headroom plan``: what ``kubectl apply -f dist/`` will do to a real cluster.

On a snapshot of the cluster (``simulate.snapshot``), the simulator's engine places
each reserver DaemonSet of the manifests as the scheduler would, right after apply,
then lets the burst Deployments arrive (``simulate.report.whatif``). The report says,
per reserver, on which nodes the slice is held at once and why it waits on the others;
which of the cluster's classes can still preempt a reserver; which classes conflict
with the manifests'; and the verdict on P1-P3. docs/plan-status.md has the JSON schema.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from cdk8s_headroom.cluster.not_modelled import NotModelled, not_modelled_json, render_notes
from cdk8s_headroom.cluster.plan_room import (
    SHOWN_HOLDERS,
    BufferPlan,
    ZoneRoom,
    buffer_plans,
    zone_room,
)
from cdk8s_headroom.cluster.snapshot import Snapshot
from cdk8s_headroom.cluster.unmatched_selector import UnmatchedSelector, unmatched_selector
from cdk8s_headroom.simulate.daemon_targets import (
    NotTargeted,
    daemon_pod_placement,
    daemon_targets,
    render_not_targeted,
)
from cdk8s_headroom.simulate.manifests import Manifests
from cdk8s_headroom.simulate.model import Node, Pod, Resources, Role
from cdk8s_headroom.simulate.node_fit import NodeState, resource_status
from cdk8s_headroom.simulate.report import (
    WhatIfReport,
    describe,
    resources_json,
    resources_text,
    whatif,
)
from cdk8s_headroom.simulate.scheduler import ClusterState
from cdk8s_headroom.simulate.versions import KubernetesVersion, release_warnings, rules_release
from cdk8s_headroom.simulate.whatif import Event, Verdict
from cdk8s_headroom.simulate.workloads import ClassRegistry, Workload
from cdk8s_headroom.vocabulary.errors import shown
from cdk8s_headroom.vocabulary.node_pools import KARPENTER_NODEPOOL_LABEL
from cdk8s_headroom.vocabulary.priority_models import (
    SYSTEM_PRIORITY_CLASSES,
    PreemptionPolicy,
    PriorityClassSpec,
)

NO_CLASS_NAME = "(no priorityClassName)"


@dataclass(frozen=True)
class PendingNode:
    """A target node where the reserver waits right after apply, and why."""

    node: str
    reason: str
    """``room`` (too little free cpu or memory) or ``pods`` (too many pods). A node
    with a taint the reserver does not tolerate is no target: the DaemonSet controller
    creates no pod there (``NotTargeted``)."""
    detail: str
    """One line with exact quantities, for ``--json``; the table prints ``text``."""
    free: Resources
    holders: tuple[str, ...] = ()
    """The pods on the node, largest request first: who holds the room."""
    karpenter: bool = False
    """The node carries ``karpenter.sh/nodepool``: Karpenter launched it."""
    text: str = ""
    """``detail`` in the units people write (``memory_for_people``); default: ``detail``."""

    def to_json(self) -> dict[str, object]:
        return {
            "node": self.node,
            "reason": self.reason,
            "detail": self.detail,
            "free": resources_json(self.free),
            "holders": list(self.holders),
        }


@dataclass(frozen=True)
class EstablishedNode:
    """A node where the reserver runs right after apply."""

    node: str
    evicts: tuple[str, ...] = ()
    """Pods it preempts to get there (a ``PreemptLowerPriority`` reserver, e.g. SEED)."""
    cordoned: bool = False
    """DaemonSet pods tolerate ``node.kubernetes.io/unschedulable``, so a cordoned node
    gets a reserver too, while it is drained."""

    def to_json(self) -> dict[str, object]:
        return {"node": self.node, "evicts": list(self.evicts), "cordoned": self.cordoned}


@dataclass(frozen=True)
class ReserverPlan:
    """One reserver DaemonSet of the manifests, on the snapshot."""

    name: str
    slice: Resources
    priority_class: PriorityClassSpec
    target_nodes: tuple[str, ...]
    """The nodes the DaemonSet controller puts a reserver on (``daemon_targets``)."""
    established: tuple[EstablishedNode, ...]
    pending: tuple[PendingNode, ...]
    not_targeted: tuple[NotTargeted, ...] = ()
    """The other nodes, each with the selector or taints that leave them out: no
    reserver is created there, so none is pending."""
    unmatched: UnmatchedSelector | None = None
    """Set when the selector matches no node of the snapshot: the run fails."""

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "slice": resources_json(self.slice),
            "priority_class": _class_json(self.priority_class),
            "target_nodes": list(self.target_nodes),
            "established": [node.to_json() for node in self.established],
            "pending": [node.to_json() for node in self.pending],
            "not_targeted": [node.to_json() for node in self.not_targeted],
            "unmatched_selector": None if self.unmatched is None else self.unmatched.to_json(),
        }


@dataclass(frozen=True)
class Threat:
    """A class of the cluster whose pods can preempt a reserver and take its slice."""

    priority_class: PriorityClassSpec
    pods: int
    namespaces: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            **_class_json(self.priority_class),
            "pods": self.pods,
            "namespaces": list(self.namespaces),
        }


@dataclass(frozen=True)
class Conflict:
    """A class of the cluster that makes ``kubectl apply`` of a manifest class fail."""

    name: str
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "reason": self.reason}


@dataclass(frozen=True)
class PlanReport:
    kubernetes_version: KubernetesVersion
    version_from: str
    reservers: tuple[ReserverPlan, ...]
    threats: tuple[Threat, ...]
    conflicts: tuple[Conflict, ...]
    whatif: WhatIfReport
    warnings: tuple[str, ...] = ()
    not_modelled: Mapping[NotModelled, list[str]] = field(default_factory=dict)
    buffers: tuple[BufferPlan, ...] = ()
    """Each CapacityBuffer of the manifests, after the reservers are placed."""
    zones: tuple[ZoneRoom, ...] = ()
    """The room held per zone after apply: slices and buffer placeholders."""

    @property
    def pending_count(self) -> int:
        return sum(len(reserver.pending) for reserver in self.reservers)

    def failures(self, max_pending: int) -> list[str]:
        """Each condition that fails the run, as a clause of the one line the command
        ends with, naming the flag that relaxes it, or that none does: a reserver's
        selector matches no node; a promise breaks; a class conflicts with the
        cluster's (the API server refuses a second default class and a changed value:
        the apply fails); more target nodes wait than ``max_pending`` allows."""
        failed = [
            f"{reserver.name}: {reserver.unmatched.reason} (no flag relaxes it: fix the "
            "node pool or selector)"
            for reserver in self.reservers
            if reserver.unmatched is not None
        ]
        broken = [verdict.promise for verdict in self.whatif.verdicts if verdict.holds is False]
        if broken:
            failed.append(f"{' and '.join(broken)} broken (no flag relaxes it)")
        if self.conflicts:
            names = ", ".join(conflict.name for conflict in self.conflicts)
            classes = (
                "1 class conflicts"
                if len(self.conflicts) == 1
                else f"{len(self.conflicts)} classes conflict"
            )
            failed.append(
                f"{classes} with the cluster's, so apply fails: {names} (no flag relaxes it)"
            )
        if self.pending_count > max_pending:
            nodes = (
                "1 target node waits for its slice"
                if self.pending_count == 1
                else f"{self.pending_count} target nodes wait for their slices"
            )
            failed.append(f"{nodes}, more than --max-pending {max_pending}")
        return failed

    def exit_status(self, max_pending: int) -> int:
        """1 when any of ``failures`` holds; else 0."""
        return 1 if self.failures(max_pending) else 0

    def to_json(self) -> dict[str, object]:
        whatif = self.whatif.to_json()
        return {
            "kubernetes_version": str(self.kubernetes_version),
            "kubernetes_version_from": self.version_from,
            "reservers": [reserver.to_json() for reserver in self.reservers],
            "buffers": [buffer.to_json() for buffer in self.buffers],
            "zones": [zone.to_json() for zone in self.zones],
            "threats": [threat.to_json() for threat in self.threats],
            "conflicts": [conflict.to_json() for conflict in self.conflicts],
            "bursts": {
                "arrivals": whatif["arrivals"],
                "recreations": whatif["recreations"],
                "verdict": whatif["verdict"],
            },
            "not_modelled": not_modelled_json(self.not_modelled),
            "warnings": list(self.warnings),
        }

    def render(self) -> str:
        lines = [
            f"Kubernetes {self.kubernetes_version} ({self.version_from}), "
            f"rules of {rules_release(self.kubernetes_version)}"
        ]
        for reserver in self.reservers:
            lines += _render_reserver(reserver)
        if self.buffers:
            lines.append(f"Buffers: room the autoscaler keeps free ({len(self.buffers)})")
            lines += [f"  {buffer.render()}" for buffer in self.buffers]
        lines.append(f"Held room per zone ({len(self.zones)})")
        lines += [f"  {zone.render()}" for zone in self.zones]
        lines.append(f"Threats: classes that can preempt a reserver ({len(self.threats)})")
        lines += [f"  {_describe_threat(threat)}" for threat in self.threats]
        lines.append(f"Conflicts with the cluster's classes ({len(self.conflicts)})")
        lines += [f"  {conflict.name}: {conflict.reason}" for conflict in self.conflicts]
        arrivals = self.whatif.arrivals
        lines.append(f"Burst arrivals on the cluster as it is ({len(arrivals)})")
        lines += [f"  {describe(event)}" for event in arrivals]
        recreations = self.whatif.recreations
        if recreations:
            lines.append(f"Recreated pods ({len(recreations)})")
            lines += [f"  {describe(event)}" for event in recreations]
        lines.append("Verdict")
        lines += [f"  {_describe_verdict(verdict)}" for verdict in self.whatif.verdicts]
        lines += render_notes(self.not_modelled, self.warnings)
        return "\n".join(lines)


def _render_reserver(reserver: ReserverPlan) -> list[str]:
    info = reserver.priority_class
    lines = [
        f"Reserver {reserver.name}: slice {resources_text(reserver.slice)}, class {info.name} "
        f"({info.value}, {info.preemption_policy.value})",
        f"  target nodes: {len(reserver.target_nodes)}; established right after apply: "
        f"{len(reserver.established)}; pending: {len(reserver.pending)}; "
        f"not targeted: {len(reserver.not_targeted)}",
    ]
    if reserver.unmatched is not None:
        lines.append(f"  no target: {reserver.unmatched.reason}")
    for node in reserver.established:
        notes = []
        if node.evicts:
            notes.append(f"evicts {', '.join(node.evicts)}")
        if node.cordoned:
            notes.append("cordoned: the reserver runs there while the node is drained")
        if notes:
            lines.append(f"  established {node.node}: {'; '.join(notes)}")
    for waiting in reserver.pending:
        lines.append(f"  pending {waiting.node}: {waiting.text or waiting.detail}")
        if waiting.holders:
            named = ", ".join(waiting.holders[:SHOWN_HOLDERS])
            more = len(waiting.holders) - SHOWN_HOLDERS
            lines.append(
                f"    held by (largest first): {named}" + (f" and {more} more" if more > 0 else "")
            )
    if reserver.pending and info.preemption_policy is PreemptionPolicy.NEVER:
        lines.append(f"  {_never_advice(reserver.pending)}")
    lines += render_not_targeted(reserver.not_targeted)
    return lines


def _never_advice(pending: Iterable[PendingNode]) -> str:
    """Where a Never reserver's slice comes from: Karpenter's nodes are replaced
    (consolidation, drift, expiry) and sized for their DaemonSets; other nodes only
    free room as their pods leave."""
    waiting = list(pending)
    karpenter = [node.node for node in waiting if node.karpenter]
    others = len(waiting) - len(karpenter)
    parts = []
    if karpenter:
        parts.append(
            "Karpenter adds no node for a pending DaemonSet pod, and sizes the nodes it "
            f"launches for their DaemonSets: on its {len(karpenter)} node(s) the slice "
            "appears as they are replaced"
        )
    if others:
        where = f"on the other {others} node(s) it" if karpenter else "the slice"
        parts.append(f"{where} appears when pods leave and free the room")
    return "a Never reserver evicts nobody; " + "; ".join(parts)


def _class_json(info: PriorityClassSpec) -> dict[str, object]:
    return {
        "name": info.name or NO_CLASS_NAME,
        "value": info.value,
        "preemption_policy": info.preemption_policy.value,
    }


def _describe_threat(threat: Threat) -> str:
    info = threat.priority_class
    where = f" in {', '.join(threat.namespaces)}" if threat.namespaces else ""
    return (
        f"{info.name or NO_CLASS_NAME} ({info.value}, {info.preemption_policy.value}): "
        f"{threat.pods} pod(s){where}"
    )


def _describe_verdict(verdict: Verdict) -> str:
    return f"{verdict.promise} {verdict.label}: {verdict.reason}"


def holders(state: NodeState) -> tuple[str, ...]:
    """The pods on a node, largest share of its allocatable first."""
    node = state.node.allocatable

    def share(pod: Pod) -> float:
        cpu = pod.requests.cpu / node.cpu if node.cpu else 0.0
        memory = pod.requests.memory / node.memory if node.memory else 0.0
        return max(cpu, memory)

    ranked = sorted(state.pods, key=share, reverse=True)
    return tuple(f"{pod.namespace}/{pod.name}" for pod in ranked)


def _pending(state: ClusterState, event: Event) -> PendingNode:
    pod = event.pod
    node_name = pod.placement.pinned_node or ""
    node = state.get(node_name)
    assert node is not None, "a DaemonSet pod is pinned to a node of the state"
    free = node.free
    reasons = resource_status(pod.requests, node)[1]
    karpenter = KARPENTER_NODEPOOL_LABEL in node.node.labels
    if reasons == ["Too many pods"]:
        detail = f"too many pods: {len(node.pods)} of {node.node.max_pods}"
        return PendingNode(node_name, "pods", detail, free, holders(node), karpenter)
    why = ", ".join(reasons).lower() or event.decision.reason

    def room(text: Callable[[Resources], str]) -> str:
        return f"free {text(free)}; the slice needs {text(pod.requests)}: {why}"

    return PendingNode(
        node_name, "room", room(_exact_text), free, holders(node), karpenter, room(resources_text)
    )


def _exact_text(resources: Resources) -> str:
    """As ``resources_text``, with the exact quantities of ``resources_json``."""
    exact = resources_json(resources)
    return f"{exact['cpu']} cpu, {exact['memory']} memory"


def _plan_reserver(
    daemonset: Workload,
    events: list[Event],
    state: ClusterState,
    nodes: list[Node],
    classes: ClassRegistry,
    cordoned: set[str],
) -> ReserverPlan:
    placement = daemon_pod_placement(daemonset.template.placement)
    targets = daemon_targets(placement, nodes)
    established = []
    pending = []
    by_node = {event.pod.placement.pinned_node: event for event in events}
    for node in targets.nodes:
        event = by_node[node.name]
        if event.decision.node is None:
            pending.append(_pending(state, event))
        else:
            established.append(
                EstablishedNode(
                    node.name,
                    tuple(f"{v.namespace}/{v.name}" for v in event.victims),
                    node.name in cordoned,
                )
            )
    return ReserverPlan(
        name=daemonset.ref.removeprefix("DaemonSet "),
        slice=daemonset.template.requests,
        priority_class=classes.resolve(daemonset.template.class_name, where=daemonset.ref),
        target_nodes=targets.names,
        established=tuple(established),
        pending=tuple(pending),
        not_targeted=targets.not_targeted,
        unmatched=unmatched_selector(placement, targets, nodes),
    )


def _registry(manifests: Manifests, snapshot: Snapshot) -> tuple[ClassRegistry, list[Conflict]]:
    """The classes after apply, and the manifests' classes that apply cannot create.

    A class's value and policy are immutable, and a cluster holds one globalDefault
    class, so where the manifests clash with the cluster, the cluster's class stays:
    the what-if runs with it, and the reservers and bursts get its value."""
    registry = ClassRegistry()
    registry.update(snapshot.classes)
    existing = {info.name: info for info, _ in snapshot.classes}
    existing_default = next((i for i in existing.values() if i.global_default), None)
    conflicts = []
    for info, where in manifests.classes:
        theirs = existing.get(info.name)
        if theirs is not None:
            if (theirs.value, theirs.preemption_policy) != (info.value, info.preemption_policy):
                conflicts.append(
                    Conflict(
                        info.name,
                        f"the cluster has it with value {theirs.value} and "
                        f"{theirs.preemption_policy.value}, the manifests with {info.value} "
                        f"and {info.preemption_policy.value}; both are immutable, so apply "
                        "fails: delete the cluster's class first, or rename the manifests'",
                    )
                )
            continue
        if info.global_default and existing_default is not None:
            conflicts.append(
                Conflict(
                    info.name,
                    f"the cluster's class {existing_default.name} is already globalDefault "
                    "and a cluster holds one, so apply fails: pass create_default_class=False "
                    f"and default_class_name={shown(existing_default.name)}",
                )
            )
            continue
        registry.add(info, where=where)
    return registry, conflicts


def _threats(
    manifests: Manifests, snapshot: Snapshot, classes: ClassRegistry, headroom: int
) -> list[Threat]:
    emitted = {info.name for info, _ in manifests.classes}
    pods: dict[str, list[Pod]] = {}
    for pod in [*snapshot.bound, *snapshot.waiting]:
        pods.setdefault(pod.class_name, []).append(pod)
    threats = []
    candidates = [classes.resolve(name, where="plan") for name in classes.names()]
    default = classes.default
    if not default.name:
        candidates.append(default)
    for info in candidates:
        if info.name in emitted and info.name:
            continue
        if info.value <= headroom or info.preemption_policy is PreemptionPolicy.NEVER:
            continue
        using = pods.get(info.name, [])
        threats.append(Threat(info, len(using), tuple(sorted({pod.namespace for pod in using}))))
    threats.sort(key=lambda threat: (-threat.priority_class.value, threat.priority_class.name))
    return threats


def _ordinary_classes(snapshot: Snapshot, classes: ClassRegistry) -> list[PriorityClassSpec]:
    """The classes new ordinary pods get after apply: their own class, or the default
    class for pods without one (admission resolves it when they are recreated). System
    classes are not ordinary workloads': they are listed among the threats."""
    known = set(classes.names()) - {spec.name for spec in SYSTEM_PRIORITY_CLASSES}
    seen = [classes.default]
    for pod in snapshot.bound:
        if pod.role is not Role.ORDINARY:
            continue
        if pod.class_name in known:
            seen.append(classes.resolve(pod.class_name, where="plan"))
        elif not pod.class_name:
            seen.append(classes.default)
    return list(dict.fromkeys(seen))


def plan(
    manifests: Manifests,
    snapshot: Snapshot,
    *,
    version: KubernetesVersion,
    version_from: str,
    bursts: Mapping[str, int] | None = None,
) -> PlanReport:
    """What apply does on the snapshot's cluster, per reserver, and the burst what-if."""
    classes, conflicts = _registry(manifests, snapshot)
    # Reservers of an earlier apply are replaced by the manifests' own.
    state = snapshot.state(
        version, without_owners={daemonset.ref for daemonset in manifests.daemonsets}
    )
    reservers: list[ReserverPlan] = []

    def judge_establishment(established: ClusterState, events: list[Event]) -> None:
        by_owner: dict[str, list[Event]] = {}
        for event in events:
            by_owner.setdefault(event.pod.owner, []).append(event)
        reservers.extend(
            _plan_reserver(
                daemonset,
                by_owner.get(daemonset.ref, []),
                established,
                snapshot.nodes,
                classes,
                snapshot.cordoned,
            )
            for daemonset in manifests.daemonsets
        )

    report = whatif(
        state,
        classes,
        manifests,
        bursts,
        ordinary=_ordinary_classes(snapshot, classes),
        on_established=judge_establishment,
    )
    held_buffers = tuple(buffer_plans(manifests.buffers, report.buffers))
    lowest = min((r.priority_class.value for r in reservers), default=None)
    threats = [] if lowest is None else _threats(manifests, snapshot, classes, lowest)
    return PlanReport(
        kubernetes_version=version,
        version_from=version_from,
        reservers=tuple(reservers),
        threats=tuple(threats),
        conflicts=tuple(conflicts),
        whatif=report,
        warnings=(*snapshot.warnings, *manifests.warnings, *release_warnings(version)),
        not_modelled=snapshot.not_modelled,
        buffers=held_buffers,
        zones=zone_room(snapshot.nodes, _held_slices(reservers), held_buffers),
    )


def _held_slices(reservers: Iterable[ReserverPlan]) -> dict[str, list[Resources]]:
    """The slices held on each node right after apply."""
    held: dict[str, list[Resources]] = {}
    for reserver in reservers:
        for node in reserver.established:
            held.setdefault(node.node, []).append(reserver.slice)
    return held
