"""Checks a folder of manifests: `python -m scripts.validate [DIR]` (`make validate DIR=...`).

For every object in every manifest file under DIR (default dist/; `*.yaml`, `*.yml` and
`*.json`, read as `kubectl apply -f` reads them, Lists flattened): the strict schemas of
Kubernetes 1.27 and of the newest release kubernetes-validate knows (Karpenter objects:
their own schemas), Pod Security "restricted" with a read-only root filesystem, and
checkov's Kubernetes policies on the objects that pass their schemas (skips and their
reasons: .checkov.yaml; an object checkov crashes on or runs out of memory or time on
fails with that reason). Prints one line per object, and a FAILED line with the reason
for each file that cannot be read, then a summary; exits 1 when anything fails, 2 with
one line when DIR itself cannot be read or a validator is missing.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

from cdk8s_headroom.files.documents import InputFileError
from cdk8s_headroom.vocabulary.errors import printable
from scripts.validation import (
    ROOT,
    ObjectReport,
    kubernetes_versions,
    read_folder,
    validate_objects,
)


def report_line(report: ObjectReport) -> str:
    item = report.item
    verdict = "OK" if report.ok else "FAILED"
    line = f"{printable(item.file)}\t{item.kind}\t{item.name or '<unnamed>'}\t{verdict}"
    details = [*report.errors, *report.notes]
    return line + "".join(f"\n    {detail}" for detail in details)


def unreadable_line(error: InputFileError) -> str:
    """A file that cannot be read: the file, no kind or name, and the reason."""
    reason = str(error).removeprefix(f"{printable(error.file)}: ")
    return f"{printable(error.file)}\t-\t-\tFAILED\n    cannot read the file: {reason}"


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        print("usage: python -m scripts.validate [DIR]", file=sys.stderr)
        return 2
    folder = Path(argv[0]) if argv else ROOT / "dist"
    try:
        files = read_folder(folder)
    except InputFileError as error:
        print(f"validate: error: {error}", file=sys.stderr)
        return 2
    try:
        reports = validate_objects([o for f in files for o in f.objects])
    except RuntimeError as error:  # a validator missing or broken, not a bad object
        print(f"validate: error: {' '.join(str(error).split())}", file=sys.stderr)
        return 2
    unreadable = [f.error for f in files if f.error is not None]
    remaining = iter(reports)
    for file in files:
        if file.error is not None:
            print(unreadable_line(file.error))
        for report in itertools.islice(remaining, len(file.objects)):
            print(report_line(report))
    failed = sum(not r.ok for r in reports)
    excepted = sum(bool(r.notes) for r in reports)
    print(
        f"{len(reports)} objects in {folder}: {len(reports) - failed} OK, {failed} failed"
        + (f", {len(unreadable)} files unreadable" if unreadable else "")
        + (f", {excepted} with declared Pod Security exceptions" if excepted else "")
        + f" (schemas: Kubernetes {' and '.join(kubernetes_versions())}; Pod Security "
        "restricted; checkov)"
    )
    return 1 if failed or unreadable else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
