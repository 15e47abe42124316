"""`make validate DIR=...`: one line per object, a summary, and the exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scripts.validation import kubernetes_versions, schema_errors
from tests.conftest import ROOT
from tests.test_documents_fuzz import BOMB
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


def test_a_folder_without_manifests_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no manifests here\n")

    result = validate(tmp_path)

    assert result.returncode == 2
    assert result.stderr == f"validate: error: {tmp_path}: no manifests in the folder " + (
        "(files named *.yaml, *.yml, *.json)\n"
    )


def test_unreadable_files_are_failed_lines_and_the_good_files_are_still_checked(
    tmp_path: Path,
) -> None:
    good = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "ok", "namespace": "apps"},
        "data": {},
    }
    (tmp_path / "a-broken.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n")
    (tmp_path / "b-good.yaml").write_text(yaml.safe_dump(good))
    (tmp_path / "c-utf16.yaml").write_bytes(yaml.safe_dump(good).encode("utf-16"))
    (tmp_path / "d-empty.yml").write_text("# nothing here\n")
    (tmp_path / "e-list.json").write_text(
        json.dumps({"apiVersion": "v1", "kind": "ConfigMapList", "items": [good]})
    )
    (tmp_path / "f-aliases.yaml").write_bytes(BOMB)
    (tmp_path / "g-deep.json").write_text("[" * 5000 + "]" * 5000)
    (tmp_path / "h-pool.json").write_text(
        '{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"}, '
        '"spec": {"weight": 1e400}}'
    )

    result = validate(tmp_path)

    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "a-broken.yaml\t-\t-\tFAILED",
        "    cannot read the file: line 4, column 1: invalid YAML: while parsing a flow "
        "mapping, did not find expected ',' or '}'",
        "b-good.yaml\tConfigMap\tok\tOK",
        "c-utf16.yaml\t-\t-\tFAILED",
        "    cannot read the file: UTF-16 text (it starts with a UTF-16 byte-order mark); "
        "save it as UTF-8",
        "d-empty.yml\t-\t-\tFAILED",
        "    cannot read the file: empty: no document in the file (or only comments)",
        "e-list.json\tConfigMap\tok\tOK",
        "f-aliases.yaml\t-\t-\tFAILED",
        "    cannot read the file: line 1, column 1: excessive aliasing: its anchors and "
        "aliases expand to 175304795 values from 27",
        "g-deep.json\t-\t-\tFAILED",
        "    cannot read the file: nested more than 100 levels deep",
        "h-pool.json\tNodePool\tp\tFAILED",
        "    karpenter schema: a number that JSON cannot hold (inf or nan)",
        f"3 objects in {tmp_path}: 2 OK, 1 failed, 5 files unreadable (schemas: Kubernetes "
        + " and ".join(kubernetes_versions())
        + "; Pod Security restricted; checkov)",
    ]


def test_a_kind_that_is_not_an_api_name_has_no_schema_and_reads_no_file() -> None:
    # The kind and apiVersion name the schema file: a path in them must not reach it.
    for kind, api_version in (
        ("../../../../_definitions", "v1"),
        ("Pod", "../v1"),
        ("{a: x}", "v1"),
    ):
        errors = schema_errors({"apiVersion": api_version, "kind": kind}, "1.27")
        assert errors == [f"no schema for {api_version} {kind} in Kubernetes 1.27"]


def test_objects_whose_wrong_types_crash_checkov_fail_alone_and_the_others_are_checked(
    tmp_path: Path,
) -> None:
    # checkov crashes (AttributeError, no report) on these shapes; they used to end
    # `make validate` in a traceback that hid every other file's verdict.
    for name in ("0000-cluster.k8s.yaml", "0001-headroom.k8s.yaml"):
        (tmp_path / name).write_text((ROOT / "dist" / name).read_text())
    wrong = {
        "metadata-a-string.yaml": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": "hello"},
        "spec-a-list.yaml": {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "apps"},
            "spec": [1],
        },
    }
    for name, obj in wrong.items():
        (tmp_path / name).write_text(yaml.safe_dump(obj))

    result = validate(tmp_path)

    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    verdicts = [line.split("\t") for line in result.stdout.splitlines() if "\t" in line]
    assert [(f, v) for f, _, _, v in verdicts if v == "FAILED"] == [
        ("metadata-a-string.yaml", "FAILED"),
        ("spec-a-list.yaml", "FAILED"),
    ]
    assert sum(v == "OK" for *_, v in verdicts) == 7
    assert result.stdout.splitlines()[-1].startswith("9 objects in ")


def test_an_object_checkov_cannot_scan_is_a_failed_verdict_of_its_own() -> None:
    from cdk8s_headroom.documents import SourcedObject
    from scripts.validation import checkov_failures

    # A string where checkov expects a container's mapping crashes it: the run on both
    # fails, and each is run alone, so only the crashing object loses its verdict.
    crashing = SourcedObject(
        file="x.yaml",
        index=0,
        obj={
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "apps"},
            "spec": {"containers": ["x"]},
        },
    )
    good = SourcedObject(
        file="y.yaml",
        index=0,
        obj={
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "ok", "namespace": "apps"},
            "data": {},
        },
    )

    verdicts = checkov_failures([crashing, good])

    assert isinstance(verdicts[0], str) and verdicts[0].startswith("checkov gave no report")
    assert verdicts[1] == []


def test_checkov_runs_within_a_time_limit_and_a_run_past_it_is_each_objects_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cdk8s_headroom.documents import SourcedObject
    from scripts import validation

    # A small file whose aliases repeat a large object took checkov minutes and GiBs:
    # its runs are bounded (time here; memory by RLIMIT_AS), and a run past the bound
    # is reported, not waited for, nor retried object by object.
    monkeypatch.setattr(validation, "_checkov_seconds", lambda files: 0.01)
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    objects = [SourcedObject(obj=config_map, file=f"{i}.yaml", index=0) for i in range(2)]

    verdicts = validation.checkov_failures(objects)

    assert verdicts == ["checkov ran past 0 s", "checkov ran past 0 s"]
