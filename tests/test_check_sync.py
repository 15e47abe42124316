"""`make check` fails when the committed dist/ or charts/ differs from a fresh generation."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT

NODE_BIN = ROOT / "node_modules" / ".bin"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """What the generators read and write: main.py, the chart script, dist/ and charts/."""
    copy = tmp_path / "repo"
    copy.mkdir()
    shutil.copy2(ROOT / "main.py", copy / "main.py")
    shutil.copytree(ROOT / "scripts", copy / "scripts")
    shutil.copytree(ROOT / "dist", copy / "dist")
    shutil.copytree(ROOT / "charts", copy / "charts")
    return copy


def check_sync(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_sync.py"), "--root", str(repo)],
        env={**os.environ, "PATH": f"{NODE_BIN}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
    )


def append_a_space(repo: Path) -> None:
    path = repo / "dist" / "0001-headroom.k8s.yaml"
    path.write_bytes(path.read_bytes() + b" ")


def test_an_unmodified_copy_is_in_sync(repo: Path) -> None:
    result = check_sync(repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == (
        "dist/ is in sync with a fresh generation\n"
        "charts/node-headroom/ is in sync with a fresh generation\n"
    )


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
        (
            lambda repo: (repo / "main.py").write_text(
                (repo / "main.py")
                .read_text()
                .replace('SLICE_MEMORY = "512Mi"', 'SLICE_MEMORY = "1Gi"')
            ),
            "differs: 0001-headroom.k8s.yaml",
        ),
    ],
    ids=["edited-file", "deleted-file", "stray-file", "changed-source"],
)
def test_a_modified_copy_fails_and_names_the_file(
    repo: Path, modify: Callable[[Path], object], problem: str
) -> None:
    modify(repo)
    result = check_sync(repo)
    assert result.returncode == 1
    assert "dist/ is out of date with its sources; run `make synth`:" in result.stdout
    assert f"  {problem}\n" in result.stdout
