"""`make validate DIR=...`: one line per object, a summary, and the exit code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import ROOT
from tests.test_podsecurity import main, restricted_pod

NODE_BIN = ROOT / "node_modules" / ".bin"


def validate(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scripts.validate", str(folder)],
        cwd=ROOT,
        env={**os.environ, "PATH": f"{NODE_BIN}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
    )


def test_make_validate_passes_dist_with_a_line_per_object() -> None:
    result = subprocess.run(
        ["make", "--no-print-directory", "validate", "DIR=dist"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    verdicts = [line.split("\t") for line in lines if "\t" in line]
    assert [(kind, name, verdict) for _, kind, name, verdict in verdicts] == [
        ("Namespace", "node-headroom", "OK"),
        ("PriorityClass", "headroom-reserve", "OK"),
        ("PriorityClass", "default-no-preempt", "OK"),
        ("PriorityClass", "burst-critical", "OK"),
        ("DaemonSet", "headroom-reserver", "OK"),
        ("Deployment", "demo-burst", "OK"),
        ("DaemonSet", "headroom-reserver-prepull", "OK"),
    ]
    assert lines[-1].startswith("7 objects in dist: 7 OK, 0 failed")


def test_a_folder_with_bad_objects_fails_and_says_which(tmp_path: Path) -> None:
    writable = restricted_pod()
    main(writable)["readOnlyRootFilesystem"] = False
    pod = {**writable, "apiVersion": "v1", "kind": "Pod"}
    pod["metadata"] = {"name": "writable", "namespace": "apps"}
    typo = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "typo", "namespace": "apps"},
        "dataa": {"k": "v"},
    }
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    good = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "ok", "namespace": "apps"},
        "data": {},
    }
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "objects.yml").write_text(yaml.safe_dump_all([pod, typo, widget]))
    (tmp_path / "good.yaml").write_text(yaml.safe_dump(good))

    result = validate(tmp_path)

    assert result.returncode == 1
    text = result.stdout
    assert "good.yaml\tConfigMap\tok\tOK" in text
    assert "nested/objects.yml\tPod\twritable\tFAILED" in text
    assert "readOnlyRootFilesystem: must be true" in text
    assert "checkov CKV_K8S_22" in text  # checkov's read-only root filesystem check
    assert "nested/objects.yml\tConfigMap\ttypo\tFAILED" in text
    assert "'dataa' was unexpected" in text
    assert "nested/objects.yml\tWidget\tw\tFAILED" in text
    assert "no schema for example.com/v1 Widget" in text
    assert text.splitlines()[-1].startswith(f"4 objects in {tmp_path}: 1 OK, 3 failed")


def test_a_folder_without_objects_fails(tmp_path: Path) -> None:
    (tmp_path / "notes.yaml").write_text("# nothing here\n")
    result = validate(tmp_path)
    assert result.returncode == 1
    assert "no Kubernetes objects found" in result.stdout
