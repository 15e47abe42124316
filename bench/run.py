"""`make bench`: one run of every benchmark, reported as ratios; writes bench/results.md,
then the figures README.md and docs/ quote from it (bench/figures.py).

Timings on a shared 2-core machine are noisy, so each figure is the median of several
runs, and the goals are judged on ratios measured in the same run. Nothing here is a
test: no goal fails the build.
"""

from __future__ import annotations

import datetime
import importlib.util
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import figures  # noqa: E402

BENCH = ROOT / "bench"
RESULTS = BENCH / "results.md"
# Bytecode caching on, as on a user's machine: with PYTHONDONTWRITEBYTECODE set (this
# workplace sets it), the library is compiled from source on every run, while cdk8s and
# jsii, compiled when pip installed them, are not; that would measure the compiler.
ENV = {
    **{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
    "PATH": f"{ROOT / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}",
    "CDK8S_CHECK_UPGRADE": "false",
}


def wall(
    command: list[str], *, repeat: int, warm_up: bool = True, env: dict[str, str] | None = None
) -> float:
    """Median wall time of ``command`` in seconds, after an untimed warm-up run.

    The warm-up writes the bytecode cache and fills the page cache; ``repeat=0`` runs
    only the warm-up (and returns 0).
    """
    if warm_up:
        subprocess.run(command, cwd=ROOT, env=env or ENV, check=True, capture_output=True)
    if repeat == 0:
        return 0.0
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, env=env or ENV, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main_over_floor() -> str:
    judging_all = "`python main.py -q`, no verdict kept: every object judged, as on a first run"
    commands = {
        "floor: an empty cdk8s app (bench/floor_app.py)": [
            sys.executable,
            str(BENCH / "floor_app.py"),
        ],
        "plain floor: dist/'s objects in plain cdk8s, `app.synth()` without checks "
        "(bench/floor_plain_app.py)": [sys.executable, str(BENCH / "floor_plain_app.py")],
        "fair floor: dist/'s objects in plain cdk8s, checked and published "
        "(bench/floor_checked_app.py)": [sys.executable, str(BENCH / "floor_checked_app.py")],
        "`python main.py -q`": [sys.executable, "main.py", "-q"],
        judging_all: [sys.executable, "main.py", "-q"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **ENV,
            "CDK8S_OUTDIR": str(Path(scratch) / "out"),
            # The strict schemas' verdicts, kept in a store of this run's own: the
            # warm-up runs fill it, as a user's previous synthesis would.
            "HEADROOM_SCHEMA_CACHE": str(Path(scratch) / "verdicts"),
        }
        envs = {name: env for name in commands}
        # A store folder that cannot be made, under a file: no verdict is read or kept.
        (Path(scratch) / "a-file").touch()
        envs[judging_all] = {**env, "HEADROOM_SCHEMA_CACHE": str(Path(scratch) / "a-file" / "v")}
        for name, command in commands.items():
            wall(command, repeat=0, env=envs[name])
        # Interleaved, so that drift in the machine's load hits every side alike.
        for _ in range(15):
            for name, command in commands.items():
                times[name].append(wall(command, repeat=1, warm_up=False, env=envs[name]))
    floor, plain, fair, app, judged = (statistics.median(times[name]) for name in commands)
    rows = "".join(
        f"| {name} | {statistics.median(t) * 1000:.0f} ms |\n" for name, t in times.items()
    )
    return (
        "## 1. `python main.py` over the floor\n\n"
        "All five run 15 times, interleaved, after a warm-up run each. main.py "
        "publishes with the checks of `make synth` (the folder, strict schemas, Pod "
        "Security). The plain floor writes the same objects with plain cdk8s and no "
        "checks: what is left is the library and the publication's checks. The fair "
        "floor publishes them through the same checks: what is left is the library. "
        "The strict schemas' verdicts are kept between runs (in a store the warm-up "
        "fills); the last run keeps none and judges every object, as a first run does, "
        "or one after the objects changed.\n\n"
        "| what | median of 15 |\n| --- | --- |\n"
        f"{rows}"
        f"| over the empty app | **{app / floor:.2f}x** (issue 24's goal: ≤ 1.15x) |\n"
        f"| over the plain app (same objects, no checks) | **{app / plain:.2f}x** "
        "(issue 36's goal: ≤ 1.25x) |\n"
        f"| over the plain app, every object judged | {judged / plain:.2f}x |\n"
        f"| over the fair floor | **{app / fair:.2f}x** (proposed goal: ≤ 1.15x) |\n"
    )


def scale() -> str:
    sizes = (10, 100, 500)
    seconds: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as out:
        for size in sizes:
            runs = []
            for attempt in range(3):
                result = subprocess.run(
                    [
                        sys.executable,
                        str(BENCH / "scale_app.py"),
                        str(size),
                        f"{out}/{size}-{attempt}",
                    ],
                    cwd=ROOT,
                    env=ENV,
                    check=True,
                    capture_output=True,
                    text=True,
                )
                runs.append(float(result.stdout.strip()))
            seconds[size] = statistics.median(runs)
    marginal = (seconds[500] - seconds[10]) / 490 * 1000
    ratio = seconds[500] / seconds[100]
    rows = "".join(
        f"| {size} | {seconds[size] * 1000:.0f} ms | {seconds[size] / size * 1000:.2f} ms |\n"
        for size in sizes
    )
    return (
        "## 2. Scale: NodeHeadrooms per app (each with one burst workload)\n\n"
        "Construction and `synth(app)` (validation and writing), median of 3, "
        "interpreter start-up excluded.\n\n"
        "| headrooms | time | per headroom |\n| --- | --- | --- |\n" + rows + "\n"
        "- marginal time per headroom, (t(500) - t(10)) / 490: "
        f"**{marginal:.2f} ms** (goal ≤ 5 ms)\n"
        f"- t(500) / t(100): **{ratio:.2f}** (goal ≤ 5.5: linear)\n"
    )


def test_suite() -> str:
    # The live tier has its own section (bench_live.py runs it once, alone): timing it
    # here as well ran it twice per `make bench`, and mixed a cluster's start-ups into
    # the figure the goal is about.
    seconds = wall(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "auto",
            "-q",
            "-p",
            "no:cacheprovider",
            "-x",
            "-m",
            "not live",
        ],
        repeat=1,
    )
    return (
        "## 3. The test suite once installed\n\n"
        "`pytest -n auto -m 'not live'` (the suite `make test` runs, on every core, but "
        f"the live tier): **{seconds:.1f} s** (goal ≤ 150 s on 2 cores, the fair "
        "goal proposed for issue 36; the live tier's wall time is in its own section)\n"
    )


def plugin_sections() -> list[tuple[str, Callable[[], str]]]:
    """Other benchmarks: every bench/bench_*.py that defines ``run() -> str``."""
    found = []
    for path in sorted(BENCH.glob("bench_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found.append((path.name, module.run))
    return found


def machine() -> str:
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        kib = int(meminfo.read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB"
    node = subprocess.run(
        ["node", "--version"], env=ENV, capture_output=True, text=True
    ).stdout.strip()
    return (
        f"- machine: {os.cpu_count()} cores ({model}){memory}, "
        f"{platform.system()} {platform.machine()}\n"
        f"- Python {platform.python_version()}, Node {node}\n"
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC\n"
    )


KEPT_HEADINGS = ("## Differential fidelity",)
"""Sections other targets write (``make fidelity``: most of an hour on two live control
planes), kept as they are when ``make bench`` rewrites the file."""


def _kept_sections() -> list[str]:
    if not RESULTS.exists():
        return []
    sections = re.split(r"\n(?=## )", RESULTS.read_text())
    return [s.strip() + "\n" for s in sections if s.startswith(KEPT_HEADINGS)]


def main() -> int:
    sections = [("main over floor", main_over_floor), ("scale", scale)]
    sections += plugin_sections()
    sections.append(("test suite", test_suite))
    parts = [
        "# Benchmarks\n\nOne run of `make bench`. Ratios are from the same run.\n\n" + machine()
    ]
    for name, section in sections:
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        parts.append(section().strip() + "\n")
    parts += _kept_sections()
    RESULTS.write_text("\n".join(parts))
    print(RESULTS.read_text())
    # The docs quote the figures they show from the file just written, never by hand.
    for path in figures.rewrite_docs(RESULTS.read_text()):
        print(f"bench: {path.relative_to(ROOT)}: figures rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
