"""`make synth`, `cdk8s synth` and `python main.py` on a copy of the repository: a failed
synthesis changes nothing at all.

GitOps tools sync dist/, often pruning what disappears from it. So a synthesis that
fails, whether by a bad prop, a crash halfway through writing, or objects that would
fail at apply time, must leave dist/ byte-identical and the rest of the tree as it was,
whichever of the three entry points ran it; cdk8s-cli empties its output folder before
it starts the app (node_modules/cdk8s-cli/lib/cli/cmds/synth.js, ``fs.rmSync(outdir)``),
so that folder must never be dist/. Each case runs on a temporary copy of the
repository with its own git history, so the real worktree is never touched.

Every entry point runs main.py's one publication path (``publish_app``) in a process of
its own, and sees every refusal alike: main.py's status 2 and its one line. So each
entry point gets one refused app in a process, a different kind each, and a crash;
every refused app runs through main.py's own ``main`` in this process as well (on a copy
of main.py and dist/), which is where the kinds differ.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT

# The copy shares the installed environments; make must not try to reinstall them.
MAKE_SYNTH = [
    "make",
    "--no-print-directory",
    "-o",
    ".venv/.installed",
    "-o",
    "node_modules/.installed",
    "synth",
]
ENTRY_POINTS = {
    "make-synth": MAKE_SYNTH,
    "cdk8s-synth": [str(ROOT / "node_modules" / ".bin" / "cdk8s"), "synth"],
    "python-main": [sys.executable, "main.py", "-q"],
}
"""The three ways to synthesize dist/; they must publish the same way."""
GIT = ["git", "-c", "user.name=test", "-c", "user.email=test@example.com"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        [*GIT, *args], cwd=repo, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the worktree's files (tracked and new), committed in a fresh git repo."""
    copy = tmp_path / "repo"
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if not source.is_file():
            continue  # deleted in the worktree but not yet in git
        target = copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)  # mtimes too, so make's stamps stay current
    for environment in (".venv", "node_modules"):
        (copy / environment).symlink_to(ROOT / environment)
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "commit", "-q", "-m", "copy")
    return copy


def tree_state(repo: Path) -> tuple[str, dict[str, bytes]]:
    """git's view of the tree (ignored files included) and every file's bytes.

    Python's bytecode caches are left out: whether running main.py writes them depends on
    PYTHONDONTWRITEBYTECODE in the environment, not on what synthesis does.
    """
    status = "".join(
        line + "\n"
        for line in git(
            repo, "status", "--porcelain", "--ignored", "--untracked-files=all"
        ).splitlines()
        if "__pycache__/" not in line
    )
    files = {}
    for folder, subfolders, names in os.walk(repo):
        # symlinks are not walked
        subfolders[:] = [d for d in subfolders if d not in (".git", "__pycache__")]
        for name in names:
            path = Path(folder) / name
            files[str(path.relative_to(repo))] = path.read_bytes()
    return status, files


def run_in(repo: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    """Runs an entry point in the copy, with the copy's library first on the path (the
    shared virtualenv's editable install points at another worktree)."""
    env = {
        **os.environ,
        "PATH": f"{ROOT / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}",
        "CDK8S_CHECK_UPGRADE": "false",
        "PYTHONPATH": f"{repo / 'constructs'}{os.pathsep}{repo}",
    }
    env.pop("CDK8S_OUTDIR", None)
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)


def make_synth(repo: Path) -> subprocess.CompletedProcess[str]:
    return run_in(repo, MAKE_SYNTH)


def edit_main(repo: Path, edit: Callable[[str], str]) -> None:
    main = repo / "main.py"
    main.write_text(edit(main.read_text()))
    git(repo, "commit", "-q", "-am", "edit main.py")


def inject_into_build(code: str) -> Callable[[str], str]:
    """Puts ``code`` at the end of main.py's ``build(app)``, after the blueprint."""

    def edit(text: str) -> str:
        marker = "    return headroom\n"
        assert marker in text
        return text.replace(marker, code + marker)

    return edit


def setting(old: str, new: str) -> Callable[[str], str]:
    """Replaces one of main.py's settings."""

    def edit(text: str) -> str:
        assert old in text
        return text.replace(old, new)

    return edit


CRASH_WHILE_WRITING = """\
    class Exploding(cdk8s.ApiObject):
        def to_json(self):  # rendered after the first chart's file is written
            raise RuntimeError("injected crash halfway through writing")

    Exploding(app.charts[-1], "boom", api_version="v1", kind="ConfigMap")
"""
UNKNOWN_FIELD = """\
    cdk8s.ApiObject(
        app.charts[-1], "typo", api_version="v1", kind="ConfigMap",
        metadata=cdk8s.ApiObjectMetadata(name="typo", namespace=NAMESPACE),
    ).add_json_patch(cdk8s.JsonPatch.add("/dataa", {"k": "v"}))
"""
HOST_NETWORK_PATCH = """\
    for child in app.charts[-1].node.find_all():
        if isinstance(child, cdk8s.ApiObject) and child.kind == "DaemonSet":
            child.add_json_patch(cdk8s.JsonPatch.add("/spec/template/spec/hostNetwork", True))
"""
SECOND_CLASSES = """\
    from cdk8s_headroom import HeadroomPriorityClasses

    HeadroomPriorityClasses(app.charts[0], "priority-classes-again", model=MODEL)
"""
HOST_PATH_POD = """\
    from imports import k8s
    k8s.KubePod(
        app.charts[-1], "escape",
        metadata=k8s.ObjectMeta(name="escape", namespace=NAMESPACE),
        spec=k8s.PodSpec(
            containers=[k8s.Container(name="c", image="busybox")],
            volumes=[k8s.Volume(name="root", host_path=k8s.HostPathVolumeSource(path="/"))],
        ),
    )
"""


def test_a_good_synthesis_reproduces_dist_and_leaves_nothing_behind(repo: Path) -> None:
    before = tree_state(repo)
    result = make_synth(repo)
    assert result.returncode == 0, result.stderr
    assert "wrote 7 objects in 2 files to dist/" in result.stderr
    assert tree_state(repo) == before


def test_cdk8s_synth_publishes_dist_and_gives_its_output_folder_a_copy(repo: Path) -> None:
    dist = {p.name: p.read_bytes() for p in (repo / "dist").iterdir()}
    shutil.rmtree(repo / "dist")
    out = repo / "build" / "elsewhere"

    result = run_in(repo, [*ENTRY_POINTS["cdk8s-synth"], "--output", str(out)])

    assert result.returncode == 0, result.stderr
    assert {p.name: p.read_bytes() for p in (repo / "dist").iterdir()} == dist
    assert {p.name: p.read_bytes() for p in out.iterdir()} == dist
    assert "end-of-life" not in result.stderr + result.stdout


REFUSED_APPS: dict[str, tuple[Callable[[str], str], str]] = {
    "bad-quantity": (
        setting('SLICE_CPU = "500m"', 'SLICE_CPU = "500mm"'),
        "cpu: invalid value '500mm'",
    ),
    "cpu-as-a-number": (setting('SLICE_CPU = "500m"', "SLICE_CPU = 500"), "cpu: invalid value 500"),
    "bad-namespace": (
        setting('NAMESPACE = "node-headroom"', 'NAMESPACE = "Node_Headroom"'),
        "namespace: invalid value 'Node_Headroom'",
    ),
    "memory-without-unit": (
        setting('SLICE_MEMORY = "512Mi"', 'SLICE_MEMORY = "512"'),
        "memory: invalid value '512'",
    ),
    "second-priority-classes": (
        inject_into_build(SECOND_CLASSES),
        "a name no other PriorityClass has",
    ),
    "schema-check": (inject_into_build(UNKNOWN_FIELD), "'dataa' was unexpected"),
    "pod-security-check": (inject_into_build(HOST_PATH_POD), "hostPath is not allowed"),
    "host-network-patch": (inject_into_build(HOST_NETWORK_PATCH), "hostNetwork"),
}
"""Apps that must be refused: a bad setting, a configuration error raised inside the app,
objects that fail the schemas or Pod Security, a JSON patch that adds hostNetwork."""

# One refused app per entry point, in a process: a bad setting, an error raised inside
# the app, and objects the checks refuse (a JSON patch), one kind each. Every case of
# REFUSED_APPS runs through main.py's main in-process (below).
REFUSED_CASES = [
    ("python-main", "bad-quantity"),
    ("cdk8s-synth", "second-priority-classes"),
    ("make-synth", "host-network-patch"),
]


@pytest.mark.parametrize(
    ("entry_point", "case"), REFUSED_CASES, ids=[f"{e}-{c}" for e, c in REFUSED_CASES]
)
def test_a_refused_app_leaves_dist_and_the_tree_unchanged_with_one_message(
    repo: Path, entry_point: str, case: str
) -> None:
    edit, reason = REFUSED_APPS[case]
    edit_main(repo, edit)
    dist_before = {p.name: p.read_bytes() for p in (repo / "dist").iterdir()}
    before = tree_state(repo)

    result = run_in(repo, ENTRY_POINTS[entry_point])

    assert result.returncode != 0
    if entry_point == "python-main":
        assert result.returncode == 2  # main.py's documented status for a refused app
    assert_refused_once(result.stdout + result.stderr, reason)
    assert {p.name: p.read_bytes() for p in (repo / "dist").iterdir()} == dist_before
    assert tree_state(repo) == before


def assert_refused_once(output: str, reason: str, dist: str = "dist") -> None:
    """One line says that synthesis failed, why, and that dist/ was left; no traceback."""
    messages = [line for line in output.splitlines() if line.startswith("synth failed")]
    assert len(messages) == 1, output
    assert messages[0].startswith(f"synth failed, {dist}/ left as it was: ")
    assert reason in messages[0]
    assert "Traceback" not in output
    assert "    at " not in output  # no Node stack trace from cdk8s-cli either


@pytest.fixture
def app_repo(tmp_path: Path) -> Path:
    """What main.py's main reads and writes when it runs in this process: main.py and
    dist/, committed in a fresh git repo (the library and scripts/promote.py are this
    process's own)."""
    copy = tmp_path / "repo"
    copy.mkdir()
    shutil.copy2(ROOT / "main.py", copy / "main.py")
    shutil.copytree(ROOT / "dist", copy / "dist")
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "commit", "-q", "-m", "copy")
    return copy


def load_main(repo: Path, name: str) -> ModuleType:
    """The copy's (edited) main.py as a module, as `python main.py` would run it."""
    spec = importlib.util.spec_from_file_location(f"edited_main_{name}", repo / "main.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("case", list(REFUSED_APPS))
def test_main_refuses_an_app_with_status_2_leaving_dist_and_the_tree_unchanged(
    app_repo: Path, case: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN main.py, edited as in the cases above
    edit, reason = REFUSED_APPS[case]
    edit_main(app_repo, edit)
    dist = app_repo / "dist"
    dist_before = {p.name: p.read_bytes() for p in dist.iterdir()}
    before = tree_state(app_repo)
    monkeypatch.delenv("CDK8S_OUTDIR", raising=False)

    # WHEN its main publishes the copy's dist/ (named whole: jsii's Node process, which
    # writes the files, keeps the cwd it started with, so a chdir here would not reach it)
    status = load_main(app_repo, case.replace("-", "_")).main(["-q", "--out", str(dist)])

    # THEN it returns main.py's status for a refused app, says so once, changes nothing
    assert status == 2
    captured = capsys.readouterr()
    assert_refused_once(captured.out + captured.err, reason, dist=str(dist))
    assert {p.name: p.read_bytes() for p in (app_repo / "dist").iterdir()} == dist_before
    assert tree_state(app_repo) == before


@pytest.mark.parametrize("entry_point", list(ENTRY_POINTS))
def test_a_crash_halfway_through_writing_leaves_dist_and_the_tree_unchanged(
    repo: Path, entry_point: str
) -> None:
    edit_main(repo, inject_into_build(CRASH_WHILE_WRITING))
    dist_before = {p.name: p.read_bytes() for p in (repo / "dist").iterdir()}
    before = tree_state(repo)

    result = run_in(repo, ENTRY_POINTS[entry_point])

    assert result.returncode != 0
    assert "injected crash halfway through writing" in result.stdout + result.stderr
    assert {p.name: p.read_bytes() for p in (repo / "dist").iterdir()} == dist_before
    assert tree_state(repo) == before
