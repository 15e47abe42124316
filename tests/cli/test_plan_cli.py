"""`cdk8s-headroom plan` and `status` on the command line: output, exit statuses, errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cdk8s_headroom.cli import main
from tests.cluster.kubectl_objects import kubectl_node, reserver_pod, taint
from tests.conftest import SHARED

ROOT = Path(__file__).resolve().parents[2]
DIST = str(ROOT / "dist")
EXAMPLE = ROOT / "docs" / "examples" / "snapshot.json"
AFTER = ROOT / "docs" / "examples" / "snapshot-after.json"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_plan_prints_the_table_and_passes_within_max_pending(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["plan", "--manifests", DIST, "--snapshot", str(EXAMPLE)]

    code, out, err = run([*argv, "--max-pending", "1"], capsys)

    assert (code, err) == (0, "")
    assert out.startswith("Kubernetes 1.31 (the nodes' kubeletVersion), rules of 1.31\n")
    assert "established right after apply: 2; pending: 1" in out
    assert run(argv, capsys)[0] == 1


def test_status_prints_the_table_and_passes_within_max_pending(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["status", "--snapshot", str(AFTER)]

    code, out, err = run([*argv, "--max-pending", "2"], capsys)

    assert (code, err) == (0, "")
    assert "held: 1; in use by a burst: 1; eroded: 1; missing: 1" in out
    assert run(argv, capsys)[0] == 1


def test_json_output_is_one_document_with_the_documented_keys(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        ["plan", "--manifests", DIST, "--snapshot", str(EXAMPLE), "--json", "--max-pending", "1"],
        capsys,
    )
    data = json.loads(out)

    assert code == 0
    assert data["kubernetes_version"] == "1.31"
    assert [r["name"] for r in data["reservers"]] == ["node-headroom/headroom-reserver"]
    assert data["bursts"]["verdict"]["P2"]["holds"] is True

    code, out, _ = run(["status", "--snapshot", str(AFTER), "--json"], capsys)
    data = json.loads(out)
    assert code == 1
    assert [h["held"] for h in data["headrooms"]] == [["ip-10-0-1-11.eu-west-1.compute.internal"]]


def test_the_kubernetes_version_flag_overrides_the_kubelets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        ["status", "--snapshot", str(AFTER), "--json", "--kubernetes-version", "1.38"], capsys
    )

    data = json.loads(out)
    assert code == 1
    assert (data["kubernetes_version"], data["kubernetes_version_from"]) == (
        "1.38",
        "--kubernetes-version",
    )


def test_the_snapshot_can_come_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(AFTER.read_bytes())))

    code, out, _ = run(["status", "--snapshot", "-", "--max-pending", "2"], capsys)

    assert code == 0
    assert "eroded: 1" in out


def test_burst_flag_sets_the_arrivals(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(
        ["plan", "--manifests", DIST, "--snapshot", str(EXAMPLE), "--json", "--burst",
         "demo-burst=2"],
        capsys,
    )  # fmt: skip

    assert len(json.loads(out)["bursts"]["arrivals"]) == 2


def test_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    plan_png, status_png = tmp_path / "plan.png", tmp_path / "status.png"

    run(["plan", "--manifests", DIST, "--snapshot", str(EXAMPLE), "--plot", str(plan_png)], capsys)
    run(["status", "--snapshot", str(AFTER), "--plot", str(status_png)], capsys)

    assert plan_png.read_bytes().startswith(b"\x89PNG")
    assert status_png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("s.json", '{"apiVersion": "v1", "kind": "List", "items": [', "invalid JSON"),
        ("s.yaml", "just words", "not a Kubernetes object or List"),
        (
            "s.json",
            json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
                        "status": {"allocatable": {"cpu": "four", "memory": "1Gi"}}}),
            "Node n: status.allocatable.cpu: invalid value 'four'",
        ),
    ],
    ids=["truncated", "not-kubernetes", "bad-quantity"],
)  # fmt: skip
def test_bad_input_exits_2_with_one_line_naming_the_file(
    name: str, content: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = tmp_path / name
    snapshot.write_text(content)

    for argv in (
        ["plan", "--manifests", DIST, "--snapshot", str(snapshot)],
        ["status", "--snapshot", str(snapshot)],
    ):
        code, out, err = run(argv, capsys)
        assert (code, out) == (2, "")
        assert err.count("\n") == 1
        assert err.startswith(f"cdk8s-headroom {argv[0]}: error: {snapshot}")
        assert expected in err


@pytest.mark.parametrize(
    ("flag", "value"), [("--max-pending", "-1"), ("--kubernetes-version", "latest")]
)
def test_bad_flags_exit_2_with_one_line(
    flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["status", "--snapshot", str(AFTER), flag, value], capsys)

    assert code == 2
    assert err.startswith(f"cdk8s-headroom status: error: {flag}: invalid value {value!r}")
    assert err.count("\n") == 1


def test_events_can_come_from_a_second_snapshot_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = json.loads(AFTER.read_text())
    events = [item for item in listing["items"] if item["kind"] == "Event"]
    listing["items"] = [item for item in listing["items"] if item["kind"] != "Event"]
    (tmp_path / "snapshot.json").write_text(json.dumps(listing))
    (tmp_path / "events.json").write_text(json.dumps({**listing, "items": events}))

    _, out, _ = run(
        ["status", "--snapshot", str(tmp_path / "snapshot.json"), "--snapshot",
         str(tmp_path / "events.json"), "--json"],
        capsys,
    )  # fmt: skip

    assert [e["pod"] for e in json.loads(out)["events"]] == [
        "headroom-reserver-a8k2m",
        "headroom-reserver-9zq4w",
    ]


def test_a_reader_that_leaves_early_ends_the_command_quietly() -> None:
    # `cdk8s-headroom plan ... | head`: the pipe closes before the report is written.
    command = [sys.executable, "-m", "cdk8s_headroom", "plan", "--manifests", DIST]
    command += ["--snapshot", str(EXAMPLE), "--json"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True
    )
    assert process.stdout is not None
    process.stdout.close()
    _, stderr = process.communicate(timeout=60)

    assert process.returncode == 1
    assert stderr == ""


def test_plot_node_names_turn_upright_only_when_few_and_short() -> None:
    from cdk8s_headroom.simulate.plot import label_rotation

    assert label_rotation(["node1", "node2"]) == 0
    assert label_rotation([f"n{i}" for i in range(9)]) == 90
    assert label_rotation(["ip-10-0-1-11.eu-west-1.compute.internal"]) == 90


def test_plot_shows_the_host_part_of_dns_node_names_when_it_tells_nodes_apart() -> None:
    from cdk8s_headroom.simulate.plot import tick_labels

    ec2 = ["ip-10-0-1-11.eu-west-1.compute.internal", "ip-10-0-1-12.eu-west-1.compute.internal"]
    assert tick_labels(ec2) == ["ip-10-0-1-11", "ip-10-0-1-12"]
    # the same host part in two domains: the whole names
    twins = ["node-a.zone-1.example", "node-a.zone-2.example"]
    assert tick_labels(twins) == twins
    assert tick_labels(["node1", "node2"]) == ["node1", "node2"]


def test_plan_and_status_pass_when_the_only_waiting_nodes_are_not_targets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod: a tainted
    # control plane is no target, so neither command waits for it or fails on it.
    master = kubectl_node("master", taint("node-role.kubernetes.io/control-plane", "NoSchedule"))
    listing = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [kubectl_node("worker"), master, reserver_pod("headroom-reserver-w", "worker")],
    }
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(listing))

    plan_code, plan_out, _ = run(["plan", "--manifests", DIST, "--snapshot", str(path)], capsys)
    status_code, status_out, _ = run(["status", "--snapshot", str(path), "--json"], capsys)

    assert plan_code == 0
    counts = "target nodes: 1; established right after apply: 1; pending: 0; not targeted: 1"
    excluded = "  not targeted (1) master: untolerated taint node-role.kubernetes.io/control-plane="
    assert counts in plan_out
    assert excluded in plan_out
    assert status_code == 0
    (headroom,) = json.loads(status_out)["headrooms"]
    assert (headroom["target_nodes"], headroom["held"], headroom["missing"]) == (
        ["worker"],
        ["worker"],
        [],
    )
    assert [(n["node"], n["reason"]) for n in headroom["not_targeted"]] == [("master", "taint")]


def test_a_failed_plan_ends_with_one_line_naming_the_condition_and_the_flag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["plan", "--manifests", DIST, "--snapshot", str(EXAMPLE)]
    line = (
        "cdk8s-headroom plan: failed: 1 target node waits for its slice, more than "
        "--max-pending 0\n"
    )

    code, out, err = run(argv, capsys)
    json_code, json_out, json_err = run([*argv, "--json"], capsys)

    assert (code, err) == (1, line)
    assert not out.endswith(line)
    # On stderr, so that --json stays one document.
    assert (json_code, json_err) == (1, line)
    assert json.loads(json_out)["reservers"][0]["pending"][0]["reason"] == "room"


def test_a_failed_status_ends_with_one_line_naming_the_condition_and_the_flag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(["status", "--snapshot", str(AFTER), "--max-pending", "1"], capsys)

    assert (code, err) == (
        1,
        "cdk8s-headroom status: failed: 2 target nodes are eroded or missing their reserver, "
        "more than --max-pending 1\n",
    )


def test_a_typod_pool_fails_the_plan_and_names_the_pools_present(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod: no node
    # matches the node selector, so the DaemonSet gets no pod anywhere. Before, this
    # said "target nodes: 0" and exited 0.
    manifests = tmp_path / "dist"
    manifests.mkdir()
    for path in sorted(Path(DIST).glob("*.k8s.yaml")):
        objects = [o for o in yaml.safe_load_all(path.read_text()) if o]
        for obj in objects:
            if obj["kind"] == "DaemonSet":
                obj["spec"]["template"]["spec"]["nodeSelector"] = {
                    "karpenter.sh/nodepool": "bursst"
                }
        (manifests / path.name).write_text(yaml.safe_dump_all(objects))
    listing = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            kubectl_node("a", labels={"karpenter.sh/nodepool": "burst"}),
            kubectl_node("b", labels={"karpenter.sh/nodepool": "general"}),
        ],
    }
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(listing))

    code, out, err = run(
        ["plan", "--manifests", str(manifests), "--snapshot", str(snapshot), "--max-pending", "5"],
        capsys,
    )

    reason = (
        "the selector nodeSelector karpenter.sh/nodepool=bursst matches none of the 2 nodes; "
        "the nodes have karpenter.sh/nodepool: burst (1), general (1)"
    )
    assert code == 1
    assert f"  no target: {reason}" in out.splitlines()
    assert err.splitlines() == [
        f"cdk8s-headroom plan: failed: node-headroom/headroom-reserver: {reason} (no flag "
        "relaxes it: fix the node pool or selector)"
    ]


def test_plot_says_where_it_wrote_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    picture = tmp_path / "plan.png"

    code, _, err = run(
        ["plan", "--manifests", DIST, "--snapshot", str(EXAMPLE), "--max-pending", "1",
         "--plot", str(picture)],
        capsys,
    )  # fmt: skip

    assert (code, err) == (0, f"cdk8s-headroom plan: plot written to {picture}\n")
    assert picture.read_bytes().startswith(b"\x89PNG")


def test_plot_names_carry_their_marks() -> None:
    from cdk8s_headroom.simulate.plot import node_labels

    nodes = ["ip-10-0-1-11.eu-west-1.compute.internal", "ip-10-0-1-12.eu-west-1.compute.internal"]

    assert node_labels(nodes, {nodes[1]: "pending"}) == ["ip-10-0-1-11", "ip-10-0-1-12 (pending)"]


def test_plot_grows_with_the_longest_turned_name_so_that_none_is_cut() -> None:
    from cdk8s_headroom.simulate.plot import NAME_INCHES_PER_CHARACTER, figure_height

    short = figure_height(["node1", "node2"])
    long_name = "gke-tesg1-default-pool-ff7a1295-dmtd (not targeted)"

    assert figure_height([long_name]) - figure_height(["n" * 10]) == pytest.approx(
        NAME_INCHES_PER_CHARACTER * (len(long_name) - 10)
    )
    assert short < figure_height(["n" * 10])
    assert figure_height(["n" * 1000]) == 16.0


SNAPSHOTS = SHARED / "snapshots"
needs_shared = pytest.mark.skipif(
    not SNAPSHOTS.is_dir(),
    reason=f"{SNAPSHOTS} is absent: the real snapshots live beside the clone (CI has them)",
)


@needs_shared
def test_on_the_gke_listing_the_failure_line_says_why_every_holds_verdict_still_fails(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Issue 22: exit 1 came with no line saying which condition failed.
    code, _, err = run(
        ["plan", "--manifests", DIST, "--snapshot", str(SNAPSHOTS / "kalc-gke-tesg1-json-default")],
        capsys,
    )

    assert (code, err) == (
        1,
        "cdk8s-headroom plan: failed: P1 broken (no flag relaxes it); 2 target nodes wait "
        "for their slices, more than --max-pending 0\n",
    )


@needs_shared
def test_on_the_eks_listing_nodes_only_taints_leave_out_pass_without_a_failure_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # NodeShouldRunDaemonPod: both nodes carry type=hound:NoSchedule, so the selector
    # matches them and the taint leaves them out: not targeted, not an unmatched selector.
    code, out, err = run(
        ["plan", "--manifests", DIST, "--snapshot", str(SNAPSHOTS / "honeycomb-eks-2node")],
        capsys,
    )

    assert (code, err) == (0, "")
    assert "no target:" not in out
    assert "  not targeted (2) duckboat-01, duckboat-02: untolerated taint type=hound" in out


def test_plot_axis_reaches_above_a_node_holding_more_than_its_allocatable() -> None:
    from cdk8s_headroom.simulate.plot import y_top

    assert y_top(95.0) == 110.0
    assert y_top(200.0) == pytest.approx(210.0)


def _kwok_listing(tmp_path: Path, *, every_node: bool) -> Path:
    """The example listing with KWOK's kubeletVersion on its first node (or all)."""
    listing = json.loads(EXAMPLE.read_text())
    nodes = [item for item in listing["items"] if item["kind"] == "Node"]
    for node in nodes if every_node else nodes[:1]:
        node["status"]["nodeInfo"]["kubeletVersion"] = "kwok-0.7.0"
    path = tmp_path / "kwok.json"
    path.write_text(json.dumps(listing))
    return path


def test_a_virtual_node_without_a_release_is_read_and_named_in_a_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # KWOK nodes report `kwok-0.7.0` (seen on a live cluster): the listing stays readable
    listing = _kwok_listing(tmp_path, every_node=False)

    code, out, err = run(
        ["plan", "--manifests", DIST, "--snapshot", str(listing), "--max-pending", "1"], capsys
    )

    assert (code, err) == (0, "")
    assert out.startswith("Kubernetes 1.31 (the nodes' kubeletVersion), rules of 1.31\n")
    assert "reports kubeletVersion 'kwok-0.7.0', not a Kubernetes release" in out
    assert (
        "judged by the rules of 1.31 (the nodes' kubeletVersion); give --kubernetes-version" in out
    )


def test_only_virtual_nodes_take_the_given_release_without_more_advice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    listing = _kwok_listing(tmp_path, every_node=True)
    argv = ["plan", "--manifests", DIST, "--snapshot", str(listing), "--max-pending", "1"]

    code, out, _ = run([*argv, "--kubernetes-version", "1.36"], capsys)

    assert code == 0
    assert out.startswith("Kubernetes 1.36 (--kubernetes-version), rules of 1.36\n")
    assert "and 2 more report kubeletVersion 'kwok-0.7.0'" in out
    assert "(--kubernetes-version)" in out and "give --kubernetes-version" not in out
    assert main([*argv]) == 0  # without it: the default release, and the warning says so


def test_a_kubelet_version_that_is_not_text_is_still_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    listing = json.loads(EXAMPLE.read_text())
    listing["items"][0]["status"]["nodeInfo"]["kubeletVersion"] = 1.31
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(listing))

    code, _, err = run(["plan", "--manifests", DIST, "--snapshot", str(path)], capsys)

    assert code == 2
    assert "status.nodeInfo.kubeletVersion: invalid value 1.31" in err


@pytest.mark.parametrize(
    "command",
    [
        ["simulate", "--cluster", str(ROOT / "docs" / "examples" / "cluster.yaml")],
        ["plan", "--snapshot", str(EXAMPLE), "--max-pending", "1"],
        ["status", "--snapshot", str(AFTER), "--max-pending", "2"],
    ],
    ids=["simulate", "plan", "status"],
)
def test_every_command_warns_alike_of_a_manifest_read_twice(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One object in two files is counted once; every command says so in the same words.
    dist = tmp_path / "dist"
    dist.mkdir()
    files = sorted(Path(DIST).glob("*.yaml"))
    for file in files:
        (dist / file.name).write_bytes(file.read_bytes())
    (dist / "copy").mkdir()
    (dist / "copy" / files[-1].name).write_bytes(files[-1].read_bytes())
    argv = [command[0], "--manifests", str(dist), *command[1:]]

    out = run(argv, capsys)[1]
    document = json.loads(run([*argv, "--json"], capsys)[1])

    repeated = [w for w in document["warnings"] if "read twice" in w]
    assert repeated and all(w.endswith(": the same object, counted once") for w in repeated)
    assert f"{dist / files[-1].name} and {dist / 'copy' / files[-1].name}" in repeated[0]
    assert "Warnings (" in out and all(f"  {warning}" in out for warning in repeated)
