"""``cdk8s-headroom status``: is the headroom really there?

A slice can be gone for two reasons that look alike in ``kubectl get pods``: a burst
pod holds it (the reserver waits, as designed), or ordinary pods took it (Karpenter
sizes a new node for its DaemonSets but does not hold that room, and GUARDED's
free-capacity race lets pending ordinary pods take a freed slice). On a snapshot,
per headroom (the pods labelled ``app.kubernetes.io/component=headroom-reserver``,
grouped by their DaemonSet), this tells them apart on the DaemonSet's target nodes
(``simulate.daemon_targets``): ``held``, ``in_use``, ``eroded`` (with the pods that
took the room, newest first) and ``missing``. A reserver on a node that is no longer a
target is ``misscheduled`` (an untolerated NoSchedule taint: it keeps running and
holding room) or ``being_removed`` (the selector no longer matches, or an untolerated
NoExecute taint: the controller deletes it), as the DaemonSet controller counts them.
docs/plan-status.md has the JSON schema.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone

from cdk8s_headroom.cluster.not_modelled import NotModelled, not_modelled_json, render_notes
from cdk8s_headroom.cluster.reported_status import BufferStatus, DaemonSetCounts, PreemptionEvent
from cdk8s_headroom.cluster.snapshot import Snapshot
from cdk8s_headroom.cluster.unmatched_selector import UnmatchedSelector, unmatched_selector
from cdk8s_headroom.cluster.windows import WindowsReport, status_windows
from cdk8s_headroom.simulate.daemon_targets import (
    NotTargeted,
    daemon_pod_placement,
    daemon_pod_tolerations,
    daemon_targets,
    render_not_targeted,
)
from cdk8s_headroom.simulate.manifests import Manifests
from cdk8s_headroom.simulate.model import Node, Pod, Resources, Role
from cdk8s_headroom.simulate.node_fit import NodeState, fits
from cdk8s_headroom.simulate.report import Usage, resources_json, resources_text
from cdk8s_headroom.simulate.scheduler import ClusterState
from cdk8s_headroom.simulate.versions import KubernetesVersion, release_warnings, rules_release
from cdk8s_headroom.simulate.whatif import usage_by_role
from cdk8s_headroom.vocabulary.labels import WINDOW_LABEL
from cdk8s_headroom.vocabulary.placement import Placement

SHOWN_EVENTS = 20
"""Preempted events the table shows, newest first (``--json`` has them all)."""


@dataclass(frozen=True)
class InUseNode:
    """A node where a burst pod holds the slice and the reserver waits."""

    node: str
    burst_pods: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"node": self.node, "burst_pods": list(self.burst_pods)}


@dataclass(frozen=True)
class ErodedNode:
    """A node where the reserver waits and no burst pod runs: others took the room."""

    node: str
    free: Resources
    taken_by: tuple[str, ...]
    """The newest pods on the node whose room the reserver needs, newest first."""

    def to_json(self) -> dict[str, object]:
        return {
            "node": self.node,
            "free": resources_json(self.free),
            "taken_by": list(self.taken_by),
        }


@dataclass(frozen=True)
class OffTargetNode:
    """A node the DaemonSet no longer targets, where one of its reservers still is."""

    node: str
    pod: str
    """The reserver, ``namespace/name``."""
    detail: str
    """What excludes the node (``NotTargeted.detail``)."""
    bound: bool
    """The reserver runs there, holding its slice; else it waits, holding nothing."""

    def to_json(self) -> dict[str, object]:
        return {"node": self.node, "pod": self.pod, "detail": self.detail, "bound": self.bound}


@dataclass(frozen=True)
class HeadroomStatus:
    name: str
    """The reservers' DaemonSet, ``namespace/name``."""
    slice: Resources
    target_nodes: tuple[str, ...]
    """The nodes the DaemonSet controller puts a reserver on (``daemon_targets``)."""
    held: tuple[str, ...]
    """Target nodes where a reserver runs."""
    in_use: tuple[InUseNode, ...]
    eroded: tuple[ErodedNode, ...]
    missing: tuple[str, ...]
    misscheduled: tuple[OffTargetNode, ...] = ()
    """Reservers on nodes with an untolerated NoSchedule taint: the controller leaves
    them running (``numberMisscheduled``), and creates none there once they are gone."""
    being_removed: tuple[OffTargetNode, ...] = ()
    """Reservers on nodes the selector no longer matches, or with an untolerated
    NoExecute taint: the controller deletes them."""
    not_targeted: tuple[NotTargeted, ...] = ()
    """The nodes that are no targets, with the selector or taints that leave them out:
    never missing."""
    unmatched: UnmatchedSelector | None = None
    """Set when the selector matches no node of the snapshot: the run fails."""
    controller: DaemonSetCounts | None = None
    """The DaemonSet controller's own counts, when the DaemonSet was listed (always when
    status reads the cluster): beside the verdicts above, as ``kubectl get ds`` shows
    them."""

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "slice": resources_json(self.slice),
            "target_nodes": list(self.target_nodes),
            "held": list(self.held),
            "in_use": [node.to_json() for node in self.in_use],
            "eroded": [node.to_json() for node in self.eroded],
            "missing": list(self.missing),
            "misscheduled": [node.to_json() for node in self.misscheduled],
            "being_removed": [node.to_json() for node in self.being_removed],
            "not_targeted": [node.to_json() for node in self.not_targeted],
            "unmatched_selector": None if self.unmatched is None else self.unmatched.to_json(),
            "controller": None if self.controller is None else self.controller.to_json(),
        }


@dataclass(frozen=True)
class StatusReport:
    kubernetes_version: KubernetesVersion
    version_from: str
    headrooms: tuple[HeadroomStatus, ...]
    events: tuple[PreemptionEvent, ...]
    """``Preempted`` events, newest first."""
    usage: Usage
    """Per node and role, what the pods request now (for ``--plot``)."""
    allocatable: Mapping[str, Resources]
    warnings: tuple[str, ...] = ()
    not_modelled: Mapping[NotModelled, list[str]] = field(default_factory=dict)
    waiting_bursts: tuple[str, ...] = ()
    """Burst pods (``namespace/name``) that no node holds yet: what a headroom exists to
    prevent."""
    buffers: tuple[BufferStatus, ...] = ()
    """The CapacityBuffers listed, as the autoscaler reports them."""
    windows: WindowsReport | None = None
    """The time windows in force, by their pods (``cluster/windows.py``); ``None``
    when neither the cluster nor the manifests have one."""

    @property
    def lost_count(self) -> int:
        """Target nodes where no slice is held and no burst uses it."""
        return sum(len(h.eroded) + len(h.missing) for h in self.headrooms)

    def failures(self, max_pending: int) -> list[str]:
        """Each condition that fails the run, as a clause of the one line the command
        ends with, naming the flag that relaxes it, or that none does: no headroom is
        found; a headroom's selector matches no node; more target nodes are eroded or
        missing their reserver than ``max_pending`` allows."""
        if not self.headrooms and self.windows is None:
            return [
                "no headroom: no pod is labelled app.kubernetes.io/component=headroom-reserver "
                "(no flag relaxes it; --manifests names the headrooms to look for)"
            ]
        failed = [
            f"{headroom.name}: {headroom.unmatched.reason} (no flag relaxes it: fix the "
            "node pool or selector)"
            for headroom in self.headrooms
            if headroom.unmatched is not None
        ]
        if self.lost_count > max_pending:
            nodes = (
                "1 target node is"
                if self.lost_count == 1
                else f"{self.lost_count} target nodes are"
            )
            failed.append(
                f"{nodes} eroded or missing their reserver, more than --max-pending {max_pending}"
            )
        return failed

    def exit_status(self, max_pending: int) -> int:
        """1 when any of ``failures`` holds; else 0."""
        return 1 if self.failures(max_pending) else 0

    def plot_marks(self) -> dict[str, str]:
        """The nodes ``--plot`` marks: eroded or missing on some headroom, else not
        targeted by any."""
        marks: dict[str, str] = {}
        for headroom in self.headrooms:
            marks.update((node.node, "eroded") for node in headroom.eroded)
            marks.update((node, "missing") for node in headroom.missing)
        excluded = [{n.node for n in h.not_targeted} for h in self.headrooms]
        for node in set.intersection(*excluded) if excluded else set():
            marks.setdefault(node, "not targeted")
        return marks

    def to_json(self) -> dict[str, object]:
        return {
            "kubernetes_version": str(self.kubernetes_version),
            "kubernetes_version_from": self.version_from,
            "headrooms": [headroom.to_json() for headroom in self.headrooms],
            "events": [
                {
                    "namespace": e.namespace,
                    "pod": e.pod,
                    "time": e.time,
                    "count": e.count,
                    "message": e.message,
                }
                for e in self.events
            ],
            "waiting_bursts": list(self.waiting_bursts),
            "buffers": [buffer.to_json() for buffer in self.buffers],
            "windows": None if self.windows is None else self.windows.to_json(),
            "not_modelled": not_modelled_json(self.not_modelled),
            "warnings": list(self.warnings),
        }

    def render(self) -> str:
        lines = [
            f"Kubernetes {self.kubernetes_version} ({self.version_from}), "
            f"rules of {rules_release(self.kubernetes_version)}"
        ]
        if not self.headrooms and self.windows is None:
            lines.append(
                "No headroom: no pod is labelled app.kubernetes.io/component=headroom-reserver"
            )
        for headroom in self.headrooms:
            lines += _render_headroom(headroom)
        if self.windows is not None:
            lines.append(self.windows.render())
        for buffer in self.buffers:
            replicas = "none reported" if buffer.replicas is None else str(buffer.replicas)
            conditions = "; ".join(
                f"{kind}={state}" + (f" ({message})" if message else "")
                for kind, state, message in buffer.conditions
            )
            lines.append(
                f"CapacityBuffer {buffer.name}: replicas {replicas}"
                + (f"; {conditions}" if conditions else "; no conditions yet")
            )
        if self.waiting_bursts:
            lines.append(
                f"Burst pods waiting ({len(self.waiting_bursts)}): "
                + ", ".join(self.waiting_bursts)
            )
        if self.events:
            lines.append(f"Preempted events ({len(self.events)}, newest first)")
            for event in self.events[:SHOWN_EVENTS]:
                count = f" (x{event.count})" if event.count > 1 else ""
                lines.append(
                    f"  {event.time or '(no time)'} {event.namespace}/{event.pod}{count}: "
                    f"{event.message}"
                )
            if len(self.events) > SHOWN_EVENTS:
                lines.append(f"  ... {len(self.events) - SHOWN_EVENTS} more (--json)")
        lines += render_notes(self.not_modelled, self.warnings)
        return "\n".join(lines)


def _render_headroom(headroom: HeadroomStatus) -> list[str]:
    lines = [
        f"Headroom {headroom.name}: slice {resources_text(headroom.slice)}, "
        f"{len(headroom.target_nodes)} target nodes",
        f"  held: {len(headroom.held)}; in use by a burst: {len(headroom.in_use)}; "
        f"eroded: {len(headroom.eroded)}; missing: {len(headroom.missing)}; "
        f"misscheduled: {len(headroom.misscheduled)}; "
        f"being removed: {len(headroom.being_removed)}; "
        f"not targeted: {len(headroom.not_targeted)}",
    ]
    if headroom.controller is not None:
        counts = headroom.controller
        lines.append(
            f"  the DaemonSet controller says: desired {counts.desired}, current "
            f"{counts.current}, ready {counts.ready}, misscheduled {counts.misscheduled}"
        )
    if headroom.unmatched is not None:
        lines.append(f"  no target: {headroom.unmatched.reason}")
    for in_use in headroom.in_use:
        lines.append(f"  in use {in_use.node}: {', '.join(in_use.burst_pods)}")
    for eroded in headroom.eroded:
        takers = ", ".join(eroded.taken_by) or "nobody: the slice is larger than the node"
        lines.append(
            f"  eroded {eroded.node}: free {resources_text(eroded.free)}; taken by {takers}"
        )
    for missing in headroom.missing:
        lines.append(f"  missing {missing}: no reserver pod")
    for off in headroom.misscheduled:
        holds = "runs and holds its slice" if off.bound else "waits and holds nothing"
        lines.append(
            f"  misscheduled {off.node}: {off.pod} {holds}; {off.detail}: the DaemonSet "
            "controller creates no reserver there once it is gone"
        )
    for off in headroom.being_removed:
        lines.append(
            f"  being removed {off.node}: {off.pod}; {off.detail}: the DaemonSet "
            "controller deletes it"
        )
    lines += render_not_targeted(headroom.not_targeted)
    return lines


def _taken_by(state: NodeState, slice_size: Resources) -> tuple[str, ...]:
    """The newest pods whose room the reserver needs: removed newest first until the
    reserver fits (``node_fit.fits``: pods, CPU, memory and the devices it asks for). An
    unstarted pod counts as the newest (``GetPodStartTime``). A pod that requests
    nothing (the image pre-puller, started anew by every image release) is blamed only
    when the node is short of pods."""
    cpu, memory, count = state.cpu, state.memory, len(state.pods)
    devices = state.devices
    taken = []
    for pod in sorted(state.pods, key=lambda pod: pod.start_or_now, reverse=True):
        if fits(slice_size, state.node, cpu, memory, count, devices):
            break
        pods_short = count + 1 > state.node.max_pods
        requests = pod.requests
        if not pods_short and not (requests.cpu or requests.memory or requests.extended):
            continue
        taken.append(f"{pod.namespace}/{pod.name}")
        cpu -= requests.cpu
        memory -= requests.memory
        if requests.extended:
            devices -= Resources(extended=requests.extended)
        count -= 1
    return tuple(taken)


def _template_placement(reservers: list[Pod], manifests: Manifests | None, owner: str) -> Placement:
    """Where the DaemonSet puts its pods: its template from the manifests when given;
    else a reserver pod's node selector and tolerations (the controller replaces the
    template's node affinity with the pod's own node, so that is lost; the pod carries
    the tolerations the controller added, ``hostNetwork``'s included)."""
    if manifests is not None:
        for daemonset in manifests.daemonsets:
            if daemonset.ref == owner:
                return daemon_pod_placement(daemonset.template.placement)
    sample = reservers[0].placement
    return Placement(sample.node_selector, None, daemon_pod_tolerations(sample.tolerations))


def _headroom(
    owner: str,
    reservers: list[Pod],
    state: ClusterState,
    nodes: list[Node],
    manifests: Manifests | None,
    bursting: Mapping[str, list[str]],
    slice_size: Resources | None,
) -> HeadroomStatus:
    placement = _template_placement(reservers, manifests, owner)
    targets = daemon_targets(placement, nodes)
    excluded = targets.excluded()
    size = slice_size or max(
        (pod.requests for pod in reservers), key=lambda r: (r.cpu, r.memory), default=Resources()
    )
    held: list[str] = []
    in_use: list[InUseNode] = []
    eroded: list[ErodedNode] = []
    misscheduled: list[OffTargetNode] = []
    being_removed: list[OffTargetNode] = []
    covered: set[str] = set()
    for pod in reservers:
        node_name = pod.node or pod.placement.pinned_node
        node = state.get(node_name) if node_name else None
        if node is None:
            continue
        off = excluded.get(node.name)
        if off is not None:
            entry = OffTargetNode(
                node.name, f"{pod.namespace}/{pod.name}", off.detail, pod.node is not None
            )
            (misscheduled if off.keeps_running else being_removed).append(entry)
            continue
        covered.add(node.name)
        if pod.node is not None:
            held.append(pod.node)
            continue
        bursts = bursting.get(node.name)
        if bursts:
            in_use.append(InUseNode(node.name, tuple(bursts)))
            continue
        eroded.append(ErodedNode(node.name, node.free, _taken_by(node, size)))
    return HeadroomStatus(
        name=owner.removeprefix("DaemonSet "),
        slice=size,
        target_nodes=targets.names,
        held=tuple(sorted(held)),
        in_use=tuple(sorted(in_use, key=lambda n: n.node)),
        eroded=tuple(sorted(eroded, key=lambda n: n.node)),
        missing=tuple(name for name in targets.names if name not in covered),
        misscheduled=tuple(sorted(misscheduled, key=lambda n: n.node)),
        being_removed=tuple(sorted(being_removed, key=lambda n: n.node)),
        not_targeted=targets.not_targeted,
        unmatched=unmatched_selector(placement, targets, nodes),
    )


def _burst_classes(manifests: Manifests | None) -> set[str]:
    if manifests is None:
        return set()
    return {d.template.class_name for d in manifests.deployments if d.template.class_name}


def status(
    snapshot: Snapshot,
    *,
    version: KubernetesVersion,
    version_from: str,
    manifests: Manifests | None = None,
    at: datetime | None = None,
) -> StatusReport:
    """Per headroom in the snapshot (and per reserver DaemonSet of ``manifests``), where
    the slice is held, in use, eroded or missing; and the time window in force, by its
    pods (``at``, default now, names the window the clock gives)."""
    state = snapshot.state(version)
    burst_classes = _burst_classes(manifests)
    bursting: dict[str, list[str]] = {}
    waiting_bursts: list[str] = []
    for pod in [*snapshot.bound, *snapshot.waiting]:
        if pod.role is Role.BURST or pod.class_name in burst_classes:
            name = f"{pod.namespace}/{pod.name}"
            if pod.node:
                bursting.setdefault(pod.node, []).append(name)
            else:
                waiting_bursts.append(name)
    groups: dict[str, list[Pod]] = {}
    for pod in [*snapshot.bound, *snapshot.waiting]:
        # A window's pods are a Job's, not one per target node: reported as a window.
        if pod.role is Role.HEADROOM and WINDOW_LABEL not in pod.labels:
            groups.setdefault(pod.owner or f"Pod {pod.namespace}/{pod.name}", []).append(pod)
    slices: dict[str, Resources] = {}
    if manifests is not None:
        for daemonset in manifests.daemonsets:
            groups.setdefault(daemonset.ref, [])
            slices[daemonset.ref] = daemonset.template.requests
    headrooms = [
        _headroom(owner, pods, state, snapshot.nodes, manifests, bursting, slices.get(owner))
        for owner, pods in sorted(groups.items())
    ]
    headrooms = [
        dataclasses.replace(headroom, controller=snapshot.daemonsets.get(headroom.name))
        for headroom in headrooms
    ]
    return StatusReport(
        kubernetes_version=version,
        version_from=version_from,
        headrooms=tuple(headrooms),
        events=tuple(_newest_first(snapshot.events)),
        usage=usage_by_role(state),
        allocatable={node.name: node.allocatable for node in snapshot.nodes},
        warnings=(
            *snapshot.warnings,
            *(manifests.warnings if manifests is not None else ()),
            *release_warnings(version),
        ),
        not_modelled=snapshot.not_modelled,
        waiting_bursts=tuple(sorted(waiting_bursts)),
        buffers=tuple(sorted(snapshot.buffers, key=lambda buffer: buffer.name)),
        windows=status_windows(
            [*snapshot.bound, *snapshot.waiting],
            manifests.holds if manifests is not None else [],
            datetime.now(timezone.utc) if at is None else at,
        ),
    )


def _newest_first(events: Iterable[PreemptionEvent]) -> list[PreemptionEvent]:
    # RFC 3339 times in UTC ("...Z", as the API server writes them) sort as text.
    return sorted(events, key=lambda event: event.time, reverse=True)
