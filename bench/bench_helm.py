"""How long the chart takes to load and render through the Helm library, next to a
static chart of the same objects.

    .venv/bin/python bench/bench_helm.py

The static chart is the chart's own rendering of its default values, written into a
chart with no values, no schema and no template logic: what Helm costs for those
objects when nothing is computed. Both are loaded, rendered and their YAML parsed into
objects, interleaved, many times; the goal is at most 2x. Minimums and medians.

Two more static charts say where the time goes: one with this chart's values.yaml and
values.schema.json (Helm validates the values against the schema on every render), and
one that also holds this chart's helpers and library data, parsed but never called.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "constructs")]

import helm_python as helm  # noqa: E402
import yaml  # noqa: E402

from scripts.helm_render import CHART, load, objects, render  # noqa: E402


def _static_chart(folder: Path, *, schema: bool = False, helpers: bool = False) -> Path:
    """A chart whose one template is the chart's default rendering, as plain YAML; with
    ``schema``, this chart's values and schema; with ``helpers``, its helper templates
    and library data too, which nothing calls."""
    rendered = render(load(), {})
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


def run(repeat: int = 60) -> str:
    """The benchmark as a markdown section."""
    with tempfile.TemporaryDirectory() as scratch:
        static = _static_chart(Path(scratch) / "static")
        schema = _static_chart(Path(scratch) / "schema", schema=True)
        helpers = _static_chart(Path(scratch) / "helpers", schema=True, helpers=True)

        def load_render(path: Path, parse: bool) -> Callable[[], object]:
            def action() -> object:
                with helm.Chart.load(path) as chart:
                    rendered = render(chart, {})
                    return objects(rendered) if parse else rendered

            return action

        timings: dict[str, list[float]] = {}
        cases = {
            "this chart: load + render + parse": load_render(CHART, True),
            "a static chart of the same objects: load + render + parse": load_render(static, True),
            "this chart: load + render": load_render(CHART, False),
            "a static chart of the same objects: load + render": load_render(static, False),
            "the static chart with this chart's values and schema": load_render(schema, False),
            "... and its helpers, parsed, not called": load_render(helpers, False),
        }
        for action in cases.values():
            action()  # the first call loads the Go runtime's caches
        # Interleaved, so that drift in the machine's load hits every case alike.
        for _ in range(max(1, repeat)):
            for name, action in cases.items():
                timings.setdefault(name, []).append(_time(action))
    best = {name: min(times) for name, times in timings.items()}
    median = {name: statistics.median(times) for name, times in timings.items()}
    names = list(cases)
    parsed = best[names[0]] / best[names[1]]
    raw = best[names[2]] / best[names[3]]
    lines = [
        "## Helm chart render time",
        "",
        f"helm-python-sdk {helm.__version__} (Helm {helm.helm_sdk_version()}), "
        f"PyYAML {'with' if yaml.__with_libyaml__ else 'without'} libyaml (unused: the "
        f"pure-Python loader, as `scripts/helm_render.objects`); {repeat} runs each, "
        "interleaved.",
        "",
        "| what | min | median |",
        "| --- | ---: | ---: |",
        *(f"| {n} | {best[n] * 1000:.2f} ms | {median[n] * 1000:.2f} ms |" for n in names),
        "",
        f"Ratio of this chart's load + render to the static chart's: **{raw:.1f}x** (goal "
        f"≤ 2x: {'met' if raw <= 2 else 'not met'}; minimums): the static chart's render "
        "does next to nothing, and this chart checks every value and builds the objects. "
        f"With the objects parsed by a pure-Python YAML loader on both sides: {parsed:.2f}x.",
        "",
        "Where the time goes: the static chart with this chart's values and schema (Helm "
        f"validates the values on every render) takes **{best[names[4]] / best[names[3]]:.1f}x** "
        "the bare static chart, and with its helpers and library data parsed but never "
        f"called **{best[names[5]] / best[names[3]]:.1f}x**: a chart that keeps the schema "
        "cannot be within 2x of a chart without one.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(run())
