"""Burst workloads: the burst class, IfNotPresent pulls, limits, HPA, hardening."""

from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import (
    BurstWorkload,
    CapacityBufferForm,
    HeadroomConfigError,
    ImagePullPolicy,
    NodeHeadroom,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from cdk8s_headroom.helm.values import VALUES
from cdk8s_headroom.vocabulary import rules
from tests.conftest import chart_with_classes, find, find_all, pod_spec


@pytest.fixture
def chart() -> cdk8s.Chart:
    """The workloads here reference the GUARDED classes."""
    return chart_with_classes()


def burst(chart: Any, synth: Any, **props: Any) -> list[dict[str, Any]]:
    props.setdefault("image", "ghcr.io/acme/api:1.2")
    props.setdefault("cpu", "500m")
    props.setdefault("memory", "512Mi")
    BurstWorkload(chart, "api", **props)
    return synth(chart)


def test_defaults_to_the_burst_class_one_replica_and_if_not_present(chart: Any, synth: Any) -> None:
    deployment = find(burst(chart, synth), "Deployment", "api")
    spec = pod_spec(deployment)
    assert spec["priorityClassName"] == "burst-critical"
    assert deployment["spec"]["replicas"] == 1
    container = spec["containers"][0]
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert container["resources"] == {
        "requests": {"cpu": "500m", "memory": "512Mi"},
        "limits": {"cpu": "500m", "memory": "512Mi"},
    }


def test_tolerations_added_after_construction_reach_the_output(chart: Any, synth: Any) -> None:
    workload = BurstWorkload(chart, "api", image="busybox", cpu="500m", memory="512Mi")
    workload.add_toleration(Toleration(key="gpu", value="true", effect=TaintEffect.NO_SCHEDULE))

    spec = pod_spec(find(synth(chart), "Deployment"))

    assert spec["tolerations"] == [
        {"key": "gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    ]


def test_add_toleration_takes_a_toleration_object(chart: Any) -> None:
    workload = BurstWorkload(chart, "api", image="busybox", cpu="500m", memory="512Mi")

    with pytest.raises(HeadroomConfigError, match="toleration: invalid value"):
        workload.add_toleration(TolerationOperator.EXISTS)  # type: ignore[arg-type]


def test_a_limit_not_given_is_its_request_as_the_resources_recipe_makes_it(
    chart: Any, synth: Any
) -> None:
    # objects/burst.py BURST_RESOURCES decides the default once: the attributes that
    # plan and the buffers read are the manifest's limits, not a default of their own
    workload = BurstWorkload(chart, "api", image="busybox", cpu="500m", memory="512Mi")
    given = BurstWorkload(chart, "web", image="busybox", cpu="1", memory="1Gi", cpu_limit="2")

    deployment = find(synth(chart), "Deployment", "api")

    assert pod_spec(deployment)["containers"][0]["resources"]["limits"] == {
        "cpu": workload.cpu_limit,
        "memory": workload.memory_limit,
    }
    assert (workload.cpu_limit, workload.memory_limit) == ("500m", "512Mi")
    assert (given.cpu_limit, given.memory_limit) == ("2", "1Gi")


def test_limits_can_exceed_requests(chart: Any, synth: Any) -> None:
    deployment = find(burst(chart, synth, cpu_limit="800m", memory_limit="1Gi"), "Deployment")
    assert pod_spec(deployment)["containers"][0]["resources"]["limits"] == {
        "cpu": "800m",
        "memory": "1Gi",
    }


def test_pod_is_hardened_with_a_writable_tmp(chart: Any, synth: Any) -> None:
    spec = pod_spec(find(burst(chart, synth), "Deployment"))
    assert spec["automountServiceAccountToken"] is False
    assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    container = spec["containers"][0]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert container["volumeMounts"] == [{"mountPath": "/tmp", "name": "scratch-0"}]


def test_hpa_scales_from_replicas_to_max_and_owns_the_replica_count(chart: Any, synth: Any) -> None:
    objects = burst(chart, synth, replicas=2, max_replicas=10, target_cpu_utilization=70)
    hpa = find(objects, "HorizontalPodAutoscaler", "api")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "api",
    }
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (2, 10)
    assert hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 70
    assert "replicas" not in find(objects, "Deployment")["spec"]


def test_no_hpa_without_max_replicas(chart: Any, synth: Any) -> None:
    assert find_all(burst(chart, synth), "HorizontalPodAutoscaler") == []


def test_zero_replicas_is_allowed(chart: Any, synth: Any) -> None:
    assert find(burst(chart, synth, replicas=0), "Deployment")["spec"]["replicas"] == 0


@pytest.mark.parametrize(
    ("props", "field", "allowed"),
    [
        ({"replicas": -1}, "replicas", "from 0 to"),
        ({"replicas": 1.5}, "replicas", "an integer"),
        ({"cpu": "500mm"}, "cpu", "Kubernetes quantity"),
        ({"memory": "-1"}, "memory", "greater than zero"),
        ({"cpu_limit": "100m"}, "cpu_limit", "no smaller than the request"),
        ({"memory_limit": "1.5.0"}, "memory_limit", "Kubernetes quantity"),
        ({"image": ""}, "image", "container image"),
        ({"name": "API"}, "name", "DNS-1123 label"),
        ({"max_replicas": 0}, "max_replicas", "from 1"),
        ({"replicas": 0, "max_replicas": 3}, "replicas", "at least 1 with an autoscaler"),
        ({"target_cpu_utilization": 0}, "target_cpu_utilization", "from 1 to 100"),
        ({"image_pull_policy": "Always"}, "image_pull_policy", "ImagePullPolicy"),
        ({"command": "sleep 1"}, "command", "a list of strings"),
        ({"run_as_user": 0}, "run_as_user", "from 1"),
    ],
)
def test_bad_burst_props_raise_naming_the_field(
    chart: Any, synth: Any, props: dict[str, Any], field: str, allowed: str
) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        burst(chart, synth, **props)
    assert raised.value.field == field
    assert allowed in str(raised.value)
    assert find_all(synth(chart), "Deployment") == []


def test_pull_policy_can_be_forced(chart: Any, synth: Any) -> None:
    spec = pod_spec(
        find(burst(chart, synth, image_pull_policy=ImagePullPolicy.ALWAYS), "Deployment")
    )
    assert spec["containers"][0]["imagePullPolicy"] == "Always"


def _integer_values() -> list[tuple[str, str, rules.IntRange]]:
    """(chart value path, library prop, range) of each integer a burst workload item or
    its buffer takes in the chart."""
    return [
        (value.path, value.prop, value.rule)
        for value in VALUES
        if value.path.startswith("burstWorkloads[].")
        and isinstance(value.rule, rules.IntRange)
        and value.prop is not None
    ]


@pytest.mark.parametrize(
    ("path", "prop", "bounds"), _integer_values(), ids=[v[0] for v in _integer_values()]
)
@pytest.mark.parametrize("side", ["below", "above"])
def test_the_library_bounds_each_integer_as_the_chart_does(
    path: str, prop: str, bounds: rules.IntRange, side: str
) -> None:
    # GIVEN a value just outside the range the chart's schema and templates check
    bad = bounds.minimum - 1 if side == "below" else bounds.maximum + 1
    headroom = NodeHeadroom(chart_with_classes(), "headroom", cpu="1", memory="1Gi")
    workload = {"image": "nginx:1", "cpu": "500m", "memory": "512Mi"}

    # WHEN the library is given it for the same prop
    with pytest.raises(HeadroomConfigError) as raised:
        if ".buffer." in path:
            buffer = {"form": CapacityBufferForm.SCALABLE, prop: bad}
            headroom.add_capacity_buffer(headroom.add_burst_workload("api", **workload), **buffer)
        else:
            headroom.add_burst_workload("api", **workload, **{prop: bad})

    # THEN it refuses it by name with the range's own words, as the chart does
    assert raised.value.field.endswith(f".{prop}")
    assert raised.value.value == bad
    assert raised.value.allowed == bounds.allowed
