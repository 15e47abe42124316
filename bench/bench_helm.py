"""How long the chart takes to load and render through the Helm library, next to a
static chart with the same values and schema.

    .venv/bin/python bench/bench_helm.py

The floor (issue 24) is a chart whose one template is this chart's rendering, as plain
YAML, with this chart's values.yaml and values.schema.json: Helm validates the values
against the schema on every render, so a chart without the schema is no floor a user
could choose. The goal is at most 3x, for the default values and for the blueprint's
(``ci/blueprint-values.yaml``, with a burst workload), each against its own static
rendering. More rows say where the time goes: the bare static chart, and the static
chart that also holds this chart's helpers and library data, parsed but never called.
Two schedules (``reservation.schedule``) show what judging time windows costs a render,
each against its own static rendering: business hours, and the densest a cron can be
(every minute, open one minute: the overlap check's most openings). Minimums and
medians of interleaved runs.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "constructs")]

import helm_python as helm  # noqa: E402
import yaml  # noqa: E402

from scripts.helm_render import CHART, load, render  # noqa: E402


def _static_chart(
    folder: Path, values: dict[str, Any], *, schema: bool = False, helpers: bool = False
) -> Path:
    """A chart whose one template is the chart's rendering of ``values``, as plain YAML;
    with ``schema``, this chart's values and schema; with ``helpers``, its helper
    templates and library data too, which nothing calls."""
    rendered = render(load(), values)
    (folder / "templates").mkdir(parents=True)
    (folder / "Chart.yaml").write_text((CHART / "Chart.yaml").read_text())
    (folder / "values.yaml").write_text((CHART / "values.yaml").read_text() if schema else "{}\n")
    if schema:
        shutil.copy(CHART / "values.schema.json", folder / "values.schema.json")
    if helpers:
        for helper in (CHART / "templates").glob("_*.tpl"):
            shutil.copy(helper, folder / "templates" / helper.name)
        shutil.copytree(CHART / "files", folder / "files")
    text = rendered["node-headroom/templates/headroom.yaml"]
    (folder / "templates" / "objects.yaml").write_text(text)
    return folder


def _time(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


BUSINESS_HOURS = {"schedule": "0 8 * * mon-fri", "minutes": 600, "name": "business"}
EVERY_MINUTE = {"schedule": "* * * * *", "minutes": 1}


def _scheduled(window: dict[str, Any]) -> dict[str, Any]:
    return {"reservation": {"schedule": {"windows": [window]}, "scheduledNodes": 3}}


def run(repeat: int = 60) -> str:
    """The benchmark as a markdown section."""
    # The chart-testing values file (ci/*-values.yaml): the blueprint's. Found, not
    # imported from cdk8s_headroom.helm, which loads cdk8s and so starts Node.
    (blueprint_file,) = sorted((CHART / "ci").glob("*-values.yaml"))
    blueprint = yaml.safe_load(blueprint_file.read_text())
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)

        def load_render(path: Path, values: dict[str, Any]) -> Callable[[], object]:
            def action() -> object:
                with helm.Chart.load(path) as chart:
                    return render(chart, values)

            return action

        # Each static chart is rendered with the values it stands for, so Helm validates
        # the same values against the same schema on both sides.
        cases = {
            "this chart, default values": load_render(CHART, {}),
            "static, same values and schema": load_render(
                _static_chart(folder / "schema", {}, schema=True), {}
            ),
            "this chart, blueprint values": load_render(CHART, blueprint),
            "static, same values and schema (blueprint)": load_render(
                _static_chart(folder / "blueprint", blueprint, schema=True), blueprint
            ),
            "static, no values, no schema": load_render(_static_chart(folder / "bare", {}), {}),
            "static with schema and this chart's helpers, parsed, not called": load_render(
                _static_chart(folder / "helpers", {}, schema=True, helpers=True), {}
            ),
        }
        for key, window in (("business hours", BUSINESS_HOURS), ("every minute", EVERY_MINUTE)):
            values = _scheduled(window)
            cases[f"this chart, a schedule of {key}"] = load_render(CHART, values)
            cases[f"static, same values and schema ({key})"] = load_render(
                _static_chart(folder / key.replace(" ", "-"), values, schema=True), values
            )
        for action in cases.values():
            action()  # the first call loads the Go runtime's caches
        timings: dict[str, list[float]] = {}
        # Interleaved, so that drift in the machine's load hits every case alike.
        for _ in range(max(1, repeat)):
            for name, action in cases.items():
                timings.setdefault(name, []).append(_time(action))
    best = {name: min(times) for name, times in timings.items()}
    median = {name: statistics.median(times) for name, times in timings.items()}
    names = list(cases)
    defaults = best[names[0]] / best[names[1]]
    with_burst = best[names[2]] / best[names[3]]
    lines = [
        "## Helm chart render time",
        "",
        f"helm-python-sdk {helm.__version__} (Helm {helm.helm_sdk_version()}); load and "
        f"render, {repeat} runs each, interleaved.",
        "",
        "| what | min | median |",
        "| --- | ---: | ---: |",
        *(f"| {n} | {best[n] * 1000:.2f} ms | {median[n] * 1000:.2f} ms |" for n in names),
        "",
        "Over the static chart with the same values and schema (minimums; goal ≤ 3x): "
        f"**{defaults:.1f}x** with the default values ({'met' if defaults <= 3 else 'not met'}), "
        f"**{with_burst:.1f}x** with the blueprint's ({'met' if with_burst <= 3 else 'not met'}).",
        "",
        "Where the time goes: parsing this chart's helpers and library data alone costs "
        f"{(best[names[5]] - best[names[1]]) * 1000:.1f} ms over the floor; the rest is "
        "checking the values and building the objects.",
        "",
        "Time windows, over the static chart with the same values and schema: "
        f"**{best[names[6]] / best[names[7]]:.1f}x** for business hours, "
        f"**{best[names[8]] / best[names[9]]:.1f}x** for a window every minute (the "
        "overlap check lays out each set of windows that fire on a day once, and compares "
        "each of the 397 days once).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(run())
