"""Bad values fail at render time, through the Helm library, naming the value path.

Rules of one value are values.schema.json's (Helm names the JSON pointer); rules across
values are the templates' `fail`, whose message is the library's own for the same
props, as the mapping (`cdk8s_headroom.helm.synthesize`) raises it.
"""

from __future__ import annotations

import warnings
from typing import Any

import helm_python as helm
import pytest
import yaml

from cdk8s_headroom import HeadroomConfigError
from cdk8s_headroom.helm import synthesize
from scripts.helm_render import CHART, load, render
from tests.helm_cases import API, DEDICATED_TAINT


@pytest.fixture(scope="module")
def chart() -> helm.Chart:
    return load()


@pytest.fixture(scope="module")
def chart_defaults() -> dict[str, Any]:
    defaults: dict[str, Any] = yaml.safe_load((CHART / "values.yaml").read_text())
    return defaults


def helm_error(chart: helm.Chart, overrides: dict[str, Any], release: str = "node-headroom") -> str:
    with pytest.raises(helm.HelmError) as raised:
        render(chart, overrides, release=release)
    return str(raised.value)


def library_error(overrides: dict[str, Any], chart_defaults: dict[str, Any]) -> HeadroomConfigError:
    with pytest.raises(HeadroomConfigError) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthesize(overrides, chart_defaults=chart_defaults)
    return raised.value


def burst(**changes: Any) -> dict[str, Any]:
    return {**API, **changes}


# (id, overrides, JSON pointer Helm names, value path the library names)
SCHEMA_CASES = [
    ("bad-quantity", {"reservation": {"cpu": "500mm"}}, "/reservation/cpu", "reservation.cpu"),
    (
        "zero-quantity",
        {"reservation": {"memory": "0Mi"}},
        "/reservation/memory",
        "reservation.memory",
    ),
    (
        "priority-above-one-billion",
        {"priorityClasses": {"burst": {"value": 2000000000}}},
        "/priorityClasses/burst/value",
        "priorityClasses.burst.value",
    ),
    ("unknown-model", {"model": "greedy"}, "/model", "model"),
    (
        "negative-replicas",
        {"burstWorkloads": [burst(replicas=-1)]},
        "/burstWorkloads/0/replicas",
        "burstWorkloads[api].replicas",
    ),
    (
        "system-class-name",
        {"priorityClasses": {"headroom": {"name": "system-reserve"}}},
        "/priorityClasses/headroom/name",
        "priorityClasses.headroom.name",
    ),
    (
        "not-a-dns-label",
        {"namespace": {"name": "Node_Headroom"}},
        "/namespace/name",
        "namespace.name",
    ),
    (
        "burst-quantity",
        {"burstWorkloads": [burst(resources={"requests": {"cpu": "fast", "memory": "1Gi"}})]},
        "/burstWorkloads/0/resources/requests/cpu",
        "burstWorkloads[api].resources.requests.cpu",
    ),
    ("unknown-task", {"task": {"kind": "sleep"}}, "/task/kind", "task.kind"),
]


@pytest.mark.parametrize(
    ("overrides", "pointer", "path"),
    [case[1:] for case in SCHEMA_CASES],
    ids=[case[0] for case in SCHEMA_CASES],
)
def test_a_bad_single_value_fails_the_schema_naming_its_path(
    chart: helm.Chart,
    chart_defaults: dict[str, Any],
    overrides: dict[str, Any],
    pointer: str,
    path: str,
) -> None:
    message = helm_error(chart, overrides)
    assert "don't meet the specifications of the schema" in message
    assert f"at '{pointer}'" in message
    assert library_error(overrides, chart_defaults).field == path


def test_an_unknown_value_is_rejected(chart: helm.Chart) -> None:
    assert "additional properties 'reservaton' not allowed" in helm_error(
        chart, {"reservaton": {"cpu": "1"}}
    )


def test_removing_a_required_value_is_rejected(chart: helm.Chart) -> None:
    assert "missing property 'cpu'" in helm_error(chart, {"reservation": {"cpu": None}})


# (id, overrides, the value path in the message)
RULE_CASES = [
    (
        "priorities-out-of-order",
        {"priorityClasses": {"headroom": {"value": 5}}},
        "priorityClasses.headroom.value",
    ),
    (
        "burst-above-default",
        {"priorityClasses": {"burst": {"value": -200}}},
        "priorityClasses.default.value",
    ),
    (
        "same-class-name-twice",
        {"priorityClasses": {"burst": {"name": "headroom-reserve"}}},
        "priorityClasses.burst.name",
    ),
    (
        "default-class-under-seed",
        {"model": "seed", "priorityClasses": {"default": {"create": True}}},
        "priorityClasses.default.create",
    ),
    (
        "default-class-name-under-dedicated-pool",
        {
            "model": "dedicated-pool",
            "nodePool": {"name": "p", "taints": [DEDICATED_TAINT]},
            "priorityClasses": {"default": {"name": "mine"}},
        },
        "priorityClasses.default.name",
    ),
    ("dedicated-pool-without-a-pool", {"model": "dedicated-pool"}, "nodePool.name"),
    (
        "dedicated-pool-without-its-taint",
        {"model": "dedicated-pool", "nodePool": {"name": "p", "taints": [{"key": "spot"}]}},
        "nodePool.taints",
    ),
    (
        "selector-against-the-pool",
        {"nodePool": {"name": "web"}, "nodeSelector": {"karpenter.sh/nodepool": "batch"}},
        "nodeSelector['karpenter.sh/nodepool']",
    ),
    ("custom-task-without-image", {"task": {"kind": "custom"}}, "task.image"),
    (
        "burst-cpu-beyond-the-slice",
        {"burstWorkloads": [burst(resources={"requests": {"cpu": "2", "memory": "128Mi"}})]},
        "burstWorkloads[api].resources.requests.cpu",
    ),
    (
        "burst-memory-beyond-the-slice",
        {"burstWorkloads": [burst(resources={"requests": {"cpu": "0.1", "memory": "0.75Gi"}})]},
        "burstWorkloads[api].resources.requests.memory",
    ),
    (
        "limit-below-request",
        {
            "burstWorkloads": [
                burst(
                    resources={
                        "requests": {"cpu": "500m", "memory": "512Mi"},
                        "limits": {"memory": "256Mi"},
                    }
                )
            ]
        },
        "burstWorkloads[api].resources.limits.memory",
    ),
    (
        "max-replicas-below-replicas",
        {"burstWorkloads": [burst(replicas=4, autoscaling={"maxReplicas": 3})]},
        "burstWorkloads[api].autoscaling.maxReplicas",
    ),
    (
        "no-replicas-with-an-hpa",
        {"burstWorkloads": [burst(replicas=0, autoscaling={"maxReplicas": 3})]},
        "burstWorkloads[api].replicas",
    ),
    ("same-burst-name-twice", {"burstWorkloads": [API, API]}, "burstWorkloads[1].name"),
    (
        "prefixed-name-too-long",
        {"namePrefix": "x" * 54 + "-", "namespace": {"name": "ns"}, "reserverName": "reserver-x"},
        "reserverName",
    ),
    ("memory-without-a-unit", {"reservation": {"memory": "512"}}, "reservation.memory"),
    (
        "burst-memory-below-4Mi",
        {"burstWorkloads": [burst(resources={"requests": {"cpu": "100m", "memory": "2Ki"}})]},
        "burstWorkloads[api].resources.requests.memory",
    ),
]


@pytest.mark.parametrize(
    ("overrides", "path"),
    [case[1:] for case in RULE_CASES],
    ids=[case[0] for case in RULE_CASES],
)
def test_a_rule_across_values_fails_with_the_librarys_message(
    chart: helm.Chart, chart_defaults: dict[str, Any], overrides: dict[str, Any], path: str
) -> None:
    expected = library_error(overrides, chart_defaults)
    assert expected.field == path
    message = helm_error(chart, overrides)
    assert f"{path}: invalid value " in message
    assert str(expected) in message


def test_the_fit_message_shows_the_slice_as_the_library_formats_it(chart: helm.Chart) -> None:
    overrides = {
        "reservation": {"cpu": "0.5", "memory": "524288Ki"},
        "burstWorkloads": [burst(resources={"requests": {"cpu": "600m", "memory": "1Mi"}})],
    }
    message = helm_error(chart, overrides)
    assert (
        "burstWorkloads[api].resources.requests.cpu: invalid value '600m'; a request that "
        "fits in the headroom slice (500m CPU, 512Mi memory)"
    ) in message


def test_equal_quantities_in_other_units_fit(chart: helm.Chart) -> None:
    overrides = {
        "reservation": {"cpu": "0.5", "memory": "0.5Gi"},
        "burstWorkloads": [burst(resources={"requests": {"cpu": "500m", "memory": "536870912"}})],
    }
    assert render(chart, overrides)


def test_seed_lets_a_larger_burst_through_with_a_warning(chart: helm.Chart) -> None:
    overrides = {
        "model": "seed",
        "burstWorkloads": [burst(resources={"requests": {"cpu": "2", "memory": "128Mi"}})],
    }
    notes = render(chart, overrides)["node-headroom/templates/NOTES.txt"]
    assert "burstWorkloads[api].cpu: '2' exceeds the slice" in notes
