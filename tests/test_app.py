"""The app in main.py and dist/: ordering, outdir, determinism, atomic publication."""

import filecmp
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import cdk8s
import pytest
import yaml

import main
from cdk8s_headroom import HeadroomConfigError
from cdk8s_headroom.core.synthesis import publish_app
from cdk8s_headroom.files.publish import load_manifests, promote
from tests.conftest import ROOT, find, find_all, pod_spec

NODE_BIN = ROOT / "node_modules" / ".bin"


def run_env(**extra: str) -> dict[str, str]:
    """The environment make gives: the project's Node first on PATH."""
    return {
        **os.environ,
        "PATH": f"{NODE_BIN}{os.pathsep}{os.environ['PATH']}",
        "CDK8S_CHECK_UPGRADE": "false",
        **extra,
    }


def synth_main(outdir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "main.py"],
        cwd=ROOT,
        env=run_env(CDK8S_OUTDIR=str(outdir), **env),
        capture_output=True,
        text=True,
        check=True,
    )


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    outdir = tmp_path_factory.mktemp("fresh") / "dist"
    result = synth_main(outdir)
    assert "end-of-life" not in result.stderr + result.stdout
    return outdir


def test_committed_dist_equals_a_fresh_synthesis(fresh: Path) -> None:
    committed = sorted(p.name for p in (ROOT / "dist").iterdir())
    assert committed == sorted(p.name for p in fresh.iterdir())
    for name in committed:
        assert filecmp.cmp(ROOT / "dist" / name, fresh / name, shallow=False), name


@pytest.mark.parametrize("seed", ["0", "1", "4242"])
def test_two_syntheses_give_identical_bytes(fresh: Path, tmp_path: Path, seed: str) -> None:
    # Another process with another string-hash seed: set and dict iteration orders
    # that depend on hashing would show up as different bytes.
    synth_main(tmp_path / "again", PYTHONHASHSEED=seed)
    again = tmp_path / "again"
    assert sorted(p.name for p in again.iterdir()) == sorted(p.name for p in fresh.iterdir())
    for path in fresh.iterdir():
        assert path.read_bytes() == (again / path.name).read_bytes()


def test_main_synthesizes_guarded_blueprint_with_the_seeds_slice(fresh: Path) -> None:
    objects = [doc for _, doc in load_manifests(fresh)]
    classes = {pc["metadata"]["name"]: pc["value"] for pc in find_all(objects, "PriorityClass")}
    assert classes == {
        "headroom-reserve": -100,
        "default-no-preempt": 0,
        "burst-critical": 1000000000,
    }
    reserver = pod_spec(find(objects, "DaemonSet", "headroom-reserver"))
    assert reserver["containers"][0]["resources"]["requests"] == {"cpu": "500m", "memory": "512Mi"}
    assert "nodeSelector" not in reserver  # every node, as in the seed
    burst = pod_spec(find(objects, "Deployment", "demo-burst"))
    assert burst["priorityClassName"] == "burst-critical"
    assert burst["containers"][0]["imagePullPolicy"] == "IfNotPresent"


def test_kubectl_apply_order_creates_namespace_and_classes_before_pods(fresh: Path) -> None:
    order = [
        (doc["kind"], doc["metadata"]["name"], doc)
        for _, doc in load_manifests(fresh)  # kubectl reads files in name order, then top-down
    ]
    position = {(kind, name): index for index, (kind, name, _) in enumerate(order)}
    for kind, name, doc in order:
        if kind not in ("DaemonSet", "Deployment"):
            continue
        index = position[(kind, name)]
        assert position[("Namespace", doc["metadata"]["namespace"])] < index
        assert position[("PriorityClass", pod_spec(doc)["priorityClassName"])] < index
    assert sorted(p.name for p in fresh.iterdir()) == [
        "0000-cluster.k8s.yaml",
        "0001-headroom.k8s.yaml",
    ]


def test_the_node_pool_setting_targets_the_reserver_and_the_burst(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(main, "NODE_POOL", "maintenance-pool")
    app = cdk8s.App()
    main.build(app)
    objects = [o for c in app.charts for o in c.to_json()]
    expected = {"karpenter.sh/nodepool": "maintenance-pool"}
    for name in (
        "headroom-reserver-maintenance-pool",
        "headroom-reserver-maintenance-pool-prepull",
    ):
        assert pod_spec(find(objects, "DaemonSet", name))["nodeSelector"] == expected
    assert pod_spec(find(objects, "Deployment"))["nodeSelector"] == expected


def write(folder: Path, files: dict[str, Any]) -> Path:
    folder.mkdir(parents=True)
    for name, docs in files.items():
        (folder / name).write_text(yaml.safe_dump_all(docs))
    return folder


NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}


def snapshot_tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize(
    "staged",
    [
        {},
        {"a.k8s.yaml": []},
        {"a.k8s.yaml": [NAMESPACE], "notes.txt": ["stray"]},
        {"a.k8s.yaml": [{"kind": "Namespace"}]},
        {"a.k8s.yaml": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {}}]},
    ],
    ids=["no-files", "no-objects", "stray-file", "no-apiversion", "no-name"],
)
def test_a_failed_promotion_leaves_the_target_byte_identical(
    tmp_path: Path, staged: dict[str, Any]
) -> None:
    target = write(tmp_path / "dist", {"0000-old.k8s.yaml": [NAMESPACE]})
    before = snapshot_tree(tmp_path)
    with pytest.raises(HeadroomConfigError):
        promote(write(tmp_path / "stage", staged), target)
    assert snapshot_tree(tmp_path) == before


def test_a_failing_extra_check_stops_the_swap(tmp_path: Path) -> None:
    target = write(tmp_path / "dist", {"0000-old.k8s.yaml": [NAMESPACE]})
    before = snapshot_tree(tmp_path)

    def injected(_: Path) -> None:
        raise HeadroomConfigError("check", "injected", "no failure")

    with pytest.raises(HeadroomConfigError, match="injected"):
        promote(write(tmp_path / "stage", {"b.k8s.yaml": [NAMESPACE]}), target, checks=(injected,))
    assert snapshot_tree(tmp_path) == before


def test_a_named_pipe_in_the_staging_folder_is_refused_without_blocking(tmp_path: Path) -> None:
    target = write(tmp_path / "dist", {"0000-old.k8s.yaml": [NAMESPACE]})
    before = snapshot_tree(tmp_path)
    staging = write(tmp_path / "stage", {"0000-new.k8s.yaml": [NAMESPACE]})
    os.mkfifo(staging / "0001-pipe.k8s.yaml")  # reading it would wait for a writer

    with pytest.raises(HeadroomConfigError, match=r"\['0001-pipe\.k8s\.yaml'\]; only regular"):
        promote(staging, target)
    assert snapshot_tree(tmp_path) == before


def test_a_good_promotion_replaces_the_target_whole(tmp_path: Path) -> None:
    target = write(tmp_path / "dist", {"0000-old.k8s.yaml": [NAMESPACE]})
    promote(write(tmp_path / "stage", {"0000-new.k8s.yaml": [NAMESPACE]}), target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist"]
    assert [p.name for p in target.iterdir()] == ["0000-new.k8s.yaml"]


def test_each_read_of_a_folder_gets_objects_of_its_own(tmp_path: Path) -> None:
    # The publication checks each read the staged folder: one must not see another's edits.
    folder = write(tmp_path / "stage", {"a.k8s.yaml": [NAMESPACE]})
    ((_, first),) = load_manifests(folder)
    first["metadata"]["name"] = "changed"

    assert [document for _, document in load_manifests(folder)] == [NAMESPACE]


def test_a_file_rewritten_between_reads_is_read_anew(tmp_path: Path) -> None:
    folder = write(tmp_path / "stage", {"a.k8s.yaml": [NAMESPACE]})
    list(load_manifests(folder))
    other = {**NAMESPACE, "metadata": {"name": "other"}}
    (folder / "a.k8s.yaml").write_text(yaml.safe_dump_all([other]))

    assert [document for _, document in load_manifests(folder)] == [other]


def test_an_interrupted_swap_is_recovered_before_the_next_one(tmp_path: Path) -> None:
    previous = write(tmp_path / "dist.previous", {"0000-old.k8s.yaml": [NAMESPACE]})
    with pytest.raises(HeadroomConfigError):
        promote(write(tmp_path / "stage", {}), tmp_path / "dist")
    assert not previous.exists()
    assert [p.name for p in (tmp_path / "dist").iterdir()] == ["0000-old.k8s.yaml"]


def test_a_bad_prop_left_uncaught_by_a_script_prints_one_line_without_a_traceback(
    tmp_path: Path,
) -> None:
    out = tmp_path / "dist"
    script = "import main, cdk8s\nmain.SLICE_CPU = '500mm'\napp = cdk8s.App()\nmain.build(app)\n"
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=run_env(CDK8S_OUTDIR=str(out)),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    # synthesis' excepthook: the innermost line outside the library (main.py's
    # NodeHeadroom(...)), then the error's message.
    assert result.stderr.startswith(f"{ROOT / 'main.py'}:")
    assert ": cpu: invalid value '500mm'; a Kubernetes quantity" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("SLICE_CPU", 500, "cpu: invalid value 500"),
        ("NAMESPACE", "Node_Headroom", "namespace: invalid value 'Node_Headroom'"),
        ("SLICE_MEMORY", "512", "memory: invalid value '512'"),
    ],
)
def test_main_refuses_a_bad_setting_with_status_2_and_keeps_the_target(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    setting: str,
    value: object,
    message: str,
) -> None:
    target = write(tmp_path / "dist", {"0000-old.k8s.yaml": [NAMESPACE]})
    before = snapshot_tree(tmp_path)
    monkeypatch.setattr(main, setting, value)

    status = main.main(["-q", "--out", str(target)])

    assert status == 2
    error = capsys.readouterr().err
    assert error.startswith(f"synth failed, {target}/ left as it was: {message}")
    assert len(error.splitlines()) == 1
    assert snapshot_tree(tmp_path) == before
    assert [p.name for p in tmp_path.iterdir()] == ["dist"]  # no staging folder left


def test_main_publishes_into_out_and_copies_into_cdk8s_outdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: Path
) -> None:
    # As under cdk8s synth: CDK8S_OUTDIR is cdk8s-cli's output folder, --out the target.
    monkeypatch.setenv("CDK8S_OUTDIR", str(tmp_path / "stage"))
    assert main.main(["-q", "--out", str(tmp_path / "dist")]) == 0
    expected = {p.name: p.read_bytes() for p in fresh.iterdir()}
    for folder in ("dist", "stage"):
        assert {p.name: p.read_bytes() for p in (tmp_path / folder).iterdir()} == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist", "stage"]


def test_publish_app_refuses_to_copy_into_its_own_target(tmp_path: Path) -> None:
    with pytest.raises(HeadroomConfigError, match=r"copy_to: invalid value .*a folder other than"):
        publish_app(main.build, tmp_path / "dist", copy_to=tmp_path / "dist")
    assert list(tmp_path.iterdir()) == []


def test_publish_app_stops_at_a_failing_check_and_keeps_the_target(tmp_path: Path) -> None:
    target = write(tmp_path / "dist", {"0000-old.k8s.yaml": [NAMESPACE]})
    before = snapshot_tree(tmp_path)

    def refuse(folder: Path) -> None:
        names = sorted(p.name for p in folder.iterdir())
        raise HeadroomConfigError("staged", names, "nothing (a test check)")

    with pytest.raises(HeadroomConfigError, match=r"0000-cluster\.k8s\.yaml"):
        publish_app(main.build, target, checks=(refuse,))
    assert snapshot_tree(tmp_path) == before
    assert [p.name for p in tmp_path.iterdir()] == ["dist"]


def test_a_published_folder_gets_the_mode_the_umask_gives_not_the_staging_folders_0700(
    tmp_path: Path,
) -> None:
    # A GitOps agent or CI step running as another user must be able to read dist/.
    umask = os.umask(0o027)
    try:
        publish_app(main.build, tmp_path / "dist")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "dist").stat().st_mode) == 0o750
