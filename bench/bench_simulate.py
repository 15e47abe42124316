"""How fast the simulator decides, as the cluster grows.

Each run builds a cluster of full nodes with 30 pods each (one GUARDED headroom pod
established through the scheduler, and 29 ordinary pods), then lets 100 burst pods
arrive one by one and recreates the preempted headroom pods. ``run()`` returns the
timings as a markdown section; ``python bench/bench_simulate.py`` prints it.
"""

from __future__ import annotations

import time

from cdk8s_headroom import ModelClasses, PriorityModel
from cdk8s_headroom.simulate import (
    ClassRegistry,
    ClusterState,
    Node,
    Pod,
    PodTemplate,
    Resources,
    Role,
    Simulation,
    Step,
    Workload,
)

SIZES = (100, 250, 500, 1000)
PODS_PER_NODE = 30
ARRIVALS = 100
SLICE = Resources(cpu=500, memory=512 * 2**20)
ORDINARY = Resources(cpu=500, memory=2**30)


def _classes() -> ClassRegistry:
    registry = ClassRegistry()
    for spec in ModelClasses.of(PriorityModel.GUARDED).emitted:
        registry.add(spec, where="bench")
    return registry


def _run(nodes: int, classes: ClassRegistry) -> tuple[float, float, int]:
    """Seconds to build and establish, seconds for the arrivals, slices taken."""
    started = time.perf_counter()
    ordinary = PODS_PER_NODE - 1
    capacity = Resources(SLICE.cpu + ordinary * ORDINARY.cpu, 64 * 2**30)
    state = ClusterState(Node(f"node-{i:04d}", capacity, max_pods=110) for i in range(nodes))
    default = classes.default
    for node in state.nodes:
        for index in range(ordinary):
            pod = Pod(
                name=f"{node.name}-web-{index}",
                namespace="default",
                priority=default.value,
                preemption_policy=default.preemption_policy,
                requests=ORDINARY,
                start_time=index,
            )
            state.bind(pod, node.name)
    simulation = Simulation(state, classes)
    headroom = classes.resolve("headroom-reserve", where="bench")
    burst = classes.resolve("burst-critical", where="bench")
    reserver = Workload(
        "DaemonSet", "reserver", "default", 0, PodTemplate("default", headroom.name, SLICE)
    )
    simulation.establish_daemonset(reserver)
    established = time.perf_counter()
    bursts = Workload(
        "Deployment", "burst", "default", ARRIVALS, PodTemplate("default", burst.name, SLICE)
    )
    arrivals = simulation.create(bursts, ARRIVALS, Role.BURST, Step.ARRIVAL)
    simulation.recreate()
    finished = time.perf_counter()
    taken = sum(1 for e in arrivals if any(v.role is Role.HEADROOM for v in e.victims))
    return established - started, finished - established, taken


def run() -> str:
    classes = _classes()
    lines = [
        "## Simulator benchmark",
        "",
        f"Full nodes of {PODS_PER_NODE} pods (1 GUARDED headroom pod, {PODS_PER_NODE - 1} "
        f"ordinary pods); {ARRIVALS} burst pods arrive one by one, then the preempted "
        "headroom pods are recreated.",
        "",
        "| nodes | pods | build + establish (s) | arrivals + recreations (s) "
        "| per arrival (ms) | slices taken | total (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    per_arrival: dict[int, float] = {}
    for nodes in SIZES:
        setup, arrivals, taken = _run(nodes, classes)
        per_arrival[nodes] = arrivals / ARRIVALS
        lines.append(
            f"| {nodes} | {nodes * PODS_PER_NODE} | {setup:.3f} | {arrivals:.3f} "
            f"| {1000 * arrivals / ARRIVALS:.2f} | {taken} | {setup + arrivals:.3f} |"
        )
    ratio = per_arrival[SIZES[-1]] / per_arrival[SIZES[0]]
    lines += [
        "",
        f"Per-arrival time ratio t({SIZES[-1]})/t({SIZES[0]}): {ratio:.1f} "
        f"(nodes grew {SIZES[-1] // SIZES[0]}x).",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(run())
