"""Units that are almost surely mistakes: bytes for mebibytes, cores for millicores,
and numbers where Kubernetes takes quantity strings."""

from __future__ import annotations

import warnings
from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import (
    HeadroomConfigError,
    HeadroomWarning,
    KarpenterNodePool,
    NodeHeadroom,
    NodeSelectorOperator,
)


def test_a_memory_slice_without_a_unit_suggests_mebibytes(chart: cdk8s.Chart) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        NodeHeadroom(chart, "h", cpu="500m", memory="512")
    assert raised.value.field == "memory"
    assert str(raised.value).startswith(
        "memory: invalid value '512'; did you mean \"512Mi\"? a number without a unit is "
        "bytes; a memory of at least 4Mi"
    )
    assert chart.node.try_find_child("h") is None  # a refused headroom leaves nothing


def test_a_burst_request_below_4mi_is_refused_naming_the_workload(chart: cdk8s.Chart) -> None:
    headroom = NodeHeadroom(chart, "h", cpu="500m", memory="512Mi")
    with pytest.raises(HeadroomConfigError) as raised:
        headroom.add_burst_workload("api", image="nginx:1", cpu="100m", memory="100")
    assert raised.value.field == "burst_workloads[api].memory"
    assert 'did you mean "100Mi"?' in str(raised.value)


@pytest.mark.parametrize(("memory", "refused"), [("2Ki", True), ("4194303", True), ("4Mi", False)])
def test_memory_starts_at_4mi_and_only_a_bare_number_gets_the_mi_hint(
    chart: cdk8s.Chart, memory: str, refused: bool
) -> None:
    if not refused:
        assert NodeHeadroom(chart, "h", cpu="500m", memory=memory).reserver is not None
        return
    with pytest.raises(HeadroomConfigError) as raised:
        NodeHeadroom(chart, "h", cpu="500m", memory=memory)
    assert "a memory of at least 4Mi, the least a container starts with" in str(raised.value)
    assert ("did you mean" in str(raised.value)) == memory.isdigit()


@pytest.mark.parametrize(("cpu", "warns"), [("500", True), ("64", True), ("63", False)])
def test_a_bare_cpu_of_64_cores_or_more_warns_on_a_pool_of_unknown_size(
    chart: cdk8s.Chart, cpu: str, warns: bool
) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        NodeHeadroom(chart, "h", cpu=cpu, memory="1Gi")
    found = [w for w in caught if issubclass(w.category, HeadroomWarning)]
    if not warns:
        assert found == []
        return
    assert len(found) == 1
    assert f'did you mean "{cpu}m"?' in str(found[0].message)
    assert found[0].filename == __file__  # the user's line, not the library's


def test_a_pool_of_known_size_refuses_the_slice_instead_of_warning(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(chart, "pool")
    pool.add_requirement("karpenter.k8s.aws/instance-cpu", NodeSelectorOperator.IN, ["4"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", HeadroomWarning)
        with pytest.raises(HeadroomConfigError) as raised:
            NodeHeadroom(chart, "h", cpu="500", memory="1Gi", node_pool=pool)
    assert raised.value.field == "cpu"
    assert "a slice that fits on the smallest node of pool" in str(raised.value)


@pytest.mark.parametrize(("prop", "value"), [("cpu", 1), ("cpu", 0.5), ("memory", 512)])
def test_a_number_is_refused_with_the_string_it_should_be(
    chart: cdk8s.Chart, prop: str, value: Any
) -> None:
    props: dict[str, Any] = {"cpu": "500m", "memory": "512Mi", prop: value}
    with pytest.raises(HeadroomConfigError) as raised:
        NodeHeadroom(chart, "h", **props)
    assert raised.value.field == prop
    assert str(raised.value) == (
        f'{prop}: invalid value {value!r}; a string such as "500m" or "1" for CPU, '
        '"512Mi" for memory: quantities are strings, so that the unit is written, never implied'
    )
