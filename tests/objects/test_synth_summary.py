"""The table that ends `make synth`: slice, model, bursts and the promises kept."""

import subprocess
import sys
import warnings
from pathlib import Path

import cdk8s
import pytest

import main
from cdk8s_headroom import KarpenterNodePool, NodeHeadroom, NodePoolRef, PriorityModel
from cdk8s_headroom.objects.synth_summary import render, summarize
from tests.conftest import ROOT
from tests.test_app import run_env


def test_guarded_summary_states_the_slice_the_fit_and_the_promises() -> None:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "c")
    headroom = NodeHeadroom(
        chart, "h", cpu="1", memory="2Gi", node_pool=NodePoolRef.karpenter("web")
    )
    headroom.add_burst_workload("api", image="nginx:1", cpu="500m", memory="1Gi", replicas=4)
    (summary,) = summarize(app)
    assert (summary.pool, summary.slice_cpu, summary.slice_memory) == ("web", "1", "2Gi")
    assert [(b.name, b.replicas, b.fits) for b in summary.bursts] == [("api", 4, True)]
    assert summary.promises["P2"] == summary.promises["P3"] == "kept"
    assert summary.promises["P1"].startswith("against preemption only")
    table = render([summary], ["0000-c.k8s.yaml"])
    assert "api x4" in table and "files: 0000-c.k8s.yaml" in table
    assert "cost: headroom-reserver-web (GUARDED) on pool web: 1 CPU, 2Gi memory per node" in table


def test_seed_summary_flags_broken_promises_and_a_burst_that_does_not_fit() -> None:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "c")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        headroom = NodeHeadroom(chart, "h", cpu="500m", memory="512Mi", model=PriorityModel.SEED)
        headroom.add_burst_workload("big", image="nginx:1", cpu="2", memory="512Mi")
    (summary,) = summarize(app)
    assert summary.promises["P2"].startswith("BROKEN")
    assert summary.promises["P3"].startswith("BROKEN")
    assert summary.bursts[0].fits is False
    assert "NO" in render([summary], [])


def test_the_summary_says_when_a_change_of_the_slice_rolls_the_pool() -> None:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "c")
    pool = KarpenterNodePool(chart, "burst")
    NodeHeadroom(chart, "drifts", cpu="1", memory="1Gi", node_pool=pool, drift_on_change=True)
    NodeHeadroom(chart, "stays", cpu="1", memory="1Gi", node_pool=pool, reserver_name="other")
    drifts, stays = summarize(app)
    assert drifts.promises["drift"].startswith(
        "a change of the slice rolls pool burst's nodes under its budgets (Drifted)"
    )
    assert "drift" not in stays.promises
    assert "  drift: a change of the slice rolls pool burst's nodes" in render([drifts], [])


def test_main_prints_the_summary_unless_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Loud: main.py's main in this process prints the table (on stderr: cdk8s synth
    # captures the app's stdout).
    monkeypatch.delenv("HEADROOM_QUIET", raising=False)
    monkeypatch.delenv("CDK8S_OUTDIR", raising=False)
    assert main.main(["--out", str(tmp_path / "a")]) == 0
    loud = capsys.readouterr()
    # Quiet: a process of its own, so that nothing at all is printed (not by jsii or
    # Node either).
    quiet = subprocess.run(
        [sys.executable, "main.py", "-q"],
        cwd=ROOT,
        env=run_env(CDK8S_OUTDIR=f"{tmp_path}/b"),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "demo-burst x1" in loud.err
    assert "P4: grace 0s, burst images pre-pulled" in loud.err
    assert loud.out == ""
    assert quiet.stderr == quiet.stdout == ""
