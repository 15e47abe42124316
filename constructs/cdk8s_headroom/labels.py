"""The labels every object of the library carries."""

from __future__ import annotations

PART_OF = "node-headroom"


def workload_labels(name: str, component: str) -> dict[str, str]:
    """``app`` (the seed's selector label) plus the recommended ``app.kubernetes.io`` set."""
    return {
        "app": name,
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/part-of": PART_OF,
    }
