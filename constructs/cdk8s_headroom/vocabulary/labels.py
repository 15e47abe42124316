"""The labels every object of the library carries."""

from __future__ import annotations

from collections.abc import Mapping

from cdk8s_headroom.vocabulary.recipes import Take, evaluate, merge

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


WORKLOAD_LABELS = merge(
    Take("labels"),
    {
        "app": Take("name"),
        COMPONENT_LABEL: Take("component"),
        "app.kubernetes.io/name": Take("name"),
        "app.kubernetes.io/part-of": PART_OF,
    },
)
"""The recipe of a workload's labels (``recipes``): the user's ``labels``, then ``app``
(the seed's selector label) and the recommended ``app.kubernetes.io`` set of its
``name`` and ``component``, which win. Every workload of the library and of the chart
(``helm.recipes`` WORKLOAD) is labelled by it."""


def workload_labels(
    name: str, component: str, labels: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``WORKLOAD_LABELS`` of a workload: the ``labels`` given, then the library's."""
    found: dict[str, str] = evaluate(
        WORKLOAD_LABELS, {"labels": labels, "name": name, "component": component}
    )
    return found


FIRST_SYNC_WAVE = {"argocd.argoproj.io/sync-wave": "-1"}
"""The annotation of the objects others need first, Namespaces and PriorityClasses: Argo
CD sorts a sync by wave, then kind, and its kind order (argoproj/gitops-engine
``pkg/sync/sync_tasks.go``, ``kindOrder``) has no PriorityClass, so without a wave the
classes would be applied after the workloads whose pods name them."""
