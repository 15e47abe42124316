"""Compares the priority models on one shared scenario, with the scheduler simulator.

The scenario: a pool of full nodes, each holding one headroom slice (a reserver pod, or
a pause pod of the same size for the classic overprovisioning pattern) and ordinary
pods at priority 0 in the rest. A burst of pods the size of the slice arrives, the
preempted headroom pods are recreated, the burst pods finish, and a second wave of
ordinary pods arrives while the recreated headroom pods still wait.

The CapacityBuffer rows run the same scenario with a buffer of one chunk per burst pod
instead of slices: the room each node keeps free is the buffer's, held by the
autoscaler's placeholders, which nothing schedules and nothing preempts.

The library's models are synthesized with ``NodeHeadroom`` and read back from their
manifests, as ``cdk8s-headroom simulate`` reads ``dist/``; the classic pattern uses
Cluster Autoscaler's expendable cutoff for its pause pods.

Writes docs/model-comparison.md, and the table into README.md between
``<!-- BEGIN model-comparison -->`` and ``<!-- END model-comparison -->`` when README.md
has those markers. Run: ``python scripts/compare_models.py``.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import cdk8s

from cdk8s_headroom import (
    DEFAULT_DEDICATED_TAINT,
    BurstWorkload,
    HeadroomWarning,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
)
from cdk8s_headroom.simulate import (
    ClassRegistry,
    ClusterState,
    DisruptionBudget,
    Event,
    Manifests,
    Node,
    Pod,
    PodTemplate,
    Resources,
    Role,
    Simulation,
    Step,
    Workload,
    manifests_from_objects,
)
from cdk8s_headroom.simulate.model import LabelSelector
from cdk8s_headroom.vocabulary.priority_models import (
    CLUSTER_AUTOSCALER_EXPENDABLE_CUTOFF,
    PriorityClassSpec,
)
from cdk8s_headroom.vocabulary.quantity import format_cpu, format_memory, parse_quantity

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "model-comparison.md"
README = ROOT / "README.md"
BEGIN, END = "<!-- BEGIN model-comparison -->", "<!-- END model-comparison -->"

NODES = 10
NODE_CPU, NODE_MEMORY = "4", "16Gi"
SLICE_CPU, SLICE_MEMORY = "500m", "512Mi"
ORDINARY_CPU, ORDINARY_MEMORY = "500m", "1Gi"
BURSTS = NODES
SECOND_WAVE = NODES
POOL = "burst-pool"
CLASSIC = "classic overprovisioning"
BUFFER_SHARED = "CapacityBuffer, shared pool (`GUARDED`)"
BUFFER_DEDICATED = "CapacityBuffer, dedicated pool (`DEDICATED_POOL`)"


def _quantity(text: str, unit: int) -> int:
    return math.ceil(parse_quantity(text, field="compare_models") * unit)


SLICE = Resources(_quantity(SLICE_CPU, 1000), _quantity(SLICE_MEMORY, 1))
ORDINARY = Resources(_quantity(ORDINARY_CPU, 1000), _quantity(ORDINARY_MEMORY, 1))
ORDINARY_PER_NODE = (_quantity(NODE_CPU, 1000) - SLICE.cpu) // ORDINARY.cpu


@dataclass(frozen=True)
class Row:
    model: str
    bursts_placed: int
    ordinary_evicted: int
    slices_consumed: int
    evicting_recreations: int
    second_wave_in_slices: int
    held_back: str
    """The capacity the mechanism holds back in total: slices times nodes, or the
    buffer's chunks times their size."""


def _held(count: int, unit: str) -> str:
    cpu = SLICE.cpu * count
    memory = SLICE.memory * count
    total = f"{format_cpu(Fraction(cpu, 1000))} CPU, {format_memory(Fraction(memory))}"
    return f"{total} ({count} {unit})"


def _library_manifests(model: PriorityModel, *, buffer: bool = False) -> Manifests:
    """The model's PriorityClasses, reserver (or, with ``buffer``, a CapacityBuffer of one
    chunk per burst pod instead) and a burst Deployment, synthesized."""
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "headroom")
    taints = [DEFAULT_DEDICATED_TAINT] if model is PriorityModel.DEDICATED_POOL else []
    with warnings.catch_warnings():
        # SEED warns that it breaks P2 and P3, a buffer on a shared pool that it breaks
        # P1; the table shows both.
        warnings.simplefilter("ignore", HeadroomWarning)
        headroom = NodeHeadroom(
            chart,
            "headroom",
            cpu=None if buffer else SLICE_CPU,
            memory=None if buffer else SLICE_MEMORY,
            model=model,
            node_pool=NodePoolRef.karpenter(POOL, taints=taints),
        )
        workload: BurstWorkload = headroom.add_burst_workload(
            "burst", image="registry.k8s.io/pause:3.10", cpu=SLICE_CPU, memory=SLICE_MEMORY
        )
        if buffer:
            headroom.add_capacity_buffer(workload, replicas=BURSTS)
    return manifests_from_objects([(f"{model.name} synthesis", chart.to_json())])


def _classic_manifests() -> Manifests:
    """The classic pattern: a pause Deployment below Cluster Autoscaler's cutoff, and
    bursts that are ordinary default-priority workloads."""
    pause_class = PriorityClassSpec("overprovisioning", CLUSTER_AUTOSCALER_EXPENDABLE_CUTOFF)
    pause = PodTemplate("default", pause_class.name, SLICE)
    burst = PodTemplate("default", None, SLICE)
    return Manifests(
        classes=[(pause_class, CLASSIC)],
        daemonsets=[Workload("Deployment", "overprovisioning", "default", NODES, pause)],
        deployments=[Workload("Deployment", "burst", "default", BURSTS, burst)],
    )


def _cluster(model: PriorityModel | None, classes: ClassRegistry) -> ClusterState:
    taints = (DEFAULT_DEDICATED_TAINT,) if model is PriorityModel.DEDICATED_POOL else ()
    nodes = [
        Node(
            f"node-{index:02d}",
            Resources(_quantity(NODE_CPU, 1000), _quantity(NODE_MEMORY, 1)),
            max_pods=110,
            labels={"karpenter.sh/nodepool": POOL},
            taints=taints,
        )
        for index in range(1, NODES + 1)
    ]
    # The ordinary pods belong to a service whose budget has no disruption left, as a
    # production service often has; under DEDICATED_POOL they are the pool's own
    # tenants, which tolerate its taint.
    budget = DisruptionBudget(
        "web", "default", LabelSelector((("app", "web"),)), disruptions_allowed=0
    )
    state = ClusterState(nodes, [budget])
    default = classes.default
    started = 0
    for node in nodes:
        for _ in range(ORDINARY_PER_NODE):
            started += 1
            pod = Pod(
                name=f"web-{started}",
                namespace="default",
                priority=default.value,
                preemption_policy=default.preemption_policy,
                requests=ORDINARY,
                labels={"app": "web"},
                start_time=started * 10**9,
                class_name=default.name,
            )
            state.bind(pod, node.name)
    return state


def _run(name: str, model: PriorityModel | None, *, buffer: bool = False) -> Row:
    manifests = _classic_manifests() if model is None else _library_manifests(model, buffer=buffer)
    classes = ClassRegistry()
    classes.update(manifests.classes)
    simulation = Simulation(_cluster(model, classes), classes)
    if model is None:
        simulation.create(manifests.daemonsets[0], NODES, Role.HEADROOM, Step.ESTABLISH)
        held_back = _held(NODES, "pause pods")
    elif buffer:
        (kept,) = manifests.buffers
        simulation.hold_buffer(kept)
        held_back = _held(kept.units, "buffer chunks")
    else:
        simulation.establish_daemonset(manifests.daemonsets[0])
        held_back = _held(NODES, "slices, one per node")
    arrivals = simulation.create(manifests.deployments[0], BURSTS, Role.BURST, Step.ARRIVAL)
    simulation.recreate()
    simulation.leave(event.pod for event in arrivals if event.decision.node is not None)
    # The room the bursts freed is the buffer's again: the autoscaler's placeholders
    # fit there once more.
    simulation.refill()
    default = classes.default
    wave = [
        Pod(
            name=f"second-wave-{index}",
            namespace="default",
            priority=default.value,
            preemption_policy=default.preemption_policy,
            requests=SLICE,
            class_name=default.name,
        )
        for index in range(1, SECOND_WAVE + 1)
    ]
    queue = simulation.drain(wave)
    return Row(
        model=name,
        bursts_placed=sum(1 for e in arrivals if e.decision.node is not None),
        ordinary_evicted=sum(
            1 for e in simulation.events for v in e.victims if v.role is Role.ORDINARY
        ),
        slices_consumed=sum(
            1 for e in arrivals if e.took_buffer or any(v.role is Role.HEADROOM for v in e.victims)
        ),
        evicting_recreations=sum(
            1
            for e in simulation.events
            if e.pod.role is Role.HEADROOM and e.step in (Step.RECREATION, Step.QUEUE) and e.victims
        ),
        second_wave_in_slices=_took_slice(simulation, queue, wave),
        held_back=held_back,
    )


def _took_slice(simulation: Simulation, queue: list[Event], wave: list[Pod]) -> int:
    """Second-wave pods that preempted a headroom pod, that sit on a node whose
    headroom pod is still waiting, or that took a buffer's room."""
    if simulation.held or simulation.displaced:
        return sum(1 for event in queue if event.pod in wave and event.took_buffer)
    missing = {
        node.name
        for node in simulation.state.nodes
        if not any(pod.role is Role.HEADROOM for pod in node.pods)
    }
    return sum(
        1
        for event in queue
        if event.pod in wave
        and (any(v.role is Role.HEADROOM for v in event.victims) or event.decision.node in missing)
    )


def compare() -> list[Row]:
    """One row per model, on the same scenario."""
    return [
        _run("`SEED`", PriorityModel.SEED),
        _run("`GUARDED`", PriorityModel.GUARDED),
        _run("`DEDICATED_POOL`", PriorityModel.DEDICATED_POOL),
        _run(CLASSIC, None),
        _run(BUFFER_SHARED, PriorityModel.GUARDED, buffer=True),
        _run(BUFFER_DEDICATED, PriorityModel.DEDICATED_POOL, buffer=True),
    ]


def render_table(rows: list[Row]) -> str:
    lines = [
        "| model | bursts placed at once | ordinary pods evicted | headroom slices consumed "
        "| headroom recreations that evicted someone "
        "| ordinary pods of the second wave that took a slice "
        "| capacity held back in total |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.model} | {r.bursts_placed}/{BURSTS} | {r.ordinary_evicted} | {r.slices_consumed} "
        f"| {r.evicting_recreations} | {r.second_wave_in_slices}/{SECOND_WAVE} "
        f"| {r.held_back} |"
        for r in rows
    ]
    return "\n".join(lines) + "\n"


def render_document(rows: list[Row]) -> str:
    scenario = (
        f"**Scenario.** {NODES} nodes of {NODE_CPU} CPU and {NODE_MEMORY}, all full: each "
        f"holds one headroom slice of {SLICE_CPU} CPU and {SLICE_MEMORY} (the model's reserver "
        "pod, or a pause pod of the same size at priority "
        f"{CLUSTER_AUTOSCALER_EXPENDABLE_CUTOFF} for the classic pattern) and "
        f"{ORDINARY_PER_NODE} ordinary pods of {ORDINARY_CPU} CPU and {ORDINARY_MEMORY} at "
        "priority 0 (the model's default class). The ordinary pods belong to a service whose "
        "PodDisruptionBudget has no disruption left. Under `DEDICATED_POOL` the nodes carry "
        "the pool's taint, and the ordinary pods there are the pool's own tenants."
    )
    return f"""<!-- Generated by scripts/compare_models.py: edit the script, then run it. -->
# Priority models compared on one scenario

Computed with `cdk8s_headroom.simulate`, which follows kube-scheduler's fit and preemption
rules (see [simulate.md](simulate.md)).

{scenario}

1. {BURSTS} burst pods the size of the slice arrive, one after the other (burst class;
   default priority for the classic pattern).
2. The controllers recreate the preempted headroom pods.
3. The burst pods finish, and {SECOND_WAVE} ordinary pods the size of the slice arrive while
   the recreated headroom pods still wait; the scheduling queue takes the higher priority
   first.

{render_table(rows)}
How to read it:

- `SEED`: the headroom class outranks ordinary pods. Here the PodDisruptionBudget makes the
  scheduler take the headroom pod for the burst, and the recreated headroom pod, still
  PreemptLowerPriority, then evicts an ordinary pod to get its slice back (P3 broken).
  Without the budget the burst evicts the ordinary pod directly and keeps the headroom
  (P2 broken): ordinary pods lose either way.
- `GUARDED`: bursts take the slices and nobody else is evicted, but a pending ordinary pod
  is scheduled before the recreated headroom pod (priority below 0) and takes the freed
  slice: the free-capacity race of the design.
- `DEDICATED_POOL`: the same, and the ordinary pods of the second wave cannot land on the
  tainted pool, so the slices go back to the headroom.
- {CLASSIC}: bursts take the pause pods' room and ordinary pods take it next; the pattern
  relies on Cluster Autoscaler adding nodes for the pending pause pods.
- CapacityBuffer rows: the same nodes with the slice's room kept free by a buffer of
  {BURSTS} chunks the size of the burst pod (the burst Deployment's PodTemplate shape).
  "Slices consumed" counts bursts that took a chunk's room, which they do without
  preemption, so nothing is recreated. On the shared pool the ordinary pods of the
  second wave take the freed room as readily (P1 does not hold: the API reserves
  capacity for no pod in particular); on the dedicated pool its taint keeps them off.
- Capacity held back: slices cost one slice per node of the pool ({NODES} nodes here:
  at {4 * NODES} nodes the slices would hold {_held(4 * NODES, "slices")}); a buffer
  costs its chunks whatever the node count, so it grows with the burst you expect.
"""


def replace_section(readme: str, table: str) -> str | None:
    """README text with the table between the markers, or None without markers."""
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.DOTALL)
    if not pattern.search(readme):
        return None
    return pattern.sub(lambda _: f"{BEGIN}\n{table}{END}", readme, count=1)


def main() -> None:
    rows = compare()
    DOC.write_text(render_document(rows))
    print(f"wrote {DOC.relative_to(ROOT)}")
    if README.exists():
        updated = replace_section(README.read_text(), render_table(rows))
        if updated is not None:
            README.write_text(updated)
            print(f"updated {README.relative_to(ROOT)}")
    print(render_table(rows), end="")


if __name__ == "__main__":
    main()
