"""How long the chart takes to render through the Helm library, next to `make synth`.

    .venv/bin/python bench/bench_helm.py

Renders the chart's default values (the configuration of main.py, i.e. dist/) in-process
with helm-python-sdk, and times what `make synth` runs for the same configuration:
`cdk8s synth` into a scratch folder (a Node process, jsii, then main.py). The library's
in-process synthesis of the same values is shown too. Medians of several runs.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "constructs")]
# The project's Node first, as make does: jsii then runs without its end-of-life banner.
os.environ["PATH"] = f"{ROOT / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}"

import helm_python as helm  # noqa: E402
import yaml  # noqa: E402

from cdk8s_headroom.helm import synthesize  # noqa: E402
from scripts.helm_render import CHART, load, objects, render  # noqa: E402


def _median_seconds(action: Callable[[], object], repeat: int) -> float:
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def _run(*command: str) -> None:
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)


def _cdk8s_synth() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        _run("cdk8s", "synth", "--output", scratch)


def _make_synth() -> None:
    """The steps of `make synth`, into a scratch folder instead of dist/ and charts/."""
    with tempfile.TemporaryDirectory() as scratch:
        stage, dist, chart = (str(Path(scratch) / name) for name in ("stage", "dist", "chart"))
        _run("cdk8s", "synth", "--output", stage)
        _run(sys.executable, "-m", "scripts.promote", stage, dist)
        _run(sys.executable, "scripts/chart.py", "--out", chart)


def run(render_repeat: int = 50, synth_repeat: int = 3) -> str:
    """The benchmark as a markdown section."""
    chart = load()
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())
    render(chart, {})  # the first call loads the Go runtime's caches

    def load_and_render() -> None:
        with helm.Chart.load(CHART) as fresh:
            objects(render(fresh, {}))

    def library() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            synthesize({}, chart_defaults=defaults)

    raw = _median_seconds(lambda: render(chart, {}), render_repeat)
    rendered = _median_seconds(lambda: objects(render(chart, {})), render_repeat)
    loaded = _median_seconds(load_and_render, render_repeat)
    in_process = _median_seconds(library, max(3, render_repeat // 10))
    synth = _median_seconds(_cdk8s_synth, synth_repeat)
    make_synth = _median_seconds(_make_synth, synth_repeat)
    rows = [
        ("Helm render of the loaded chart, default values", raw, render_repeat),
        ("the same, YAML parsed into objects", rendered, render_repeat),
        ("Helm chart load + render (parsed)", loaded, render_repeat),
        (
            "library synthesis in-process (`cdk8s_headroom.helm.synthesize`)",
            in_process,
            max(3, render_repeat // 10),
        ),
        ("`cdk8s synth` alone", synth, synth_repeat),
        (
            "`make synth`'s steps (synth, check and swap, chart generation)",
            make_synth,
            synth_repeat,
        ),
    ]
    lines = [
        "## Helm chart render time",
        "",
        f"helm-python-sdk {helm.__version__} (Helm {helm.helm_sdk_version()}), "
        f"{os.cpu_count()} cores; medians.",
        "",
        "| what | median | runs |",
        "| --- | ---: | ---: |",
        *(f"| {what} | {seconds * 1000:.1f} ms | {runs} |" for what, seconds, runs in rows),
        "",
        f"Ratio of Helm load + render to `make synth`: {loaded / make_synth:.4f} "
        f"(rendering is {make_synth / loaded:.0f}x faster); to `cdk8s synth` alone: "
        f"{loaded / synth:.4f}. Most of `make synth` is starting Node and jsii.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(run())
