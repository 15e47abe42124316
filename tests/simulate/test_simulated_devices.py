"""Extended resources in the simulator, as NodeResourcesFit counts them
(``pkg/scheduler/framework/plugins/noderesources/fit.go``, ``fitsRequest``): whole
units, checked only for a pod that requests them, never overcommitted; and preemption
frees them (``SelectVictimsOnNode`` of ``default_preemption.go``)."""

from __future__ import annotations

from typing import Any

import pytest
from cdk8s import Testing as K8sTesting

from cdk8s_headroom import HeadroomConfigError, NodeHeadroom, headroom_charts
from cdk8s_headroom.simulate import (
    ClusterState,
    Node,
    Pod,
    Resources,
    load_cluster,
    manifests_from_objects,
)
from cdk8s_headroom.simulate.node_fit import Code, resource_status
from cdk8s_headroom.simulate.report import run_whatif
from cdk8s_headroom.simulate.scheduler import schedule
from tests.simulate.small_cluster import LOWER

GPU = (("nvidia.com/gpu", 1),)


def gpu_node(name: str = "gpu", gpus: int = 1) -> Node:
    return Node(name, Resources(4000, 2**34, (("nvidia.com/gpu", gpus),)), 110)


def gpu_pod(name: str, priority: int, gpus: int = 1) -> Pod:
    requests = Resources(500, 2**29, (("nvidia.com/gpu", gpus),) if gpus else ())
    return Pod(name, "default", priority, LOWER, requests, start_time=0)


def test_a_pod_that_needs_the_held_device_preempts_its_holder() -> None:
    state = ClusterState([gpu_node()])
    state.bind(gpu_pod("reserver", -100), "gpu")

    decision = schedule(state, gpu_pod("train", 1000))

    assert decision.node == "gpu"
    assert [victim.name for victim in decision.victims] == ["reserver"]


def test_a_pod_that_needs_no_device_fits_beside_the_held_one() -> None:
    state = ClusterState([gpu_node()])
    state.bind(gpu_pod("reserver", -100), "gpu")

    decision = schedule(state, gpu_pod("web", 0, gpus=0))

    assert decision.node == "gpu" and decision.victims == ()


def test_more_devices_than_the_node_has_is_unresolvable_and_preempts_nobody() -> None:
    state = ClusterState([gpu_node()])
    state.bind(gpu_pod("reserver", -100), "gpu")
    greedy = gpu_pod("train", 1000, gpus=2)

    assert resource_status(greedy.requests, state.nodes[0]) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        ["Insufficient nvidia.com/gpu"],
    )
    decision = schedule(state, greedy)
    assert decision.node is None and decision.victims == ()


def _gpu_manifests() -> Any:
    app = K8sTesting.app()
    charts = headroom_charts(app, namespace="gpu")
    headroom = NodeHeadroom(
        charts.workloads,
        "h",
        cpu="500m",
        memory="512Mi",
        namespace="gpu",
        priority_classes=charts.priority_classes,
        extended_resources={"nvidia.com/gpu": "1"},
    )
    headroom.add_burst_workload(
        "train",
        image="ghcr.io/acme/train:1",
        cpu="500m",
        memory="512Mi",
        replicas=2,
        extended_resources={"nvidia.com/gpu": "1"},
    )
    return manifests_from_objects(
        [(chart.node.id, K8sTesting.synth(chart)) for chart in (charts.cluster, charts.workloads)]
    )


def test_a_gpu_headroom_simulates_bursts_that_preempt_the_reservers_for_the_device() -> None:
    cluster = load_cluster(
        {
            "nodes": [
                {
                    "name": "gpu",
                    "count": 2,
                    "allocatable": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                }
            ]
        }
    )

    report = run_whatif(_gpu_manifests(), cluster)

    # 500m of 4 CPUs fits without preemption: only the device makes the burst preempt.
    assert [[victim.role.value for victim in event.victims] for event in report.arrivals] == [
        ["headroom"],
        ["headroom"],
    ]
    assert all(verdict.holds for verdict in report.verdicts)


def test_a_fraction_of_a_device_in_a_cluster_file_is_refused() -> None:
    node = {"name": "n", "allocatable": {"cpu": "4", "memory": "1Gi", "nvidia.com/gpu": "0.5"}}
    with pytest.raises(HeadroomConfigError, match="whole number"):
        load_cluster({"nodes": [node]}, source="cluster.yaml")
