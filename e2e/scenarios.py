"""Random preemption scenarios, seeded and reproducible, for the differential runs
(issue 33): the same scenario is put to the real kube-scheduler (``e2e/differential.py``)
and to ``cdk8s-headroom simulate --scenario``.

A scenario (``GeneratedScenario``, made by ``e2e/scenario_generator.py``'s
``generate(seed, index)``) holds a few nodes of varied sizes, labels, taints
and pod limits; pods bound to them with varied priority classes, requests (containers,
init and sidecar containers, pod overhead through a RuntimeClass, pod-level resources),
start times (in waves one second apart) and labels; PodDisruptionBudgets; and one
preemptor with its class (and so its policy), node selector, required node affinity and
tolerations. Scenario ``index`` is built around ``CORNERS[index % len(CORNERS)]``, so
that every corner of the scheduler's decision the issue lists comes up in any run of
``len(CORNERS)`` scenarios; the rest is random.

Each scenario lives on nodes of its own (labelled ``SCENARIO_LABEL``, which the
preemptor selects) and in a namespace of its own, so that a batch runs side by side in
one cluster. Its objects come from ``NodeCase.shape``, ``pod_manifest``,
``budget_manifests`` and ``preemptor_manifest``; ``listing`` gives the objects as
``kubectl get -o json`` would list them once running, for runs without a cluster.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from enum import Enum

from cdk8s_headroom.simulate.model import Resources, pod_requests
from cdk8s_headroom.vocabulary.placement import (
    Placement,
    Taint,
)
from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy, PriorityClassSpec
from e2e.cluster import Manifest, NodeShape

SCENARIO_LABEL = "differential.headroom.cdk8s.io/scenario"
"""Each scenario's nodes carry it, and its preemptor selects it: scenarios side by
side in one cluster never reach each other's nodes."""
ZONE_LABEL = "topology.kubernetes.io/zone"
DISK_LABEL = "differential.headroom.cdk8s.io/disk"
TAINT_KEY = "differential.headroom.cdk8s.io/dedicated"
IMAGE = "registry.k8s.io/pause:3.10"
MIB = 2**20

CLASSES: tuple[PriorityClassSpec, ...] = (
    PriorityClassSpec("diff-minus-5", -5),
    PriorityClassSpec("diff-10", 10),
    PriorityClassSpec("diff-100", 100),
    PriorityClassSpec("diff-1000", 1000),
    PriorityClassSpec("diff-10000", 10000),
    PriorityClassSpec("diff-1000-never", 1000, PreemptionPolicy.NEVER),
    PriorityClassSpec("diff-10000-never", 10000, PreemptionPolicy.NEVER),
)
"""The classes every batch creates once: priority and policy come to pods from their
class (the Priority admission plugin refuses a pod that sets ``priority`` itself)."""
_CLASS = {spec.name: spec for spec in CLASSES}
BOUND_CLASSES: tuple[str | None, ...] = (None, "diff-minus-5", "diff-10", "diff-100", "diff-1000")
"""A bound pod's class; ``None``: no class, priority 0 (no class is the global default)."""
PREEMPTOR_CLASSES = ("diff-100", "diff-1000", "diff-10000", "diff-10000")

RUNTIME_CLASS = "diff-overhead"
OVERHEAD = Resources(cpu=100, memory=32 * MIB)
"""The RuntimeClass whose ``overhead.podFixed`` the RuntimeClass admission plugin copies
into ``spec.overhead`` of its pods."""

WAVES = 3
"""Bound pods start in this many waves, one second apart: startTime has whole seconds,
so pods of one wave start at the same time as far as anyone can tell."""


class Corner(Enum):
    """The corners of the scheduler's decision that the issue asks every run to cover."""

    EQUAL_PRIORITIES = "equal priorities, different start times"
    EQUAL_START_TIMES = "equal priorities and start times"
    PDB_ON_EVERY_CANDIDATE = "a PDB violated on every candidate"
    FITS_WITHOUT_PREEMPTION = "the preemptor fits without preemption"
    NEVER = "preemptionPolicy Never"
    NO_VICTIMS_ENOUGH = "a node where no set of victims is enough"
    NOMINATED_WITH_TERMINATING_VICTIM = "the nominated node has a victim terminating"
    DAEMON_PREEMPTOR = "a DaemonSet pod as preemptor"
    ABOVE_ALLOCATABLE = "requests above a node's allocatable"
    TOO_MANY_PODS = "a node at its pod limit"
    EMPTY_PDB_SELECTOR = "a PDB with an empty selector"
    REQUEST_SHAPES = "init and sidecar containers, overhead and pod-level resources"


CORNERS = tuple(Corner)


class ContainerKind(Enum):
    APP = "app"
    INIT = "init"
    SIDECAR = "sidecar"
    """A restartable init container (``restartPolicy: Always``)."""


@dataclass(frozen=True)
class Container:
    kind: ContainerKind
    requests: Resources


@dataclass(frozen=True)
class PodShape:
    """What decides a pod's requests as the scheduler counts them."""

    containers: tuple[Container, ...]
    overhead: bool = False
    pod_level: Resources | None = None

    @property
    def requests(self) -> Resources:
        """``PodRequests`` (the product's port, ``simulate.model.pod_requests``), used
        here only to size scenarios; the comparison reads requests back from the API
        server's objects."""
        level = (None, None) if self.pod_level is None else astuple(self.pod_level)
        return pod_requests(
            [c.requests for c in self.containers if c.kind is ContainerKind.APP],
            [
                (c.requests, c.kind is ContainerKind.SIDECAR)
                for c in self.containers
                if c.kind is not ContainerKind.APP
            ],
            OVERHEAD if self.overhead else Resources(),
            pod_level=level,
        )

    def spec(self) -> Manifest:
        def container(index: int, item: Container) -> Manifest:
            body: Manifest = {
                "name": f"{item.kind.value}-{index}",
                "image": IMAGE,
                "resources": {"requests": quantities(item.requests)},
            }
            if item.kind is ContainerKind.SIDECAR:
                body["restartPolicy"] = "Always"
            return body

        spec: Manifest = {
            "containers": [
                container(i, c)
                for i, c in enumerate(self.containers)
                if c.kind is ContainerKind.APP
            ],
            "terminationGracePeriodSeconds": 0,
            "automountServiceAccountToken": False,
        }
        init = [
            container(i, c)
            for i, c in enumerate(self.containers)
            if c.kind is not ContainerKind.APP
        ]
        if init:
            spec["initContainers"] = init
        if self.overhead:
            spec["runtimeClassName"] = RUNTIME_CLASS
        if self.pod_level is not None:
            spec["resources"] = {"requests": quantities(self.pod_level)}
        return spec


def astuple(resources: Resources) -> tuple[int, int]:
    return resources.cpu, resources.memory


def quantities(resources: Resources) -> dict[str, str]:
    """Exact quantities: millicores and bytes."""
    return {"cpu": f"{resources.cpu}m", "memory": str(resources.memory)}


@dataclass(frozen=True)
class NodeCase:
    name: str
    allocatable: Resources
    max_pods: int
    labels: tuple[tuple[str, str], ...]
    taints: tuple[Taint, ...] = ()

    def shape(self) -> NodeShape:
        """The fake node the live tier creates (``e2e.cluster.NodeShape``)."""
        return NodeShape(
            self.name,
            cpu=f"{self.allocatable.cpu}m",
            memory=str(self.allocatable.memory),
            pods=self.max_pods,
            labels=dict(self.labels),
            taints=tuple(t.to_manifest() for t in self.taints),
        )


@dataclass(frozen=True)
class PodCase:
    """A pod bound to ``node`` (``spec.nodeName``), started in ``wave``."""

    name: str
    node: str
    priority_class: str | None
    shape: PodShape
    labels: tuple[tuple[str, str], ...]
    wave: int

    @property
    def priority(self) -> int:
        return 0 if self.priority_class is None else _CLASS[self.priority_class].value


@dataclass(frozen=True)
class PreemptorCase:
    name: str
    priority_class: str
    shape: PodShape
    placement: Placement
    nominated_node: str | None = None
    """Set for NOMINATED_WITH_TERMINATING_VICTIM: the node a previous preemption named."""

    @property
    def priority(self) -> int:
        return _CLASS[self.priority_class].value

    @property
    def policy(self) -> PreemptionPolicy:
        return _CLASS[self.priority_class].preemption_policy


@dataclass(frozen=True)
class BudgetCase:
    """A PodDisruptionBudget. ``match_labels`` empty is the empty selector ``{}``."""

    name: str
    match_labels: tuple[tuple[str, str], ...]
    max_unavailable: int


@dataclass(frozen=True)
class GeneratedScenario:
    seed: int
    index: int
    corner: Corner
    nodes: tuple[NodeCase, ...]
    pods: tuple[PodCase, ...]
    budgets: tuple[BudgetCase, ...]
    preemptor: PreemptorCase
    terminating: str | None = None
    """A pod deleted by an earlier preemption and still terminating (its kubelet has
    not confirmed), with a DisruptionTarget condition: NOMINATED_WITH_TERMINATING_VICTIM."""
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def key(self) -> str:
        return f"{self.seed}/{self.index}"

    @property
    def namespace(self) -> str:
        return scenario_name(self.index)

    def budget_manifests(self) -> list[Manifest]:
        return [
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": budget.name, "namespace": self.namespace},
                "spec": {
                    "selector": {"matchLabels": dict(budget.match_labels)}
                    if budget.match_labels
                    else {},
                    "maxUnavailable": budget.max_unavailable,
                },
            }
            for budget in self.budgets
        ]

    def pod_manifest(self, pod: PodCase) -> Manifest:
        spec = pod.shape.spec()
        spec["nodeName"] = pod.node
        # Bound pods stay where the scenario puts them: no taint evicts them
        # (NoExecute taints are part of the scenario's nodes).
        spec["tolerations"] = [{"operator": "Exists"}]
        if pod.priority_class is not None:
            spec["priorityClassName"] = pod.priority_class
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": pod.name, "namespace": self.namespace, "labels": dict(pod.labels)},
            "spec": spec,
        }

    def preemptor_manifest(self, *, gated: bool = False) -> Manifest:
        preemptor = self.preemptor
        spec = preemptor.shape.spec()
        spec["priorityClassName"] = preemptor.priority_class
        placement = preemptor.placement.to_manifest()
        spec.update({key: value for key, value in placement.items() if value is not None})
        spec["tolerations"] = [
            {k: v for k, v in t.items() if v is not None} for t in spec.get("tolerations", [])
        ]
        for term in (
            spec.get("affinity", {})
            .get("nodeAffinity", {})
            .get("requiredDuringSchedulingIgnoredDuringExecution", {})
            .get("nodeSelectorTerms", [])
        ):
            for requirements in term.values():
                for requirement in requirements:
                    if requirement.get("values") is None:
                        requirement.pop("values", None)
        if gated:
            spec["schedulingGates"] = [{"name": GATE}]
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": preemptor.name, "namespace": self.namespace},
            "spec": spec,
        }

    def listing(self, start: datetime) -> list[Manifest]:
        """The scenario's objects as ``kubectl get -o json`` lists them once the bound
        pods run (wave ``w`` started ``w`` seconds after ``start``) and the disruption
        controller has counted the budgets, with the preemptor not yet scheduled: what a
        run without a cluster reads in place of the live objects."""
        objects: list[Manifest] = [node.shape().manifest() for node in self.nodes]
        objects += [
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": spec.name},
                "value": spec.value,
                "preemptionPolicy": spec.preemption_policy.value,
            }
            for spec in CLASSES
        ]
        for pod in self.pods:
            manifest = self.pod_manifest(pod)
            _admit(manifest)
            started = start + timedelta(seconds=pod.wave)
            manifest["status"] = {"phase": "Running", "startTime": rfc3339(started)}
            if pod.name == self.terminating:
                manifest["metadata"]["deletionTimestamp"] = rfc3339(start + timedelta(hours=1))
                manifest["status"]["conditions"] = [DISRUPTION_TARGET]
            objects.append(manifest)
        for budget, manifest in zip(self.budgets, self.budget_manifests(), strict=True):
            manifest["status"] = {"disruptionsAllowed": self.disruptions_allowed(budget)}
            objects.append(manifest)
        preemptor = self.preemptor_manifest()
        _admit(preemptor)
        preemptor["status"] = {"phase": "Pending"}
        if self.preemptor.nominated_node:
            preemptor["status"]["nominatedNodeName"] = self.preemptor.nominated_node
        objects.append(preemptor)
        return objects

    def disruptions_allowed(self, budget: BudgetCase) -> int:
        """The disruption controller's count for ``maxUnavailable`` (every pod healthy;
        a terminating pod is not): ``maxUnavailable - (expected - healthy)``."""
        covered = [p for p in self.pods if set(budget.match_labels) <= set(p.labels)]
        unhealthy = sum(1 for p in covered if p.name == self.terminating)
        return max(0, budget.max_unavailable - unhealthy)


GATE = "differential.headroom.cdk8s.io/nominate"
"""The scheduling gate that holds a preemptor until its nominated node is set."""

DISRUPTION_TARGET: Manifest = {
    "type": "DisruptionTarget",
    "status": "True",
    "reason": "PreemptionByScheduler",
    "message": "differential: deleted by an earlier preemption",
}
"""The condition the scheduler puts on a victim before deleting it
(``pkg/scheduler/framework/preemption/preemption.go`` ``prepareCandidate``)."""


def scenario_name(index: int) -> str:
    return f"diff-{index:04d}"


def namespace_manifest(name: str) -> Manifest:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _admit(pod: Manifest) -> None:
    """What the Priority and RuntimeClass admission plugins add to a pod."""
    spec = pod["spec"]
    info = _CLASS.get(spec.get("priorityClassName", ""))
    spec["priority"] = 0 if info is None else info.value
    spec["preemptionPolicy"] = (
        PreemptionPolicy.PREEMPT_LOWER_PRIORITY if info is None else info.preemption_policy
    ).value
    if spec.get("runtimeClassName") == RUNTIME_CLASS:
        spec["overhead"] = quantities(OVERHEAD)


def cluster_objects() -> list[Manifest]:
    """What every batch shares: the priority classes and the RuntimeClass."""
    classes: list[Manifest] = [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": spec.name},
            "value": spec.value,
            "preemptionPolicy": spec.preemption_policy.value,
        }
        for spec in CLASSES
    ]
    runtime: Manifest = {
        "apiVersion": "node.k8s.io/v1",
        "kind": "RuntimeClass",
        "metadata": {"name": RUNTIME_CLASS},
        "handler": "kwok",
        "overhead": {"podFixed": quantities(OVERHEAD)},
    }
    return [*classes, runtime]


def batches(
    scenarios: Sequence[GeneratedScenario], *, nodes: int
) -> Iterator[list[GeneratedScenario]]:
    """Consecutive scenarios, each batch with at most ``nodes`` nodes in all."""
    batch: list[GeneratedScenario] = []
    count = 0
    for scenario in scenarios:
        if batch and count + len(scenario.nodes) > nodes:
            yield batch
            batch, count = [], 0
        batch.append(scenario)
        count += len(scenario.nodes)
    if batch:
        yield batch
