"""Checks a folder of manifests: `python -m scripts.validate [DIR]` (`make validate DIR=...`).

For every object in every YAML file under DIR (default dist/): the strict schemas of
Kubernetes 1.27 and of the newest release kubernetes-validate knows (Karpenter objects:
their own schemas), Pod Security "restricted" with a read-only root filesystem, and
checkov's Kubernetes policies (skips and their reasons: .checkov.yaml). Prints one line
per object and a summary; exits 1 when anything fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

from scripts.validation import (
    ROOT,
    ObjectReport,
    kubernetes_versions,
    load_folder,
    run_checkov,
    validate_objects,
)


def report_line(report: ObjectReport) -> str:
    item = report.item
    verdict = "OK" if report.ok else "FAILED"
    line = f"{item.source}\t{item.kind}\t{item.name}\t{verdict}"
    details = [*report.errors, *report.notes]
    return line + "".join(f"\n    {detail}" for detail in details)


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        print("usage: python -m scripts.validate [DIR]", file=sys.stderr)
        return 2
    folder = Path(argv[0]) if argv else ROOT / "dist"
    if not folder.is_dir():
        print(f"{folder} is not a folder", file=sys.stderr)
        return 2
    objects = load_folder(folder)
    if not objects:
        print(f"{folder}: no Kubernetes objects found in *.yaml or *.yml files")
        return 1
    reports = validate_objects(objects, checkov=run_checkov(folder))
    for report in reports:
        print(report_line(report))
    failed = sum(not r.ok for r in reports)
    excepted = sum(bool(r.notes) for r in reports)
    print(
        f"{len(reports)} objects in {folder}: {len(reports) - failed} OK, {failed} failed"
        + (f", {excepted} with declared Pod Security exceptions" if excepted else "")
        + f" (schemas: Kubernetes {' and '.join(kubernetes_versions())}; Pod Security "
        "restricted; checkov)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
