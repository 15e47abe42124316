"""NodeHeadroom: one pool's classes, reserver and bursts, kept consistent."""

import inspect
import warnings
from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import (
    HeadroomConfigError,
    HeadroomPriorityClasses,
    HeadroomWarning,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
    ReserverTask,
    Taint,
    TaintEffect,
    validate_app,
)
from cdk8s_headroom.core.synthesis import config_error_message
from tests.conftest import find, find_all, pod_spec

DEDICATED = Taint("headroom.cdk8s.io/burst", "true", TaintEffect.NO_SCHEDULE)


def headroom(chart: Any, **props: Any) -> NodeHeadroom:
    props.setdefault("cpu", "1")
    props.setdefault("memory", "1Gi")
    return NodeHeadroom(chart, "headroom", **props)


def add_api(target: NodeHeadroom, **props: Any) -> Any:
    props.setdefault("image", "ghcr.io/acme/api:1.2")
    props.setdefault("cpu", "500m")
    props.setdefault("memory", "512Mi")
    return target.add_burst_workload("api", **props)


def test_burst_workloads_get_the_burst_class_and_the_headrooms_pool(chart: Any, synth: Any) -> None:
    target = headroom(chart, node_pool=NodePoolRef.karpenter("burst-pool"))
    add_api(target)
    objects = synth(chart)
    reserver = pod_spec(find(objects, "DaemonSet", "headroom-reserver-burst-pool"))
    api = pod_spec(find(objects, "Deployment", "api"))
    assert reserver["priorityClassName"] == "headroom-reserve"
    assert api["priorityClassName"] == "burst-critical"
    assert (
        api["nodeSelector"] == reserver["nodeSelector"] == {"karpenter.sh/nodepool": "burst-pool"}
    )


def test_objects_come_out_classes_first(chart: Any, synth: Any) -> None:
    add_api(headroom(chart))
    kinds = [o["kind"] for o in synth(chart)]
    assert kinds == ["PriorityClass"] * 3 + ["DaemonSet", "Deployment"]


def test_burst_workload_added_later_is_prepulled_by_the_prepuller(chart: Any, synth: Any) -> None:
    target = headroom(chart, prepull_burst_images=True)
    add_api(target)
    target.add_burst_workload("worker", image="ghcr.io/acme/worker:3", cpu="250m", memory="256Mi")
    objects = synth(chart)
    spec = pod_spec(find(objects, "DaemonSet", "headroom-reserver-prepull"))
    assert [c["image"] for c in spec["initContainers"][1:]] == [
        "ghcr.io/acme/api:1.2",
        "ghcr.io/acme/worker:3",
    ]
    assert "initContainers" not in pod_spec(find(objects, "DaemonSet", "headroom-reserver"))


def test_no_prepull_unless_asked(chart: Any, synth: Any) -> None:
    target = headroom(chart)
    add_api(target)
    assert "initContainers" not in pod_spec(find(synth(chart), "DaemonSet"))
    assert target.prepuller is None


@pytest.mark.parametrize("model", [PriorityModel.GUARDED, PriorityModel.DEDICATED_POOL])
@pytest.mark.parametrize(
    ("field", "props"), [("cpu", {"cpu": "1500m"}), ("memory", {"memory": "2Gi"})]
)
def test_a_burst_pod_larger_than_the_slice_is_an_error(
    chart: Any, synth: Any, model: PriorityModel, field: str, props: dict[str, str]
) -> None:
    pool = NodePoolRef.karpenter("burst-pool", taints=[DEDICATED])
    target = headroom(chart, model=model, node_pool=pool)
    with pytest.raises(HeadroomConfigError) as raised:
        add_api(target, **props)
    assert raised.value.field == f"burst_workloads[api].{field}"
    assert "fits in the headroom slice (1 CPU, 1Gi memory)" in str(raised.value)
    assert find_all(synth(chart), "Deployment") == []


@pytest.mark.parametrize("prop", ["cpu", "memory"])
@pytest.mark.parametrize("other", [None, "1"])
def test_an_empty_slice_is_refused_at_construction_and_shown_as_given(
    chart: Any, prop: str, other: str | None
) -> None:
    # GIVEN cpu='' (or memory=''), alone or with the other slice
    props = {prop: "", ("memory" if prop == "cpu" else "cpu"): other}
    # THEN the headroom is refused, its message showing '' (not null), and leaves nothing
    with pytest.raises(HeadroomConfigError, match=rf"^{prop}: invalid value ''; a Kubernetes"):
        NodeHeadroom(chart, "headroom", **props)
    assert chart.node.try_find_child("headroom") is None


def test_a_burst_pod_larger_than_the_slice_only_warns_in_seed(chart: Any, synth: Any) -> None:
    with pytest.warns(HeadroomWarning):
        target = headroom(chart, model=PriorityModel.SEED)
    with pytest.warns(HeadroomWarning, match=r"burst_workloads\[api\]\.cpu: '2' exceeds the slice"):
        add_api(target, cpu="2")
    assert find(synth(chart), "Deployment", "api")


def test_seed_warns_that_it_breaks_p2_and_p3(chart: Any) -> None:
    with pytest.warns(HeadroomWarning, match=r"PriorityModel\.SEED breaks P2 and P3"):
        headroom(chart, model=PriorityModel.SEED)


def test_warnings_point_at_the_users_line_not_into_jsii_or_the_library(chart: Any) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seed = NodeHeadroom(chart, "seed", cpu="1", memory="1Gi", model=PriorityModel.SEED)
        seed_line = inspect.currentframe().f_lineno - 1  # type: ignore[union-attr]
        seed.add_burst_workload("api", image="ghcr.io/acme/api:1.2", cpu="2", memory="1Gi")
        burst_line = inspect.currentframe().f_lineno - 1  # type: ignore[union-attr]

    assert [(w.filename, w.lineno) for w in caught] == [
        (__file__, seed_line),
        (__file__, burst_line),
    ]


def _shown_at_its_line(call: Any) -> None:
    """The uncaught error of ``call`` is shown (synthesis' excepthook) at the line of
    ``call``, a lambda of this file."""
    with pytest.raises(HeadroomConfigError) as caught:
        call()
    message = config_error_message(caught.value, caught.tb)
    assert message is not None
    assert message.startswith(f"{__file__}:{call.__code__.co_firstlineno}: "), message


def test_errors_of_add_methods_point_at_the_users_line_not_into_contextlib(chart: Any) -> None:
    target = headroom(chart)
    api = target.add_burst_workload("api", image="a:1", cpu="1", memory="1Gi")
    _shown_at_its_line(lambda: target.add_burst_workload("big", image="a:1", cpu="2", memory="1"))
    _shown_at_its_line(lambda: target.add_burst_workload("api", image="a:1", cpu="1", memory="1"))
    _shown_at_its_line(lambda: target.add_capacity_buffer(api, replicas=-1))
    _shown_at_its_line(lambda: Taint("k", "v", "Bad"))  # type: ignore[arg-type]


def test_guarded_does_not_warn(chart: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        add_api(headroom(chart))


def test_a_burst_workload_targeting_another_pool_is_an_error(chart: Any, synth: Any) -> None:
    target = headroom(chart, node_pool=NodePoolRef.karpenter("burst-pool"))
    with pytest.raises(HeadroomConfigError) as raised:
        add_api(target, node_pool=NodePoolRef.karpenter("general"))
    assert raised.value.field == "burst_workloads[api].node_pool"
    assert "pool burst-pool" in str(raised.value)
    assert find_all(synth(chart), "Deployment") == []


def test_a_burst_workload_with_a_conflicting_node_selector_is_an_error(chart: Any) -> None:
    target = headroom(chart, node_selector={"kubernetes.io/arch": "arm64"})
    with pytest.raises(HeadroomConfigError, match="the headroom's targeting"):
        add_api(target, node_selector={"kubernetes.io/arch": "amd64"})


def test_a_burst_workload_cannot_choose_its_own_class(chart: Any) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        add_api(headroom(chart), priority_class_name="other")
    assert raised.value.field == "burst_workloads[api].priority_class_name"


def test_dedicated_pool_tolerates_the_pool_taint_on_reserver_and_bursts(
    chart: Any, synth: Any
) -> None:
    pool = NodePoolRef.karpenter("burst-pool", taints=[DEDICATED])
    add_api(headroom(chart, model=PriorityModel.DEDICATED_POOL, node_pool=pool))
    objects = synth(chart)
    toleration = {
        "effect": "NoSchedule",
        "key": "headroom.cdk8s.io/burst",
        "operator": "Equal",
        "value": "true",
    }
    assert pod_spec(find(objects, "DaemonSet"))["tolerations"] == [toleration]
    assert pod_spec(find(objects, "Deployment"))["tolerations"] == [toleration]
    assert not any(pc.get("globalDefault", False) for pc in find_all(objects, "PriorityClass"))


def test_dedicated_pool_without_a_pool_says_what_to_pass(chart: Any) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        headroom(chart, model=PriorityModel.DEDICATED_POOL)
    assert raised.value.field == "node_pool"
    assert "pass node_pool=" in str(raised.value)


def test_dedicated_pool_needs_a_pool_that_carries_the_taint(chart: Any) -> None:
    with pytest.raises(HeadroomConfigError, match="carry the dedicated taint"):
        headroom(
            chart,
            model=PriorityModel.DEDICATED_POOL,
            node_pool=NodePoolRef.karpenter("burst-pool"),
        )


def test_shared_classes_must_be_of_the_same_model(chart: Any) -> None:
    classes = HeadroomPriorityClasses(chart, "classes", model=PriorityModel.SEED)
    with pytest.raises(HeadroomConfigError) as raised:
        headroom(chart, priority_classes=classes)
    assert raised.value.field == "priority_classes"


def test_custom_task_and_names(chart: Any, synth: Any) -> None:
    headroom(
        chart,
        task=ReserverTask.maintenance(),
        reserver_name="reserve-ci",
        namespace="ci",
        labels={"team": "platform"},
    )
    ds = find(synth(chart), "DaemonSet", "reserve-ci")
    assert ds["metadata"]["namespace"] == "ci"
    assert ds["metadata"]["labels"]["team"] == "platform"
    assert pod_spec(ds)["containers"][0]["name"] == "background-job"


def test_two_headrooms_with_their_own_classes_collide_with_a_clear_error() -> None:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "chart")
    NodeHeadroom(chart, "a", cpu="1", memory="1Gi", node_pool=NodePoolRef.karpenter("a"))
    NodeHeadroom(chart, "b", cpu="1", memory="1Gi", node_pool=NodePoolRef.karpenter("b"))
    with pytest.raises(HeadroomConfigError) as raised:
        validate_app(app)
    assert raised.value.field == "name"
    assert "PriorityClass" in str(raised.value)


def test_an_unknown_class_reference_is_reported() -> None:
    from cdk8s_headroom import HeadroomReserver

    app = cdk8s.App()
    chart = cdk8s.Chart(app, "chart")
    HeadroomReserver(chart, "r", cpu="1", memory="1Gi", priority_class_name="nowhere")
    with pytest.raises(HeadroomConfigError) as raised:
        validate_app(app)
    assert raised.value.field == "chart/r.priority_class_name"
    assert "'nowhere'" in str(raised.value)


@pytest.mark.parametrize(
    ("props", "field"),
    [
        ({"replicas": -1}, "burst_workloads[api].replicas"),
        ({"name": "Api"}, "burst_workloads[Api].name"),
        ({"replica": 3}, "burst_workloads[api].replica"),
        ({"image": None}, "burst_workloads[api].image"),
        ({"tolerations": None}, "burst_workloads[api].tolerations"),
    ],
)
def test_a_burst_workloads_errors_name_the_workload(
    chart: Any, props: dict[str, Any], field: str
) -> None:
    target = headroom(chart)
    children = len(target.node.children)
    with pytest.raises(HeadroomConfigError) as raised:
        add_api(target, **props)
    assert raised.value.field == field
    assert len(target.node.children) == children


def test_a_missing_burst_prop_or_a_repeated_id_is_a_config_error(chart: Any) -> None:
    target = headroom(chart)
    with pytest.raises(HeadroomConfigError) as raised:
        target.add_burst_workload("api", image="nginx:1", cpu="100m")
    assert raised.value.field == "burst_workloads[api].memory"
    add_api(target)
    with pytest.raises(HeadroomConfigError) as raised:
        add_api(target)
    assert raised.value.field == "burst_workloads[api].id"


def test_the_default_reserver_name_must_fit_a_dns_label(chart: Any) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        NodeHeadroom(chart, "h", cpu="1", memory="1Gi", node_pool=NodePoolRef.karpenter("p" * 50))
    assert raised.value.field == "reserver_name"
    assert "pass reserver_name=" in str(raised.value)
