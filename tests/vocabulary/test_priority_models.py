"""PriorityClasses per model: exactly the table of DESIGN.md, and every bad value."""

from typing import Any

import pytest

from cdk8s_headroom import (
    HeadroomConfigError,
    HeadroomPriorityClasses,
    ModelClasses,
    PriorityModel,
)
from cdk8s_headroom.vocabulary.errors import shown
from tests.conftest import find, find_all


def classes_of(chart: Any, synth: Any, **props: Any) -> dict[str, dict[str, Any]]:
    HeadroomPriorityClasses(chart, "classes", **props)
    return {pc["metadata"]["name"]: pc for pc in find_all(synth(chart), "PriorityClass")}


def test_guarded_emits_headroom_below_autoscaler_cutoff_burst_and_global_default(
    chart: Any, synth: Any
) -> None:
    classes = classes_of(chart, synth)
    assert set(classes) == {"headroom-reserve", "burst-critical", "default-no-preempt"}
    headroom = classes["headroom-reserve"]
    assert headroom["value"] == -100
    assert headroom["value"] < -10  # below Cluster Autoscaler's expendable cutoff
    assert headroom["preemptionPolicy"] == "Never"
    # false is left out: the API server does not store it, so a second apply would
    # report the class "configured" (tests/live/test_install_paths.py)
    assert "globalDefault" not in headroom
    burst = classes["burst-critical"]
    assert (burst["value"], burst["preemptionPolicy"]) == (1000000000, "PreemptLowerPriority")
    default = classes["default-no-preempt"]
    assert (default["value"], default["preemptionPolicy"], default["globalDefault"]) == (
        0,
        "Never",
        True,
    )


def test_dedicated_pool_emits_headroom_and_burst_without_a_default(chart: Any, synth: Any) -> None:
    classes = classes_of(chart, synth, model=PriorityModel.DEDICATED_POOL)
    assert set(classes) == {"headroom-reserve", "burst-critical"}
    assert classes["headroom-reserve"]["preemptionPolicy"] == "Never"
    assert not any(pc.get("globalDefault", False) for pc in classes.values())


def test_seed_emits_the_blueprint_classes(chart: Any, synth: Any) -> None:
    classes = classes_of(chart, synth, model=PriorityModel.SEED)
    assert set(classes) == {"headroom-high", "burst-critical"}
    assert classes["headroom-high"]["value"] == 900000000
    assert classes["headroom-high"]["preemptionPolicy"] == "PreemptLowerPriority"


def test_an_existing_default_class_is_named_but_not_emitted(chart: Any, synth: Any) -> None:
    HeadroomPriorityClasses(
        chart, "classes", create_default_class=False, default_class_name="cluster-default"
    )
    objects = synth(chart)
    assert {pc["metadata"]["name"] for pc in find_all(objects, "PriorityClass")} == {
        "headroom-reserve",
        "burst-critical",
    }


def test_classes_are_emitted_headroom_default_burst_in_that_order(chart: Any, synth: Any) -> None:
    HeadroomPriorityClasses(chart, "classes")
    names = [o["metadata"]["name"] for o in synth(chart)]
    assert names == ["headroom-reserve", "default-no-preempt", "burst-critical"]


@pytest.mark.parametrize(
    ("model", "create", "emitted"),
    [
        (PriorityModel.GUARDED, None, ["headroom", "default", "burst"]),
        (PriorityModel.GUARDED, False, ["headroom", "burst"]),
        (PriorityModel.SEED, False, ["headroom", "burst"]),
    ],
)
def test_the_classes_emitted_are_the_ladders_the_default_only_when_created(
    model: PriorityModel, create: bool | None, emitted: list[str]
) -> None:
    # What the chart's data holds for each default.create (helm/library.py models)
    classes = ModelClasses.of(model, create_default_class=create)
    assert classes.emitted_roles() == emitted
    assert [role for role, _ in classes.ladder()] == [
        "headroom",
        *(["default"] if classes.default else []),
        "burst",
    ]
    assert [child_id for child_id, _ in classes.emitted_items()] == [
        role.capitalize() for role in emitted
    ]


def test_custom_values_and_names_are_emitted(chart: Any, synth: Any) -> None:
    HeadroomPriorityClasses(
        chart,
        "classes",
        headroom_class_name="team-headroom",
        headroom_value=-1000,
        burst_class_name="team-burst",
        burst_value=500000,
        default_value=10,
    )
    objects = synth(chart)
    assert find(objects, "PriorityClass", "team-headroom")["value"] == -1000
    assert find(objects, "PriorityClass", "team-burst")["value"] == 500000
    assert find(objects, "PriorityClass", "default-no-preempt")["value"] == 10


@pytest.mark.parametrize(
    ("props", "field", "allowed"),
    [
        ({"burst_value": 1000000001}, "burst_value", "from -2147483648 to 1000000000"),
        ({"headroom_value": -(2**31) - 1}, "headroom_value", "from -2147483648"),
        ({"burst_value": 2**31}, "burst_value", "to 1000000000"),
        ({"headroom_value": "low"}, "headroom_value", "an integer"),
        ({"headroom_value": True}, "headroom_value", "an integer"),
        ({"headroom_class_name": "system-headroom"}, "headroom_class_name", "'system-'"),
        ({"burst_class_name": "Burst_Critical"}, "burst_class_name", "DNS-1123 subdomain"),
        ({"default_class_name": "-bad"}, "default_class_name", "DNS-1123 subdomain"),
        ({"headroom_value": 1000000000}, "headroom_value", "headroom < default < burst"),
        ({"headroom_value": 5}, "headroom_value", "below the default class's value 0"),
        ({"default_value": 1000000000}, "default_value", "below the burst class's value"),
        ({"burst_class_name": "headroom-reserve"}, "burst_class_name", "a name different"),
        ({"model": "guarded"}, "model", "PriorityModel.GUARDED"),
    ],
)
def test_bad_class_settings_raise_naming_the_field(
    chart: Any, props: dict[str, Any], field: str, allowed: str
) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        HeadroomPriorityClasses(chart, "classes", **props)
    assert raised.value.field == field
    assert allowed in str(raised.value)
    assert raised.value.value == props[field]
    assert f"{field}: invalid value {shown(props[field])}" in str(raised.value)


def test_headroom_not_below_burst_is_rejected_in_seed(chart: Any) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        HeadroomPriorityClasses(chart, "classes", model=PriorityModel.SEED, burst_value=900000000)
    assert raised.value.field == "headroom_value"
    assert "below the burst class's value 900000000" in str(raised.value)


@pytest.mark.parametrize("model", [PriorityModel.SEED, PriorityModel.DEDICATED_POOL])
def test_only_guarded_has_a_default_class(chart: Any, model: PriorityModel) -> None:
    with pytest.raises(HeadroomConfigError, match=r"only the guarded model has a default class"):
        HeadroomPriorityClasses(chart, "classes", model=model, create_default_class=True)


@pytest.mark.parametrize(
    ("props", "field"),
    [
        # a default class's prop under a model without one, and classes out of order
        (
            {"model": PriorityModel.SEED, "default_value": 5, "headroom_value": 1000000000},
            "default_value",
        ),
        # out of order, and two classes of one name
        ({"headroom_value": 5, "burst_class_name": "headroom-reserve"}, "headroom_value"),
    ],
    ids=["default-only-before-order", "order-before-names"],
)
def test_classes_that_break_two_rules_are_refused_for_the_first_of_class_rules(
    chart: Any, props: dict[str, Any], field: str
) -> None:
    # priority_models.CLASS_RULES' order: the default class's props, the ladder, the names
    with pytest.raises(HeadroomConfigError) as raised:
        HeadroomPriorityClasses(chart, "classes", **props)
    assert raised.value.field == field


def test_a_rejected_configuration_adds_nothing_to_the_tree(chart: Any, synth: Any) -> None:
    with pytest.raises(HeadroomConfigError):
        HeadroomPriorityClasses(chart, "classes", burst_value=-5)
    assert synth(chart) == []
