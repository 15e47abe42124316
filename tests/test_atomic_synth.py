"""`make synth` on a copy of the repository: a failed synthesis changes nothing at all.

GitOps tools sync dist/, often pruning what disappears from it. So a synthesis that
fails, whether by a bad prop, a crash halfway through writing, or objects that would
fail at apply time, must leave dist/ byte-identical and the rest of the tree as it was.
Each case runs on a temporary copy of the repository with its own git history, so the
real worktree is never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

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


def make_synth(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(MAKE_SYNTH, cwd=repo, capture_output=True, text=True)


def edit_main(repo: Path, edit: Callable[[str], str]) -> None:
    main = repo / "main.py"
    main.write_text(edit(main.read_text()))
    git(repo, "commit", "-q", "-am", "edit main.py")


def inject_before_synth(code: str) -> Callable[[str], str]:
    """Puts ``code`` into main.py's __main__ block, after build(app), before synth(app)."""

    def edit(text: str) -> str:
        marker = "    build(app)\n"
        assert marker in text
        return text.replace(marker, marker + code)

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
    assert "wrote 7 objects in 2 files to dist/" in result.stdout
    assert tree_state(repo) == before


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda text: text.replace('SLICE_CPU = "500m"', 'SLICE_CPU = "500mm"'), "cpu"),
        (inject_before_synth(CRASH_WHILE_WRITING), "injected crash halfway through writing"),
        (inject_before_synth(UNKNOWN_FIELD), "'dataa' was unexpected"),
        (inject_before_synth(HOST_PATH_POD), "hostPath is not allowed"),
    ],
    ids=["bad-prop", "crash-while-writing", "schema-check", "pod-security-check"],
)
def test_a_failed_synthesis_leaves_dist_and_the_tree_unchanged(
    repo: Path, edit: Callable[[str], str], reason: str
) -> None:
    edit_main(repo, edit)
    dist_before = {p.name: p.read_bytes() for p in (repo / "dist").iterdir()}
    before = tree_state(repo)

    result = make_synth(repo)

    assert result.returncode != 0
    assert reason in result.stdout + result.stderr
    assert {p.name: p.read_bytes() for p in (repo / "dist").iterdir()} == dist_before
    assert tree_state(repo) == before
