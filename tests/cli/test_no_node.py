"""Reading YAML and computing needs no Node: the vocabulary, the simulator and the
``cdk8s-headroom`` command load no jsii, cdk8s or constructs, and run with no ``node``
on PATH.

Each check runs in a fresh interpreter: this test process has loaded jsii already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
EXAMPLE_CLUSTER = ROOT / "docs" / "examples" / "cluster.yaml"
SNAPSHOT = ROOT / "docs" / "examples" / "snapshot.json"
SNAPSHOT_AFTER = ROOT / "docs" / "examples" / "snapshot-after.json"
CONSOLE_SCRIPT = Path(sys.executable).parent / "cdk8s-headroom"
NODE_MODULES = ("jsii", "cdk8s", "cdk8s_plus_27", "constructs")
NODE_FREE_LAYERS = ("vocabulary", "files", "simulate", "cluster", "gitops", "cli")
"""The layers that start no Node: everything but the constructs (``objects``,
``karpenter``) and the chart generator (``helm``), which reads them."""

# Prints, after running the code given on its command line, the Node-bound modules that
# the run loaded, as a JSON list on the last line of stderr.
_PROBE = f"""
import json, sys
code = 0
try:
    exec(sys.argv[1])
except SystemExit as stop:
    code = stop.code if isinstance(stop.code, int) else 1
loaded = sorted({{name.split(".")[0] for name in sys.modules}} & set({NODE_MODULES!r}))
print(json.dumps(loaded), file=sys.stderr)
sys.exit(code)
"""


@pytest.fixture
def no_node_env(tmp_path: Path) -> dict[str, str]:
    """The environment with PATH an empty folder: no ``node`` can be found, and jsii
    would fail at once if anything started it. ``JSII_NODE`` would name one directly."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "JSII_NODE"}
    env["PATH"] = str(empty)
    return env


def _probe(code: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, code],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    last = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "null"
    loaded = json.loads(last)
    assert isinstance(loaded, list), result.stderr
    return result, loaded


def test_importing_every_module_of_the_layers_that_read_and_compute_loads_no_jsii(
    no_node_env: dict[str, str],
) -> None:
    # Every module of the layers that read and compute, found by walking the folders:
    # a module added to one of them is checked without editing this test.
    code = (
        "import importlib, pkgutil, cdk8s_headroom\n"
        f"for layer in {NODE_FREE_LAYERS!r}:\n"
        "    package = importlib.import_module('cdk8s_headroom.' + layer)\n"
        "    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "import cdk8s_headroom.simulate as simulate\n"
        "from cdk8s_headroom import (DEFAULT_DEDICATED_TAINT, ModelClasses, NodeSize,\n"
        "    PreemptionPolicy, PriorityClassSpec, PriorityModel, Taint, Toleration)\n"
        "for name in simulate.__all__:\n"
        "    getattr(simulate, name)\n"
    )

    result, loaded = _probe(code, no_node_env)

    assert result.returncode == 0, result.stderr
    assert loaded == []


def test_the_package_root_loads_a_name_only_when_it_is_used(no_node_env: dict[str, str]) -> None:
    code = (
        "import cdk8s_headroom\n"
        "bare = sorted(m for m in sys.modules if m.startswith('cdk8s_headroom.'))\n"
        "cdk8s_headroom.PriorityModel\n"
        "print(json.dumps([bare, 'NodeHeadroom' in dir(cdk8s_headroom),\n"
        "    'cdk8s_headroom.objects.headroom' in sys.modules]))\n"
    )

    result, loaded = _probe(code, no_node_env)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [["cdk8s_headroom._exports"], True, False]
    assert loaded == []


@pytest.mark.parametrize(
    "arguments",
    [
        ["simulate", "--help"],
        ["simulate", "--scenario", "{scenario}"],
        ["simulate", "--scenario", "{scenario}", "--json"],
        ["simulate", "--manifests", str(DIST), "--cluster", str(EXAMPLE_CLUSTER)],
        ["simulate", "--manifests", str(DIST), "--cluster", str(EXAMPLE_CLUSTER), "--json"],
        ["plan", "--manifests", str(DIST), "--snapshot", str(SNAPSHOT), "--max-pending", "1"],
        ["status", "--snapshot", str(SNAPSHOT_AFTER), "--max-pending", "2", "--json"],
    ],
    ids=["help", "scenario", "scenario-json", "manifests", "manifests-json", "plan", "status"],
)
def test_every_command_runs_without_node_and_loads_no_jsii(
    arguments: list[str], tmp_path: Path, no_node_env: dict[str, str]
) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "nodes: [{name: n, allocatable: {cpu: '1', memory: 1Gi}}]\n"
        "pods: [{name: low, node: n, priority: 0, requests: {cpu: '1'}}]\n"
        "preemptor: {name: p, priority: 10, requests: {cpu: 500m}}\n"
    )
    argv = [argument.format(scenario=scenario) for argument in arguments]

    result, loaded = _probe(
        f"from cdk8s_headroom.cli import main\nsys.exit(main({argv!r}))", no_node_env
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    assert "Traceback" not in result.stderr
    assert loaded == []


def test_a_bad_simulate_input_exits_2_with_one_line_and_no_jsii(
    tmp_path: Path, no_node_env: dict[str, str]
) -> None:
    missing = tmp_path / "missing.yaml"

    result, loaded = _probe(
        f"from cdk8s_headroom.cli import main\nsys.exit(main(['simulate', '--scenario', "
        f"{str(missing)!r}]))",
        no_node_env,
    )

    assert result.returncode == 2
    message = result.stderr.strip().splitlines()[:-1]
    assert len(message) == 1 and message[0].startswith("cdk8s-headroom simulate: error:")
    assert loaded == []


@pytest.mark.parametrize(
    "command",
    [[sys.executable, "-m", "cdk8s_headroom"], [str(CONSOLE_SCRIPT)]],
    ids=["python-m", "console-script"],
)
def test_the_installed_command_simulates_a_scenario_with_no_node_on_path(
    command: list[str], tmp_path: Path, no_node_env: dict[str, str]
) -> None:
    if not Path(command[0]).exists():
        pytest.skip(f"{command[0]} is not installed (make install puts it in .venv/bin)")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "nodes: [{name: n, allocatable: {cpu: '1', memory: 1Gi}}]\n"
        "pods: [{name: low, node: n, priority: 0, requests: {cpu: '1'}}]\n"
        "preemptor: {name: p, priority: 10, requests: {cpu: 500m}}\n"
    )

    result = subprocess.run(
        [*command, "simulate", "--scenario", str(scenario), "--json"],
        capture_output=True,
        text=True,
        env=no_node_env,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert json.loads(result.stdout)["victims"] == ["low"]
