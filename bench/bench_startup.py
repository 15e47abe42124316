"""`cdk8s-headroom simulate --scenario` on a one-node scenario, over `python -c "import yaml"`.

The simulator reads YAML and computes: it should start about as fast as the YAML
library it reads with, and never pay for jsii or Node (issue 10: at most 3x).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Bytecode caching on, as on a user's machine (see ENV in run.py); no Node on PATH is
# needed, and none is added.
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}

RUNS = 15
SCENARIO = (
    "nodes: [{name: n, allocatable: {cpu: '1', memory: 1Gi}}]\n"
    "pods: [{name: low, node: n, priority: 0, requests: {cpu: '1'}}]\n"
    "preemptor: {name: p, priority: 10, requests: {cpu: 500m}}\n"
)


def _once(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=ENV, check=True, capture_output=True)
    return time.perf_counter() - start


def run() -> str:
    script = Path(sys.executable).parent / "cdk8s-headroom"
    entry = [str(script)] if script.exists() else [sys.executable, "-m", "cdk8s_headroom"]
    with tempfile.TemporaryDirectory() as folder:
        scenario = Path(folder) / "one-node.yaml"
        scenario.write_text(SCENARIO)
        commands = {
            "yaml": [sys.executable, "-c", "import yaml"],
            "scenario": [*entry, "simulate", "--scenario", str(scenario)],
            "help": [*entry, "simulate", "--help"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for command in commands.values():
            _once(command)  # warm-up: bytecode and page caches
        # Interleaved, so that drift in the machine's load hits every command alike.
        for _ in range(RUNS):
            for name, command in commands.items():
                times[name].append(_once(command))
    median = {name: statistics.median(values) for name, values in times.items()}
    floor = median["yaml"]
    return (
        "## Simulator start-up: `cdk8s-headroom simulate` over `import yaml`\n\n"
        f"Each command {RUNS} times, interleaved, after a warm-up run; the scenario has one "
        "node and one pod.\n\n"
        f"| what | median of {RUNS} | ratio |\n| --- | --- | --- |\n"
        f'| `python -c "import yaml"` | {floor * 1000:.0f} ms | 1.00x |\n'
        f"| `cdk8s-headroom simulate --scenario` | {median['scenario'] * 1000:.0f} ms "
        f"| **{median['scenario'] / floor:.2f}x** (goal ≤ 3x) |\n"
        f"| `cdk8s-headroom simulate --help` | {median['help'] * 1000:.0f} ms "
        f"| {median['help'] / floor:.2f}x |\n"
    )
