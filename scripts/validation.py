"""Validation of emitted objects, for the tests, `make synth` and `make validate`.

Three checks, each usable on its own:

1. strict schemas: kubernetes-validate's strict JSON schemas (unknown fields are errors)
   for Kubernetes 1.27 and the newest version the package ships; Karpenter kinds go to
   the npm @kubernetes-models/karpenter validators (scripts/karpenter_validate.mjs);
   CapacityBuffers to the project's own schema and rules
   (``cdk8s_headroom.capacitybufferapi``). A kind without a schema is a failure, never
   a pass.
2. Pod Security "restricted" (``cdk8s_headroom.podsecurity``).
3. checkov's Kubernetes policies, with the skips listed in .checkov.yaml.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate.utils as kv
import yaml
from referencing import Registry, Resource

from cdk8s_headroom import capacitybufferapi, podsecurity
from cdk8s_headroom.errors import HeadroomConfigError
from cdk8s_headroom.output import load_manifests

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "node_modules" / ".bin" / "node"
KARPENTER_VALIDATOR = ROOT / "scripts" / "karpenter_validate.mjs"
KARPENTER_API_GROUPS = ("karpenter.sh/", "karpenter.k8s.aws/")
CHECKOV = ROOT / ".venv-checkov" / "bin" / "checkov"
CHECKOV_CONFIG = ROOT / ".checkov.yaml"

OLDEST_KUBERNETES = "1.27"
"""The oldest Kubernetes release the output must be valid for (cdk8s-plus-27's API)."""

MANIFEST_SUFFIXES = (".yaml", ".yml")

Manifest = dict[str, Any]


@dataclass(frozen=True)
class ObjectResult:
    """The validation of one object: empty ``errors`` means valid."""

    kind: str
    name: str
    errors: tuple[str, ...]


@dataclass(frozen=True)
class LoadedObject:
    """An object read from a manifest file, with where it sits in the file."""

    source: str
    document: Manifest
    first_line: int
    last_line: int

    @property
    def kind(self) -> str:
        return str(self.document.get("kind", "<no kind>"))

    @property
    def name(self) -> str:
        metadata = self.document.get("metadata")
        name = metadata.get("name") if isinstance(metadata, dict) else None
        return str(name or "<unnamed>")


@dataclass
class ObjectReport:
    """Everything found about one object; it passes when ``errors`` is empty."""

    item: LoadedObject
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


# --- 1. strict schemas -------------------------------------------------------------


def _major_minor(version: str) -> str:
    return ".".join(version.lstrip("v").split(".")[:2])


def newest_kubernetes() -> str:
    """The newest Kubernetes release kubernetes-validate has schemas for, e.g. ``1.37``."""
    return _major_minor(kv.latest_version())


def kubernetes_versions() -> tuple[str, ...]:
    """The releases every object is validated for: 1.27 and the newest known."""
    return tuple(dict.fromkeys((OLDEST_KUBERNETES, newest_kubernetes())))


@functools.cache
def _schema_folder(version: str) -> str:
    # The release's own schemas (its newest patch). kubernetes-validate would fall back to
    # an older release it has; here a release it lacks is an error, not a quieter check.
    known = [v for v in kv.all_versions() if _major_minor(v) == _major_minor(version)]
    if not known:
        raise HeadroomConfigError(
            "kubernetes version",
            version,
            f"one of {sorted(set(map(_major_minor, kv.all_versions())))}",
        )
    return f"kubernetes-json-schema/v{known[-1]}-local-strict"


@functools.cache
def _registry(version: str) -> Registry[Any]:
    definitions = kv.schema_contents(f"{_schema_folder(version)}/_definitions.json", version)
    return Resource.from_contents(definitions) @ Registry()


@functools.cache
def _validator(version: str, api_version: str, kind: str) -> jsonschema.protocols.Validator | None:
    # The file naming of kubernetes-validate: "rbac.authorization.k8s.io/v1" -> "rbac-v1".
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    try:
        schema = kv.schema_contents(
            f"{_schema_folder(version)}/{kind.lower()}-{group_version}.json", version
        )
    except FileNotFoundError:
        return None
    registry = Resource.from_contents(schema) @ _registry(version)
    validator: jsonschema.protocols.Validator = jsonschema.Draft202012Validator(
        schema, registry=registry
    )
    return validator


def schema_errors(document: Manifest, version: str) -> list[str]:
    """Every strict-schema error of a (non-Karpenter) object for a Kubernetes release.

    The same schemas as ``kubernetes-validate --strict``, loaded once per process, and
    every error rather than the first. No schema for the kind is an error.
    """
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return ["apiVersion and kind must be strings"]
    validator = _validator(version, api_version, kind)
    if validator is None:
        return [f"no schema for {api_version} {kind} in Kubernetes {version}"]
    errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.path)))
    return [f"{'.'.join(map(str, e.path)) or '<root>'}: {e.message}" for e in errors]


def is_karpenter(document: Manifest) -> bool:
    return str(document.get("apiVersion", "")).startswith(KARPENTER_API_GROUPS)


def has_own_schema(document: Manifest) -> bool:
    """Whether the object is of a kind the Kubernetes schemas do not hold, validated
    with a schema of its own (Karpenter's, the project's CapacityBuffer)."""
    return is_karpenter(document) or capacitybufferapi.is_capacity_buffer(document)


def validate_karpenter(documents: list[Manifest]) -> list[ObjectResult]:
    """Validates Karpenter objects with the npm ``@kubernetes-models/karpenter`` schemas.

    Unknown fields are errors, and so is a kind the package has no schema for.
    """
    if not documents:
        return []
    node = str(NODE) if NODE.exists() else "node"
    completed = subprocess.run(
        [node, str(KARPENTER_VALIDATOR)],
        input=json.dumps(documents),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "NODE_NO_WARNINGS": "1"},
        check=False,
    )
    if not completed.stdout:
        raise RuntimeError(f"the Karpenter validator failed: {completed.stderr.strip()}")
    return [
        ObjectResult(kind=r["kind"], name=r["name"], errors=tuple(r["errors"]))
        for r in json.loads(completed.stdout)
    ]


@functools.cache
def _capacity_buffer_validator(
    version: capacitybufferapi.CapacityBufferVersion,
) -> jsonschema.protocols.Validator:
    validator: jsonschema.protocols.Validator = jsonschema.Draft202012Validator(
        capacitybufferapi.schema(version)
    )
    return validator


def capacity_buffer_errors(document: Manifest) -> list[str]:
    """A CapacityBuffer's errors against the project's schema and rules of its version
    (``cdk8s_headroom.capacitybufferapi``); a version the project does not know is one."""
    version = capacitybufferapi.version_of(document)
    if version is None:
        known = [v.api_version for v in capacitybufferapi.CapacityBufferVersion]
        return [f"no schema for {document.get('apiVersion')} CapacityBuffer; known: {known}"]
    errors = sorted(
        _capacity_buffer_validator(version).iter_errors(document),
        key=lambda e: list(map(str, e.path)),
    )
    found = [f"{'.'.join(map(str, e.path)) or '<root>'}: {e.message}" for e in errors]
    spec = document.get("spec")
    if not found and isinstance(spec, dict):
        found += capacitybufferapi.rule_errors(spec)
    return found


def validate_schemas(documents: Sequence[Manifest]) -> list[list[str]]:
    """The schema errors of each object, in order, for every release in
    ``kubernetes_versions()`` (Karpenter objects and CapacityBuffers: their own
    schemas)."""
    results: list[list[str]] = [[] for _ in documents]
    karpenter = [i for i, d in enumerate(documents) if is_karpenter(d)]
    for index, result in zip(
        karpenter, validate_karpenter([documents[i] for i in karpenter]), strict=True
    ):
        results[index].extend(f"karpenter schema: {e}" for e in result.errors)
    for index, document in enumerate(documents):
        if index in karpenter:
            continue
        if capacitybufferapi.is_capacity_buffer(document):
            results[index].extend(
                f"CapacityBuffer schema: {e}" for e in capacity_buffer_errors(document)
            )
            continue
        for version in kubernetes_versions():
            results[index].extend(
                f"Kubernetes {version} schema: {e}" for e in schema_errors(document, version)
            )
    return results


def kubernetes_validate_cli(documents: Sequence[Manifest], workdir: Path) -> list[str]:
    """Runs the ``kubernetes-validate --strict`` CLI on ``documents``, for every release in
    ``kubernetes_versions()``; returns its problems (none means valid).

    The CLI only warns, and exits 0, on a kind it has no schema for: such a warning is
    a problem here. ``workdir`` receives the file the CLI reads.
    """
    manifest = workdir / "kubernetes-validate-input.yaml"
    manifest.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    command = [str(Path(sys.executable).parent / "kubernetes-validate"), "--strict", "--quiet"]
    for version in kubernetes_versions():
        command += ["-k", version]
    completed = subprocess.run(
        [*command, str(manifest)], capture_output=True, text=True, check=False
    )
    problems = [
        line
        for line in (completed.stdout + completed.stderr).splitlines()
        if line.startswith(("WARN", "ERROR", "FATAL"))
    ]
    if completed.returncode != 0 and not problems:
        problems.append(f"kubernetes-validate exited {completed.returncode}")
    return problems


def check_schemas(folder: Path) -> None:
    """A publication check (``promote(checks=...)``): every object passes its schemas."""
    loaded = list(load_manifests(folder))
    failures = [
        f"{path.name} {document.get('kind')}/{document.get('metadata', {}).get('name')}: "
        + "; ".join(errors)
        for (path, document), errors in zip(
            loaded, validate_schemas([d for _, d in loaded]), strict=True
        )
        if errors
    ]
    if failures:
        raise HeadroomConfigError(
            "schema",
            failures,
            "objects valid for the strict schemas of Kubernetes "
            + " and ".join(kubernetes_versions()),
        )


# --- 3. checkov --------------------------------------------------------------------


@dataclass(frozen=True)
class CheckovFailure:
    """A failed checkov check: where (file and lines) and which check."""

    file: str
    first_line: int
    last_line: int
    check_id: str
    check_name: str


def run_checkov(folder: Path, *, config: Path | None = CHECKOV_CONFIG) -> list[CheckovFailure]:
    """Runs checkov's Kubernetes policies on ``folder`` (offline), with ``config``'s skips.

    Raises:
        RuntimeError: when checkov is missing (``make test`` and ``make validate``
            install it in .venv-checkov) or does not produce a report.
    """
    if not CHECKOV.exists():
        raise RuntimeError(f"{CHECKOV} is missing: run `make validate` or `make test`")
    command = [str(CHECKOV), "--skip-download", "--framework", "kubernetes", "-o", "json"]
    if config is not None:
        command += ["--config-file", str(config.resolve())]
    command += ["-d", str(folder.resolve())]
    # checkov also reads a .checkov.yaml from its working directory; an empty one
    # keeps `config=None` meaning no skips at all.
    with tempfile.TemporaryDirectory() as workdir:
        completed = subprocess.run(
            command,
            capture_output=True,
            text=True,
            check=False,
            cwd=workdir,
            env={**os.environ, "LOG_LEVEL": "ERROR"},
        )
    try:
        report = json.loads(completed.stdout)
    except json.JSONDecodeError as error:
        raise RuntimeError(
            f"checkov gave no report (exit {completed.returncode}): {completed.stderr[-2000:]}"
        ) from error
    reports = report if isinstance(report, list) else [report]
    failures = []
    for part in reports:
        for check in part.get("results", {}).get("failed_checks", []):
            first, last = check.get("file_line_range") or (0, 0)
            failures.append(
                CheckovFailure(
                    file=str(check["file_path"]).lstrip("/"),
                    first_line=int(first),
                    last_line=int(last),
                    check_id=str(check["check_id"]),
                    check_name=str(check.get("check_name", "")),
                )
            )
    return failures


# --- folders of manifests ------------------------------------------------------------


def load_folder(folder: Path) -> list[LoadedObject]:
    """Every object of every YAML file under ``folder``, with its line range (1-based)."""
    objects = []
    for path in sorted(p for p in folder.rglob("*") if p.suffix in MANIFEST_SUFFIXES):
        source = str(path.relative_to(folder))
        for node in yaml.compose_all(path.read_text(), Loader=yaml.SafeLoader):
            if node is None:
                continue
            document = yaml.SafeLoader("").construct_document(node)
            if document is None:
                continue
            objects.append(
                LoadedObject(
                    source=source,
                    document=document if isinstance(document, dict) else {"value": document},
                    first_line=node.start_mark.line + 1,
                    last_line=node.end_mark.line + 1,
                )
            )
    return objects


def validate_objects(
    objects: Sequence[LoadedObject], *, checkov: Iterable[CheckovFailure] = ()
) -> list[ObjectReport]:
    """Runs checks 1 and 2 on each object and files checkov's failures under theirs."""
    reports = [ObjectReport(item) for item in objects]
    well_formed = [
        r
        for r in reports
        if isinstance(r.item.document.get("apiVersion"), str)
        and isinstance(r.item.document.get("kind"), str)
    ]
    for report in reports:
        if report not in well_formed:
            report.errors.append("not a Kubernetes object: apiVersion and kind are required")
    for report, errors in zip(
        well_formed, validate_schemas([r.item.document for r in well_formed]), strict=True
    ):
        report.errors.extend(errors)
    for report in well_formed:
        try:
            verdict = podsecurity.check_object(report.item.document)
        except HeadroomConfigError as error:
            report.errors.append(f"pod security: {error}")
            continue
        report.errors.extend(f"pod security: {v}" for v in verdict.violations)
        report.notes.extend(f"pod security exception: {v}" for v in verdict.excepted)
    for failure in checkov:
        owner = next(
            (
                r
                for r in reports
                if r.item.source == failure.file
                and r.item.first_line <= failure.first_line <= r.item.last_line
            ),
            None,
        )
        message = f"checkov {failure.check_id}: {failure.check_name}"
        if owner is None:
            raise RuntimeError(f"checkov reported {message} for {failure.file}, no such object")
        owner.errors.append(message)
    return reports
