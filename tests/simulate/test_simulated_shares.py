"""A share of each node (``cpu="10%"``) in the simulator: one reserver DaemonSet per node
size, each selecting its size by ``node.kubernetes.io/instance-type``, so each node holds
its own share (the DaemonSet controller's targeting, ``daemon_targets``)."""

from __future__ import annotations

from cdk8s import Testing as K8sTesting

from cdk8s_headroom import NodeHeadroom, NodeType, headroom_charts
from cdk8s_headroom.simulate import load_cluster, manifests_from_objects
from cdk8s_headroom.simulate.model import Resources
from cdk8s_headroom.simulate.report import run_whatif

SIZES = (("kwok.small", "2", "4Gi"), ("kwok.large", "8", "16Gi"))
MIB = 2**20


def test_each_node_size_holds_its_own_share_and_a_burst_preempts_the_one_it_lands_on() -> None:
    app = K8sTesting.app()
    charts = headroom_charts(app, namespace="apps")
    headroom = NodeHeadroom(
        charts.workloads,
        "h",
        cpu="10%",
        memory="10%",
        namespace="apps",
        priority_classes=charts.priority_classes,
        node_types=[NodeType(name, cpu=cpu, memory=memory) for name, cpu, memory in SIZES],
    )
    headroom.add_burst_workload("api", image="ghcr.io/acme/api:1", cpu="200m", memory="400Mi")
    manifests = manifests_from_objects(
        [(chart.node.id, K8sTesting.synth(chart)) for chart in (charts.cluster, charts.workloads)]
    )
    nodes = [
        {
            "name": name.replace(".", "-"),
            "allocatable": {"cpu": cpu, "memory": memory},
            "labels": {"node.kubernetes.io/instance-type": name},
        }
        for name, cpu, memory in SIZES
    ]
    # Full but for the slices: ordinary pods hold the rest of each node.
    pods = [
        {
            "name": f"filler-{node['name']}",
            "nodeName": node["name"],
            "requests": {"cpu": rest_cpu, "memory": rest_memory},
        }
        for node, rest_cpu, rest_memory in zip(
            nodes, ("1800m", "7200m"), ("3687Mi", "14746Mi"), strict=True
        )
    ]

    report = run_whatif(manifests, load_cluster({"nodes": nodes, "pods": pods}))

    held = {event.decision.node: event.pod.requests for event in report.establishment}
    assert held == {
        "kwok-small": Resources(200, 409 * MIB),
        "kwok-large": Resources(800, 1638 * MIB),
    }
    (arrival,) = report.arrivals
    assert [victim.role.value for victim in arrival.victims] == ["headroom"]
    assert all(verdict.holds for verdict in report.verdicts)
