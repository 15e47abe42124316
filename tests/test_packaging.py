"""The library as another team gets it: a wheel, installed into a clean virtualenv."""

import os
import re
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest
import yaml

import cdk8s_headroom
from tests.conftest import ROOT, find, pod_spec


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("*.whl")
    return built


def test_the_wheel_ships_the_package_typed_and_nothing_else(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "cdk8s_headroom/py.typed" in names
    assert "cdk8s_headroom/__init__.py" in names
    top_levels = {name.split("/")[0] for name in names}
    assert top_levels == {"cdk8s_headroom", wheel.name.split("-py3")[0] + ".dist-info"}
    assert not any(name.startswith(("imports/", "tests/", "main.py")) for name in names)


def test_package_version_is_the_one_in_pyproject() -> None:
    declared = re.search(r'^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert declared is not None
    assert cdk8s_headroom.__version__ == declared[1]


def test_a_consumer_app_runs_against_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    # GIVEN a fresh virtualenv with only the wheel (and its dependencies) installed
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
        check=True,
        capture_output=True,
    )
    workdir = tmp_path / "consumer"
    workdir.mkdir()
    (workdir / "app.py").write_text((ROOT / "tests" / "consumer" / "app.py").read_text())
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
    }
    env["PATH"] = f"{ROOT / 'node_modules' / '.bin'}{os.pathsep}{env['PATH']}"
    env["CDK8S_OUTDIR"] = str(workdir / "out")

    # WHEN the consumer's app runs from a folder outside the source tree
    located = subprocess.run(
        [str(python), "-c", "import cdk8s_headroom; print(cdk8s_headroom.__file__)"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    subprocess.run([str(python), "app.py"], cwd=workdir, env=env, check=True, capture_output=True)

    # THEN it imported the installed package and synthesized its own objects
    assert str(env_dir) in located.stdout
    objects = [
        d for f in sorted((workdir / "out").iterdir()) for d in yaml.safe_load_all(f.read_text())
    ]
    reserver = find(objects, "DaemonSet", "headroom-reserver-checkout-pool")
    burst = find(objects, "Deployment", "checkout")
    for workload in (reserver, burst):
        assert workload["metadata"]["namespace"] == "payments"
        assert workload["metadata"]["labels"]["team"] == "payments"
        assert pod_spec(workload)["nodeSelector"] == {"karpenter.sh/nodepool": "checkout-pool"}
    assert pod_spec(burst)["priorityClassName"] == "burst-critical"
    assert burst["spec"]["replicas"] == 3
    prepuller = find(objects, "DaemonSet", "headroom-reserver-checkout-pool-prepull")
    assert [c["image"] for c in pod_spec(prepuller)["initContainers"][1:]] == [
        "ghcr.io/acme/checkout:7"
    ]
    assert "initContainers" not in pod_spec(reserver)
    assert pod_spec(reserver)["containers"][0]["resources"]["limits"] == {
        "cpu": "1",
        "memory": "2Gi",
    }


def test_the_sdist_builds_without_manifest_warnings_and_holds_the_package_only(
    tmp_path: Path,
) -> None:
    # `make dist` printed about 70 "no previously-included files" warnings: MANIFEST.in
    # excluded files that setuptools never includes
    result = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    (sdist,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}

    manifest_warnings = [
        line
        for line in (result.stdout + result.stderr).splitlines()
        if "previously-included" in line or "no files found matching" in line
    ]
    assert manifest_warnings == []
    assert {
        "README.md",
        "LICENSE",
        "pyproject.toml",
        "constructs/cdk8s_headroom/__init__.py",
    } <= members
    assert not {m for m in members if m.startswith(("tests/", "dist/", "charts/", "main.py"))}
