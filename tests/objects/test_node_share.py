"""A slice as a share of each node (``cpu="10%"``): one reserver per node size."""

from typing import Any

import pytest

from cdk8s_headroom import (
    HeadroomConfigError,
    KarpenterNodePool,
    NodeHeadroom,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    NodeType,
)
from cdk8s_headroom.objects.synth_summary import slice_text
from tests.conftest import find_all, pod_spec

SIZES = [
    NodeType("kwok.small", cpu="2", memory="4Gi"),
    NodeType("kwok.medium", cpu="4", memory="8Gi"),
    NodeType("kwok.large", cpu="8", memory="16Gi"),
]


def shared(chart: Any, **props: Any) -> NodeHeadroom:
    props.setdefault("cpu", "10%")
    props.setdefault("memory", "10%")
    props.setdefault("node_types", SIZES)
    return NodeHeadroom(chart, "headroom", **props)


def requests_by_type(objects: list[Any]) -> dict[str, dict[str, str]]:
    found = {}
    for daemon_set in find_all(objects, "DaemonSet"):
        spec = pod_spec(daemon_set)
        resources = spec["containers"][0]["resources"]
        assert resources["requests"] == resources["limits"]
        found[spec["nodeSelector"]["node.kubernetes.io/instance-type"]] = resources["requests"]
    return found


def test_a_share_is_one_reserver_per_node_size_holding_its_share(chart: Any, synth: Any) -> None:
    headroom = shared(chart)
    objects = synth(chart)
    assert requests_by_type(objects) == {
        "kwok.small": {"cpu": "200m", "memory": "409Mi"},
        "kwok.medium": {"cpu": "400m", "memory": "819Mi"},
        "kwok.large": {"cpu": "800m", "memory": "1638Mi"},
    }
    assert sorted(d["metadata"]["name"] for d in find_all(objects, "DaemonSet")) == [
        "headroom-reserver-kwok-large",
        "headroom-reserver-kwok-medium",
        "headroom-reserver-kwok-small",
    ]
    assert headroom.reserver is not None and headroom.reserver.cpu == "200m"


def test_a_share_is_rounded_down_to_whole_millicores_and_mebibytes(chart: Any, synth: Any) -> None:
    shared(chart, cpu="12.5%", memory="3%", node_types=[NodeType("odd", cpu="3", memory="1000Mi")])
    assert requests_by_type(synth(chart)) == {"odd": {"cpu": "375m", "memory": "30Mi"}}


def test_a_share_and_a_fixed_amount_mix(chart: Any, synth: Any) -> None:
    shared(chart, memory="256Mi")
    assert {r["memory"] for r in requests_by_type(synth(chart)).values()} == {"256Mi"}


def test_a_karpenter_pool_that_lists_its_instance_types_gives_the_sizes(
    chart: Any, synth: Any
) -> None:
    pool = KarpenterNodePool(
        chart,
        "pool",
        name="web",
        requirements=[
            NodeSelectorRequirement(
                "node.kubernetes.io/instance-type",
                NodeSelectorOperator.IN,
                ["m5.large", "m5.xlarge"],
            )
        ],
    )
    NodeHeadroom(chart, "headroom", cpu="10%", memory="10%", node_pool=pool)
    found = requests_by_type(synth(chart))
    # m5.large: 2 vCPUs less 70m kube-reserved; 8Gi less 255Mi + 110 x 11Mi + 100Mi is 6627Mi.
    assert found["m5.large"] == {"cpu": "193m", "memory": "662Mi"}
    assert set(found) == {"m5.large", "m5.xlarge"}


def test_a_share_without_known_sizes_is_refused(chart: Any) -> None:
    with pytest.raises(HeadroomConfigError, match=r"^cpu: invalid value '10%'.*node_types="):
        NodeHeadroom(chart, "headroom", cpu="10%", memory="512Mi")
    assert chart.node.try_find_child("headroom") is None


def test_node_types_without_a_share_are_refused(chart: Any) -> None:
    with pytest.raises(HeadroomConfigError, match=r"^node_types: .*no value without a share"):
        NodeHeadroom(chart, "headroom", cpu="500m", memory="512Mi", node_types=SIZES)


@pytest.mark.parametrize(
    "share", ["100%", "0%", "0.0%", "150%", "-5%", "10 %", "%", "1.2345%", "ten%"]
)
def test_a_share_outside_0_to_100_percent_is_refused(chart: Any, share: str) -> None:
    with pytest.raises(HeadroomConfigError, match=r"^cpu: .*above 0% and below 100%"):
        shared(chart, cpu=share)


def test_a_share_that_holds_too_little_memory_is_refused(chart: Any) -> None:
    with pytest.raises(HeadroomConfigError, match=r"^memory: .*at least 4Mi"):
        shared(chart, memory="0.05%")


def test_a_fixed_slice_larger_than_a_node_size_is_refused(chart: Any) -> None:
    with pytest.raises(HeadroomConfigError, match=r"fits on node type 'kwok.small'"):
        shared(chart, cpu="3")


def test_node_types_whose_names_give_the_same_reserver_are_refused(chart: Any) -> None:
    twins = [NodeType("a.b", cpu="1", memory="1Gi"), NodeType("a-b", cpu="1", memory="1Gi")]
    with pytest.raises(HeadroomConfigError, match=r"^node_types: .*same reserver name"):
        shared(chart, node_types=twins)


def test_a_sizes_reserver_name_too_long_is_refused_as_the_headrooms_reserver_name(
    chart: Any,
) -> None:
    # <reserver_name>-<type>: the prop the user gave is what to shorten (it said `name`,
    # the reserver construct's own prop, which the user never passed)
    with pytest.raises(HeadroomConfigError, match=r"^reserver_name: invalid value 'a{56}-kwok"):
        shared(chart, reserver_name="a" * 56, prepull_burst_images=False)


def test_a_burst_pod_must_fit_the_smallest_node_sizes_share(chart: Any) -> None:
    headroom = shared(chart)
    with pytest.raises(HeadroomConfigError, match=r"cpu: invalid value '300m'"):
        headroom.add_burst_workload("api", image="nginx:1", cpu="300m", memory="100Mi")


def test_the_summary_gives_each_node_sizes_share(chart: Any) -> None:
    headroom = shared(chart)
    text = str(headroom.summary())
    assert "a share of each node size" in text
    assert "kwok.large holds 800m CPU, 1638Mi memory of 8 CPU, 16Gi memory allocatable" in text
    assert "(10% CPU, 10% memory)" in text
    assert slice_text(headroom, 0) == "200m-800m"
