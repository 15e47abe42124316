"""run_app, the examples' main: an app published whole, its summaries on stdout, and a
configuration error as one line and exit status 2 with the folder left as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import NodeHeadroom, run_app

ROOT = Path(__file__).resolve().parents[2]


def _headroom(cpu: str) -> Any:
    def build(app: cdk8s.App) -> None:
        NodeHeadroom(cdk8s.Chart(app, "headroom"), "headroom", cpu=cpu, memory="512Mi")

    return build


def test_an_app_is_published_and_each_headroom_summarized_on_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.delenv("CDK8S_OUTDIR", raising=False)

    assert run_app(_headroom("500m"), tmp_path / "dist") == 0

    out, err = capsys.readouterr()
    assert out.startswith("headroom-reserver (GUARDED) on every node: 500m CPU, 512Mi memory")
    assert err == f"wrote headroom.k8s.yaml to {tmp_path / 'dist'}/\n"
    assert "kind: DaemonSet" in (tmp_path / "dist" / "headroom.k8s.yaml").read_text()


def test_a_bad_prop_is_one_line_and_status_2_and_the_folder_keeps_what_it_had(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    # GIVEN a folder an earlier run published, named by $CDK8S_OUTDIR
    target = tmp_path / "out"
    target.mkdir()
    (target / "earlier.k8s.yaml").write_text("kept: true\n")
    monkeypatch.setenv("CDK8S_OUTDIR", str(target))
    # WHEN the app's slice is no quantity
    status = run_app(_headroom("lots"), tmp_path / "unused")
    # THEN one line says so, with main.py's words, and nothing was written
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    assert err.startswith(f"synth failed, {target}/ left as it was: cpu: invalid value 'lots';")
    assert err.count("\n") == 1
    assert [p.name for p in target.iterdir()] == ["earlier.k8s.yaml"]
    assert not (tmp_path / "unused").exists()


def test_an_edited_example_with_a_bad_value_exits_2_without_a_traceback(tmp_path: Path) -> None:
    # The examples invite editing: a user's typo is the one line, as in main.py
    source = (ROOT / "examples" / "first_pool.py").read_text()
    assert 'cpu="500m"' in source
    edited = tmp_path / "first_pool.py"
    edited.write_text(source.replace('cpu="500m"', 'cpu="5OOm"', 1))

    result = subprocess.run(
        [sys.executable, str(edited)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "CDK8S_OUTDIR": str(tmp_path / "dist")},
    )

    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert "cpu: invalid value '5OOm'" in result.stderr
    assert not (tmp_path / "dist").exists()
