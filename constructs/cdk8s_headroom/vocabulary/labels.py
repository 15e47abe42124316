"""The labels every object of the library carries."""

from __future__ import annotations

PART_OF = "node-headroom"

COMPONENT_LABEL = "app.kubernetes.io/component"
"""The label that says what part of the headroom a workload and its pods are."""
RESERVER_COMPONENT = "headroom-reserver"
BURST_COMPONENT = "burst-workload"
PREPULLER_COMPONENT = "image-prepuller"
"""``app.kubernetes.io/component`` of the image pre-puller, which the simulator leaves
out: it requests nothing, so it changes no scheduling decision."""


def workload_labels(name: str, component: str) -> dict[str, str]:
    """``app`` (the seed's selector label) plus the recommended ``app.kubernetes.io`` set."""
    return {
        "app": name,
        COMPONENT_LABEL: component,
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/part-of": PART_OF,
    }
