"""Validation of emitted objects, for the tests, `make synth` and `make validate`.

Three checks, each usable on its own:

1. strict schemas: kubernetes-validate's strict JSON schemas (unknown fields are errors)
   for Kubernetes 1.27 and the newest version the package ships; Karpenter kinds go to
   the npm @kubernetes-models validators of Karpenter, the Prometheus Operator, Argo CD
   and Flux (scripts/models_validate.mjs);
   CapacityBuffers to the project's own schema and rules
   (``cdk8s_headroom.vocabulary.capacity_buffer_api``). A kind without a schema is a failure, never
   a pass.
2. Pod Security "restricted" (``cdk8s_headroom.vocabulary.pod_security``).
3. checkov's Kubernetes policies, with the skips listed in .checkov.yaml, within bounds
   of memory and time.
"""

from __future__ import annotations

import functools
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate.utils as kv
import yaml
from referencing import Registry, Resource

from cdk8s_headroom.files.documents import FileObjects, InputFileError, SourcedObject, read_each
from cdk8s_headroom.files.publish import load_manifests
from cdk8s_headroom.vocabulary import capacity_buffer_api, pod_security
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "node_modules" / ".bin" / "node"
MODELS_VALIDATOR = ROOT / "scripts" / "models_validate.mjs"
KARPENTER_API_GROUPS = ("karpenter.sh/", "karpenter.k8s.aws/")
MODELLED_API_GROUPS = (
    *KARPENTER_API_GROUPS,
    "monitoring.coreos.com/",
    "argoproj.io/",
    "source.toolkit.fluxcd.io/",
    "kustomize.toolkit.fluxcd.io/",
)
"""The API groups whose objects the npm @kubernetes-models schemas validate (the
versions each one knows: ``MODELS`` in scripts/models_validate.mjs)."""
CHECKOV = ROOT / ".venv-checkov" / "bin" / "checkov"
CHECKOV_CONFIG = ROOT / ".checkov.yaml"

OLDEST_KUBERNETES = "1.27"
"""The oldest Kubernetes release the output must be valid for (cdk8s-plus-27's API)."""

Manifest = dict[str, Any]


@dataclass(frozen=True)
class ObjectResult:
    """The validation of one object: empty ``errors`` means valid."""

    kind: str
    name: str
    errors: tuple[str, ...]


@dataclass
class ObjectReport:
    """Everything found about one object; it passes when ``errors`` is empty."""

    item: SourcedObject
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


_KIND = re.compile(r"[A-Za-z][A-Za-z0-9]{0,62}")
_API_VERSION = re.compile(r"(?:[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?v[0-9][a-z0-9]{0,20}")


@functools.cache
def _validator(version: str, api_version: str, kind: str) -> jsonschema.protocols.Validator | None:
    # A kind or apiVersion is part of a file name below: only API names may get there.
    if not _KIND.fullmatch(kind) or not _API_VERSION.fullmatch(api_version):
        return None
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


def is_modelled(document: Manifest) -> bool:
    """Whether an npm @kubernetes-models schema validates the object (``MODELLED_API_GROUPS``)."""
    return str(document.get("apiVersion", "")).startswith(MODELLED_API_GROUPS)


_NEWER_OPERATORS = {"Gte": ("Gt", -1), "Lte": ("Lt", 1)}
"""Requirement operators of Karpenter v1.9 and later that @kubernetes-models/karpenter
2.0.0 predates, with the older operator and the shift that says the same on integers."""


def _as_older_karpenter(document: Manifest) -> Manifest:
    """``document`` with ``Gte n``/``Lte n`` requirements written ``Gt n-1``/``Lt n+1``.

    Karpenter compares these labels as integers, so the two say the same; the npm
    schemas check everything else. The v1.14.1 CRD (tests, ``scripts/crd.py``) checks
    the operators as written.
    """
    spec = document.get("spec")
    template = spec.get("template") if isinstance(spec, dict) else None
    template_spec = template.get("spec") if isinstance(template, dict) else None
    requirements = template_spec.get("requirements") if isinstance(template_spec, dict) else None
    if document.get("kind") != "NodePool" or not isinstance(requirements, list):
        return document
    rewritten = []
    for requirement in requirements:
        operator = requirement.get("operator") if isinstance(requirement, dict) else None
        values = requirement.get("values") if isinstance(requirement, dict) else None
        if operator in _NEWER_OPERATORS and isinstance(values, list) and len(values) == 1:
            older, shift = _NEWER_OPERATORS[operator]
            try:
                bound = int(values[0])
            except (TypeError, ValueError):
                rewritten.append(requirement)
                continue
            requirement = {**requirement, "operator": older, "values": [str(bound + shift)]}
        rewritten.append(requirement)
    copy = json.loads(json.dumps(document))
    copy["spec"]["template"]["spec"]["requirements"] = rewritten
    return copy


def has_own_schema(document: Manifest) -> bool:
    """Whether the object is of a kind the Kubernetes schemas do not hold, validated
    with a schema of its own (Karpenter's, the project's CapacityBuffer)."""
    return is_modelled(document) or capacity_buffer_api.is_capacity_buffer(document)


def validate_models(documents: list[Manifest]) -> list[ObjectResult]:
    """Validates objects of ``MODELLED_API_GROUPS`` with the npm ``@kubernetes-models``
    schemas (scripts/models_validate.mjs).

    Unknown fields are errors, and so is a kind the packages have no schema for.
    ``@kubernetes-models/karpenter`` predates Karpenter v1.9's ``Gte``/``Lte``
    operators: those requirements reach it as the ``Gt``/``Lt`` that say the same
    (``_as_older_karpenter``).
    """
    if not documents:
        return []
    node = str(NODE) if NODE.exists() else "node"
    completed = subprocess.run(
        [node, str(MODELS_VALIDATOR)],
        input=json.dumps([_as_older_karpenter(d) for d in documents]),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "NODE_NO_WARNINGS": "1"},
        check=False,
    )
    if not completed.stdout:
        raise RuntimeError(f"the @kubernetes-models validator failed: {completed.stderr.strip()}")
    return [
        ObjectResult(kind=r["kind"], name=r["name"], errors=tuple(r["errors"]))
        for r in json.loads(completed.stdout)
    ]


@functools.cache
def _capacity_buffer_validator(
    version: capacity_buffer_api.CapacityBufferVersion,
) -> jsonschema.protocols.Validator:
    validator: jsonschema.protocols.Validator = jsonschema.Draft202012Validator(
        capacity_buffer_api.schema(version)
    )
    return validator


def capacity_buffer_errors(document: Manifest) -> list[str]:
    """A CapacityBuffer's errors against the project's schema and rules of its version
    (``cdk8s_headroom.vocabulary.capacity_buffer_api``); an unknown version is one."""
    version = capacity_buffer_api.version_of(document)
    if version is None:
        known = [v.api_version for v in capacity_buffer_api.CapacityBufferVersion]
        return [f"no schema for {document.get('apiVersion')} CapacityBuffer; known: {known}"]
    errors = sorted(
        _capacity_buffer_validator(version).iter_errors(document),
        key=lambda e: list(map(str, e.path)),
    )
    found = [f"{'.'.join(map(str, e.path)) or '<root>'}: {e.message}" for e in errors]
    spec = document.get("spec")
    if not found and isinstance(spec, dict):
        found += capacity_buffer_api.rule_errors(spec)
    return found


def _model_name(document: Manifest) -> str:
    """How a schema error names the package's schema: ``karpenter`` as before, else the
    API group."""
    if is_karpenter(document):
        return "karpenter"
    return str(document.get("apiVersion", "")).partition("/")[0]


def _is_json(document: Manifest) -> bool:
    # YAML's .inf and .nan, and JSON's 1e400, have no JSON form for the Node validator.
    try:
        json.dumps(document, allow_nan=False)
    except ValueError:
        return False
    return True


def validate_schemas(documents: Sequence[Manifest]) -> list[list[str]]:
    """The schema errors of each object, in order, for every release in
    ``kubernetes_versions()`` (Karpenter objects and CapacityBuffers: their own
    schemas)."""
    results: list[list[str]] = [[] for _ in documents]
    modelled = [i for i, d in enumerate(documents) if is_modelled(d)]
    sendable = [i for i in modelled if _is_json(documents[i])]
    for index in set(modelled) - set(sendable):
        results[index].append(
            f"{_model_name(documents[index])} schema: a number that JSON cannot hold (inf or nan)"
        )
    for index, result in zip(
        sendable, validate_models([documents[i] for i in sendable]), strict=True
    ):
        results[index].extend(f"{_model_name(documents[index])} schema: {e}" for e in result.errors)
    for index, document in enumerate(documents):
        if index in modelled:
            continue
        if capacity_buffer_api.is_capacity_buffer(document):
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


CHECKOV_MEMORY_BYTES = 4 * 2**30
"""The address space one checkov run may take. checkov holds every object's graph in
memory, about 1.7 MB for each object of dist/ and 40 KB for each list item of a large
one: 2000 ordinary objects fit, a few objects of a hundred thousand values each do not.
A folder that is too big for one run is scanned in halves (``checkov_failures``)."""

CHECKOV_TIMEOUT_SECONDS = 600
"""The longest one checkov run may take: about 20 times what 1000 ordinary objects take."""


class CheckovError(RuntimeError):
    """A checkov run that gave no report: it crashed, or hit ``CHECKOV_MEMORY_BYTES`` or
    ``CHECKOV_TIMEOUT_SECONDS``. The message says which, in words fit for a report line."""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHECKOV_MEMORY_BYTES, CHECKOV_MEMORY_BYTES))


def _run_bounded(command: list[str], *, cwd: str) -> tuple[int, str, str]:
    """The exit status, stdout and stderr of ``command``, run under ``_limit_memory`` and
    killed with everything it started once ``CHECKOV_TIMEOUT_SECONDS`` have passed."""
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, "LOG_LEVEL": "ERROR"},
        preexec_fn=_limit_memory,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=CHECKOV_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise CheckovError(
                f"checkov ran out of time (more than {CHECKOV_TIMEOUT_SECONDS} s)"
            ) from None
    return process.returncode, stdout, stderr


def _no_report(returncode: int, stderr: str) -> CheckovError:
    lines = stderr.strip().splitlines()
    last = lines[-1].strip() if lines else ""
    memory = f"{CHECKOV_MEMORY_BYTES // 2**20} MiB"
    if last.startswith("MemoryError"):
        return CheckovError(f"checkov ran out of memory (more than {memory})")
    if returncode < 0:
        name = signal.Signals(-returncode).name
        return CheckovError(f"checkov was killed by {name} (its memory is limited to {memory})")
    return CheckovError(f"checkov could not scan it: {last or f'exit {returncode}, no report'}")


def run_checkov(folder: Path, *, config: Path | None = CHECKOV_CONFIG) -> list[CheckovFailure]:
    """Runs checkov's Kubernetes policies on ``folder`` (offline), with ``config``'s skips,
    within ``CHECKOV_MEMORY_BYTES`` and ``CHECKOV_TIMEOUT_SECONDS``.

    Raises:
        RuntimeError: when checkov is missing (``make test`` and ``make validate``
            install it in .venv-checkov).
        CheckovError: when checkov crashes or hits a limit, without a report.
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
        returncode, stdout, stderr = _run_bounded(command, cwd=workdir)
    try:
        report = json.loads(stdout)
    except json.JSONDecodeError:
        raise _no_report(returncode, stderr) from None
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


def read_folder(path: Path) -> list[FileObjects]:
    """Every manifest file under ``path`` (a folder, read recursively, or a file), in
    reading order, with its objects or the error that stopped it; files are named
    relative to ``path``.

    Raises:
        InputFileError: when ``path`` itself cannot be read or holds no manifests.
    """
    base = path if path.is_dir() else path.parent
    results = []
    for result in read_each(path):
        error = result.error
        results.append(
            FileObjects(
                _relative(result.file, base),
                [replace(o, file=_relative(o.file, base)) for o in result.objects],
                None
                if error is None
                else InputFileError(
                    _relative(error.file, base), error.problem, line=error.line, column=error.column
                ),
            )
        )
    return results


def _relative(file: str, base: Path) -> str:
    return Path(file).relative_to(base).as_posix() if Path(file).is_relative_to(base) else file


def load_folder(path: Path) -> list[SourcedObject]:
    """Every object under ``path``, as ``read_folder`` names them.

    Raises:
        InputFileError: for the first file that cannot be read.
    """
    objects = []
    for result in read_folder(path):
        if result.error is not None:
            raise result.error
        objects += result.objects
    return objects


@dataclass(frozen=True)
class CheckovScan:
    """checkov's verdict on one object: its failed checks, or why it could not be scanned."""

    failures: tuple[CheckovFailure, ...] = ()
    problem: str | None = None


def checkov_failures(objects: Sequence[SourcedObject]) -> list[CheckovScan]:
    """checkov's verdict on each object.

    Each object goes to checkov in a file of its own, as read: so checkov judges exactly
    the objects the other checks judge (it skips the items of a ``PodList``, and it
    cannot read a file the reader refused), and every failure has one owner. When a run
    crashes or hits a limit, each half is scanned on its own, down to the one object
    that checkov cannot scan: one bad object costs a few runs, and hides nothing else.
    """
    scans: list[CheckovScan] = [CheckovScan() for _ in objects]
    pending = [list(range(len(objects)))] if objects else []
    while pending:
        indices = pending.pop()
        try:
            failures = _checkov_run(objects, indices)
        except CheckovError as error:
            if len(indices) == 1:
                scans[indices[0]] = CheckovScan(problem=str(error))
            else:
                half = len(indices) // 2
                pending += [indices[half:], indices[:half]]
            continue
        owned: dict[int, list[CheckovFailure]] = {index: [] for index in indices}
        for failure in failures:
            owned[int(Path(failure.file).stem)].append(failure)
        for index, found in owned.items():
            scans[index] = CheckovScan(failures=tuple(found))
    return scans


def _checkov_run(objects: Sequence[SourcedObject], indices: list[int]) -> list[CheckovFailure]:
    with tempfile.TemporaryDirectory() as workdir:
        folder = Path(workdir)
        for index in indices:
            text = yaml.safe_dump(objects[index].obj, sort_keys=False)
            (folder / f"{index:06d}.yaml").write_text(text)
        return run_checkov(folder)


def validate_objects(
    objects: Sequence[SourcedObject], *, checkov: bool = True
) -> list[ObjectReport]:
    """Runs the strict schemas and Pod Security on each object, and checkov when asked
    on each object that passes its schemas."""
    reports = [ObjectReport(item) for item in objects]
    schema = validate_schemas([o.obj for o in objects])
    for report, errors in zip(reports, schema, strict=True):
        report.errors.extend(errors)
    for report in reports:
        try:
            verdict = pod_security.check_object(report.item.obj)
        except HeadroomConfigError as error:
            report.errors.append(f"pod security: {error}")
            continue
        report.errors.extend(f"pod security: {v}" for v in verdict.violations)
        report.notes.extend(f"pod security exception: {v}" for v in verdict.excepted)
    if checkov:
        # An object that fails its schema is already FAILED, and a wrong-typed field
        # (`metadata: hello`) crashes checkov: only the others go to it.
        scanned = [r for r, errors in zip(reports, schema, strict=True) if not errors]
        for report, scan in zip(scanned, checkov_failures([r.item for r in scanned]), strict=True):
            report.errors.extend(f"checkov {f.check_id}: {f.check_name}" for f in scan.failures)
            if scan.problem is not None:
                report.errors.append(scan.problem)
    return reports
