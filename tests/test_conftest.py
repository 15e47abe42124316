"""What tests/conftest.py's hooks do for a whole run: it cleans up after itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

A_TEST_WITH_A_CHART = (
    "tests/objects/test_reserver.py::test_requests_equal_limits_for_guaranteed_qos"
)


def run_pytest(*args: str, tmpdir: Path) -> subprocess.CompletedProcess[str]:
    """pytest in a process of its own, with ``tmpdir`` as its temporary folder."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmpdir)},
        capture_output=True,
        text=True,
    )


def test_a_run_leaves_no_cdk8s_outdir_folder_and_keeps_other_runs_ones(tmp_path: Path) -> None:
    other_run = tmp_path / "cdk8s.outdir.other"
    other_run.mkdir()

    result = run_pytest("-q", A_TEST_WITH_A_CHART, tmpdir=tmp_path)

    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(p.name for p in tmp_path.rglob("cdk8s*")) == ["cdk8s.outdir.other"]
