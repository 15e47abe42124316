"""What the API server, or Karpenter, refuses although the strict schemas accept it.

Upstream: kubernetes ``pkg/apis/core/validation/validation.go``
``ValidateResourceRequirements`` (``ValidateNonnegativeQuantity``; "must be less than or
equal to cpu limit of 1"), apimachinery ``pkg/api/resource/math.go`` ``maxAllowed``, and
robfig/cron ``parser.go`` ``mustParseInt`` (``strconv.Atoi``: ASCII digits only).
"""

from __future__ import annotations

from typing import Any

import pytest

from cdk8s_headroom.validate.api_rules import MAX_QUANTITY, api_errors


def deployment(**resources: dict[str, Any]) -> dict[str, Any]:
    container = {"name": "c", "image": "i", "resources": resources}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"template": {"spec": {"containers": [container]}}},
    }


PATH = "spec.template.spec.containers[0].resources"


@pytest.mark.parametrize(
    ("requests", "limits"),
    [
        ({"cpu": "0", "memory": "0"}, {}),
        ({"cpu": "500m"}, {"cpu": "0.5"}),  # equal, written two ways
        ({"cpu": 1}, {"cpu": "1000m"}),  # YAML numbers are quantities too
        ({"memory": "7Ei"}, {"memory": str(MAX_QUANTITY)}),
        ({}, {"cpu": "1", "nvidia.com/gpu": "1"}),
    ],
)
def test_requests_within_their_limits_are_accepted(
    requests: dict[str, Any], limits: dict[str, Any]
) -> None:
    assert api_errors(deployment(requests=requests, limits=limits)) == []


def test_a_negative_request_or_limit_is_refused_with_the_field() -> None:
    errors = api_errors(deployment(requests={"cpu": "-1"}, limits={"memory": "-1Mi"}))

    assert errors == [
        f"API server: {PATH}.limits.memory: invalid value '-1Mi': must be greater than or "
        "equal to 0",
        f"API server: {PATH}.requests.cpu: invalid value '-1': must be greater than or equal to 0",
    ]


def test_a_request_above_its_limit_is_refused() -> None:
    assert api_errors(deployment(requests={"memory": "2Gi"}, limits={"memory": "1Gi"})) == [
        f"API server: {PATH}.requests.memory: invalid value '2Gi': must be less than or "
        "equal to memory limit of '1Gi'"
    ]


@pytest.mark.parametrize("value", ["1e64", "8Ei", str(MAX_QUANTITY + 1)])
def test_a_quantity_above_2_63_minus_1_in_base_units_is_refused(value: str) -> None:
    assert api_errors(deployment(requests={"memory": value})) == [
        f"API server: {PATH}.requests.memory: invalid value {value!r}: more than 2^63-1 "
        f"({MAX_QUANTITY}) in cores or bytes, the largest quantity"
    ]


def test_a_request_that_is_no_quantity_is_refused() -> None:
    assert api_errors(deployment(requests={"cpu": "lots"})) == [
        f"API server: {PATH}.requests.cpu: invalid value 'lots': not a quantity (e.g. '500m', "
        "'1', '512Mi')"
    ]


@pytest.mark.parametrize(
    "schedule",
    [
        "\u0660 \u0668 * * *",  # Arabic-Indic digits
        "\uff10 \uff18 * * *",  # full-width digits
    ],
)
def test_a_node_pool_budget_schedule_in_other_digits_than_ascii_is_refused(
    schedule: str,
) -> None:
    pool = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "p"},
        "spec": {
            "disruption": {
                "budgets": [
                    {"nodes": "10%", "schedule": "0 8 * * *", "duration": "8h"},
                    {"nodes": "10%", "schedule": schedule, "duration": "8h"},
                ]
            }
        },
    }

    assert api_errors(pool) == [
        f"Karpenter: spec.disruption.budgets[1].schedule: invalid value {schedule!a}: "
        "a cron schedule in ASCII (digits 0-9), as robfig/cron parses it"
    ]


def test_init_containers_and_cron_job_templates_are_checked_too() -> None:
    template = {"spec": {"initContainers": [{"name": "i", "resources": {"limits": {"cpu": "-2"}}}]}}
    cron_job = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "j"},
        "spec": {"schedule": "@daily", "jobTemplate": {"spec": {"template": template}}},
    }

    assert api_errors(cron_job) == [
        "API server: spec.jobTemplate.spec.template.spec.initContainers[0].resources.limits.cpu: "
        "invalid value '-2': must be greater than or equal to 0"
    ]
