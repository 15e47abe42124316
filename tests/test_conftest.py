"""What tests/conftest.py's hooks do for a whole run: it cleans up after itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import conftest
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


class FakeReporter:
    def __init__(self, skip_reasons: list[str]) -> None:
        self.stats = {
            "skipped": [
                pytest.TestReport("t", ("t.py", 1, "t"), {}, "skipped", ("t.py", 1, reason), "call")
                for reason in skip_reasons
            ]
        }
        self.lines: list[str] = []

    def write_line(self, line: str) -> None:
        self.lines.append(line)


def test_the_summary_says_in_one_line_how_many_tests_skipped_for_want_of_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    absent = tmp_path / "shared"
    monkeypatch.setattr(conftest, "SHARED", absent)
    reporter = FakeReporter(
        [f"Skipped: {absent / 'crds'} is absent", f"Skipped: {absent}/snapshots", "no promtool"]
    )

    conftest.pytest_terminal_summary(reporter)  # type: ignore[arg-type]

    assert reporter.lines == [
        f"2 tests skipped: {absent} is absent (the upstream CRDs, the preemption vectors "
        "and real clusters' listings they read; CI has it: see README.md, Layout)"
    ]


def test_the_summary_says_nothing_of_shared_when_it_is_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conftest, "SHARED", tmp_path)
    reporter = FakeReporter([f"Skipped: {tmp_path / 'crds'} is absent"])

    conftest.pytest_terminal_summary(reporter)  # type: ignore[arg-type]

    assert reporter.lines == []
