"""The drift option: a change of the room a headroom needs rolls the emitted pool's nodes."""

import json
from typing import Any

import cdk8s
import pytest
from cdk8s import Testing as K8sTesting

from cdk8s_headroom import (
    HeadroomConfigError,
    KarpenterNodePool,
    NodeHeadroom,
    NodePoolRef,
    NodeSelectorOperator,
    PriorityModel,
)
from cdk8s_headroom.karpenter.node_pool import NODE_ROOM_ANNOTATION
from tests.conftest import Manifest, find

CPU = "karpenter.k8s.aws/instance-cpu"


def pool_template(cpu: str = "1", image: str = "ghcr.io/acme/api:1.2", **props: Any) -> Manifest:
    chart = K8sTesting.chart()
    pool = KarpenterNodePool(chart, "burst")
    pool.add_requirement(CPU, NodeSelectorOperator.IN, ["4", "8"])
    headroom = NodeHeadroom(
        chart,
        "headroom",
        cpu=cpu,
        memory="2Gi",
        model=PriorityModel.DEDICATED_POOL,
        node_pool=pool,
        namespace="burst",
        **props,
    )
    headroom.add_burst_workload("api", image=image, cpu="500m", memory="1Gi")
    template: Manifest = find(list(K8sTesting.synth(chart)), "NodePool")["spec"]["template"]
    return template


def room(template: Manifest) -> dict[str, Any]:
    annotations = template.get("metadata", {}).get("annotations", {})
    return dict(json.loads(annotations[NODE_ROOM_ANNOTATION]))


def test_drift_is_off_by_default_and_the_template_has_no_annotation() -> None:
    assert "annotations" not in pool_template().get("metadata", {})


def test_the_slice_is_written_into_the_pool_template() -> None:
    assert room(pool_template(drift_on_change=True)) == {
        "burst/headroom-reserver-burst": {"cpu": "1", "memory": "2Gi"}
    }


def test_the_prepuller_adds_no_room_since_it_requests_nothing() -> None:
    assert room(pool_template(drift_on_change=True, prepull_burst_images=True)) == {
        "burst/headroom-reserver-burst": {"cpu": "1", "memory": "2Gi"}
    }


def test_changing_the_slice_changes_the_template_that_karpenters_drift_hash_covers() -> None:
    assert pool_template(cpu="1", drift_on_change=True) != pool_template(
        cpu="1500m", drift_on_change=True
    )


def test_the_same_slice_written_another_way_leaves_the_template_and_the_nodes_alone() -> None:
    assert pool_template(cpu="1", drift_on_change=True) == pool_template(
        cpu="1000m", drift_on_change=True
    )
    assert room(pool_template(cpu="1000m", drift_on_change=True)) == {
        "burst/headroom-reserver-burst": {"cpu": "1", "memory": "2Gi"}
    }


def test_an_image_release_does_not_change_the_pool_template() -> None:
    before = pool_template(
        image="ghcr.io/acme/api:1.2", drift_on_change=True, prepull_burst_images=True
    )
    after = pool_template(
        image="ghcr.io/acme/api:1.3", drift_on_change=True, prepull_burst_images=True
    )
    assert before == after


def test_drift_needs_a_pool_this_app_emits(chart: cdk8s.Chart) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        NodeHeadroom(
            chart,
            "h",
            cpu="1",
            memory="1Gi",
            node_pool=NodePoolRef.karpenter("existing"),
            drift_on_change=True,
        )
    assert raised.value.field == "drift_on_change"
    assert "KarpenterNodePool this app emits" in str(raised.value)
    assert chart.node.try_find_child("h") is None


def test_drift_on_change_must_be_a_bool(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(chart, "burst")
    with pytest.raises(HeadroomConfigError, match="drift_on_change"):
        NodeHeadroom(chart, "h", cpu="1", memory="1Gi", node_pool=pool, drift_on_change="yes")  # type: ignore[arg-type]
