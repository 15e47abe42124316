"""The validation checks under the names the tests and scripts import: they live in the
package (``cdk8s_headroom.validate``, the ``cdk8s-headroom validate`` command). Only
``kubernetes_validate_cli`` is this file's own: the tests' cross-check of the schemas
with kubernetes-validate's own command line.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

from cdk8s_headroom.validate.checkov import (
    CHECKOV_CONFIG,
    CheckovError,
    CheckovFailure,
    CheckovScan,
    checkov_failures,
    run_checkov,
)
from cdk8s_headroom.validate.models import (
    MODELLED_API_GROUPS,
    ObjectResult,
    _as_older_karpenter,
    is_karpenter,
    is_modelled,
    validate_models,
)
from cdk8s_headroom.validate.report import (
    ObjectReport,
    load_folder,
    read_folder,
    validate_objects,
)
from cdk8s_headroom.validate.schemas import (
    Manifest,
    capacity_buffer_errors,
    check_schemas,
    has_own_schema,
    kubernetes_versions,
    newest_kubernetes,
    schema_errors,
    validate_schemas,
)

__all__ = [
    "CHECKOV_CONFIG",
    "MODELLED_API_GROUPS",
    "CheckovError",
    "CheckovFailure",
    "CheckovScan",
    "ObjectReport",
    "ObjectResult",
    "_as_older_karpenter",
    "capacity_buffer_errors",
    "check_schemas",
    "checkov_failures",
    "has_own_schema",
    "is_karpenter",
    "is_modelled",
    "kubernetes_validate_cli",
    "kubernetes_versions",
    "load_folder",
    "newest_kubernetes",
    "read_folder",
    "run_checkov",
    "schema_errors",
    "validate_models",
    "validate_objects",
    "validate_schemas",
]


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
