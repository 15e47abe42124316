"""Every object the project publishes passes the strict schemas, Pod Security and checkov.

The outputs are dist/ and every example under examples/: an app ``examples/<name>.py``
(or ``examples/<name>/main.py``) is synthesized afresh into a temporary folder through
``CDK8S_OUTDIR``; a folder ``examples/<name>/`` without a main.py is judged by the
manifests committed in it. Examples are found by those rules alone, so a new one is
checked without touching this file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import kubernetes_validate.utils as kv
import pytest
from packaging.version import Version

from cdk8s_headroom.files.finding import MANIFEST_SUFFIXES
from cdk8s_headroom.vocabulary import pod_security
from scripts.validation import (
    has_own_schema,
    kubernetes_validate_cli,
    kubernetes_versions,
    load_folder,
    schema_errors,
    validate_objects,
)
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples"
NODE_BIN = ROOT / "node_modules" / ".bin"


def example_sources() -> list[Path]:
    """The example apps and example folders, in name order."""
    if not EXAMPLES.is_dir():
        return []
    return sorted(
        path
        for path in EXAMPLES.iterdir()
        if not path.name.startswith(("_", "."))
        and (path.suffix == ".py" or (path.is_dir() and path.name != "__pycache__"))
    )


OUTPUTS = ["dist", *(str(p.relative_to(ROOT)) for p in example_sources())]


def synthesize(script: Path, outdir: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT,
        env={
            **os.environ,
            "PATH": f"{NODE_BIN}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(ROOT),
            "CDK8S_OUTDIR": str(outdir),
        },
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, f"{script} failed:\n{result.stderr}"


@pytest.fixture(scope="module", params=OUTPUTS)
def output(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of manifests to judge: dist/, or an example's output."""
    name: str = request.param
    if name == "dist":
        return ROOT / "dist"
    source = ROOT / name
    script = source if source.suffix == ".py" else source / "main.py"
    if script.exists():
        outdir = tmp_path_factory.mktemp(source.stem) / "dist"
        synthesize(script, outdir)
        return outdir
    if not any(p.suffix in MANIFEST_SUFFIXES for p in source.rglob("*")):
        pytest.skip(f"{name} holds no manifests and no main.py")
    return source


def test_every_object_passes_the_strict_schemas_of_each_release(output: Path) -> None:
    objects = [o for o in load_folder(output) if not has_own_schema(o.obj)]
    assert objects, f"{output} has no Kubernetes objects"
    failures = {
        (o.file, o.kind, o.name, version): errors
        for o in objects
        for version in kubernetes_versions()
        if (errors := schema_errors(o.obj, version))
    }
    assert failures == {}


def test_the_kubernetes_validate_cli_agrees(output: Path, tmp_path: Path) -> None:
    documents = [o.obj for o in load_folder(output) if not has_own_schema(o.obj)]
    assert kubernetes_validate_cli(documents, tmp_path) == []


def test_every_object_passes_all_checks_together(output: Path) -> None:
    """Schemas (Karpenter's too), Pod Security and checkov, as `make validate` runs them."""
    reports = validate_objects(load_folder(output))
    failures = {(r.item.file, r.item.kind, r.item.name): r.errors for r in reports if not r.ok}
    assert failures == {}
    assert all(not r.notes for r in reports), "published output opts out of no control"


def test_every_pod_template_meets_restricted(output: Path) -> None:
    objects = load_folder(output)
    templates = [o for o in objects if list(pod_security.pod_templates(o.obj))]
    assert templates, f"{output} has no pod template"
    pod_security.check_documents((o.file, o.obj) for o in objects)


def test_the_releases_are_1_27_and_the_newest_the_validator_ships() -> None:
    newest = ".".join(kv.latest_version().split(".")[:2])
    assert kubernetes_versions() == ("1.27", newest)
    assert Version(newest) > Version("1.27")


UNKNOWN_FIELD = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "x"},
    "value": 1,
    "preemptionPolicey": "Never",
}
UNKNOWN_KIND = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}


@pytest.mark.parametrize("version", kubernetes_versions())
def test_an_unknown_field_is_an_error_for_each_release(version: str) -> None:
    (error,) = schema_errors(UNKNOWN_FIELD, version)
    assert "'preemptionPolicey' was unexpected" in error


@pytest.mark.parametrize("version", kubernetes_versions())
def test_a_kind_without_a_schema_is_an_error_not_a_pass(version: str) -> None:
    assert schema_errors(UNKNOWN_KIND, version) == [
        f"no schema for example.com/v1 Widget in Kubernetes {version}"
    ]


def test_the_cli_warning_for_a_kind_without_a_schema_counts_as_a_failure(tmp_path: Path) -> None:
    problems = kubernetes_validate_cli([UNKNOWN_KIND], tmp_path)
    assert len(problems) == len(kubernetes_versions())
    assert all(p.startswith("WARN") and "Widget" in p for p in problems)


def test_the_cli_rejects_an_unknown_field(tmp_path: Path) -> None:
    problems = kubernetes_validate_cli([UNKNOWN_FIELD], tmp_path)
    assert len(problems) == len(kubernetes_versions())
    assert all(p.startswith("ERROR") and "preemptionPolicey" in p for p in problems)
