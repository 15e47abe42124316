"""Renders and lints the chart in-process with the Helm library (helm-python-sdk).

For the tests and the benchmark: no helm binary, no cluster, no network.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import helm_python as helm
import yaml

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "charts" / "node-headroom"

HELM_LABELS = ("helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance")
"""The labels the chart adds to every object's metadata, on top of the library's."""


def load(chart: Path = CHART) -> helm.Chart:
    return helm.Chart.load(chart)


def render(
    chart: helm.Chart,
    values: Mapping[str, Any] | None = None,
    *,
    release: str = "node-headroom",
    namespace: str = "node-headroom",
) -> dict[str, str]:
    """``helm template <release> -n <namespace>``: every rendered file, NOTES.txt
    included, by its path."""
    return chart.render(dict(values or {}), name=release, namespace=namespace, is_install=True)


def objects(rendered: Mapping[str, str]) -> list[dict[str, Any]]:
    """The Kubernetes objects of a rendering, in file order."""
    found: list[dict[str, Any]] = []
    for path in sorted(rendered):
        if not path.endswith((".yaml", ".yml")):
            continue
        found.extend(doc for doc in yaml.safe_load_all(rendered[path]) if doc)
    return found


def without_helm_labels(document: dict[str, Any]) -> dict[str, Any]:
    """The object without the labels Helm's conventions add (and only those)."""
    labels = document.get("metadata", {}).get("labels")
    if labels is not None:
        kept = {k: v for k, v in labels.items() if k not in HELM_LABELS}
        document = {**document, "metadata": {**document["metadata"], "labels": kept}}
    return document


def lint(chart: Path = CHART, values: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``helm lint --strict``."""
    return helm.lint(chart, dict(values) if values is not None else None, strict=True)
