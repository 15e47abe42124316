"""The chart warns of the promises a model breaks as the library does, whatever the
classes' values: the library runs its simulation of kube-scheduler's preemption
(simulate/promises.py ``check_promises``, after kubernetes/kubernetes
``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``
``SelectVictimsOnNode``) on the classes it makes; the chart looks the warning up by the
order of the values (helm/promises.py ``outcomes``), since a template cannot run it."""

from __future__ import annotations

import warnings
from typing import Any

import helm_python as helm
import pytest

from cdk8s_headroom.helm import CHART_NAME, Release, synthesize
from cdk8s_headroom.helm.promises import outcomes
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.placement import TaintEffect
from cdk8s_headroom.vocabulary.priority_models import PriorityModel
from scripts.helm_render import render
from tests.helm.notes_warnings import library_warnings, notes_warnings

VALUES = {-1: -7, 0: 0, 1: 5000}
"""A headroom's or a burst's value for each order against the ordinary pods' (0): not the
values the table was made with, so a warning that kept one of those would show."""

ORDERS = [
    (model, headroom, burst, effect)
    for model in PriorityModel
    for effect in (list(TaintEffect) if model.tainted_pool else [None])
    for headroom in (-1, 0, 1)
    for burst in (-1, 0, 1)
    # the burst's class above the headroom's: equal signs but 0 are two values
    if headroom < burst or headroom == burst != 0
]


def _values(model: PriorityModel, headroom: int, burst: int, effect: TaintEffect | None) -> Any:
    low, high = VALUES[headroom], VALUES[burst]
    if low >= high:  # both below the ordinary pods: the burst's above the headroom's
        high = low + 3
    values: dict[str, Any] = {
        "model": model.value,
        "priorityClasses": {"headroom": {"value": low}, "burst": {"value": high}},
    }
    if effect is not None:
        taint = {"key": "headroom.cdk8s.io/burst", "value": "true", "effect": effect.value}
        values["nodePool"] = {"name": "pool", "taints": [taint]}
        values["dedicatedTaint"] = taint
    return values


@pytest.mark.parametrize(
    ("model", "headroom", "burst", "effect"),
    ORDERS,
    ids=[f"{m.value}-{h},{b}{f'-{e.value}' if e else ''}" for m, h, b, e in ORDERS],
)
def test_notes_warn_of_the_promises_the_library_finds_broken_for_the_classes_values(
    chart: helm.Chart,
    chart_defaults: dict[str, Any],
    model: PriorityModel,
    headroom: int,
    burst: int,
    effect: TaintEffect | None,
) -> None:
    values = _values(model, headroom, burst, effect)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            synthesize(values, Release(CHART_NAME, CHART_NAME), chart_defaults=chart_defaults)
        except HeadroomConfigError as refused:  # the model takes no such values: nor the chart
            with pytest.raises(helm.HelmError, match=str(refused).split(";")[0][:40]):
                render(chart, values)
            return
    notes = render(chart, values)["node-headroom/templates/NOTES.txt"]
    assert notes_warnings(notes) == library_warnings(caught)


def test_a_seed_headroom_below_ordinary_pods_warns_that_p1_breaks(chart: helm.Chart) -> None:
    # GIVEN model seed with its headroom class below the ordinary pods (0): an ordinary
    # pod preempts the reserver (P1). The chart warned of P2 and P3, the default
    # values' outcome, whatever the values
    values = {"model": "seed", "priorityClasses": {"headroom": {"value": -10}}}
    [warning] = notes_warnings(render(chart, values)["node-headroom/templates/NOTES.txt"])
    assert warning.startswith("model seed breaks P1 ")
    assert "preempts the headroom pod (priority -10)" in warning


def test_every_order_that_breaks_a_promise_is_in_the_table() -> None:
    # the table keeps the orders with a warning only; the seed model's defaults among them
    table = outcomes(PriorityModel.SEED)
    assert set(table) == {"-1,-1", "-1,0", "-1,1", "0,1", "1,1"}
    assert "{headroom}" in table["1,1"] and "breaks P2 and P3" in table["1,1"]
    # a headroom class tied with ordinary pods keeps its pod by start time, one above
    # them by priority (kubernetes pkg/scheduler/util/utils.go MoreImportantPod)
    assert "ranks as high as" in table["0,1"] and "then by start time" in table["0,1"]
    assert "ranks above" in table["1,1"] and "start time" not in table["1,1"]
    assert outcomes(PriorityModel.GUARDED) == {}


def test_a_dedicated_pool_whose_taint_only_prefers_warns_that_p1_breaks(
    chart: helm.Chart,
) -> None:
    # GIVEN the dedicated-pool model with a PreferNoSchedule taint: ordinary pods may
    # land on the pool, and one preempts a reserver (P1). The chart said nothing
    taint = {"key": "headroom.cdk8s.io/burst", "value": "true", "effect": "PreferNoSchedule"}
    values = {
        "model": "dedicated-pool",
        "nodePool": {"name": "pool", "taints": [taint]},
        "dedicatedTaint": taint,
    }
    [warning] = notes_warnings(render(chart, values)["node-headroom/templates/NOTES.txt"])
    assert warning.startswith("model dedicated-pool breaks P1 ")
