"""``headroom_charts``: the two charts that give a headroom its Namespace, applied first."""

from __future__ import annotations

from dataclasses import dataclass

import cdk8s

from cdk8s_headroom.objects.namespace import HeadroomNamespace
from cdk8s_headroom.objects.priority_classes import HeadroomPriorityClasses
from cdk8s_headroom.vocabulary.priority_models import PriorityModel


@dataclass(frozen=True)
class HeadroomCharts:
    """The charts ``headroom_charts`` adds to an app, and what the cluster chart holds."""

    cluster: cdk8s.Chart
    """Cluster-level objects: the Namespace and the PriorityClasses (file 0000-...)."""
    workloads: cdk8s.Chart
    """Where the ``NodeHeadroom`` goes; it depends on ``cluster`` (file 0001-...)."""
    namespace: HeadroomNamespace
    """The Namespace, Pod Security ``restricted`` enforced; pass ``namespace.name``."""
    priority_classes: HeadroomPriorityClasses
    """The model's classes; pass them to each ``NodeHeadroom`` as ``priority_classes=``."""


def headroom_charts(
    app: cdk8s.App,
    *,
    namespace: str,
    model: PriorityModel = PriorityModel.GUARDED,
    cluster_id: str = "cluster",
    workloads_id: str = "headroom",
) -> HeadroomCharts:
    """Adds a cluster chart (Namespace, PriorityClasses) and a workload chart after it.

    cdk8s writes one file per chart, numbered in dependency order, so the workload
    chart's dependency on the cluster chart puts the Namespace and the classes in
    ``0000-<cluster_id>.k8s.yaml`` and the workloads in ``0001-<workloads_id>.k8s.yaml``:
    ``kubectl apply -f dist/`` creates the Namespace, with its Pod Security labels,
    before any pod is admitted into it. Build the headroom in ``workloads`` with
    ``namespace=charts.namespace.name`` and ``priority_classes=charts.priority_classes``.

    When the namespace exists already, ``kubectl apply`` (or Argo CD, Flux) updates it:
    its labels become these, so Pod Security ``restricted`` is enforced from then on.
    Admission judges a pod when it is created, so pods already running there keep
    running; one that breaks the profile is refused when it is next created (a restart
    by its controller, a rollout). The API server's answer to the label change lists
    such pods as warnings; nothing is evicted.

    Args:
        app: the app to add the charts to.
        namespace: the Namespace's name, a DNS-1123 label.
        model: the priority model of the classes. Default: ``PriorityModel.GUARDED``.
        cluster_id: the cluster chart's id (it names the file). Default: ``cluster``.
        workloads_id: the workload chart's id. Default: ``headroom``.
    """
    cluster = cdk8s.Chart(app, cluster_id)
    try:
        created = HeadroomNamespace(cluster, "namespace", name=namespace)
        classes = HeadroomPriorityClasses(cluster, "priority-classes", model=model)
    except Exception:
        # A refused name or model leaves nothing in the app, as a refused construct does.
        app.node.try_remove_child(cluster_id)
        raise
    workloads = cdk8s.Chart(app, workloads_id)
    workloads.add_dependency(cluster)
    return HeadroomCharts(
        cluster=cluster, workloads=workloads, namespace=created, priority_classes=classes
    )
