"""The labels every object of the library carries."""

from __future__ import annotations

PART_OF = "node-headroom"

COMPONENT_LABEL = "app.kubernetes.io/component"
"""The label that says what part of the headroom a workload and its pods are."""
RESERVER_COMPONENT = "headroom-reserver"
BURST_COMPONENT = "burst-workload"
BUFFER_COMPONENT = "capacity-buffer"
PREPULLER_COMPONENT = "image-prepuller"
"""``app.kubernetes.io/component`` of the image pre-puller, which the simulator leaves
out: it requests nothing, so it changes no scheduling decision."""
WINDOW_LABEL = "headroom.cdk8s.io/window"
"""The label naming the time window (``HeadroomWindow``) whose Job holds a pod, which
``status`` reports."""


def workload_labels(name: str, component: str) -> dict[str, str]:
    """``app`` (the seed's selector label) plus the recommended ``app.kubernetes.io`` set."""
    return {
        "app": name,
        COMPONENT_LABEL: component,
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/part-of": PART_OF,
    }


FIRST_SYNC_WAVE = {"argocd.argoproj.io/sync-wave": "-1"}
"""The annotation of the objects others need first, Namespaces and PriorityClasses: Argo
CD sorts a sync by wave, then kind, and its kind order (argoproj/gitops-engine
``pkg/sync/sync_tasks.go``, ``kindOrder``) has no PriorityClass, so without a wave the
classes would be applied after the workloads whose pods name them."""
