"""The ``cdk8s-headroom simulate`` command, and the synth-time promise check."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import warnings
from collections.abc import Iterator
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


# --- hostile input: numbers, special files -------------------------------------------

EVERYTHING = ROOT / "tests" / "fixtures" / "kubectl" / "everything.json"
SIMULATE_DIST = ["simulate", "--manifests", str(DIST), "--cluster", str(EXAMPLE_CLUSTER)]
TOO_MANY_DIGITS = "9" * 5000
"""More digits than Python converts (4300, CVE-2020-10735: a plain ValueError)."""
NOT_ASCII_DIGITS = {
    "superscript-two": "²",  # a digit to str.isdigit(), not to int()
    "arabic-indic": "\u0663",  # int() reads it as 3; strconv.ParseInt refuses it
    "full-width": "\uff13",
    "underscore": "1_0",  # int() reads it as 10
    "too-many-digits": TOO_MANY_DIGITS,
}


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], expected: str) -> str:
    """Runs the command, which must exit 2 with one line holding ``expected``."""
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured.out
    assert captured.err.count("\n") == 1, captured.err
    assert expected in captured.err
    assert len(captured.err) < 400  # a 5000-digit value is shown shortened
    return captured.err


@pytest.mark.parametrize("count", [*NOT_ASCII_DIGITS.values(), "150001", "99999999999", "-1"])
def test_a_burst_count_is_ascii_digits_within_the_clusters_pod_limit(
    capsys: pytest.CaptureFixture[str], count: str
) -> None:
    _refused(
        capsys,
        [*SIMULATE_DIST, "--burst", f"demo-burst={count}"],
        "--burst demo-burst: invalid value '",
    )


@pytest.mark.parametrize(
    "version", ["1." + TOO_MANY_DIGITS, "\u0661.\u0662\u0667", "\uff11.\uff12\uff17"]
)
def test_a_kubernetes_version_is_ascii_digits_of_a_sane_length(
    capsys: pytest.CaptureFixture[str], version: str
) -> None:
    _refused(
        capsys,
        [*SIMULATE_DIST, "--kubernetes-version", version],
        "--kubernetes-version: invalid value",
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        *(("count", digits) for digits in NOT_ASCII_DIGITS.values()),
        ("priority", TOO_MANY_DIGITS),
        ("priority", "\u0663"),
    ],
)
def test_a_number_quoted_in_a_cluster_file_is_ascii_digits_within_its_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: str
) -> None:
    pod = {"name": "web", "nodeName": "node", "requests": {"cpu": "100m"}, field: value}
    cluster = {
        "nodes": [{"name": "node", "count": 1, "allocatable": {"cpu": "4", "memory": "16Gi"}}],
        "pods": [pod],
    }
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(cluster))

    _refused(
        capsys,
        ["simulate", "--manifests", str(DIST), "--cluster", str(path)],
        f"{path}: pods[0].{field}: invalid value",
    )


@pytest.mark.parametrize("command", ["plan", "status"])
@pytest.mark.parametrize("value", ["²", TOO_MANY_DIGITS, "5001"])
def test_max_pending_is_ascii_digits_up_to_the_largest_cluster(
    capsys: pytest.CaptureFixture[str], command: str, value: str
) -> None:
    _refused(
        capsys,
        [command, "--manifests", str(DIST), "--snapshot", str(EVERYTHING), "--max-pending", value],
        "--max-pending: invalid value",
    )


def test_a_kubelet_version_with_too_many_digits_is_a_field_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = json.loads(EVERYTHING.read_text())
    node = next(item for item in snapshot["items"] if item["kind"] == "Node")
    node["status"]["nodeInfo"]["kubeletVersion"] = "v1." + TOO_MANY_DIGITS
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot))

    _refused(
        capsys,
        ["status", "--snapshot", str(path)],
        f"Node {node['metadata']['name']}: status.nodeInfo.kubeletVersion: invalid value",
    )


@pytest.fixture
def no_hang() -> Iterator[None]:
    """Fails the test, instead of hanging the suite, if reading blocks for 10 s."""

    def blocked(signum: int, frame: object) -> None:
        raise TimeoutError("the command blocked on a special file")

    previous = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(
    ("option", "where"),
    [
        ("--cluster", "named"),  # --cluster names one file, never a folder
        ("--manifests", "named"),
        ("--manifests", "in-a-folder"),
        ("--snapshot", "named"),
        ("--snapshot", "in-a-folder"),
    ],
)
def test_a_named_pipe_is_refused_by_name_without_blocking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_hang: None, option: str, where: str
) -> None:
    folder = tmp_path / "input"
    folder.mkdir()
    pipe = folder / "pipe.yaml"
    os.mkfifo(pipe)
    given = str(pipe) if where == "named" else str(folder)
    argv = {
        "--cluster": ["simulate", "--manifests", str(DIST), "--cluster", given],
        "--manifests": ["simulate", "--manifests", given, "--cluster", str(EXAMPLE_CLUSTER)],
        "--snapshot": ["status", "--snapshot", given],
    }[option]

    _refused(capsys, argv, f"{pipe}: a named pipe (FIFO), not a regular file")


def test_a_character_device_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    _refused(
        capsys,
        ["simulate", "--manifests", str(DIST), "--cluster", "/dev/zero"],
        "/dev/zero: a character device, not a regular file",
    )


def test_plot_says_where_it_wrote_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    picture = tmp_path / "capacity.png"

    code = main(
        ["simulate", "--manifests", str(DIST), "--cluster", str(EXAMPLE_CLUSTER),
         "--plot", str(picture)]
    )  # fmt: skip

    assert (code, capsys.readouterr().err) == (
        0,
        f"cdk8s-headroom simulate: plot written to {picture}\n",
    )


def test_the_plot_marks_pending_and_not_targeted_nodes_and_names_only_roles_present(
    tmp_path: Path,
) -> None:
    # pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod: the tainted
    # node gets no reserver (not targeted); the full node gets one that waits (pending).
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(
        json.dumps(
            {
                "nodes": [
                    {"name": "free", "allocatable": {"cpu": "4", "memory": "16Gi"}},
                    {"name": "full", "allocatable": {"cpu": "4", "memory": "16Gi"}},
                    {
                        "name": "gpu",
                        "allocatable": {"cpu": "4", "memory": "16Gi"},
                        "taints": [{"key": "nvidia.com/gpu", "value": "true",
                                    "effect": "NoSchedule"}],
                    },
                ],
                "pods": [{"name": "web", "nodeName": "full", "requests": {"cpu": "3800m"}}],
            }
        )
    )  # fmt: skip
    from cdk8s_headroom.simulate.cluster import read_cluster
    from cdk8s_headroom.simulate.plot import legend_roles, whatif_marks

    report = run_whatif(read_manifests(DIST), read_cluster(cluster))

    assert whatif_marks(report) == {"full": "pending", "gpu": "not targeted"}
    # dist/ has no buffer: the legend has no "buffer room".
    assert [role.value for role in legend_roles([report.before, report.after])] == [
        "ordinary",
        "headroom",
        "burst",
    ]
