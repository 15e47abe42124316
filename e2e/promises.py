"""The promises P1 to P3 watched on a running kube-scheduler and DaemonSet controller.

One scenario per priority model (DESIGN.md, "Promises the product must keep"):

1. three pool nodes; the library's classes and reserver DaemonSet (a 1-CPU slice),
   placed by the real DaemonSet controller, Running on each;
2. ordinary pods (no class: the cluster's default priority) fill every node they may
   land on, and three more wait (Pending);
3. three burst pods, each the size of a slice, arrive: the scheduler picks victims;
4. the bursts leave: who takes the freed slices, recreated reservers or the waiting
   ordinary pods (the free-capacity race of GUARDED);
5. a reserver is recreated on a full node: the pool label leaves a node whose
   reserver runs (the controller deletes it), a waiting ordinary pod takes the freed
   room, the label comes back (the controller creates a reserver on a full node).

The victims are read from the scheduler's ``Preempted`` events (``Preempted by pod
<uid> on node <node>``, recorded on each victim with the preemptor as the related
object: kubernetes ``pkg/scheduler/framework/preemption/preemption.go``
``prepareCandidate``). Nothing is modelled here: every decision is the real
components'.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import cdk8s

from cdk8s_headroom import (
    HeadroomWarning,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
    Taint,
    TaintEffect,
    headroom_charts,
)
from cdk8s_headroom.vocabulary.labels import COMPONENT_LABEL, RESERVER_COMPONENT
from e2e.cluster import LiveCluster, Manifest, NodeShape

NAMESPACE = "promises"
ORDINARY_NAMESPACE = "ordinary"
POOL = "promises"
POOL_LABEL = "karpenter.sh/nodepool"
POOL_NODES = 3
SLICE_CPU = "1"
SLICE_MEMORY = "1Gi"
DEDICATED_TAINT = Taint("headroom.cdk8s.io/burst", "true", TaintEffect.NO_SCHEDULE)
PENDING_ORDINARY = 3
"""Ordinary pods left waiting once the nodes are full: they race for freed room."""


@dataclass
class PromiseCounts:
    """What one run of the scenario saw, per model and release."""

    model: str
    release: str
    bursts_placed: int = 0
    ordinary_preempted_by_bursts: int = 0
    reservers_preempted_by_bursts: int = 0
    recreated_reserver_evictions: int = 0
    freed_slices_taken_by_ordinary: int = 0
    ordinary_pods_on_the_pool: int = 0
    victims: list[str] = field(default_factory=list)

    def as_row(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "victims"}


def headroom_objects(model: PriorityModel) -> tuple[list[Manifest], list[Manifest]]:
    """The library's objects for the scenario: (everything but the bursts, the bursts)."""
    app = cdk8s.App()
    taints = (DEDICATED_TAINT,) if model is PriorityModel.DEDICATED_POOL else ()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)  # SEED warns that it breaks P2, P3
        charts = headroom_charts(app, namespace=NAMESPACE, model=model)
        headroom = NodeHeadroom(
            charts.workloads,
            "promises",
            cpu=SLICE_CPU,
            memory=SLICE_MEMORY,
            model=model,
            node_pool=NodePoolRef(POOL, label_key=POOL_LABEL, taints=taints),
            namespace=charts.namespace.name,
            priority_classes=charts.priority_classes,
        )
        headroom.add_burst_workload(
            "burst",
            image="registry.k8s.io/pause:3.10",
            cpu=SLICE_CPU,
            memory=SLICE_MEMORY,
            replicas=POOL_NODES,
        )
        objects = [o for chart in app.charts for o in chart.to_json()]
    bursts = [o for o in objects if o["kind"] == "Deployment"]
    return [o for o in objects if o["kind"] != "Deployment"], bursts


def ordinary_pods(replicas: int) -> list[Manifest]:
    """Pods of no class (the cluster's default priority), a slice's size each."""
    labels = {"app": "ordinary"}
    security = {
        "runAsNonRoot": True,
        "runAsUser": 65532,
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ORDINARY_NAMESPACE}},
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "ordinary", "namespace": ORDINARY_NAMESPACE},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "automountServiceAccountToken": False,
                        "terminationGracePeriodSeconds": 0,
                        "containers": [
                            {
                                "name": "app",
                                "image": "registry.k8s.io/pause:3.10",
                                "securityContext": security,
                                "resources": {
                                    "requests": {"cpu": SLICE_CPU, "memory": "256Mi"},
                                    "limits": {"cpu": SLICE_CPU, "memory": "256Mi"},
                                },
                            }
                        ],
                    },
                },
            },
        },
    ]


def _pods(cluster: LiveCluster, namespace: str) -> list[Manifest]:
    items: list[Manifest] = cluster.get_json("pods", "-n", namespace)["items"]
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def _running(pods: Iterable[Manifest]) -> list[Manifest]:
    return [p for p in pods if p["status"].get("phase") == "Running"]


def _all_running(pods: Iterable[Manifest], count: int) -> list[Manifest]:
    """The Running pods once ``count`` of them run, else none: a condition for
    ``LiveCluster.wait_for`` that returns the pods it waited for (one listing per poll)."""
    running = _running(pods)
    return running if len(running) == count else []


def _reservers(cluster: LiveCluster) -> list[Manifest]:
    return [
        p
        for p in _pods(cluster, NAMESPACE)
        if p["metadata"]["labels"].get(COMPONENT_LABEL) == RESERVER_COMPONENT
    ]


def _bursts(cluster: LiveCluster) -> list[Manifest]:
    return [
        p
        for p in _pods(cluster, NAMESPACE)
        if p["metadata"]["labels"].get(COMPONENT_LABEL) != RESERVER_COMPONENT
    ]


_PREEMPTED = re.compile(r"Preempted by pod (?P<uid>\S+) on node (?P<node>\S+)")


def _preemptions(cluster: LiveCluster) -> list[tuple[str, str]]:
    """(victim namespace/name, preemptor UID) of every Preempted event. The scheduler
    names the preemptor by UID in the message and leaves ``related`` empty."""
    events = cluster.get_json("events", "-A", "--field-selector", "reason=Preempted")["items"]
    found = []
    for event in events:
        victim = event["involvedObject"]
        match = _PREEMPTED.search(event.get("message", ""))
        found.append(
            (f"{victim.get('namespace')}/{victim.get('name')}", match["uid"] if match else "")
        )
    return sorted(set(found))


def _pool_nodes() -> list[str]:
    return [f"pool-{i}" for i in range(POOL_NODES)]


def _free_cpu_milli(cluster: LiveCluster, node: str) -> int:
    pods = cluster.get_json("pods", "-A", "--field-selector", f"spec.nodeName={node}")["items"]
    used = sum(
        _milli(c["resources"].get("requests", {}).get("cpu", "0"))
        for p in pods
        if p["status"].get("phase") in ("Running", "Pending")
        for c in p["spec"]["containers"]
    )
    (node_object,) = cluster.get_json("node", node)["items"]
    allocatable = node_object["status"]["allocatable"]["cpu"]
    return _milli(allocatable) - used


def _milli(cpu: str) -> int:
    return int(cpu[:-1]) if cpu.endswith("m") else int(float(cpu) * 1000)


def run_scenario(cluster: LiveCluster, model: PriorityModel) -> PromiseCounts:
    """Runs the scenario on ``cluster`` (empty, as the live tier's tests leave it)."""
    counts = PromiseCounts(model.name, cluster.binaries.release)
    dedicated = model is PriorityModel.DEDICATED_POOL
    taints = [DEDICATED_TAINT.to_manifest()] if dedicated else []
    pool_cpu = "1500m" if dedicated else "4"  # a tainted pool holds only headroom pods
    shapes = [
        NodeShape(name, cpu=pool_cpu, labels={POOL_LABEL: POOL}, taints=taints)
        for name in _pool_nodes()
    ]
    if dedicated:
        shapes.append(NodeShape("shared-0", cpu="3"))
    cluster.add_nodes(shapes)
    base, bursts = headroom_objects(model)

    # 1. the reservers, placed by the DaemonSet controller
    cluster.apply(base)
    cluster.wait_for(
        lambda: len(_running(_reservers(cluster))) == POOL_NODES, what="a reserver on every node"
    )
    # 2. ordinary pods fill what they may use; three more wait
    fill = 3 if dedicated else POOL_NODES * 3
    cluster.apply(ordinary_pods(fill + PENDING_ORDINARY))
    cluster.wait_for(
        lambda: len(_running(_pods(cluster, ORDINARY_NAMESPACE))) == fill,
        what=f"{fill} ordinary pods Running",
    )
    # 3. the bursts
    cluster.apply(bursts)
    placed = cluster.wait_for(
        lambda: _all_running(_bursts(cluster), POOL_NODES),
        timeout=120,
        what="every burst pod Running",
    )
    counts.bursts_placed = len(placed)
    after_bursts = _preemptions(cluster)
    counts.ordinary_preempted_by_bursts = sum(
        1 for victim, _ in after_bursts if victim.startswith(f"{ORDINARY_NAMESPACE}/")
    )
    counts.reservers_preempted_by_bursts = sum(
        1 for victim, _ in after_bursts if victim.startswith(f"{NAMESPACE}/")
    )
    # 4. the bursts leave: the freed slices go to reservers, or to waiting ordinary pods
    cluster.kubectl("scale", "deployment", "--all", "-n", NAMESPACE, "--replicas=0")
    cluster.wait_for(lambda: not _bursts(cluster), what="the burst pods gone")
    cluster.wait_for(
        lambda: (
            all(
                _free_cpu_milli(cluster, n) < _milli(SLICE_CPU) or _reserver_running_on(cluster, n)
                for n in _pool_nodes()
            )
            and all(_settled(cluster, n) for n in _pool_nodes())
        ),
        what="every freed slice taken",
    )
    counts.freed_slices_taken_by_ordinary = sum(
        1 for n in _pool_nodes() if not _reserver_running_on(cluster, n)
    )
    # 5. a reserver recreated on a full node
    _recreate_a_reserver_on_a_full_node(cluster, dedicated=dedicated)
    reserver_uids = {p["metadata"]["uid"] for p in _reservers(cluster)}
    counts.recreated_reserver_evictions = sum(
        1 for _, preemptor in _preemptions(cluster) if preemptor in reserver_uids
    )
    counts.ordinary_pods_on_the_pool = sum(
        1 for p in _pods(cluster, ORDINARY_NAMESPACE) if p["spec"].get("nodeName") in _pool_nodes()
    )
    counts.victims = [victim for victim, _ in _preemptions(cluster)]
    return counts


def _recreate_a_reserver_on_a_full_node(cluster: LiveCluster, *, dedicated: bool) -> None:
    """The pool label leaves a node whose reserver runs, so the DaemonSet controller
    deletes that reserver; a waiting ordinary pod takes the room (where it may land);
    the label comes back, and the controller creates a reserver on the full node.

    (A *waiting* reserver would not do: the controller's node-update path finds a
    node's daemon pods by ``spec.nodeName``, which a pending pod lacks, so it is not
    deleted when its node leaves the selector: kubernetes
    ``pkg/controller/daemon/daemon_controller.go`` ``syncNodeUpdate``.)"""
    running = [n for n in _pool_nodes() if _reserver_running_on(cluster, n)]
    if not running:
        return  # every reserver already waits: recreated after preemption, evicting nobody
    node = running[0]
    waiting = len(_pods(cluster, ORDINARY_NAMESPACE)) - len(
        _running(_pods(cluster, ORDINARY_NAMESPACE))
    )
    if waiting == 0:  # one ordinary pod must wait, ready to take the freed room
        replicas = len(_pods(cluster, ORDINARY_NAMESPACE)) + 1
        cluster.kubectl(
            "scale", "deployment", "ordinary", "-n", ORDINARY_NAMESPACE, f"--replicas={replicas}"
        )
    cluster.kubectl("label", "node", node, f"{POOL_LABEL}-")
    cluster.wait_for(
        lambda: not any(p["spec"].get("nodeName") == node for p in _reservers(cluster)),
        what=f"the reserver gone from {node}",
    )
    if not dedicated:
        cluster.wait_for(
            lambda: _free_cpu_milli(cluster, node) < _milli(SLICE_CPU),
            what=f"a waiting ordinary pod in the room freed on {node}",
        )
    cluster.kubectl("label", "node", node, f"{POOL_LABEL}={POOL}")
    cluster.wait_for(
        lambda: (
            any(
                _pinned_to(p) == node or p["spec"].get("nodeName") == node
                for p in _reservers(cluster)
            )
            and _settled(cluster, node)
        ),
        what=f"the recreated reserver on {node} scheduled or waiting",
    )


def _pinned_to(pod: Manifest) -> str | None:
    """The node a DaemonSet pod is pinned to (node affinity on ``metadata.name``)."""
    terms = (
        pod["spec"]
        .get("affinity", {})
        .get("nodeAffinity", {})
        .get("requiredDuringSchedulingIgnoredDuringExecution", {})
        .get("nodeSelectorTerms", [])
    )
    for term in terms:
        for match in term.get("matchFields", []):
            if match.get("key") == "metadata.name" and match.get("values"):
                return str(match["values"][0])
    return None


def _reserver_running_on(cluster: LiveCluster, node: str) -> bool:
    return any(p["spec"].get("nodeName") == node for p in _running(_reservers(cluster)))


def _settled(cluster: LiveCluster, node: str) -> bool:
    """No pod of the scenario is being evicted or nominated for ``node``: the
    scheduler has finished with it for now."""
    for namespace in (NAMESPACE, ORDINARY_NAMESPACE):
        items = cluster.get_json("pods", "-n", namespace)["items"]
        for pod in items:
            if pod["metadata"].get("deletionTimestamp") and pod["spec"].get("nodeName") == node:
                return False
            # 1.34 leaves nominatedNodeName on a pod once it is bound: only an unbound
            # nominated pod is still waiting for its victims to go
            if pod["status"].get("nominatedNodeName") == node and not pod["spec"].get("nodeName"):
                return False
            if _pinned_to(pod) == node and pod["status"].get("phase") == "Pending":
                # a waiting reserver: settled once the scheduler said it cannot fit
                conditions = pod["status"].get("conditions", [])
                if not any(c.get("reason") == "Unschedulable" for c in conditions):
                    return False
    return True
