"""`make check` fails when the committed dist/ or charts/ differs from a fresh generation."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from scripts import check_sync as check_sync_script
from tests.conftest import ROOT

NODE_BIN = ROOT / "node_modules" / ".bin"
PATH = f"{NODE_BIN}{os.pathsep}{os.environ['PATH']}"


def copy_repo(folder: Path) -> Path:
    """What the generators read and write: main.py, the chart script, dist/ and charts/."""
    copy = folder / "repo"
    copy.mkdir()
    shutil.copy2(ROOT / "main.py", copy / "main.py")
    shutil.copytree(ROOT / "scripts", copy / "scripts")
    shutil.copytree(ROOT / "dist", copy / "dist")
    shutil.copytree(ROOT / "charts", copy / "charts")
    return copy


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return copy_repo(tmp_path)


def check_sync(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_sync.py"), "--root", str(repo)],
        env={**os.environ, "PATH": PATH},
        capture_output=True,
        text=True,
    )


@dataclasses.dataclass(frozen=True)
class InSync:
    """check_sync's status and output on an unmodified copy, and what its generators
    wrote there (one folder per GENERATORS entry)."""

    status: int
    stdout: str
    generated: Path


@pytest.fixture(scope="module")
def in_sync(tmp_path_factory: pytest.TempPathFactory) -> InSync:
    """check_sync's ``main`` on an unmodified copy, with its real generators (main.py and
    scripts/chart.py, each in a process of its own), keeping a copy of what they wrote:
    the cases that only edit the committed folders compare against that generation
    instead of making the same one again (two processes, about 2 s, each)."""
    folder = tmp_path_factory.mktemp("in-sync")
    generated = folder / "generated"

    def keeping(generator: check_sync_script.Generator) -> check_sync_script.Generator:
        def generate(root: Path, outdir: Path) -> None:
            generator.generate(root, outdir)
            shutil.copytree(outdir, generated / generator.folder)

        return dataclasses.replace(generator, generate=generate)

    stdout = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(stdout):
        patch.setenv("PATH", PATH)
        patch.setattr(
            check_sync_script,
            "GENERATORS",
            tuple(keeping(g) for g in check_sync_script.GENERATORS),
        )
        status = check_sync_script.main(["--root", str(copy_repo(folder))])
    return InSync(status, stdout.getvalue(), generated)


def test_an_unmodified_copy_is_in_sync(in_sync: InSync) -> None:
    assert in_sync.status == 0, in_sync.stdout
    assert in_sync.stdout == (
        "dist/ is in sync with a fresh generation\n"
        "charts/node-headroom/ is in sync with a fresh generation\n"
    )
    assert {p.name for p in (in_sync.generated / "dist").iterdir()} == {
        p.name for p in (ROOT / "dist").iterdir()
    }


def append_a_space(repo: Path) -> None:
    path = repo / "dist" / "0001-headroom.k8s.yaml"
    path.write_bytes(path.read_bytes() + b" ")


@pytest.mark.parametrize(
    ("modify", "problem"),
    [
        (append_a_space, "differs: 0001-headroom.k8s.yaml"),
        (
            lambda repo: (repo / "dist" / "0000-cluster.k8s.yaml").unlink(),
            "missing from dist/: 0000-cluster.k8s.yaml",
        ),
        (
            lambda repo: (repo / "dist" / "extra.k8s.yaml").write_text("{}\n"),
            "not generated any more: extra.k8s.yaml",
        ),
    ],
    ids=["edited-file", "deleted-file", "stray-file"],
)
def test_a_modified_copy_fails_and_names_the_file(
    repo: Path,
    modify: Callable[[Path], object],
    problem: str,
    in_sync: InSync,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # GIVEN a copy whose committed dist/ was edited, and the generation of its unedited
    # sources (the same as the unmodified copy's: only dist/ changed)
    modify(repo)

    def replay(generator: check_sync_script.Generator) -> check_sync_script.Generator:
        def generate(root: Path, outdir: Path) -> None:
            assert root == repo.resolve()
            shutil.copytree(in_sync.generated / generator.folder, outdir)

        return dataclasses.replace(generator, generate=generate)

    monkeypatch.setattr(
        check_sync_script, "GENERATORS", tuple(replay(g) for g in check_sync_script.GENERATORS)
    )

    # WHEN check_sync compares them
    status = check_sync_script.main(["--root", str(repo)])

    # THEN it fails, naming the file
    stdout = capsys.readouterr().out
    assert status == 1
    assert "dist/ is out of date with its sources; run `make synth`:" in stdout
    assert f"  {problem}\n" in stdout


def test_a_changed_source_fails_the_script_and_names_the_file(repo: Path) -> None:
    # The whole script as `make dist-sync` runs it: a fresh generation of the edited app.
    main = repo / "main.py"
    main.write_text(main.read_text().replace('SLICE_MEMORY = "512Mi"', 'SLICE_MEMORY = "1Gi"'))
    result = check_sync(repo)
    assert result.returncode == 1
    assert "dist/ is out of date with its sources; run `make synth`:" in result.stdout
    assert "  differs: 0001-headroom.k8s.yaml\n" in result.stdout
