"""Generated time windows: the chart and the library agree on every schedule.

The chart judges a schedule in its generated windows unit (``helm/windows.py``): the
cron grammar of robfig/cron's ``ParseStandard`` as ``vocabulary/cron.py`` follows it,
and ``vocabulary/schedule.py`` ``_check_no_overlap``, which the unit sweeps once per set
of windows that fire on a day. For schedules drawn from the whole grammar (numbers,
names, ranges, steps, lists, macros; dense and sparse, overlapping and not), either both
render the same CronJobs or both refuse with the same message.
"""

from __future__ import annotations

import warnings
from typing import Any

import helm_python as helm
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cdk8s_headroom import HeadroomConfigError
from cdk8s_headroom.helm import Release, synthesize
from cdk8s_headroom.vocabulary.cron import CRON_MACROS
from scripts.helm_render import CHART, load, objects, render, without_helm_labels

CHART_DEFAULTS: dict[str, Any] = yaml.safe_load((CHART / "values.yaml").read_text())
HELM_CHART = load()
FIELDS = ((0, 59, ()), (0, 23, ()), (1, 31, ()), (1, 12, ("jan", "jun", "dec")),
          (0, 6, ("sun", "mon", "fri", "sat")))  # fmt: skip
"""Each cron field's bounds (cron._CRON_FIELDS), and some of its names."""


@st.composite
def parts(draw: st.DrawFn, low: int, high: int, words: tuple[str, ...]) -> str:
    """One part of a field: any, a value or name, a range, a step; now and then out of
    its bounds or reversed, which both must refuse alike."""
    value = st.integers(low, high).map(str) | (st.sampled_from(words) if words else st.nothing())
    kind = draw(st.integers(0, 39))
    if kind == 0:
        return draw(st.sampled_from(["*", "?"]))
    if kind == 1:
        return f"*/{draw(st.integers(1, high))}"
    if kind == 2:
        start, end = sorted(draw(st.tuples(st.integers(low, high), st.integers(low, high))))
        return f"{start}-{end}" + draw(st.sampled_from(["", f"/{draw(st.integers(1, 9))}"]))
    if kind == 3:
        return draw(st.sampled_from([str(high + 1), f"{high}-{low}", f"{low}/0"]))
    if kind < 20:
        return draw(value)
    return "*"


@st.composite
def crons(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(sorted(CRON_MACROS)))
    fields = []
    for index, (low, high, words) in enumerate(FIELDS):
        # Mostly one minute and a few hours: dense schedules are drawn, but not only
        dense = draw(st.integers(0, 3)) == 0
        if index < 2 and not dense:
            fields.append(str(draw(st.integers(low, high))))
            continue
        pieces = draw(st.lists(parts(low, high, words), min_size=1, max_size=2))
        fields.append(",".join(pieces))
    return " ".join(fields)


@st.composite
def schedules(draw: st.DrawFn) -> dict[str, Any]:
    windows = [
        {
            "schedule": draw(crons()),
            "minutes": draw(st.sampled_from([1, 5, 30, 60, 90, 600, 1440, 4320, 44640])),
        }
        for _ in range(draw(st.integers(1, 3)))
    ]
    zone = draw(st.sampled_from(["Etc/UTC", "Europe/Berlin", "America/Sao_Paulo"]))
    return {"reservation": {"schedule": {"timeZone": zone, "windows": windows},
                            "scheduledNodes": 2}}  # fmt: skip


def _library(values: dict[str, Any]) -> list[dict[str, Any]] | str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return synthesize(values, Release(), chart_defaults=CHART_DEFAULTS)
    except HeadroomConfigError as error:
        return str(error)


def _helm(values: dict[str, Any]) -> list[dict[str, Any]] | str:
    try:
        return [without_helm_labels(o) for o in objects(render(HELM_CHART, values))]
    except helm.HelmError as error:
        return str(error)


@settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
@given(schedules())
def test_the_chart_and_the_library_judge_and_build_every_schedule_alike(
    values: dict[str, Any],
) -> None:
    expected, rendered = _library(values), _helm(values)
    if isinstance(expected, str):
        event(f"refused: {expected.split(': invalid value')[0]}")
        assert isinstance(rendered, str) and expected in rendered
        return
    event("rendered")
    assert not isinstance(rendered, str), rendered
    cron_jobs = [o for o in rendered if o["kind"] == "CronJob"]
    assert cron_jobs == [o for o in expected if o["kind"] == "CronJob"]
    assert len(cron_jobs) == len(values["reservation"]["schedule"]["windows"])
