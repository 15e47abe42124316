"""The what-if of a synthesized app on a described cluster, as text or data."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from cdk8s_headroom.simulate.cluster import MAX_PODS, ClusterFile
from cdk8s_headroom.simulate.daemon_targets import NotTargeted, render_not_targeted
from cdk8s_headroom.simulate.manifests import Manifests
from cdk8s_headroom.simulate.model import Resources, Role
from cdk8s_headroom.simulate.scheduler import ClusterState
from cdk8s_headroom.simulate.versions import NEWEST_VALIDATED, KubernetesVersion
from cdk8s_headroom.simulate.whatif import (
    Event,
    Simulation,
    Step,
    Verdict,
    judge_p1,
    judge_p2,
    judge_p3,
    usage_by_role,
)
from cdk8s_headroom.simulate.workloads import ClassRegistry
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.names import int_text
from cdk8s_headroom.vocabulary.priority_models import PriorityClassSpec
from cdk8s_headroom.vocabulary.quantity import format_cpu, format_memory
from cdk8s_headroom.vocabulary.quantity_arithmetic import BINARY_SUFFIXES

Usage = dict[str, dict[Role, Resources]]


@dataclass(frozen=True)
class WhatIfReport:
    """What happened, step by step, and the verdict on P1-P3."""

    nodes: list[str]
    allocatable: dict[str, Resources]
    establishment: list[Event]
    arrivals: list[Event]
    recreations: list[Event]
    verdicts: list[Verdict]
    before: Usage
    """Per node and role, once the headroom is established, before the bursts."""
    after: Usage
    """Per node and role, after the bursts and the recreations."""
    not_simulated: list[str]
    buffers: tuple[Event, ...] = ()
    """Each buffer placeholder at establishment: the room it holds, or none."""
    refills: tuple[Event, ...] = ()
    """The placeholders whose room was taken, held again where room came back."""
    not_targeted: Mapping[str, tuple[NotTargeted, ...]] = field(default_factory=dict)
    """Per reserver DaemonSet, the nodes it puts no pod on (``daemon_targets``)."""
    warnings: tuple[str, ...] = ()
    """What the input readers warn of, e.g. an object read twice, counted once."""

    def to_json(self) -> dict[str, object]:
        def usage(snapshot: Usage) -> dict[str, object]:
            return {
                node: {
                    role.value: {"cpu": cpu_text(r.cpu), "memory": memory_text(r.memory)}
                    for role, r in per_role.items()
                }
                for node, per_role in snapshot.items()
            }

        placed = [e for e in self.establishment if e.decision.node is not None]
        establishment: dict[str, object] = {
            "running": len(placed),
            "pending": len(self.establishment) - len(placed),
            "events": [e.to_json() for e in self.establishment],
        }
        if self.not_targeted:
            establishment["not_targeted"] = {
                owner: [node.to_json() for node in nodes]
                for owner, nodes in self.not_targeted.items()
            }
        document: dict[str, object] = {
            "nodes": self.nodes,
            "establishment": establishment,
            "arrivals": [e.to_json() for e in self.arrivals],
            "recreations": [e.to_json() for e in self.recreations],
            "verdict": {v.promise: v.to_json() for v in self.verdicts},
            "usage": {"before": usage(self.before), "after": usage(self.after)},
            "not_simulated": self.not_simulated,
            "warnings": list(self.warnings),
        }
        if self.buffers:
            held = [e for e in self.buffers if e.decision.node is not None]
            document["buffers"] = {
                "held": len(held),
                "need_new_nodes": len(self.buffers) - len(held),
                "events": [e.to_json() for e in self.buffers],
                "refills": [e.to_json() for e in self.refills],
            }
        return document

    def render(self) -> str:
        lines = []
        pending = [e for e in self.establishment if e.decision.node is None]
        running = len(self.establishment) - len(pending)
        if self.establishment or not self.buffers:
            lines.append(
                f"Headroom established: {running}/{len(self.establishment)} reserver pods "
                f"running, {len(pending)} pending"
            )
        lines += [
            f"  {describe(e)}" for e in self.establishment if e.victims or e.decision.node is None
        ]
        for owner, nodes in self.not_targeted.items():
            if len(self.not_targeted) > 1:
                lines.append(f"  {owner}:")
            indent = "  " if len(self.not_targeted) > 1 else ""
            lines += [indent + line for line in render_not_targeted(nodes)]
        if self.buffers:
            homeless = sum(1 for e in self.buffers if e.decision.node is None)
            lines.append(
                f"Buffers established: {len(self.buffers) - homeless}/{len(self.buffers)} "
                f"placeholders hold room on the nodes, {homeless} need new nodes "
                "(the autoscaler adds them)"
            )
        lines.append(f"Burst arrivals ({len(self.arrivals)}):")
        lines += [f"  {describe(e)}" for e in self.arrivals]
        lines.append(f"Recreated pods ({len(self.recreations)}):")
        lines += [f"  {describe(e)}" for e in self.recreations]
        if self.refills:
            unplaced = sum(1 for e in self.refills if e.decision.node is None)
            lines.append(
                f"Buffer room taken ({len(self.refills)} placeholders): {unplaced} wait for new "
                "nodes the autoscaler adds, the rest are held again"
            )
        lines.append("Verdict:")
        lines += [f"  {v.promise} {v.label}: {v.reason}" for v in self.verdicts]
        if self.not_simulated:
            lines.append("Not simulated:")
            lines += [f"  {item}" for item in self.not_simulated]
        lines += render_warnings(self.warnings)
        return "\n".join(lines)


def render_warnings(warnings: Iterable[str]) -> list[str]:
    """The warnings section that ends the tables of simulate, plan and status."""
    listed = list(warnings)
    if not listed:
        return []
    return [f"Warnings ({len(listed)})", *(f"  {warning}" for warning in listed)]


def cpu_text(millis: int) -> str:
    """Millicores for a human: ``500m``, ``2``."""
    return format_cpu(Fraction(millis, 1000))


def memory_text(size: int) -> str:
    """Bytes for a human: ``512Mi``."""
    return format_memory(Fraction(size))


def resources_json(resources: Resources) -> dict[str, str]:
    return {"cpu": cpu_text(resources.cpu), "memory": memory_text(resources.memory)}


def memory_for_people(size: int) -> str:
    """Bytes as people write them, for the tables: in the largest binary unit the size
    reaches, exact when whole (``512Mi``, ``3Gi``), else to three significant digits
    (``1.5Gi``; ``7.38Gi`` for a kubelet's ``7736240Ki``). ``--json`` keeps the exact
    quantity (``memory_text``). Negative sizes (the free room of a node whose pods
    request more than its allocatable) keep their sign."""
    if size < 0:
        return f"-{memory_for_people(-size)}"
    suffix, unit = next(
        ((suffix, 1024**power) for suffix, power in _LARGEST_FIRST if size >= 1024**power),
        ("", 1),
    )
    amount = Fraction(size, unit)
    if amount.denominator == 1:
        return f"{amount.numerator}{suffix}"
    decimals = 0 if amount >= 100 else 1 if amount >= 10 else 2
    return f"{float(amount):.{decimals}f}".rstrip("0").rstrip(".") + suffix


_LARGEST_FIRST = sorted(BINARY_SUFFIXES.items(), key=lambda item: -item[1])


def resources_text(resources: Resources) -> str:
    """cpu and memory for the tables (``memory_for_people``); ``resources_json`` is
    exact."""
    return f"{cpu_text(resources.cpu)} cpu, {memory_for_people(resources.memory)} memory"


def describe(event: Event) -> str:
    """One event for the tables: where the pod went, and whom it evicted."""
    pod = event.pod
    if event.decision.node is None:
        return f"{pod.name}: pending ({event.decision.reason})"
    text = f"{pod.name} -> {event.decision.node}"
    if event.victims:
        evicted = ", ".join(f"{v.name} ({v.role.value})" for v in event.victims)
        text += f", evicts {evicted}"
    if event.took_buffer:
        text += ", takes the buffer room of " + ", ".join(p.name for p in event.took_buffer)
    return text


def parse_bursts(values: Sequence[str], manifests: Manifests) -> dict[str, int]:
    """``--burst NAME=COUNT`` flags, checked against the manifests' Deployments."""
    names = [workload.name for workload in manifests.deployments]
    listed = ", ".join(names) or "none"
    counts: dict[str, int] = {}
    for value in values:
        name, _, count = value.partition("=")
        if name not in names:
            raise HeadroomConfigError(
                "--burst",
                value,
                f"NAME=COUNT with NAME a Deployment of the manifests ({listed}) "
                "and COUNT a whole number",
            )
        counts[name] = int_text(count, field=f"--burst {name}", minimum=0, maximum=MAX_PODS)
    return counts


def _ordinary_classes(state: ClusterState, classes: ClassRegistry) -> list[PriorityClassSpec]:
    default = classes.default
    seen = [PriorityClassSpec(default.name, default.value, default.preemption_policy)]
    for pod in state.pods():
        if pod.role is Role.ORDINARY:
            seen.append(PriorityClassSpec(pod.class_name, pod.priority, pod.preemption_policy))
    return list(dict.fromkeys(seen))


def run_whatif(
    manifests: Manifests,
    cluster: ClusterFile,
    bursts: Mapping[str, int] | None = None,
    *,
    version: KubernetesVersion = NEWEST_VALIDATED,
) -> WhatIfReport:
    """The what-if of ``manifests`` on a cluster file (see ``whatif``)."""
    classes = ClassRegistry()
    classes.update(manifests.classes)
    classes.update(cluster.classes)
    state = ClusterState(cluster.nodes, cluster.pdbs, version=version)
    for existing in cluster.pods:
        state.bind(existing.to_pod(classes), existing.node)
    return whatif(state, classes, manifests, bursts)


def whatif(
    state: ClusterState,
    classes: ClassRegistry,
    manifests: Manifests,
    bursts: Mapping[str, int] | None = None,
    *,
    ordinary: Iterable[PriorityClassSpec] | None = None,
    on_established: Callable[[ClusterState, list[Event]], None] | None = None,
) -> WhatIfReport:
    """Establishes the reservers on ``state``, lets the bursts arrive one by one,
    recreates the preempted pods, and judges P1-P3. ``state`` is changed.

    ``ordinary`` are the classes P1 probes; default: the default class and the classes
    of the ordinary pods on ``state``. ``on_established`` sees the state once the
    reservers are placed, before the bursts change it."""
    simulation = Simulation(state, classes)
    establishment = [
        event
        for daemonset in manifests.daemonsets
        for event in simulation.establish_daemonset(daemonset)
    ]
    if on_established is not None:
        on_established(state, establishment)
    # The autoscaler keeps the buffers' room beside what is running once the
    # reservers are in place.
    buffers = tuple(
        event for buffer in manifests.buffers for event in simulation.hold_buffer(buffer)
    )
    before = usage_by_role(state, simulation.held)
    p1 = judge_p1(
        state,
        _ordinary_classes(state, classes) if ordinary is None else ordinary,
        simulation.held,
    )
    counts = dict(bursts or {})
    arrivals = [
        event
        for workload in manifests.deployments
        for event in simulation.create(
            workload, counts.get(workload.name, workload.replicas), Role.BURST, Step.ARRIVAL
        )
    ]
    recreations = simulation.recreate()
    refills = tuple(simulation.refill())
    return WhatIfReport(
        nodes=[node.name for node in state.nodes],
        allocatable={node.name: node.node.allocatable for node in state.nodes},
        establishment=establishment,
        arrivals=arrivals,
        recreations=recreations,
        verdicts=[p1, judge_p2(arrivals), judge_p3(recreations)],
        before=before,
        after=usage_by_role(state, simulation.held),
        not_simulated=manifests.not_simulated,
        buffers=buffers,
        refills=refills,
        not_targeted=simulation.not_targeted,
        warnings=tuple(manifests.warnings),
    )
