"""A sequence of scheduling decisions, and what they say about the promises P1-P3.

``Simulation`` places pods one at a time with ``scheduler.schedule`` and carries each
decision out: victims are deleted at once, and a victim that belongs to a DaemonSet or
a Deployment is recreated later (``recreate``), as their controllers do. The judges
read the recorded events:

- P1: a probe pod of each ordinary class, pinned to a node that holds a headroom pod
  and sized so that it fits only by evicting a slice's worth of pods: does its
  preemption take the headroom pod? And can an ordinary pod reach a node where a
  buffer holds room?
- P2: did every burst arrival that had a slice or buffer room it fits in within reach
  take it (a slice by preempting the headroom, buffer room without preemption),
  without evicting an ordinary pod?
- P3: did every recreated headroom pod evict nobody?

A ``CapacityBuffer``'s placeholders exist only inside the autoscaler: ``hold_buffer``
puts each on the first node of its placement with room for it beside the pods and the
placeholders held already (the autoscaler adds nodes for the rest), without binding
it. The scheduler never sees them, so any pod that lands on the room takes it without
preemption; the placeholders that no longer fit are displaced, and ``refill`` holds
them again where room has come back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from cdk8s_headroom.simulate.daemon_targets import (
    DAEMON_POD_TOLERATIONS,
    NotTargeted,
    daemon_pod_placement,
    daemon_targets,
)
from cdk8s_headroom.simulate.model import Pod, Resources, Role
from cdk8s_headroom.simulate.node_fit import fits_beside
from cdk8s_headroom.simulate.scheduler import (
    ClusterState,
    Decision,
    apply,
    placement_problem,
    schedule,
)
from cdk8s_headroom.simulate.workloads import Buffer, ClassRegistry, Workload
from cdk8s_headroom.vocabulary.placement import Placement
from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy, PriorityClassSpec

_SECOND = 10**9


class Step(Enum):
    ESTABLISH = "establish"
    ARRIVAL = "arrival"
    RECREATION = "recreation"
    QUEUE = "queue"
    REFILL = "refill"


@dataclass(frozen=True)
class Event:
    """One scheduling decision, carried out."""

    step: Step
    decision: Decision
    slice_within_reach: bool = False
    """For arrivals: a headroom pod or buffer placeholder at least as large as this pod
    held room on a node this pod may use, so P2 applies to it."""
    took_buffer: tuple[Pod, ...] = ()
    """The buffer placeholders whose room this pod took (displaced, not evicted)."""

    @property
    def pod(self) -> Pod:
        return self.decision.pod

    @property
    def victims(self) -> tuple[Pod, ...]:
        return self.decision.victims

    def to_json(self) -> dict[str, object]:
        document: dict[str, object] = {
            "pod": self.pod.name,
            "role": self.pod.role.value,
            "node": self.decision.node,
            "evicted": [
                {"pod": victim.name, "role": victim.role.value, "priority": victim.priority}
                for victim in self.victims
            ],
            "reason": self.decision.reason,
        }
        if self.took_buffer:
            document["took_buffer_room_of"] = [pod.name for pod in self.took_buffer]
        return document


def _recreated_name(name: str) -> str:
    match = re.fullmatch(r"(.*)-r(\d+)", name)
    return f"{match[1]}-r{int(match[2]) + 1}" if match else f"{name}-r1"


class Simulation:
    """Places pods one after the other on ``state``, and records what happened."""

    def __init__(self, state: ClusterState, classes: ClassRegistry) -> None:
        self.state = state
        self.classes = classes
        self.events: list[Event] = []
        self.pending: list[Pod] = []
        """Pods that did not schedule, in creation order (the queue's tie-break)."""
        self._to_recreate: list[Pod] = []
        self.held: list[Pod] = []
        """Buffer placeholders holding room, ``node`` set but not bound."""
        self.displaced: list[Pod] = []
        """Buffer placeholders without room on the nodes: the autoscaler adds nodes."""
        self.not_targeted: dict[str, tuple[NotTargeted, ...]] = {}
        """Per established DaemonSet, the nodes it puts no pod on, in their order."""
        self._clock = max(
            (pod.start_time for pod in state.pods() if pod.start_time is not None), default=0
        )

    def place(self, pod: Pod, step: Step) -> Event:
        wanted = pod.requests
        within_reach = step is Step.ARRIVAL and any(
            other.role in (Role.HEADROOM, Role.BUFFER)
            and other.requests.cpu >= wanted.cpu
            and other.requests.memory >= wanted.memory
            for node in self.state.reachable(pod.placement)
            for other in [*node.pods, *self._held_on(node.name)]
        )
        decision = schedule(self.state, pod)
        if decision.node is not None:
            # Before binding: a bound pod is not changed in place (``NodeState``).
            self._clock += _SECOND
            pod.start_time = self._clock
        apply(self.state, decision)
        taken: tuple[Pod, ...] = ()
        if decision.node is None:
            self.pending.append(pod)
        else:
            taken = self._displace(decision.node)
        self._to_recreate += [victim for victim in decision.victims if victim.owner]
        event = Event(step, decision, within_reach, taken)
        self.events.append(event)
        return event

    def _held_on(self, node: str) -> list[Pod]:
        return [pod for pod in self.held if pod.node == node]

    def _displace(self, node: str) -> tuple[Pod, ...]:
        """The placeholders on ``node`` that no longer fit beside its pods, last held
        first out: their room was taken, and the autoscaler must find them more."""
        state = self.state.get(node)
        assert state is not None
        kept: list[Pod] = []
        displaced: list[Pod] = []
        for pod in self._held_on(node):
            if fits_beside(pod.requests, state, kept):
                kept.append(pod)
            else:
                displaced.append(pod)
        for pod in displaced:
            self.held.remove(pod)
            pod.node = None
        self.displaced += displaced
        return tuple(displaced)

    def hold_buffer(self, buffer: Buffer, step: Step = Step.ESTABLISH) -> list[Event]:
        """The buffer's placeholders, each held where the autoscaler finds room now."""
        return [
            self._hold(
                buffer.template.instantiate(
                    f"{buffer.name}-{index}", self.classes, role=Role.BUFFER, owner=buffer.ref
                ),
                step,
            )
            for index in range(1, buffer.units + 1)
        ]

    def _hold(self, pod: Pod, step: Step) -> Event:
        # Placeholders evict nobody: the autoscaler only looks for free room.
        pod.preemption_policy = PreemptionPolicy.NEVER
        node = next(
            (
                state.name
                for state in self.state.reachable(pod.placement)
                if fits_beside(pod.requests, state, self._held_on(state.name))
            ),
            None,
        )
        if node is None:
            self.displaced.append(pod)
            reason = "no room on the nodes: the autoscaler adds a node for it"
        else:
            self.held.append(pod)
            reason = "room held free by the autoscaler"
        pod.node = node
        event = Event(step, Decision(pod, eligible=False, node=node, reason=reason))
        self.events.append(event)
        return event

    def refill(self) -> list[Event]:
        """The displaced placeholders, held again where room has come back."""
        displaced, self.displaced = self.displaced, []
        return [self._hold(pod, Step.REFILL) for pod in displaced]

    def establish_daemonset(self, daemonset: Workload) -> list[Event]:
        """One pod per target node of the DaemonSet (``daemon_targets``), pinned to it."""
        template = daemonset.template
        targets = daemon_targets(
            daemon_pod_placement(template.placement), (state.node for state in self.state.nodes)
        )
        if targets.not_targeted:
            self.not_targeted[daemonset.ref] = targets.not_targeted
        return [
            self.place(
                template.instantiate(
                    f"{daemonset.name}-{node.name}",
                    self.classes,
                    role=Role.HEADROOM,
                    owner=daemonset.ref,
                    pinned_node=node.name,
                    extra_tolerations=DAEMON_POD_TOLERATIONS,
                ),
                Step.ESTABLISH,
            )
            for node in targets.nodes
        ]

    def create(self, workload: Workload, count: int, role: Role, step: Step) -> list[Event]:
        """``count`` new replicas of a Deployment, placed one after the other."""
        return [
            self.place(
                workload.template.instantiate(
                    f"{workload.name}-{index}", self.classes, role=role, owner=workload.ref
                ),
                step,
            )
            for index in range(1, count + 1)
        ]

    def recreate(self) -> list[Event]:
        """The controllers' replacements for the pods preempted so far."""
        preempted, self._to_recreate = self._to_recreate, []
        return [
            self.place(
                replace(
                    victim,
                    name=_recreated_name(victim.name),
                    node=None,
                    start_time=None,
                    nominated_node=None,
                    terminating_by_preemption=False,
                ),
                Step.RECREATION,
            )
            for victim in preempted
        ]

    def leave(self, pods: Iterable[Pod]) -> None:
        """Pods that complete: their capacity is free and nobody recreates them."""
        for pod in pods:
            self.state.evict(pod)

    def drain(self, arrivals: Sequence[Pod]) -> list[Event]:
        """One pass of the scheduling queue over the pending pods and ``arrivals``:
        higher priority first, then the older pod (PrioritySort)."""
        queue = sorted([*self.pending, *arrivals], key=lambda pod: -pod.priority)
        self.pending = []
        return [self.place(pod, Step.QUEUE) for pod in queue]


def usage_by_role(
    state: ClusterState, held: Iterable[Pod] = ()
) -> dict[str, dict[Role, Resources]]:
    """Per node, the requests of the pods of each role, and the room ``held`` buffer
    placeholders keep free."""
    usage: dict[str, dict[Role, Resources]] = {}
    for node in state.nodes:
        per_role = {role: Resources() for role in Role}
        for pod in node.pods:
            per_role[pod.role] += pod.requests
        usage[node.name] = per_role
    for pod in held:
        if pod.node is not None:
            usage[pod.node][Role.BUFFER] += pod.requests
    return usage


@dataclass(frozen=True)
class Verdict:
    """Whether a promise holds: None when the run never put it to the test."""

    promise: str
    holds: bool | None
    reason: str

    @property
    def label(self) -> str:
        return {True: "holds", False: "BROKEN", None: "not exercised"}[self.holds]

    def to_json(self) -> dict[str, object]:
        return {"holds": self.holds, "reason": self.reason}


def _class_label(info: PriorityClassSpec) -> str:
    name = info.name or "(no class)"
    return f"{name} ({info.value}, {info.preemption_policy.value})"


def judge_p1(
    state: ClusterState, ordinary: Iterable[PriorityClassSpec], held: Sequence[Pod] = ()
) -> Verdict:
    """P1: can a pod of an ordinary class take a reserved slice by preemption, or
    buffer room by landing on it?"""
    open_room = [
        f"{pod.name} on {pod.node}"
        for pod in held
        if pod.node is not None
        and (host := state.get(pod.node)) is not None
        and placement_problem(Placement(), host.node) is None
    ]
    buffers = (
        "ordinary pods can take the room buffer placeholders hold ("
        + ", ".join(open_room)
        + "): it is free capacity, reserved for no pod in particular; only a taint the "
        "burst pods alone tolerate keeps it"
    )
    slices = _judge_slices(state, ordinary)
    if open_room:
        reason = f"{slices.reason}; {buffers}" if slices.holds is False else buffers
        return Verdict("P1", False, reason)
    if held and slices.holds is None:
        return Verdict("P1", True, "no ordinary pod can reach the nodes where buffers hold room")
    return slices


def _judge_slices(state: ClusterState, ordinary: Iterable[PriorityClassSpec]) -> Verdict:
    hosts = [n for n in state.nodes if any(p.role is Role.HEADROOM for p in n.pods)]
    if not hosts:
        return Verdict("P1", None, "no headroom pod is running, so there is no slice to take")
    host = hosts[0]
    headroom = next(p for p in host.pods if p.role is Role.HEADROOM)
    free = Resources(
        host.node.allocatable.cpu - host.cpu, host.node.allocatable.memory - host.memory
    )
    taken: list[str] = []
    kept: list[str] = []
    for info in dict.fromkeys(ordinary):
        probe = Pod(
            name=f"p1-probe-{info.name or 'no-class'}",
            namespace="default",
            priority=info.value,
            preemption_policy=info.preemption_policy,
            requests=free + headroom.requests,
            placement=Placement(pinned_node=host.name),
            class_name=info.name,
        )
        decision = schedule(state, probe)
        slices = [victim.name for victim in decision.victims if victim.role is Role.HEADROOM]
        if slices:
            taken.append(
                f"a pod of class {_class_label(info)} that needs the slice preempts "
                f"{', '.join(slices)} on {decision.node}"
            )
        elif not decision.eligible:
            kept.append(f"{_class_label(info)} cannot preempt")
        elif (problem := placement_problem(probe.placement, host.node)) is not None:
            kept.append(f"{_class_label(info)} cannot run on {host.name}: {problem}")
        elif info.value <= headroom.priority:
            kept.append(
                f"{_class_label(info)} does not outrank the headroom pods ({headroom.priority})"
            )
        else:
            kept.append(f"{_class_label(info)} evicts other pods but not the headroom pod")
    if taken:
        return Verdict("P1", False, "; ".join(taken))
    return Verdict("P1", True, "; ".join(kept))


def judge_p2(events: Sequence[Event]) -> Verdict:
    """P2: a burst pod with a slice within reach takes it, and evicts no ordinary pod."""
    broken: list[str] = []
    took = 0
    took_room = 0
    beyond = 0
    for event in events:
        pod = event.pod
        if event.step is not Step.ARRIVAL or pod.role is not Role.BURST:
            continue
        ordinary = [v.name for v in event.victims if v.role is Role.ORDINARY]
        if not event.slice_within_reach:
            if ordinary:
                beyond += 1
            continue
        if ordinary:
            broken.append(f"{pod.name} evicted ordinary pods {', '.join(ordinary)}")
        elif event.decision.node is None:
            broken.append(f"{pod.name} stayed pending with a slice within reach")
        elif any(v.role is Role.HEADROOM for v in event.victims):
            took += 1
        elif event.took_buffer:
            took_room += 1
    note = (
        f"; {beyond} more arrived with no slice they fit in within reach and evicted "
        "ordinary pods, as any higher-priority pod does"
        if beyond
        else ""
    )
    if broken:
        return Verdict("P2", False, "; ".join(broken) + note)
    if took or took_room:
        what = " and ".join(
            text
            for count, text in (
                (took, f"{took} burst pod(s) took a slice"),
                (took_room, f"{took_room} took buffer room without preemption"),
            )
            if count
        )
        return Verdict("P2", True, f"{what} and evicted no ordinary pod{note}")
    return Verdict("P2", None, "no burst pod needed a slice" + note)


def judge_p3(events: Sequence[Event]) -> Verdict:
    """P3: a recreated headroom pod evicts nobody."""
    recreated = [e for e in events if e.step is Step.RECREATION and e.pod.role is Role.HEADROOM]
    if not recreated:
        return Verdict("P3", None, "no headroom pod was preempted, so none was recreated")
    evicting = [e for e in recreated if e.victims]
    if evicting:
        return Verdict(
            "P3",
            False,
            "; ".join(
                f"{e.pod.name} evicted {', '.join(v.name for v in e.victims)} on {e.decision.node}"
                for e in evicting
            ),
        )
    pending = sum(1 for e in recreated if e.decision.node is None)
    return Verdict(
        "P3",
        True,
        f"{len(recreated)} recreated headroom pod(s) evicted nobody ({pending} wait for room)",
    )
