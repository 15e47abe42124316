"""`cdk8s-headroom validate PATH` (and `make validate DIR=...`, which calls it): one line
per object, a summary, and the exit status: 0 valid, 1 objects failed, 2 the folder
cannot be read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from cdk8s_headroom.cli import main as cli_main
from cdk8s_headroom.validate import checkov
from cdk8s_headroom.validate.schemas import kubernetes_versions, schema_errors
from tests.conftest import ROOT, refuse_listing
from tests.files.test_documents_fuzz import BOMB
from tests.vocabulary.test_pod_security import main, restricted_pod

NODE_BIN = ROOT / "node_modules" / ".bin"
CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "ok", "namespace": "apps"},
    "data": {},
}


CHECKS = (
    f"(schemas: Kubernetes {' and '.join(kubernetes_versions())}; the API server's rules; "
    "Pod Security restricted; checkov)"
)
"""The end of the summary line when every check ran."""


def validate(folder: Path) -> subprocess.CompletedProcess[str]:
    """The installed command (``cdk8s-headroom`` is ``python -m cdk8s_headroom``), as
    users and ``make validate`` run it."""
    return subprocess.run(
        [sys.executable, "-m", "cdk8s_headroom", "validate", str(folder)],
        cwd=ROOT,
        env={**os.environ, "PATH": f"{NODE_BIN}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
    )


@dataclass(frozen=True)
class Validated:
    returncode: int
    stdout: str
    stderr: str


def validate_here(folder: Path, capsys: pytest.CaptureFixture[str]) -> Validated:
    """The command's main, which ``python -m cdk8s_headroom`` calls, in this process: the
    same report as ``validate``'s, but checkov runs in this process's server, started
    once for all the tests, not in one of each command's own (3 s each)."""
    returncode = cli_main(["validate", str(folder)])
    captured = capsys.readouterr()
    return Validated(returncode, captured.out, captured.err)


def make_validate(folder: Path | str) -> subprocess.CompletedProcess[str]:
    """`make validate DIR=folder`, without its `install` prerequisites: they would
    reinstall the virtualenv and node_modules that the test runs on."""
    return subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-o",
            "install",
            "-o",
            ".venv-checkov/.installed",
            "validate",
            f"DIR={folder}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def test_make_validate_passes_dist_with_a_line_per_object() -> None:
    result = make_validate("dist")
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


def test_a_folder_with_bad_objects_fails_and_says_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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

    result = validate_here(tmp_path, capsys)

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
    assert result.stderr == (
        f"cdk8s-headroom validate: error: {tmp_path}: no manifests in the folder "
        "(files named *.yaml, *.yml, *.json)\n"
    )


def test_unreadable_files_are_failed_lines_and_the_good_files_are_still_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
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
    # control characters in file names: escaped, so each listing line stays one line
    (tmp_path / "i-new\nline.yaml").write_text(yaml.safe_dump(good))
    (tmp_path / "j-\tbroken.yaml").write_text("kind: [\n")
    # the API server's strict decoding (k8s.io/apimachinery, sigs.k8s.io/yaml
    # UnmarshalStrict) refuses a key given twice; the last one must not silently win
    (tmp_path / "k-duplicate.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n  name: other\n"
    )
    os.mkfifo(tmp_path / "l-pipe.yaml")  # read, it would block until killed
    (tmp_path / "m-cut.json").write_text(json.dumps(good)[:30])

    result = validate_here(tmp_path, capsys)

    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "a-broken.yaml\t-\t-\tFAILED",
        "    cannot read the file: line 4, column 1: invalid YAML: while parsing a flow "
        "mapping (started at line 3, column 11), did not find expected ',' or '}'; the "
        "file ends early: is it truncated?",
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
        "i-new\\nline.yaml\tConfigMap\tok\tOK",
        "j-\\tbroken.yaml\t-\t-\tFAILED",
        "    cannot read the file: line 2, column 1: invalid YAML: while parsing a flow "
        "node, did not find expected node content; the file ends early: is it truncated?",
        "k-duplicate.yaml\t-\t-\tFAILED",
        "    cannot read the file: line 5, column 3: invalid YAML: the key 'name' appears "
        "twice in one mapping (first at line 4); Kubernetes' strict decoding refuses "
        "duplicate keys (the last value would silently win)",
        "l-pipe.yaml\t-\t-\tFAILED",
        "    cannot read the file: a named pipe (FIFO), not a regular file: only files are read",
        "m-cut.json\t-\t-\tFAILED",
        "    cannot read the file: line 1, column 30: invalid JSON: Unterminated string "
        "starting at line 1, column 30; the file ends early: is it truncated?",
        f"4 objects in {tmp_path}: 3 OK, 1 failed, 9 files unreadable {CHECKS}",
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


WRONG_TYPED = {
    "metadata-string": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: hello\n",
        "Kubernetes 1.27 schema: metadata: 'hello' is not of type 'object', 'null'",
    ),
    # The schemas allow a null metadata; checkov crashes on it.
    "metadata-null": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: null\n",
        "checkov could not scan it: TypeError: argument of type 'NoneType' is not iterable",
    ),
    "metadata-list": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: [1]\n",
        "Kubernetes 1.27 schema: metadata: [1] is not of type 'object', 'null'",
    ),
    "pod-spec-list": (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: [1]\n",
        "Kubernetes 1.27 schema: spec: [1] is not of type 'object', 'null'",
    ),
    "container-string": (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [x]}\n",
        "Kubernetes 1.27 schema: spec.containers.0: 'x' is not of type 'object', 'null'",
    ),
    "security-context-list": (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec: {securityContext: [1], containers: [{name: c, image: i}]}\n",
        "Kubernetes 1.27 schema: spec.securityContext: [1] is not of type 'object', 'null'",
    ),
    "nodepool-spec-list": (
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec: [1]\n",
        "karpenter schema: /spec must be object",
    ),
}


def test_objects_with_wrong_typed_fields_fail_and_hide_none_of_the_good_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # checkov crashes on such objects: the crash must stay on the object's own line.
    # checkov gets dist's 7 objects and metadata-null (the others fail their schemas):
    # 7 runs, halving down to the one it crashes on.
    for path in (ROOT / "dist").glob("*.yaml"):
        shutil.copy(path, tmp_path / path.name)
    for name, (text, _) in WRONG_TYPED.items():
        (tmp_path / f"zz-{name}.yaml").write_text(text)

    result = validate_here(tmp_path, capsys)

    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    verdicts = [line.split("\t") for line in lines if "\t" in line]
    dist_files = sorted(path.name for path in (ROOT / "dist").glob("*.yaml"))
    assert sorted({file for file, *_ in verdicts[:7]}) == dist_files
    assert [verdict for *_, verdict in verdicts[:7]] == ["OK"] * 7
    assert [(file, verdict) for file, _, _, verdict in verdicts[7:]] == [
        (f"zz-{name}.yaml", "FAILED") for name in sorted(WRONG_TYPED)
    ]
    first_detail = {
        line.split("\t")[0]: lines[n + 1] for n, line in enumerate(lines) if "\t" in line
    }
    for name, (_, reason) in WRONG_TYPED.items():
        assert first_detail[f"zz-{name}.yaml"] == f"    {reason}", name
    assert lines[-1].startswith(f"14 objects in {tmp_path}: 7 OK, 7 failed")


def test_without_checkov_the_other_checks_run_and_the_report_says_checkov_did_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(checkov, "find_checkov", lambda: None)
    (tmp_path / "cm.yaml").write_text(yaml.safe_dump(CONFIG_MAP))
    (tmp_path / "typo.yaml").write_text(yaml.safe_dump({**CONFIG_MAP, "dataa": {}}))

    code = cli_main(["validate", str(tmp_path)])

    captured = capsys.readouterr()
    assert code == 1
    assert captured.err == ""
    assert captured.out.splitlines()[-2:] == [
        "checkov: not run: not installed (make validate installs it in .venv-checkov; "
        "elsewhere, put a checkov on PATH)",
        f"2 objects in {tmp_path}: 1 OK, 1 failed (schemas: Kubernetes "
        f"{' and '.join(kubernetes_versions())}; the API server's rules; Pod Security "
        "restricted; checkov not run)",
    ]


def test_a_folder_that_cannot_be_listed_is_one_line_with_status_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cm.yaml").write_text(yaml.safe_dump(CONFIG_MAP))
    refuse_listing(monkeypatch, tmp_path)

    code = cli_main(["validate", str(tmp_path)])

    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err == (
        f"cdk8s-headroom validate: error: {tmp_path}: cannot list the folder (Permission denied)\n"
    )


def test_make_validate_names_the_status_of_the_command_on_its_last_line(tmp_path: Path) -> None:
    # GNU make exits 2 for any failed recipe: the command's own status (1: objects
    # failed; 2: the folder cannot be read) must survive in the output.
    (tmp_path / "typo.yaml").write_text(yaml.safe_dump({**CONFIG_MAP, "dataa": {}}))

    failed = make_validate(tmp_path)
    unreadable = make_validate(tmp_path / "missing")

    assert failed.returncode == 2
    assert "typo.yaml\tConfigMap\tok\tFAILED" in failed.stdout
    # make's own "*** [Makefile:N: validate] Error N" line comes last
    assert failed.stderr.splitlines()[-2] == (
        "make validate: cdk8s-headroom validate exited 1 (objects failed)"
    )
    assert unreadable.returncode == 2
    assert unreadable.stderr.splitlines()[-3:-1] == [
        f"cdk8s-headroom validate: error: {tmp_path / 'missing'}: cannot read it "
        "(No such file or directory)",
        "make validate: cdk8s-headroom validate exited 2 (the folder cannot be read, or bad input)",
    ]


def _pod(name: str, resources: list[dict[str, object]]) -> dict[str, object]:
    pod = restricted_pod()
    pod["spec"]["containers"] = [
        {"name": f"c{index}", "image": "nginx", "securityContext": main(pod), "resources": given}
        for index, given in enumerate(resources)
    ]
    return {**pod, "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "a"}}


def test_what_the_api_server_refuses_but_the_schemas_accept_fails_with_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # kubernetes pkg/apis/core/validation/validation.go ValidateResourceRequirements
    # (ValidateNonnegativeQuantity; a request above its limit), apimachinery
    # pkg/api/resource/math.go maxAllowed, and robfig/cron's ASCII numbers.
    bad = _pod(
        "bad",
        [
            {"requests": {"cpu": "-1", "memory": "64Mi"}, "limits": {"memory": "64Mi"}},
            {"requests": {"cpu": "2", "memory": "1e64"}, "limits": {"cpu": 1, "memory": "1e64"}},
        ],
    )
    good = _pod("good", [{"requests": {"cpu": "0", "memory": "7Ei"}, "limits": {"cpu": "1"}}])
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all([bad, good]))
    cron_job = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "nightly", "namespace": "a"},
        "spec": {
            "schedule": "\uff10 \uff18 * * *",
            "jobTemplate": {"spec": {"template": {"spec": good["spec"]}}},
        },
    }
    (tmp_path / "cron.yaml").write_text(yaml.safe_dump(cron_job, allow_unicode=True))

    result = validate_here(tmp_path, capsys)

    assert result.returncode == 1, result.stderr
    cron_lines = result.stdout.split("cron.yaml\tCronJob\tnightly\tFAILED\n")[1].splitlines()
    assert cron_lines[0] == (
        "    API server: spec.schedule: invalid value '\\uff10 \\uff18 * * *': a cron "
        "schedule in ASCII (digits 0-9), as robfig/cron parses it"
    )
    bad_lines = result.stdout.split("pods.yaml\tPod\tbad\tFAILED\n")[1].splitlines()
    assert bad_lines[:4] == [
        "    API server: spec.containers[0].resources.requests.cpu: invalid value '-1': "
        "must be greater than or equal to 0",
        "    API server: spec.containers[1].resources.limits.memory: invalid value '1e64': "
        "more than 2^63-1 (9223372036854775807) in cores or bytes, the largest quantity",
        "    API server: spec.containers[1].resources.requests.memory: invalid value '1e64': "
        "more than 2^63-1 (9223372036854775807) in cores or bytes, the largest quantity",
        "    API server: spec.containers[1].resources.requests.cpu: invalid value '2': must "
        "be less than or equal to cpu limit of 1",
    ]
    good_lines = result.stdout.split("pods.yaml\tPod\tgood\t")[1].splitlines()[1:]
    assert [line for line in good_lines if line.startswith("    API server")] == []
