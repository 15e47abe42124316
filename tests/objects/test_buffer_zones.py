"""Capacity buffers spread across zones: one buffer per zone, each keeping its chunks in
its zone through its PodTemplate's ``topology.kubernetes.io/zone`` node selector."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from cdk8s_headroom import (
    CapacityBufferForm,
    HeadroomConfigError,
    HeadroomWarning,
    NodeHeadroom,
)
from tests.conftest import find, find_all

ZONES = ("eu-west-1a", "eu-west-1b", "eu-west-1c")


@pytest.fixture(autouse=True)
def _shared_pool_warning() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)
        yield


def headroom_with_burst(chart: Any) -> tuple[NodeHeadroom, Any]:
    headroom = NodeHeadroom(chart, "h", cpu="1", memory="1Gi")
    return headroom, headroom.add_burst_workload(
        "checkout", image="ghcr.io/acme/checkout:7", cpu="500m", memory="512Mi"
    )


def test_one_buffer_per_zone_keeps_its_chunks_in_its_zone(chart: Any, synth: Any) -> None:
    headroom, checkout = headroom_with_burst(chart)
    for zone in ZONES:
        headroom.add_capacity_buffer(checkout, zone=zone, replicas=2)

    objects = synth(chart)
    buffers = find_all(objects, "CapacityBuffer")
    assert [b["metadata"]["name"] for b in buffers] == [f"checkout-buffer-{z}" for z in ZONES]
    assert {b["spec"]["replicas"] for b in buffers} == {2}
    template = find(objects, "PodTemplate", "checkout-buffer-eu-west-1b")
    selector = template["template"]["spec"]["nodeSelector"]
    assert selector["topology.kubernetes.io/zone"] == "eu-west-1b"


def test_a_buffer_without_a_zone_selects_none(chart: Any, synth: Any) -> None:
    headroom, checkout = headroom_with_burst(chart)
    headroom.add_capacity_buffer(checkout, replicas=1)

    spec = find(synth(chart), "PodTemplate")["template"]["spec"]
    assert "topology.kubernetes.io/zone" not in (spec.get("nodeSelector") or {})


def test_a_second_buffer_in_the_same_zone_is_refused(chart: Any) -> None:
    headroom, checkout = headroom_with_burst(chart)
    headroom.add_capacity_buffer(checkout, zone=ZONES[0], replicas=1)
    with pytest.raises(HeadroomConfigError, match=r"one buffer per burst workload and zone"):
        headroom.add_capacity_buffer(checkout, zone=ZONES[0], replicas=1)


@pytest.mark.parametrize("zone", ["", "eu west", "a/b", "-a", 3])
def test_a_zone_that_is_no_label_value_is_refused(chart: Any, zone: object) -> None:
    headroom, checkout = headroom_with_burst(chart)
    with pytest.raises(HeadroomConfigError, match=r"^capacity_buffers\[.*\]\.zone: "):
        headroom.add_capacity_buffer(checkout, zone=zone, replicas=1)  # type: ignore[arg-type]
    assert find_all_buffers(chart) == []


def find_all_buffers(chart: Any) -> list[str]:
    return [child.node.id for child in chart.node.find_all() if "Buffer" in child.node.id]


def test_a_zone_on_a_scalable_buffer_is_refused(chart: Any) -> None:
    headroom, checkout = headroom_with_burst(chart)
    with pytest.raises(HeadroomConfigError, match=r"zone: .*no zone in the scalable form"):
        headroom.add_capacity_buffer(
            checkout, zone=ZONES[0], form=CapacityBufferForm.SCALABLE, percentage=50
        )


def test_a_gpu_burst_workloads_buffer_holds_its_devices(chart: Any, synth: Any) -> None:
    headroom = NodeHeadroom(
        chart, "h", cpu="1", memory="1Gi", extended_resources={"nvidia.com/gpu": "1"}
    )
    train = headroom.add_burst_workload(
        "train",
        image="ghcr.io/acme/train:1",
        cpu="500m",
        memory="512Mi",
        extended_resources={"nvidia.com/gpu": "1"},
    )
    headroom.add_capacity_buffer(train, replicas=1)

    container = find(synth(chart), "PodTemplate")["template"]["spec"]["containers"][0]
    assert container["resources"]["requests"]["nvidia.com/gpu"] == "1"
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "1"
