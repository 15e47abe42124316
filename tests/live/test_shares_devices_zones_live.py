"""Issue 35's shares, devices and zones on a live control plane (KWOK nodes, the real
DaemonSet controller and kube-scheduler):

- a slice of ``"10%"`` of each node: KWOK nodes of three sizes each hold their share,
  one reserver per size, from the library's manifests and from the Helm chart's values
  (``reservation.nodeTypes``) alike;
- a slice with a GPU: on nodes that advertise ``nvidia.com/gpu``, a burst pod that
  needs the device preempts the reserver, where cpu and memory alone would not have
  made it, as the simulator predicts (``simulate/node_fit.py``);
- ``plan``'s room per zone (``topology.kubernetes.io/zone``) against where the real
  scheduler puts the reservers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cdk8s
import helm_python as helm

from cdk8s_headroom import NodeHeadroom, NodeType, headroom_charts, synth
from cdk8s_headroom.cli import main
from cdk8s_headroom.simulate import load_cluster
from cdk8s_headroom.simulate.manifests import read_manifests
from cdk8s_headroom.simulate.report import run_whatif
from cdk8s_headroom.vocabulary.labels import COMPONENT_LABEL, RESERVER_COMPONENT
from e2e.cluster import LiveCluster, NodeShape
from scripts.helm_render import CHART

NAMESPACE = "headroom"
SIZES = (("kwok.small", "2", "4Gi"), ("kwok.medium", "4", "8Gi"), ("kwok.large", "8", "16Gi"))
ZONES = ("zone-a", "zone-b")


def _synth(outdir: Path, build: Callable[[Any, Any], None]) -> Path:
    app = cdk8s.App(outdir=str(outdir))
    charts = headroom_charts(app, namespace=NAMESPACE)
    build(charts, charts.priority_classes)
    synth(app)
    return outdir


def _reservers(cluster: LiveCluster) -> list[Any]:
    return [
        pod
        for pod in cluster.get_json("pods", "-n", NAMESPACE)["items"]
        if pod["metadata"]["labels"].get(COMPONENT_LABEL) == RESERVER_COMPONENT
    ]


def _running_on(pods: list[Any]) -> dict[str, Any]:
    return {
        pod["spec"]["nodeName"]: pod
        for pod in pods
        if pod["status"].get("phase") == "Running" and not pod["metadata"].get("deletionTimestamp")
    }


SHARES = {
    "kwok-small": {"cpu": "200m", "memory": "409Mi"},
    "kwok-medium": {"cpu": "400m", "memory": "819Mi"},
    "kwok-large": {"cpu": "800m", "memory": "1638Mi"},
}
"""Each node's 10 % of its allocatable, rounded down to whole millicores and MiB."""


def _add_sized_nodes(cluster: LiveCluster) -> None:
    cluster.add_nodes(
        NodeShape(
            name.replace(".", "-"),
            cpu=cpu,
            memory=memory,
            labels={"node.kubernetes.io/instance-type": name},
        )
        for name, cpu, memory in SIZES
    )


def _held_requests(cluster: LiveCluster) -> dict[str, Any]:
    """Each node's Running reserver's requests, once every size holds one."""

    def held() -> dict[str, Any] | None:
        running = _running_on(_reservers(cluster))
        return running if len(running) == len(SIZES) else None

    running = cluster.wait_for(held, what="a reserver Running on each node size")
    return {
        node: pod["spec"]["containers"][0]["resources"]["requests"] for node, pod in running.items()
    }


def test_kwok_nodes_of_three_sizes_each_hold_their_share(
    cluster: LiveCluster, tmp_path: Path, capsys: Any
) -> None:
    _add_sized_nodes(cluster)

    def build(charts: Any, classes: Any) -> None:
        NodeHeadroom(
            charts.workloads,
            "share",
            cpu="10%",
            memory="10%",
            namespace=NAMESPACE,
            priority_classes=classes,
            node_types=[NodeType(n, cpu=c, memory=m) for n, c, m in SIZES],
        )

    cluster.kubectl("apply", "-f", str(_synth(tmp_path / "dist", build)))

    assert _held_requests(cluster) == SHARES

    # status, from the pods alone (no manifests): each size's reserver targets its own
    # nodes (its nodeSelector stays on the pods), holds there, and misses none
    listing = tmp_path / "after.json"
    listing.write_text(
        cluster.kubectl("get", "nodes,pods,priorityclasses,daemonsets", "-A", "-o", "json").stdout
    )
    main(["status", "--snapshot", str(listing), "--json"])
    headrooms = json.loads(capsys.readouterr().out)["headrooms"]
    assert {h["name"]: (h["held"], h["missing"]) for h in headrooms} == {
        f"{NAMESPACE}/headroom-reserver-{name.replace('.', '-')}": ([name.replace(".", "-")], [])
        for name, _, _ in SIZES
    }


def test_the_charts_share_values_hold_the_same_share_on_each_size(cluster: LiveCluster) -> None:
    # The chart sizes each reserver in its templates (files/lazy/shares.tpl): installed
    # by Helm, every size holds what the library's manifests hold above
    _add_sized_nodes(cluster)
    config = helm.Config(kubeconfig_path=cluster.kubeconfig, namespace=NAMESPACE)
    values = {
        "reservation": {
            "cpu": "10%",
            "memory": "10%",
            "nodeTypes": [{"name": n, "cpu": c, "memory": m} for n, c, m in SIZES],
        }
    }

    installed = config.install(
        str(CHART), "share", values, namespace=NAMESPACE, create_namespace=True, timeout=120
    )

    assert installed["status"] == "deployed"
    assert _held_requests(cluster) == SHARES
    daemon_sets = cluster.get_json("daemonsets", "-n", NAMESPACE)["items"]
    assert sorted(d["metadata"]["name"] for d in daemon_sets) == [
        "share-headroom-reserver-kwok-large",
        "share-headroom-reserver-kwok-medium",
        "share-headroom-reserver-kwok-small",
    ]
    config.uninstall("share", timeout=120, wait="watcher")
    assert not cluster.get_json("daemonsets", "-n", NAMESPACE)["items"]


def test_a_burst_pod_that_needs_the_gpu_preempts_the_reserver_as_simulated(
    cluster: LiveCluster, tmp_path: Path
) -> None:
    gpu = {"nvidia.com/gpu": "1"}
    cluster.add_nodes(NodeShape(f"gpu-{i}", cpu="8", memory="32Gi", devices=gpu) for i in (1, 2))

    def build(charts: Any, classes: Any) -> None:
        headroom = NodeHeadroom(
            charts.workloads,
            "gpu",
            cpu="500m",
            memory="512Mi",
            namespace=NAMESPACE,
            priority_classes=classes,
            extended_resources=gpu,
        )
        headroom.add_burst_workload(
            "train",
            image="registry.k8s.io/pause:3.10",
            cpu="500m",
            memory="512Mi",
            replicas=2,
            extended_resources=gpu,
        )

    dist = _synth(tmp_path / "dist", build)
    nodes = [{"name": "gpu", "count": 2, "allocatable": {"cpu": "8", "memory": "32Gi", **gpu}}]
    predicted = run_whatif(read_manifests(dist), load_cluster({"nodes": nodes}))
    assert [len(event.victims) for event in predicted.arrivals] == [1, 1]

    workloads = sorted(dist.glob("*.yaml"))
    cluster.kubectl("apply", "-f", str(workloads[0]))
    reservers_only = [doc for doc in _documents(workloads[1]) if doc["kind"] != "Deployment"]
    cluster.apply(reservers_only)
    cluster.wait_for(
        lambda: len(_running_on(_reservers(cluster))) == 2, what="a reserver on each GPU node"
    )
    cluster.kubectl("apply", "-f", str(workloads[1]))

    def bursts_running() -> bool:
        pods = cluster.get_json("pods", "-n", NAMESPACE, "-l", "app=train")["items"]
        return len(_running_on(pods)) == 2

    cluster.wait_for(bursts_running, what="both GPU burst pods Running")
    preempted = {
        event["involvedObject"]["name"] for event in cluster.events(NAMESPACE, "Preempted")
    }
    assert len(preempted) == 2  # each burst pod took one reserver's GPU
    assert all(name.startswith("headroom-reserver-") for name in preempted)


def _documents(path: Path) -> list[Any]:
    import yaml

    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def test_plans_room_per_zone_matches_where_the_scheduler_puts_the_reservers(
    cluster: LiveCluster, tmp_path: Path, capsys: Any
) -> None:
    cluster.add_nodes(
        [
            NodeShape("a-1", labels={"topology.kubernetes.io/zone": ZONES[0]}),
            NodeShape("a-2", labels={"topology.kubernetes.io/zone": ZONES[0]}),
            NodeShape("b-1", labels={"topology.kubernetes.io/zone": ZONES[1]}),
            NodeShape("b-full", cpu="100m", labels={"topology.kubernetes.io/zone": ZONES[1]}),
        ]
    )

    def build(charts: Any, classes: Any) -> None:
        NodeHeadroom(
            charts.workloads,
            "zoned",
            cpu="1",
            memory="1Gi",
            namespace=NAMESPACE,
            priority_classes=classes,
        )

    dist = _synth(tmp_path / "dist", build)
    listing = tmp_path / "before.json"
    listing.write_text(
        cluster.kubectl("get", "nodes,pods,priorityclasses", "-A", "-o", "json").stdout
    )
    main(["plan", "--manifests", str(dist), "--snapshot", str(listing), "--json"])
    zones = {z["zone"]: z["slices"] for z in json.loads(capsys.readouterr().out)["zones"]}
    assert zones == {
        ZONES[0]: {"cpu": "2", "memory": "2Gi"},
        ZONES[1]: {"cpu": "1", "memory": "1Gi"},  # b-full has no room for a slice
    }

    cluster.kubectl("apply", "-f", str(dist))

    def placed() -> dict[str, int] | None:
        pods = _reservers(cluster)
        waiting = [
            p
            for p in pods
            if any(c.get("reason") == "Unschedulable" for c in p["status"].get("conditions", []))
        ]
        running = _running_on(pods)
        if len(running) + len(waiting) < 4:
            return None
        per_zone = {zone: 0 for zone in ZONES}
        for node in running:
            per_zone[ZONES[0] if node.startswith("a-") else ZONES[1]] += 1
        return per_zone

    held = cluster.wait_for(placed, what="every reserver Running or Unschedulable")
    assert held == {ZONES[0]: 2, ZONES[1]: 1}
