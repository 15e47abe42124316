"""`plan` judged by the real DaemonSet controller and scheduler (issue 33, item 4).

A random cluster per scenario (the nodes and bound pods of ``e2e/scenarios.py``'s
builder) and one reserver: a PriorityClass of the shared palette and a DaemonSet whose
pods select the scenario's nodes. Each scenario adds one shape to the random ones:

- a cordoned node (``spec.unschedulable``: daemon pods tolerate its taint). A NotReady
  node cannot be kept here: kwokctl runs KWOK with ``--manage-all-nodes=true``, which
  turns every node Ready, and the node lifecycle controller then lifts the
  ``node.kubernetes.io/not-ready`` taints; ``tests/simulate/test_daemon_targets.py``
  holds plan's rule for them;
- an untolerated ``node.kubernetes.io/*`` taint (``network-unavailable``: the controller
  adds its toleration only to host-network pods);
- a node selector or required affinity that leaves some nodes out;
- pod-level resources in the reserver's template;
- a listing of one namespace (``kubectl get pods -n``), which leaves the ordinary pods
  out: plan must warn that free room is overstated.

``plan --manifests --snapshot`` on the listing taken before apply predicts, per node,
targeted or not, and held (Running, with the pods it evicts) or waiting; then the
DaemonSet is applied and the controller and scheduler decide
(``pkg/controller/daemon/daemon_controller.go`` ``NodeShouldRunDaemonPod``, the
scheduler's fit and preemption). They agree when the targets, the held nodes, the waiting
nodes and the evicted pods are the same.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path

from cdk8s_headroom.cli import main as cli_main
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
from e2e.cluster import LiveCluster, Manifest
from e2e.scenario_generator import ScenarioBuilder
from e2e.scenarios import (
    DISK_LABEL,
    SCENARIO_LABEL,
    TAINT_KEY,
    ZONE_LABEL,
    NodeCase,
    PodCase,
    PodShape,
    cluster_objects,
    namespace_manifest,
)

RESERVER_CLASSES = ("diff-minus-5", "diff-10000", "diff-1000-never")
"""A reserver below the ordinary pods, one above them, and one that never preempts."""


class Shape(Enum):
    CORDONED_NODE = "a cordoned node"
    SYSTEM_TAINT = "an untolerated node.kubernetes.io/* taint"
    SELECTOR_EXCLUDES = "a selector or affinity that leaves nodes out"
    POD_LEVEL_RESOURCES = "pod-level resources"
    ONE_NAMESPACE = "a listing of one namespace"


SHAPES = tuple(Shape)


@dataclass(frozen=True)
class PlanScenario:
    seed: int
    index: int
    shape: Shape
    nodes: tuple[NodeCase, ...]
    cordoned: tuple[str, ...]
    pods: tuple[PodCase, ...]
    priority_class: str
    template: PodShape
    placement: Placement

    @property
    def key(self) -> str:
        return f"{self.seed}/{self.index}"

    @property
    def namespace(self) -> str:
        return f"plan-{self.index:04d}"

    @property
    def apps(self) -> str:
        return f"{self.namespace}-apps"

    def pod_manifests(self) -> list[Manifest]:
        pods = []
        for pod in self.pods:
            spec = pod.shape.spec()
            spec.update(nodeName=pod.node, tolerations=[{"operator": "Exists"}])
            if pod.priority_class is not None:
                spec["priorityClassName"] = pod.priority_class
            pods.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": pod.name,
                        "namespace": self.apps,
                        "labels": dict(pod.labels),
                    },
                    "spec": spec,
                }
            )
        return pods

    def daemonset(self) -> Manifest:
        spec = self.template.spec()
        spec["priorityClassName"] = self.priority_class
        rendered = self.placement.to_manifest()
        spec.update({k: v for k, v in rendered.items() if v is not None})
        if "tolerations" in spec:
            spec["tolerations"] = [
                {k: v for k, v in t.items() if v is not None} for t in spec["tolerations"]
            ]
        labels = {"app.kubernetes.io/name": "reserver"}
        return {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "reserver", "namespace": self.namespace},
            "spec": {
                "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": spec},
            },
        }


def generate_plan(seed: int, index: int) -> PlanScenario:
    """Plan scenario ``index`` of run ``seed``; the same pair gives the same one."""
    builder = ScenarioBuilder(seed, 100_000 + index)
    builder.prefix = f"plan-{index:04d}"
    rng = builder.rng
    shape = SHAPES[index % len(SHAPES)]
    nodes = [builder.node(j) for j in range(rng.randint(2, 4))]
    builder.nodes = nodes
    for node in nodes:
        builder.fill(node, share=rng.choice((0.3, 0.6, 0.9, 1.0)))
    smallest = min(nodes, key=lambda n: n.allocatable.cpu)
    slice_size = Resources(
        smallest.allocatable.cpu * rng.choice((1, 2, 3)) // 8 // 50 * 50 or 50,
        smallest.allocatable.memory * rng.choice((1, 2)) // 8,
    )
    # No overhead: it comes from a RuntimeClass, which plan does not read (it refuses
    # runtimeClassName in a template).
    template = replace(builder.shape(slice_size), overhead=False, pod_level=None)
    if shape is Shape.POD_LEVEL_RESOURCES:
        template = replace(
            template,
            pod_level=Resources(template.requests.cpu + 100, template.requests.memory),
        )
    tolerations: tuple[Toleration, ...] = ()
    if rng.random() < 0.4:
        tolerations = (Toleration(TAINT_KEY, TolerationOperator.EXISTS),)
    selector = [(SCENARIO_LABEL, builder.prefix)]
    affinity: tuple[NodeSelectorTerm, ...] | None = None
    cordoned: tuple[str, ...] = ()
    if shape is Shape.CORDONED_NODE:
        cordoned = (rng.choice(nodes).name,)
    elif shape is Shape.SYSTEM_TAINT:
        node = rng.choice(nodes)
        tainted = replace(
            node,
            taints=(
                *node.taints,
                Taint("node.kubernetes.io/network-unavailable", "", TaintEffect.NO_SCHEDULE),
            ),
        )
        nodes[nodes.index(node)] = tainted
    elif shape is Shape.SELECTOR_EXCLUDES:
        if rng.random() < 0.5:
            selector.append((DISK_LABEL, dict(nodes[0].labels)[DISK_LABEL]))
        else:
            zone = dict(nodes[0].labels)[ZONE_LABEL]
            affinity = (
                NodeSelectorTerm(
                    (NodeSelectorRequirement(ZONE_LABEL, NodeSelectorOperator.IN, (zone,)),)
                ),
            )
    return PlanScenario(
        seed=seed,
        index=index,
        shape=shape,
        nodes=tuple(nodes),
        cordoned=cordoned,
        pods=tuple(builder.pods),
        priority_class=rng.choice(RESERVER_CLASSES),
        template=template,
        placement=Placement(tuple(sorted(selector)), affinity, tolerations),
    )


@dataclass(frozen=True)
class Placed:
    """Where the reserver is, per node: ``targets`` the nodes with a reserver pod,
    ``held`` those where it runs, ``waiting`` those where it cannot, ``evicted`` the
    pods it preempted (namespace/name)."""

    targets: frozenset[str]
    held: frozenset[str]
    waiting: frozenset[str]
    evicted: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, list[str]]:
        return {k: sorted(v) for k, v in self.__dict__.items()}


@dataclass
class PlanOutcome:
    scenario: PlanScenario
    release: str
    predicted: Placed
    live: Placed
    warnings: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        if self.scenario.shape is Shape.ONE_NAMESPACE:
            # plan cannot see the pods the listing leaves out: it must say so
            return any("looks like a listing of one namespace" in w for w in self.warnings)
        return self.predicted == self.live


def _plan(
    scenario: PlanScenario, listing: list[Manifest], release: str, folder: Path
) -> tuple[Placed, list[str]]:
    """``cdk8s-headroom plan --manifests --snapshot --json`` on the scenario's objects."""
    names = {node.name for node in scenario.nodes}
    namespaces = (
        {scenario.namespace}
        if scenario.shape is Shape.ONE_NAMESPACE
        else {scenario.namespace, scenario.apps}
    )
    objects = [
        o
        for o in listing
        if (o["kind"] == "Node" and o["metadata"]["name"] in names)
        or o["kind"] == "PriorityClass"
        or (o["kind"] == "Pod" and o["metadata"].get("namespace") in namespaces)
    ]
    manifests = folder / f"{scenario.namespace}-manifests"
    manifests.mkdir(parents=True, exist_ok=True)
    (manifests / "reserver.json").write_text(json.dumps(scenario.daemonset()))
    snapshot = folder / f"{scenario.namespace}-snapshot.json"
    snapshot.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli_main(
            ["plan", "--manifests", str(manifests), "--snapshot", str(snapshot), "--json",
             "--kubernetes-version", release]
        )  # fmt: skip
    if code not in (0, 1):
        raise RuntimeError(f"plan exited {code} on {snapshot}")
    report = json.loads(out.getvalue())
    (reserver,) = report["reservers"]
    held = {e["node"] for e in reserver["established"]}
    return (
        Placed(
            frozenset(reserver["target_nodes"]),
            frozenset(held),
            frozenset(p["node"] for p in reserver["pending"]),
            frozenset(v for e in reserver["established"] for v in e["evicts"]),
        ),
        list(report["warnings"]),
    )


_PREEMPTED = re.compile(r"Preempted by (?:pod )?(?P<uid>[0-9a-f-]{36})")


def _pinned(pod: Manifest) -> str:
    terms = pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    return str(terms[0]["matchFields"][0]["values"][0])


def _placed(cluster: LiveCluster, scenario: PlanScenario) -> Placed | None:
    """Where the controller and scheduler put the reserver, once every pod of it runs
    or is unschedulable and nothing of the scenario is terminating; None before."""
    (daemonset,) = cluster.get_json("daemonset", "reserver", "-n", scenario.namespace)["items"]
    status = daemonset.get("status", {})
    if status.get("observedGeneration") != daemonset["metadata"]["generation"]:
        return None
    pods = cluster.get_json("pods", "-n", scenario.namespace)["items"]
    if len(pods) != status.get("desiredNumberScheduled"):
        return None
    held, waiting = set(), set()
    for pod in pods:
        if pod["metadata"].get("deletionTimestamp"):
            return None
        if pod["status"].get("phase") == "Running":
            held.add(pod["spec"]["nodeName"])
        elif any(
            c["type"] == "PodScheduled" and c.get("reason") == "Unschedulable"
            for c in pod["status"].get("conditions", [])
        ):
            waiting.add(_pinned(pod))
        else:
            return None
    apps = cluster.get_json("pods", "-n", scenario.apps)["items"]
    if any(p["metadata"].get("deletionTimestamp") for p in apps):
        return None
    uids = {p["metadata"]["uid"] for p in pods}
    evicted = set()
    for event in cluster.get_json("events", "-n", scenario.apps)["items"]:
        match = _PREEMPTED.search(event.get("message", ""))
        if event.get("reason") == "Preempted" and match and match["uid"] in uids:
            evicted.add(f"{scenario.apps}/{event['involvedObject']['name']}")
    return Placed(
        frozenset(_pinned(p) for p in pods), frozenset(held), frozenset(waiting), frozenset(evicted)
    )


def run_plan_batch(
    cluster: LiveCluster, scenarios: Sequence[PlanScenario], folder: Path
) -> list[PlanOutcome]:
    """The scenarios side by side: nodes and pods, the listing and plan's predictions,
    then every DaemonSet applied at once and each placement read back."""
    cluster.apply(cluster_objects())
    cluster.add_nodes(node.shape() for s in scenarios for node in s.nodes)
    cordoned = [name for s in scenarios for name in s.cordoned]
    if cordoned:
        cluster.kubectl("cordon", *cordoned)
    cluster.apply([namespace_manifest(n) for s in scenarios for n in (s.namespace, s.apps)])
    pods = [p for s in scenarios for p in s.pod_manifests()]
    if pods:
        cluster.apply(pods)
    cluster.wait_for(
        lambda: all(
            p["status"].get("phase") == "Running"
            for p in cluster.get_json("pods", "-A")["items"]
            if p["metadata"]["namespace"].startswith("plan-")
        ),
        what="the bound pods running",
    )
    listing = []
    for kind in ("nodes", "priorityclasses"):
        listing += cluster.get_json(kind)["items"]
    listing += cluster.get_json("pods", "-A")["items"]
    release = cluster.binaries.release
    predictions = [_plan(s, listing, release, folder) for s in scenarios]
    cluster.apply([s.daemonset() for s in scenarios])
    outcomes = []
    for scenario, (predicted, warnings) in zip(scenarios, predictions, strict=True):
        live = cluster.wait_for(
            functools.partial(_placed, cluster, scenario),
            timeout=180,
            what=f"the reserver of {scenario.namespace} placed",
        )
        assert live is not None
        outcomes.append(PlanOutcome(scenario, release, predicted, live, warnings))
    return outcomes


def describe(outcome: PlanOutcome) -> str:
    return (
        f"{outcome.scenario.key} ({outcome.scenario.shape.value}): controller "
        f"{json.dumps(outcome.live.to_json())}, plan {json.dumps(outcome.predicted.to_json())}"
    )
