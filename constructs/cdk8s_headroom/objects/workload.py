"""The base of the library's workloads (the reserver, the pre-puller and the burst
workloads), and their placement props, declared once (``PlacementOptions``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.core.app_checks import template_priority_class
from cdk8s_headroom.core.construct import HeadroomConstruct
from cdk8s_headroom.core.rendered import RenderedApiObject
from cdk8s_headroom.vocabulary import names
from cdk8s_headroom.vocabulary.labels import workload_labels
from cdk8s_headroom.vocabulary.node_pools import INodePool, Targeting, check_tolerations
from cdk8s_headroom.vocabulary.placement import NodeSelectorRequirement, Toleration
from cdk8s_headroom.vocabulary.priority_models import class_name
from cdk8s_headroom.vocabulary.props import TypedDict, with_defaults
from cdk8s_headroom.vocabulary.recipes import IfAny, Take, evaluate


class PlacementOptions(TypedDict, total=False):
    """Where a workload's pods go, and the namespace and labels of its objects: props of
    ``HeadroomReserver``, ``ImagePrepuller``, ``BurstWorkload`` (``BurstWorkloadProps``)
    and ``NodeHeadroom`` (which says how it hands them on).

    Keys:
        namespace: default: ``default``.
        node_pool: the pool to run on: the pods select its nodes and tolerate its taints.
            Default: every node, as in the seed.
        node_selector: extra node labels to match. Default: none.
        tolerations: extra tolerations (the pool's taints are tolerated already).
            Default: none.
        node_affinity: required node affinity, all terms ANDed. Default: none.
        labels: extra labels on the objects and their pods. Default: none.
    """

    namespace: str
    node_pool: INodePool | None
    node_selector: Mapping[str, str] | None
    tolerations: Sequence[Toleration]
    node_affinity: Sequence[NodeSelectorRequirement]
    labels: Mapping[str, str] | None


PLACEMENT_DEFAULTS: PlacementOptions = {
    "namespace": "default",
    "node_pool": None,
    "node_selector": None,
    "tolerations": (),
    "node_affinity": (),
    "labels": None,
}


WORKLOAD_SPEC = {
    "selector": {"matchLabels": {"app": Take("name")}},
    "template": {
        "metadata": {"labels": Take("labels"), "annotations": IfAny(Take("annotations"))},
        "spec": Take("pod"),
    },
}
"""A workload's spec but the fields its kind adds: its pods, selected by the ``app``
label of its name, with its labels. Declared once (``recipes``): each workload's
``_render`` evaluates it (``HeadroomWorkload.workload_spec``), and ``make chart`` lays
it out in the chart's manifests (``helm.manifests``)."""


class HeadroomWorkload(HeadroomConstruct):
    """A workload of this library: its pods' class and placement, the labels of its
    objects, and its primary object, the child ``Resource`` (a DaemonSet, a Deployment
    or a CronJob), whose body ``render`` gives at synthesis.

    A subclass judges its own props and its ``name``, then calls this constructor,
    which judges the rest before the workload joins the tree, so a rejected workload
    leaves nothing behind.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        kind: str,
        name: str,
        component: str,
        priority_class_name: str,
        placement: PlacementOptions,
        render: Callable[[], Mapping[str, Any]],
        api_version: str = "apps/v1",
    ) -> None:
        given = with_defaults(placement, PLACEMENT_DEFAULTS)
        self.name = name
        self.namespace = names.dns_label(given["namespace"], field="namespace")
        self.priority_class_name = class_name(priority_class_name, field="priority_class_name")
        self.targeting = Targeting.of(
            node_pool=given["node_pool"],
            node_selector=given["node_selector"],
            tolerations=given["tolerations"],
            node_affinity=given["node_affinity"],
        )
        """Where the pods go: the pool, selector, affinity and tolerations."""
        self.labels = workload_labels(
            name, component, names.labels(given["labels"], field="labels")
        )
        """The labels of the workload's objects and pods: the ``labels`` prop's, then
        the library's (``workload_labels``), which win."""

        super().__init__(scope, id)
        self.resource = RenderedApiObject(
            self,
            "Resource",
            api_version=api_version,
            kind=kind,
            metadata=self.metadata(),
            render=render,
        )

    def workload_spec(
        self, pod: Mapping[str, Any], *, annotations: Mapping[str, str] | None = None, **kind: Any
    ) -> dict[str, Any]:
        """The body of the workload: ``WORKLOAD_SPEC`` with ``pod``, and the fields its
        ``kind`` adds (``updateStrategy``, ``replicas``)."""
        inputs = {"name": self.name, "labels": self.labels, "annotations": annotations, "pod": pod}
        return {"spec": {**kind, **evaluate(WORKLOAD_SPEC, inputs)}}

    def metadata(self) -> cdk8s.ApiObjectMetadata:
        """The metadata of the workload's objects: its name, namespace and labels."""
        return cdk8s.ApiObjectMetadata(name=self.name, namespace=self.namespace, labels=self.labels)

    def add_toleration(self, toleration: Toleration) -> None:
        """Lets the pods onto nodes with a matching taint; the ``tolerations`` prop, one
        call later. Reaches the output even after construction (rendered at synthesis).
        """
        self.targeting = self.targeting.with_tolerations(
            check_tolerations([toleration], field="toleration")
        )

    def priority_class_referenced(self) -> object:
        return template_priority_class(self.resource, self.priority_class_name)
