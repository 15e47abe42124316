"""Schema validation of emitted objects, for the tests and `make validate`."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "node_modules" / ".bin" / "node"
KARPENTER_VALIDATOR = ROOT / "scripts" / "karpenter_validate.mjs"
KARPENTER_API_GROUPS = ("karpenter.sh/", "karpenter.k8s.aws/")


@dataclass(frozen=True)
class ObjectResult:
    """The validation of one object: empty ``errors`` means valid."""

    kind: str
    name: str
    errors: tuple[str, ...]


def is_karpenter(document: dict[str, Any]) -> bool:
    return str(document.get("apiVersion", "")).startswith(KARPENTER_API_GROUPS)


def validate_karpenter(documents: list[dict[str, Any]]) -> list[ObjectResult]:
    """Validates Karpenter objects with the npm ``@kubernetes-models/karpenter`` schemas.

    A kind the package has no schema for is reported as an error, not passed.
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
