"""The app in main.py and dist/: ordering, outdir, determinism, atomic publication."""

import filecmp
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import cdk8s
import pytest
import yaml

import main
from cdk8s_headroom import HeadroomConfigError
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


def test_cdk8s_synth_honours_its_output_flag(tmp_path: Path) -> None:
    out = tmp_path / "elsewhere"
    result = subprocess.run(
        [str(NODE_BIN / "cdk8s"), "synth", "--output", str(out)],
        cwd=ROOT,
        env=run_env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "0000-cluster.k8s.yaml",
        "0001-headroom.k8s.yaml",
    ]
    assert "end-of-life" not in result.stderr + result.stdout


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


def test_a_good_promotion_replaces_the_target_whole(tmp_path: Path) -> None:
    target = write(tmp_path / "dist", {"0000-old.k8s.yaml": [NAMESPACE]})
    promote(write(tmp_path / "stage", {"0000-new.k8s.yaml": [NAMESPACE]}), target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist"]
    assert [p.name for p in target.iterdir()] == ["0000-new.k8s.yaml"]


def test_an_interrupted_swap_is_recovered_before_the_next_one(tmp_path: Path) -> None:
    previous = write(tmp_path / "dist.previous", {"0000-old.k8s.yaml": [NAMESPACE]})
    with pytest.raises(HeadroomConfigError):
        promote(write(tmp_path / "stage", {}), tmp_path / "dist")
    assert not previous.exists()
    assert [p.name for p in (tmp_path / "dist").iterdir()] == ["0000-old.k8s.yaml"]


def test_a_bad_prop_in_main_fails_synthesis_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    script = "import main, cdk8s\nmain.SLICE_CPU = '500mm'\napp = cdk8s.App()\nmain.build(app)\n"
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=run_env(CDK8S_OUTDIR=str(out)),
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "HeadroomConfigError: cpu: invalid value '500mm'" in result.stderr
    assert not out.exists()
