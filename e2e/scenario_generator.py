"""The generator of the differential runs' scenarios (issue 33): ``generate(seed, index)``.

``ScenarioBuilder`` makes one scenario's random choices in one fixed order, around
``CORNERS[index % len(CORNERS)]`` (``e2e/scenarios.py`` says what a scenario holds and
how it becomes objects). The same ``(seed, index)`` always gives the same scenario
(``random.Random`` seeded with a string hashes it with SHA-512, the same on every
machine).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import replace

from cdk8s_headroom.simulate.daemon_targets import daemon_pod_tolerations
from cdk8s_headroom.simulate.model import Resources
from cdk8s_headroom.vocabulary.placement import (
    NodeSelectorOperator,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Placement,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from e2e.scenarios import (
    BOUND_CLASSES,
    CORNERS,
    DISK_LABEL,
    MIB,
    PREEMPTOR_CLASSES,
    SCENARIO_LABEL,
    TAINT_KEY,
    WAVES,
    ZONE_LABEL,
    BudgetCase,
    Container,
    ContainerKind,
    Corner,
    GeneratedScenario,
    NodeCase,
    PodCase,
    PodShape,
    PreemptorCase,
    scenario_name,
)


class ScenarioBuilder:
    """One scenario's random choices, in one fixed order (the order is the seed's
    meaning: changing it changes every scenario)."""

    def __init__(self, seed: int, index: int) -> None:
        self.rng = random.Random(f"cdk8s-headroom differential {seed}/{index}")
        self.seed = seed
        self.index = index
        self.prefix = scenario_name(index)
        self.nodes: list[NodeCase] = []
        self.pods: list[PodCase] = []
        self.budgets: list[BudgetCase] = []
        self.notes: list[str] = []
        self.names = itertools.count()

    # -- pieces
    def resources(self, cpu: tuple[int, int], memory: tuple[int, int]) -> Resources:
        """cpu in steps of 50m, memory in steps of 16Mi, both within the bounds."""
        rng = self.rng
        return Resources(
            cpu=rng.randint(cpu[0] // 50, cpu[1] // 50) * 50,
            memory=rng.randint(memory[0] // 16, memory[1] // 16) * 16 * MIB,
        )

    def shape(self, total: Resources, *, rich: bool = False) -> PodShape:
        """Containers whose requests add up to about ``total``; ``rich`` (or by chance)
        with init and sidecar containers, overhead and pod-level resources."""
        rng = self.rng
        split = rng.random() < 0.3
        first = Resources(total.cpu // 2, total.memory // 2) if split else total
        containers = [Container(ContainerKind.APP, _at_least_one(first))]
        if split:
            containers.append(
                Container(
                    ContainerKind.APP,
                    _at_least_one(Resources(total.cpu - first.cpu, total.memory - first.memory)),
                )
            )
        overhead = pod_level = False
        if rich or rng.random() < 0.15:
            # an init container larger than the app: the init peak decides
            containers.insert(
                0,
                Container(
                    ContainerKind.INIT,
                    Resources(total.cpu + rng.choice((0, 50, 200)), total.memory // 2),
                ),
            )
        if rich or rng.random() < 0.15:
            containers.insert(0, Container(ContainerKind.SIDECAR, Resources(50, 16 * MIB)))
        if rich or rng.random() < 0.1:
            overhead = True
        if rich or rng.random() < 0.1:
            pod_level = True
        shape = PodShape(tuple(containers), overhead=overhead)
        if pod_level:
            # Pod-level requests may not be below the containers' aggregate (API
            # validation); above it, they decide.
            aggregate = replace(shape, overhead=False).requests
            shape = replace(
                shape,
                pod_level=Resources(aggregate.cpu + 50 * rng.randint(0, 4), aggregate.memory),
            )
        return shape

    def node(self, number: int, *, taint_chance: float = 0.25) -> NodeCase:
        rng = self.rng
        labels = (
            (SCENARIO_LABEL, self.prefix),
            (ZONE_LABEL, rng.choice("abc")),
            (DISK_LABEL, rng.choice(("ssd", "hdd"))),
        )
        taints: tuple[Taint, ...] = ()
        if rng.random() < taint_chance:
            effect = rng.choice(
                (TaintEffect.NO_SCHEDULE, TaintEffect.NO_EXECUTE, TaintEffect.PREFER_NO_SCHEDULE)
            )
            taints = (Taint(TAINT_KEY, rng.choice(("burst", "batch")), effect),)
        return NodeCase(
            name=f"{self.prefix}-n{number}",
            allocatable=Resources(
                cpu=rng.choice((1000, 2000, 4000)), memory=rng.choice((1024, 2048, 4096)) * MIB
            ),
            max_pods=rng.choice((110, 110, 110, 4, 6)),
            labels=labels,
            taints=taints,
        )

    def pod_labels(self) -> tuple[tuple[str, str], ...]:
        roll = self.rng.random()
        if roll < 0.1:
            return ()  # before 1.38 no budget covers a pod without labels
        return (("app", self.rng.choice(("web", "batch"))),)

    def fill(self, node: NodeCase, *, share: float) -> None:
        """Bound pods on ``node`` up to about ``share`` of its allocatable."""
        rng = self.rng
        budget = Resources(int(node.allocatable.cpu * share), int(node.allocatable.memory * share))
        used = Resources()
        count = 0
        for _ in range(rng.randint(1, 6)):
            if count >= node.max_pods:
                break
            wanted = self.resources(
                (50, max(50, budget.cpu // 2)), (16, max(16, budget.memory // MIB // 2))
            )
            shape = self.shape(wanted)
            requests = shape.requests
            if (
                used.cpu + requests.cpu > budget.cpu
                or used.memory + requests.memory > budget.memory
            ):
                continue
            self.add_pod(
                node, shape, rng.choice(BOUND_CLASSES), self.pod_labels(), rng.randrange(WAVES)
            )
            used += requests
            count += 1

    def add_pod(
        self,
        node: NodeCase,
        shape: PodShape,
        priority_class: str | None,
        labels: tuple[tuple[str, str], ...],
        wave: int,
    ) -> PodCase:
        pod = PodCase(f"p{next(self.names)}", node.name, priority_class, shape, labels, wave)
        self.pods.append(pod)
        return pod

    def free(self, node: NodeCase) -> Resources:
        used = Resources()
        for pod in self.pods:
            if pod.node == node.name:
                used += pod.shape.requests
        return Resources(node.allocatable.cpu - used.cpu, node.allocatable.memory - used.memory)

    def pod_count(self, node: NodeCase) -> int:
        return sum(1 for pod in self.pods if pod.node == node.name)

    def placement(self) -> Placement:
        """A node selector (always the scenario's label), sometimes required node
        affinity and tolerations."""
        rng = self.rng
        selector = [(SCENARIO_LABEL, self.prefix)]
        if rng.random() < 0.2:
            selector.append((DISK_LABEL, rng.choice(("ssd", "hdd"))))
        affinity: tuple[NodeSelectorTerm, ...] | None = None
        if rng.random() < 0.3:
            terms = []
            for _ in range(rng.choice((1, 1, 2))):
                operator = rng.choice(
                    (
                        NodeSelectorOperator.IN,
                        NodeSelectorOperator.NOT_IN,
                        NodeSelectorOperator.EXISTS,
                    )
                )
                values = (
                    ()
                    if operator is NodeSelectorOperator.EXISTS
                    else tuple(sorted(rng.sample("abc", rng.randint(1, 2))))
                )
                terms.append(
                    NodeSelectorTerm((NodeSelectorRequirement(ZONE_LABEL, operator, values),))
                )
            affinity = tuple(terms)
        tolerations: tuple[Toleration, ...] = ()
        roll = rng.random()
        if roll < 0.25:
            tolerations = (Toleration(TAINT_KEY, TolerationOperator.EXISTS),)
        elif roll < 0.45:
            tolerations = (
                Toleration(TAINT_KEY, TolerationOperator.EQUAL, "burst", TaintEffect.NO_SCHEDULE),
            )
        return Placement(tuple(sorted(selector)), affinity, tolerations)

    # -- the scenario
    def build(self) -> GeneratedScenario:
        rng = self.rng
        corner = CORNERS[self.index % len(CORNERS)]
        self.nodes = [self.node(j) for j in range(rng.randint(1, 4))]
        for node in self.nodes:
            self.fill(node, share=rng.choice((0.5, 0.8, 0.95, 1.0)))
        preemptor_class = rng.choice(PREEMPTOR_CLASSES)
        if rng.random() < 0.1:
            preemptor_class = (
                f"{preemptor_class}-never" if preemptor_class != "diff-100" else preemptor_class
            )
        target = rng.choice(self.nodes)
        wanted = Resources(
            int(target.allocatable.cpu * rng.choice((0.2, 0.4, 0.6, 0.9))),
            int(target.allocatable.memory * rng.choice((0.1, 0.3, 0.5, 0.8))),
        )
        wanted = Resources(
            max(50, wanted.cpu // 50 * 50), max(16 * MIB, wanted.memory // MIB * MIB)
        )
        placement = self.placement()
        shape = self.shape(wanted)
        terminating: str | None = None
        nominated: str | None = None
        if rng.random() < 0.3:
            app = rng.choice(("web", "batch"))
            self.budgets.append(BudgetCase(f"pdb-{app}", (("app", app),), rng.choice((0, 0, 1))))

        if corner is Corner.EQUAL_PRIORITIES or corner is Corner.EQUAL_START_TIMES:
            # Several pods of one class below the preemptor's on one node, each big
            # enough that the preemptor needs some but not all of them.
            node = rng.choice(self.nodes)
            self.pods = [p for p in self.pods if p.node != node.name]
            same_class = rng.choice(("diff-10", None, "diff-minus-5"))
            wave = rng.randrange(WAVES)
            count = min(node.max_pods, rng.randint(2, 4))
            part = Resources(
                node.allocatable.cpu // (count + 1), node.allocatable.memory // (count + 1)
            )
            for k in range(count):
                self.add_pod(
                    node,
                    self.shape(part),
                    same_class,
                    self.pod_labels(),
                    wave if corner is Corner.EQUAL_START_TIMES else k % WAVES,
                )
            shape = self.shape(Resources(part.cpu + part.cpu // 2, part.memory))
            preemptor_class = "diff-1000"
        elif corner is Corner.PDB_ON_EVERY_CANDIDATE:
            self.pods = [replace(p, labels=(("app", "guarded"),)) for p in self.pods]
            self.budgets = [BudgetCase("pdb-guarded", (("app", "guarded"),), 0)]
            preemptor_class = "diff-10000"
            shape = self.shape(Resources(int(target.allocatable.cpu * 0.7), wanted.memory))
        elif corner is Corner.FITS_WITHOUT_PREEMPTION:
            empty = replace(self.node(len(self.nodes), taint_chance=0), max_pods=110)
            self.nodes.append(empty)
            placement = replace(
                placement, affinity=None, node_selector=((SCENARIO_LABEL, self.prefix),)
            )
            shape = self.shape(Resources(empty.allocatable.cpu // 2, empty.allocatable.memory // 4))
        elif corner is Corner.NEVER:
            preemptor_class = rng.choice(("diff-1000-never", "diff-10000-never"))
        elif corner is Corner.NO_VICTIMS_ENOUGH:
            # A node held mostly by a pod at the preemptor's own priority: no victims free
            # enough room there.
            node = rng.choice(self.nodes)
            self.pods = [p for p in self.pods if p.node != node.name]
            preemptor_class = "diff-1000"
            self.add_pod(
                node,
                self.shape(Resources(node.allocatable.cpu * 3 // 4, node.allocatable.memory // 2)),
                rng.choice(("diff-1000", "diff-10000")),
                self.pod_labels(),
                0,
            )
            self.add_pod(
                node, self.shape(Resources(node.allocatable.cpu // 8, 64 * MIB)), "diff-10", (), 1
            )
            shape = self.shape(Resources(node.allocatable.cpu // 2, node.allocatable.memory // 4))
        elif corner is Corner.NOMINATED_WITH_TERMINATING_VICTIM:
            node = rng.choice(self.nodes)
            victim = self.add_pod(
                node,
                self.shape(Resources(100, 64 * MIB)),
                "diff-10",
                (("app", "web"),),
                0,
            )
            terminating = victim.name
            nominated = node.name
            preemptor_class = "diff-10000"
            placement = replace(placement, affinity=None)
        elif corner is Corner.DAEMON_PREEMPTOR:
            node = rng.choice(self.nodes)
            pinned = NodeSelectorTerm(
                fields=(
                    NodeSelectorRequirement("metadata.name", NodeSelectorOperator.IN, (node.name,)),
                )
            )
            placement = Placement(
                ((SCENARIO_LABEL, self.prefix),),
                (pinned,),
                daemon_pod_tolerations(placement.tolerations),
            )
            shape = self.shape(Resources(node.allocatable.cpu // 3, node.allocatable.memory // 4))
            preemptor_class = rng.choice(("diff-1000", "diff-10000"))
        elif corner is Corner.ABOVE_ALLOCATABLE:
            smallest = min(self.nodes, key=lambda n: n.allocatable.cpu)
            shape = self.shape(Resources(smallest.allocatable.cpu + 50, wanted.memory))
        elif corner is Corner.TOO_MANY_PODS:
            node = rng.choice(self.nodes)
            limit = max(1, self.pod_count(node))
            if self.pod_count(node) == 0:
                self.add_pod(
                    node, self.shape(Resources(50, 16 * MIB)), "diff-10", self.pod_labels(), 0
                )
            self.nodes[self.nodes.index(node)] = replace(node, max_pods=limit)
            shape = self.shape(Resources(50, 16 * MIB))
        elif corner is Corner.EMPTY_PDB_SELECTOR:
            self.budgets.append(BudgetCase("pdb-everything", (), 0))
        elif corner is Corner.REQUEST_SHAPES:
            shape = self.shape(wanted, rich=True)

        preemptor = PreemptorCase("preemptor", preemptor_class, shape, placement, nominated)
        return GeneratedScenario(
            seed=self.seed,
            index=self.index,
            corner=corner,
            nodes=tuple(self.nodes),
            pods=tuple(self.pods),
            budgets=tuple(self.budgets),
            preemptor=preemptor,
            terminating=terminating,
            notes=tuple(self.notes),
        )


def _at_least_one(resources: Resources) -> Resources:
    return Resources(max(resources.cpu, 10), max(resources.memory, MIB))


def generate(seed: int, index: int) -> GeneratedScenario:
    """Scenario ``index`` of run ``seed``: the same pair always gives the same one."""
    return ScenarioBuilder(seed, index).build()


def generate_many(seed: int, count: int, *, start: int = 0) -> Iterator[GeneratedScenario]:
    for index in range(start, start + count):
        yield generate(seed, index)
