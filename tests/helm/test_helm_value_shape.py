"""``cdk8s_headroom.helm.synthesize`` refuses what the chart's values.schema.json refuses
(``value_checks.check_shape``, from the same ``values.values_schema``), as a
``ValuesError`` (a ``HeadroomConfigError``) naming the value path: never a ``ValueError``
from an enum, an ``AttributeError`` or a silent acceptance."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from cdk8s_headroom.helm import Release, ValuesError, synthesize
from cdk8s_headroom.helm.values import values_schema
from tests.helm.helm_cases import API


def refused(overrides: dict[str, Any], defaults: dict[str, Any]) -> ValuesError:
    with pytest.raises(ValuesError) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthesize(overrides, Release(), chart_defaults=defaults)
    return raised.value


# (id, overrides, value path, a piece of what is allowed)
CASES = [
    ("unknown-top-key", {"colour": "red"}, "colour", "no such value; the chart's values are ["),
    ("unknown-nested-key", {"task": {"knd": "pause"}}, "task.knd", "no such value; task takes ["),
    ("enum-in-capitals", {"model": "GUARDED"}, "model", "one of 'guarded', 'dedicated-pool'"),
    ("task-kind", {"task": {"kind": "mine"}}, "task.kind", "one of 'pause', 'maintenance'"),
    ("list-as-a-map", {"burstWorkloads": {"api": API}}, "burstWorkloads", "a list"),
    ("map-as-a-list", {"reservation": ["1"]}, "reservation", "a map"),
    ("text-for-a-flag", {"namespace": {"create": "yes"}}, "namespace.create", "true or false"),
    ("required-removed", {"model": None}, "model", "it is required"),
    (
        "burst-without-a-name",
        {"burstWorkloads": [{k: v for k, v in API.items() if k != "name"}]},
        "burstWorkloads[0]",
        "it has no ['name']",
    ),
    (
        "unknown-key-in-a-burst",
        {"burstWorkloads": [{**API, "colour": 1}]},
        "burstWorkloads[api].colour",
        "no such value; burstWorkloads[api] takes [",
    ),
    (
        "enum-in-a-toleration",
        {"tolerations": [{"key": "a", "operator": "Maybe"}]},
        "tolerations[0].operator",
        "one of 'Equal', 'Exists'",
    ),
    (
        "a-subject-of-no-rbac-kind",
        {"reader": {"create": True, "subjects": [{"kind": "Robot", "name": "r2"}]}},
        "reader.subjects[0].kind",
        "one of 'User', 'Group', 'ServiceAccount'",
    ),
]


@pytest.mark.parametrize(
    ("overrides", "path", "allowed"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_value_the_schema_refuses_is_a_values_error_naming_its_path(
    chart_defaults: dict[str, Any], overrides: dict[str, Any], path: str, allowed: str
) -> None:
    error = refused(overrides, chart_defaults)
    assert error.field == path
    assert allowed in error.allowed


def test_the_allowed_keys_are_the_schemas() -> None:
    top = values_schema()["properties"]
    error_keys = "['" + "', '".join(top) + "']"
    with pytest.raises(ValuesError) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthesize({"colour": "red"}, chart_defaults={})
    assert error_keys in raised.value.allowed


def test_the_defaults_pass_the_shape_check(chart_defaults: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        objects = synthesize({}, chart_defaults=chart_defaults)
    assert {o["kind"] for o in objects} >= {"DaemonSet", "PriorityClass"}
