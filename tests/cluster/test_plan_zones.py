"""``plan``'s held room per zone (``topology.kubernetes.io/zone``): the slices established
on each zone's nodes and the buffers' placeholders that find room there, for a headroom
whose slice is a share of each node size and whose buffers are one per zone."""

from __future__ import annotations

import warnings
from typing import Any

import cdk8s
from cdk8s import Testing as K8sTesting

from cdk8s_headroom import HeadroomWarning, NodeHeadroom, NodeType, headroom_charts
from cdk8s_headroom.cluster.plan import PlanReport, plan
from cdk8s_headroom.cluster.snapshot import load_snapshot
from cdk8s_headroom.simulate.manifests import manifests_from_objects
from cdk8s_headroom.simulate.model import Resources
from cdk8s_headroom.simulate.versions import KubernetesVersion
from tests.cluster.kubectl_objects import kubectl_node

ZONES = ("eu-west-1a", "eu-west-1b")
MIB = 2**20


def _manifests() -> Any:
    app = K8sTesting.app()
    charts = headroom_charts(app, namespace="shop")
    headroom = NodeHeadroom(
        charts.workloads,
        "h",
        cpu="10%",
        memory="512Mi",
        namespace="shop",
        priority_classes=charts.priority_classes,
        node_types=[
            NodeType("m6i.xlarge", cpu="3920m", memory="15147952Ki"),
            NodeType("m6i.large", cpu="1930m", memory="7Gi"),
        ],
    )
    checkout = headroom.add_burst_workload(
        "checkout", image="ghcr.io/acme/checkout:7", cpu="100m", memory="128Mi"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)
        for zone in ZONES:
            headroom.add_capacity_buffer(checkout, zone=zone, replicas=2)
    charts_: list[cdk8s.Chart] = [charts.cluster, charts.workloads]
    return manifests_from_objects([(c.node.id, K8sTesting.synth(c)) for c in charts_])


def _report() -> PlanReport:
    nodes = [
        kubectl_node("a-1", labels={"topology.kubernetes.io/zone": ZONES[0]}),
        kubectl_node("a-2", labels={"topology.kubernetes.io/zone": ZONES[0]}),
        kubectl_node("b-1", labels={"topology.kubernetes.io/zone": ZONES[1]}),
    ]
    snapshot = load_snapshot(("nodes.json", node) for node in nodes)
    return plan(_manifests(), snapshot, version=KubernetesVersion(1, 31), version_from="test")


def test_plan_sums_the_slices_and_the_zoned_buffers_per_zone() -> None:
    report = _report()

    room = {zone.zone: zone for zone in report.zones}
    assert list(room) == list(ZONES)
    # Every node is an m6i.xlarge: its reserver holds 10% of 3920m, 392m.
    assert room[ZONES[0]].nodes == 2
    assert room[ZONES[0]].slices == Resources(2 * 392, 2 * 512 * MIB)
    assert room[ZONES[1]].slices == Resources(392, 512 * MIB)
    # Each zone's buffer keeps its two placeholders in its own zone.
    for zone in ZONES:
        assert room[zone].buffered == Resources(2 * 100, 2 * 128 * MIB)
    buffers = {buffer.name: buffer for buffer in report.buffers}
    assert set(buffers["shop/checkout-buffer-eu-west-1b"].held) == {"b-1"}


def test_the_reserver_of_an_absent_node_size_targets_no_node() -> None:
    report = _report()

    reservers = {reserver.name: reserver for reserver in report.reservers}
    assert reservers["shop/headroom-reserver-m6i-large"].target_nodes == ()
    assert len(reservers["shop/headroom-reserver-m6i-xlarge"].established) == 3


def test_the_table_and_the_json_give_the_room_per_zone() -> None:
    report = _report()

    assert "Held room per zone (2)" in report.render()
    assert "  eu-west-1b: 1 node(s), slices 392m cpu, 512Mi memory, buffers 200m cpu" in (
        report.render()
    )
    assert report.to_json()["zones"][1] == {  # type: ignore[index]
        "zone": "eu-west-1b",
        "nodes": 1,
        "slices": {"cpu": "392m", "memory": "512Mi"},
        "buffered": {"cpu": "200m", "memory": "256Mi"},
    }
