"""The Makefile's own output: `make help`'s columns, no recipe re-run when nothing
changed, and `make docs` without warnings. No target that installs runs here: its stamps
would make it reinstall the shared virtualenv."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def test_make_help_aligns_every_description_in_one_column() -> None:
    result = subprocess.run(
        ["make", "--no-print-directory", "help"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("model-comparison ") for line in lines)
    starts = {len(line) - len(line.split(maxsplit=1)[1]) for line in lines}
    assert len(starts) == 1, lines


def test_the_node_link_in_the_virtualenv_is_not_remade_when_nothing_changed(
    tmp_path: Path,
) -> None:
    # GIVEN an installed tree: npm keeps its packages' old mtimes, the stamps are newer,
    # and the link made after them
    shutil.copy(ROOT / "Makefile", tmp_path)
    node = tmp_path / "node_modules" / "node" / "bin" / "node"
    node.parent.mkdir(parents=True)
    node.write_text("")
    for name in ("requirements.txt", "pyproject.toml", "package.json", "package-lock.json"):
        (tmp_path / name).write_text("")
        os.utime(tmp_path / name, (1_000_000, 1_000_000))
    os.utime(node, (500_000_000, 500_000_000))
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / ".installed").write_text("")
    (tmp_path / "node_modules" / ".installed").write_text("")
    (tmp_path / ".venv" / "bin" / "node").symlink_to(node)

    # WHEN make is asked whether the link is up to date (-q runs no recipe)
    result = subprocess.run(
        ["make", "-q", ".venv/bin/node"], cwd=tmp_path, capture_output=True, text=True
    )

    # THEN it is
    assert result.returncode == 0, result.stdout + result.stderr


def test_make_docs_pdoc_command_prints_no_warning(tmp_path: Path) -> None:
    # The docs recipe's pdoc line as written, on this worktree's library.
    (command,) = [
        line.strip() for line in (ROOT / "Makefile").read_text().splitlines() if "-m pdoc " in line
    ]
    command = command.replace("$(PY)", sys.executable).replace("build/docs", str(tmp_path))
    result = subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'constructs'}{os.pathsep}{ROOT}"},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert re.findall(r"^Warn.*$", result.stdout + result.stderr, re.M) == []
    assert (tmp_path / "cdk8s_headroom.html").exists()
