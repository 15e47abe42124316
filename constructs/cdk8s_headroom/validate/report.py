"""``cdk8s-headroom validate PATH``: every check on every object of a folder of manifests,
one line per object and a summary.

For every object in every manifest file under PATH (``*.yaml``, ``*.yml`` and ``*.json``,
read as ``kubectl apply -f`` reads them, Lists flattened): the strict schemas
(``schemas``), what the API server refuses that no schema says (``api_rules``), Pod
Security "restricted" with a read-only root filesystem, and checkov's Kubernetes
policies on the objects that pass their schemas (``checkov``). A check that cannot run
here (no checkov; no npm package or Node for a CRD's schemas) is said on its own line
and on each object it leaves unjudged: it is never a silent pass.

Exit status (``run``): 0 when every object passes; 1 when an object fails or a file
cannot be read; 2, with one line, when PATH itself cannot be read or a validator breaks.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from cdk8s_headroom.files.documents import FileObjects, InputFileError, SourcedObject, read_each
from cdk8s_headroom.validate import checkov as policies
from cdk8s_headroom.validate.api_rules import api_errors
from cdk8s_headroom.validate.models import is_modelled, package_of
from cdk8s_headroom.validate.schemas import kubernetes_versions, schema_verdicts
from cdk8s_headroom.vocabulary import pod_security
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, printable


@dataclass
class ObjectReport:
    """Everything found about one object; it passes when ``errors`` is empty.

    ``not_validated`` says why its CRD's schemas could not be checked here, if so."""

    item: SourcedObject
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    not_validated: str | None = None

    @property
    def ok(self) -> bool:
        return not self.errors


def validate_objects(
    objects: Sequence[SourcedObject], *, checkov: bool = True
) -> list[ObjectReport]:
    """Runs the strict schemas, the API server's rules and Pod Security on each object,
    and checkov when asked on each object that passes its schemas."""
    reports = [ObjectReport(item) for item in objects]
    verdicts = schema_verdicts([o.obj for o in objects])
    for report, verdict in zip(reports, verdicts, strict=True):
        report.errors.extend(verdict.errors)
        report.not_validated = verdict.not_validated
        report.errors.extend(api_errors(report.item.obj))
    for report in reports:
        try:
            security = pod_security.check_object(report.item.obj)
        except HeadroomConfigError as error:
            report.errors.append(f"pod security: {error}")
            continue
        report.errors.extend(f"pod security: {v}" for v in security.violations)
        report.notes.extend(f"pod security exception: {v}" for v in security.excepted)
    if checkov:
        # An object that fails its schema is already FAILED, and a wrong-typed field
        # (`metadata: hello`) crashes checkov: only the others go to it.
        scanned = [r for r, v in zip(reports, verdicts, strict=True) if not v.errors]
        for report, scan in zip(
            scanned, policies.checkov_failures([r.item for r in scanned]), strict=True
        ):
            report.errors.extend(f"checkov {f.check_id}: {f.check_name}" for f in scan.failures)
            if scan.problem is not None:
                report.errors.append(scan.problem)
    return reports


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


# --- the report ----------------------------------------------------------------------


def report_line(report: ObjectReport) -> str:
    item = report.item
    verdict = "OK" if report.ok else "FAILED"
    line = f"{printable(item.file)}\t{item.kind}\t{item.name or '<unnamed>'}\t{verdict}"
    details = [*report.errors, *report.notes]
    if report.not_validated is not None:
        details.append(f"schema: not validated: {report.not_validated}")
    return line + "".join(f"\n    {detail}" for detail in details)


def unreadable_line(error: InputFileError) -> str:
    """A file that cannot be read: the file, no kind or name, and the reason."""
    reason = str(error).removeprefix(f"{printable(error.file)}: ")
    return f"{printable(error.file)}\t-\t-\tFAILED\n    cannot read the file: {reason}"


def unjudged_lines(reports: Sequence[ObjectReport], *, checkov: bool) -> list[str]:
    """One line for each check that could not run here, and why."""
    reasons = {
        package_of(r.item.obj).title: r.not_validated
        for r in reports
        if r.not_validated is not None and is_modelled(r.item.obj)
    }
    lines = [f"{title} objects: not validated: {reason}" for title, reason in reasons.items()]
    if not checkov:
        lines.append(
            "checkov: not run: not installed (make validate installs it in .venv-checkov; "
            "elsewhere, put a checkov on PATH)"
        )
    return lines


def run(path: Path) -> int:
    """Validates ``path`` and prints the report (see the module's docstring).

    Raises:
        InputFileError: when ``path`` itself cannot be read (exit status 2).
        models.ValidatorError: when a validator breaks (exit status 2).
    """
    files = read_folder(path)
    checkov = policies.find_checkov() is not None
    reports = validate_objects([o for f in files for o in f.objects], checkov=checkov)
    unreadable = [f.error for f in files if f.error is not None]
    remaining = iter(reports)
    for file in files:
        if file.error is not None:
            print(unreadable_line(file.error))
        for report in itertools.islice(remaining, len(file.objects)):
            print(report_line(report))
    for line in unjudged_lines(reports, checkov=checkov):
        print(line)
    failed = sum(not r.ok for r in reports)
    excepted = sum(bool(r.notes) for r in reports)
    unjudged = sum(r.not_validated is not None for r in reports)
    print(
        f"{len(reports)} objects in {printable(str(path))}: {len(reports) - failed} OK, "
        f"{failed} failed"
        + (f", {len(unreadable)} files unreadable" if unreadable else "")
        + (f", {excepted} with declared Pod Security exceptions" if excepted else "")
        + (f", {unjudged} not validated against their CRD's schemas" if unjudged else "")
        + f" (schemas: Kubernetes {' and '.join(kubernetes_versions())}; the API server's "
        "rules; Pod Security restricted; " + ("checkov)" if checkov else "checkov not run)")
    )
    sys.stdout.flush()
    return 1 if failed or unreadable else 0
