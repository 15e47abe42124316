"""The ``cdk8s-headroom simulate`` command, and the synth-time promise check."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import cdk8s
import pytest

from cdk8s_headroom import (
    DEFAULT_DEDICATED_TAINT,
    HeadroomConfigError,
    HeadroomWarning,
    ModelClasses,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
)
from cdk8s_headroom.cli import main
from cdk8s_headroom.simulate import check_promises, load_cluster, read_manifests, run_whatif

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
EXAMPLE_CLUSTER = ROOT / "docs" / "examples" / "cluster.yaml"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

SHARED_NODES = {
    "nodes": [{"name": "node", "count": 2, "allocatable": {"cpu": "4", "memory": "16Gi"}}],
    "pods": [
        {"name": f"web-{n}", "count": 7, "nodeName": f"node-{n}", "requests": {"cpu": "500m"}}
        for n in (1, 2)
    ],
}


def _synthesize(tmp_path: Path, model: PriorityModel) -> Path:
    """The model's headroom and a 500m burst workload, synthesized into a folder."""
    outdir = tmp_path / "dist"
    app = cdk8s.App(outdir=str(outdir))
    chart = cdk8s.Chart(app, "headroom")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)
        headroom = NodeHeadroom(chart, "headroom", cpu="500m", memory="512Mi", model=model)
    headroom.add_burst_workload("burst", image="busybox", cpu="500m", memory="512Mi", replicas=2)
    app.synth()
    return outdir


def test_the_committed_app_keeps_p1_p2_and_p3_on_the_example_cluster(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        [
            "simulate",
            "--manifests",
            str(DIST),
            "--cluster",
            str(EXAMPLE_CLUSTER),
            "--burst",
            "demo-burst=3",
        ]
    )

    out = capsys.readouterr().out
    assert code == 0
    assert "Headroom established: 3/3 reserver pods running, 0 pending" in out
    assert "evicts headroom-reserver-node-3 (headroom)" in out
    for promise in ("P1 holds", "P2 holds", "P3 holds"):
        assert promise in out


def test_json_output_carries_the_same_story_as_data(capsys: pytest.CaptureFixture[str]) -> None:
    main(["simulate", "--manifests", str(DIST), "--cluster", str(EXAMPLE_CLUSTER), "--json"])

    report = json.loads(capsys.readouterr().out)
    assert report["establishment"]["running"] == 3
    assert [a["pod"] for a in report["arrivals"]] == ["demo-burst-1"]
    assert report["arrivals"][0]["evicted"] == [
        {"pod": "headroom-reserver-node-3", "role": "headroom", "priority": -100}
    ]
    assert report["recreations"][0]["node"] is None
    assert {p: v["holds"] for p, v in report["verdict"].items()} == {
        "P1": True,
        "P2": True,
        "P3": True,
    }
    assert report["usage"]["before"]["node-1"]["headroom"] == {"cpu": "500m", "memory": "512Mi"}


def test_the_seed_model_breaks_p2_on_a_shared_cluster(tmp_path: Path) -> None:
    manifests = read_manifests(_synthesize(tmp_path, PriorityModel.SEED))

    report = run_whatif(manifests, load_cluster(SHARED_NODES))

    verdicts = {v.promise: v for v in report.verdicts}
    assert verdicts["P1"].holds is True
    assert verdicts["P2"].holds is False
    assert "evicted ordinary pods web-" in verdicts["P2"].reason
    assert verdicts["P3"].holds is None


def test_plot_writes_a_png(tmp_path: Path) -> None:
    picture = tmp_path / "capacity.png"

    code = main(
        [
            "simulate",
            "--manifests",
            str(DIST),
            "--cluster",
            str(EXAMPLE_CLUSTER),
            "--plot",
            str(picture),
        ]
    )

    assert code == 0
    data = picture.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > len(PNG_SIGNATURE)


def test_bad_input_prints_the_message_without_a_traceback_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("nodes:\n  - name: n\n    allocatable: {cpu: many, memory: 1Gi}\n")

    code = main(["simulate", "--manifests", str(DIST), "--cluster", str(cluster)])

    err = capsys.readouterr().err
    assert code == 2
    assert f"{cluster}: nodes[0].allocatable.cpu: invalid value 'many'" in err
    assert "Traceback" not in err


def test_simulate_needs_a_scenario_or_manifests_and_a_cluster(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", "--manifests", str(DIST)]) == 2
    assert "--scenario FILE, or --manifests DIR with --cluster FILE" in capsys.readouterr().err


def test_python_dash_m_runs_the_command(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "nodes: [{name: n, allocatable: {cpu: '1', memory: 1Gi}}]\n"
        "pods: [{name: low, node: n, priority: 0, requests: {cpu: '1'}}]\n"
        "preemptor: {name: p, priority: 10, requests: {cpu: 500m}}\n"
    )

    result = subprocess.run(
        [sys.executable, "-m", "cdk8s_headroom", "simulate", "--scenario", str(scenario), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["victims"] == ["low"]


# The synth-time check


@pytest.mark.parametrize("model", [PriorityModel.GUARDED, PriorityModel.DEDICATED_POOL])
def test_guarded_models_keep_their_promises(model: PriorityModel) -> None:
    assert check_promises(model, cpu="500m", memory="512Mi") == []


def test_seed_breaks_p2_and_p3_with_reasons() -> None:
    broken = check_promises(PriorityModel.SEED, cpu="1", memory="1Gi")

    assert [b.promise for b in broken] == ["P2", "P3"]
    assert "evicts 1 ordinary pod(s) and keeps the headroom pod" in broken[0].reason
    assert "recreated headroom pod (priority 900000000, PreemptLowerPriority)" in broken[1].reason


def test_a_headroom_class_above_ordinary_pods_breaks_p2_even_on_a_dedicated_pool() -> None:
    classes = ModelClasses.of(PriorityModel.DEDICATED_POOL, headroom_value=10)

    broken = check_promises(
        PriorityModel.DEDICATED_POOL, cpu="500m", memory="512Mi", classes=classes
    )

    assert [b.promise for b in broken] == ["P2"]


def test_check_promises_rejects_a_bad_slice() -> None:
    with pytest.raises(HeadroomConfigError, match="cpu: invalid value '0'"):
        check_promises(PriorityModel.GUARDED, cpu="0", memory="512Mi")


def test_node_headroom_warns_when_its_model_breaks_a_promise() -> None:
    chart = cdk8s.Chart(cdk8s.App(), "c")

    with pytest.warns(HeadroomWarning, match=r"PriorityModel\.SEED breaks P2 and P3"):
        NodeHeadroom(chart, "seed", cpu="500m", memory="512Mi", model=PriorityModel.SEED)


@pytest.mark.parametrize("model", [PriorityModel.GUARDED, PriorityModel.DEDICATED_POOL])
def test_node_headroom_does_not_warn_by_default(model: PriorityModel) -> None:
    chart = cdk8s.Chart(cdk8s.App(), "c")
    pool = (
        NodePoolRef.karpenter("burst", taints=[DEFAULT_DEDICATED_TAINT])
        if model is PriorityModel.DEDICATED_POOL
        else None
    )

    with warnings.catch_warnings():
        warnings.simplefilter("error", HeadroomWarning)
        NodeHeadroom(chart, "h", cpu="500m", memory="512Mi", model=model, node_pool=pool)
