"""Burst-critical workloads: Deployments that preempt the headroom to start at once."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from enum import Enum
from fractions import Fraction
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.objects.app_checks import template_priority_class
from cdk8s_headroom.objects.construct import HeadroomConstruct
from cdk8s_headroom.objects.rendered import RenderedApiObject
from cdk8s_headroom.vocabulary import names, rules, security_context
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.labels import BURST_COMPONENT, workload_labels
from cdk8s_headroom.vocabulary.node_pools import INodePool, Targeting, check_tolerations
from cdk8s_headroom.vocabulary.placement import NodeSelectorRequirement, Toleration
from cdk8s_headroom.vocabulary.priority_models import class_name
from cdk8s_headroom.vocabulary.quantity import (
    QuantityLike,
    memory_quantity,
    parse_quantity,
    positive_quantity,
    quantity_text,
)
from cdk8s_headroom.vocabulary.reserver_task import check_image

if sys.version_info >= (3, 11):
    from typing import Required, TypedDict
else:  # the quickstart promises Python 3.10
    from typing_extensions import Required, TypedDict


class ImagePullPolicy(Enum):
    """A container's ``imagePullPolicy``."""

    IF_NOT_PRESENT = "IfNotPresent"
    ALWAYS = "Always"
    NEVER = "Never"


def _strings(value: Sequence[str], *, field: str) -> list[str]:
    if (
        isinstance(value, (str, bytes))
        or not isinstance(value, Sequence)
        or not all(isinstance(item, str) for item in value)
    ):
        raise HeadroomConfigError(field, value, "a list of strings")
    return [names.text(item, field=field) for item in value]


class BurstWorkloadProps(TypedDict, total=False):
    """The props of ``NodeHeadroom.add_burst_workload``: those of ``BurstWorkload`` (see
    its Args for each one's meaning and default) but ``priority_class_name``, which the
    headroom sets. ``image``, ``cpu`` and ``memory`` are required.

    Typed for ``Unpack``, so ``mypy`` and editors check and complete a consumer's calls.
    """

    image: Required[str]
    cpu: Required[QuantityLike]
    memory: Required[QuantityLike]
    replicas: int
    cpu_limit: QuantityLike | None
    memory_limit: QuantityLike | None
    command: Sequence[str]
    args: Sequence[str]
    name: str | None
    container_name: str | None
    namespace: str
    image_pull_policy: ImagePullPolicy
    run_as_user: int
    node_pool: INodePool | None
    node_selector: Mapping[str, str] | None
    tolerations: Sequence[Toleration]
    node_affinity: Sequence[NodeSelectorRequirement]
    max_replicas: int | None
    target_cpu_utilization: int
    labels: Mapping[str, str] | None


class BurstWorkload(HeadroomConstruct):
    """A burst-critical Deployment, optionally with a HorizontalPodAutoscaler.

    Its pods carry the burst PriorityClass, so the scheduler preempts headroom pods to
    place them. Containers default to ``imagePullPolicy: IfNotPresent``, so an image
    pre-pulled by the reserver starts without a pull (P4). Pods run under the
    restricted Pod Security profile, with an emptyDir at ``/tmp``.

    Args:
        image: the container image.
        cpu: CPU request per pod, e.g. ``"500m"``. It should fit in the headroom slice.
        memory: memory request per pod, e.g. ``"512Mi"``.
        replicas: default: 1. With ``max_replicas``, the HPA's minimum.
        cpu_limit: default: ``cpu`` (no CPU bursting above the request).
        memory_limit: default: ``memory``.
        command: the entrypoint. Default: the image's.
        args: the arguments. Default: the image's.
        name: the Deployment's name, a DNS-1123 label. Default: the construct id.
        container_name: default: ``name``.
        namespace: default: ``default``.
        priority_class_name: default: ``burst-critical``.
        image_pull_policy: default: ``ImagePullPolicy.IF_NOT_PRESENT``.
        run_as_user: a non-zero user id. Default: 65534 (``nobody``).
        node_pool: the pool to run on; it should be the headroom's. Default: any node.
        node_selector: extra node labels to match. Default: none.
        tolerations: extra tolerations. Default: none.
        node_affinity: required node affinity, all terms ANDed. Default: none.
        max_replicas: add an HPA scaling from ``replicas`` to this. Default: no HPA.
        target_cpu_utilization: the HPA's target, in percent of the request. Default: 80.
        labels: extra labels on the Deployment and its pods. Default: none.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        image: str,
        cpu: QuantityLike,
        memory: QuantityLike,
        replicas: int = 1,
        cpu_limit: QuantityLike | None = None,
        memory_limit: QuantityLike | None = None,
        command: Sequence[str] = (),
        args: Sequence[str] = (),
        name: str | None = None,
        container_name: str | None = None,
        namespace: str = "default",
        priority_class_name: str = "burst-critical",
        image_pull_policy: ImagePullPolicy = ImagePullPolicy.IF_NOT_PRESENT,
        run_as_user: int = security_context.NOBODY_UID,
        node_pool: INodePool | None = None,
        node_selector: Mapping[str, str] | None = None,
        tolerations: Sequence[Toleration] = (),
        node_affinity: Sequence[NodeSelectorRequirement] = (),
        max_replicas: int | None = None,
        target_cpu_utilization: int = 80,
        labels: Mapping[str, str] | None = None,
    ) -> None:
        self.name = names.dns_label(id if name is None else name, field="name")
        self.container_name = names.dns_label(
            self.name if container_name is None else container_name, field="container_name"
        )
        self.image = check_image(image, field="image")
        self.cpu, self.cpu_cores = positive_quantity(cpu, field="cpu")
        self.memory, self.memory_bytes = memory_quantity(memory, field="memory")
        self.cpu_limit = self._limit(cpu_limit, self.cpu, rules.Resource.CPU, field="cpu_limit")
        self.memory_limit = self._limit(
            memory_limit, self.memory, rules.Resource.MEMORY, field="memory_limit"
        )
        self.replicas = names.int32(replicas, field="replicas", minimum=0)
        self.max_replicas: int | None = None
        if max_replicas is not None:
            self.max_replicas = rules.POSITIVE.check(max_replicas, field="max_replicas")
            counts = {"maxReplicas": self.max_replicas, "replicas": self.replicas}
            rules.MAX_REPLICAS_NOT_BELOW_REPLICAS.check("max_replicas", max_replicas, **counts)
            rules.REPLICAS_WITH_AUTOSCALER.check("replicas", replicas, **counts)
        self.target_cpu_utilization = names.int32(
            target_cpu_utilization, field="target_cpu_utilization", minimum=1, maximum=100
        )
        self.command = _strings(command, field="command")
        self.args = _strings(args, field="args")
        self.namespace = names.dns_label(namespace, field="namespace")
        self.priority_class_name = class_name(priority_class_name, field="priority_class_name")
        if not isinstance(image_pull_policy, ImagePullPolicy):
            raise HeadroomConfigError(
                "image_pull_policy",
                image_pull_policy,
                "one of ImagePullPolicy.IF_NOT_PRESENT, ALWAYS, NEVER",
            )
        self.image_pull_policy = image_pull_policy
        self.run_as_user = names.int32(run_as_user, field="run_as_user", minimum=1)
        self.targeting = Targeting.of(
            node_pool=node_pool,
            node_selector=node_selector,
            tolerations=tolerations,
            node_affinity=node_affinity,
        )
        self.labels = {
            **names.labels(labels, field="labels"),
            **workload_labels(self.name, BURST_COMPONENT),
        }

        super().__init__(scope, id)
        metadata = cdk8s.ApiObjectMetadata(
            name=self.name, namespace=self.namespace, labels=self.labels
        )
        self.resource = RenderedApiObject(
            self,
            "Resource",
            api_version="apps/v1",
            kind="Deployment",
            metadata=metadata,
            render=self._render,
        )
        self.autoscaler: RenderedApiObject | None = None
        if self.max_replicas is not None:
            self.autoscaler = RenderedApiObject(
                self,
                "Autoscaler",
                api_version="autoscaling/v2",
                kind="HorizontalPodAutoscaler",
                metadata=cdk8s.ApiObjectMetadata(
                    name=self.name, namespace=self.namespace, labels=self.labels
                ),
                render=self._render_autoscaler,
            )

    @staticmethod
    def _limit(
        value: QuantityLike | None, request: str, resource: rules.Resource, *, field: str
    ) -> str:
        if value is None:
            return request
        text = quantity_text(value, field=field)
        rules.LIMIT_NOT_BELOW_REQUEST.check(
            field, value, request=request, limit=text, resource=resource.name.lower()
        )
        return text

    @property
    def requests(self) -> tuple[Fraction, Fraction]:
        """The requests of one pod: (cores, bytes)."""
        return self.cpu_cores, self.memory_bytes

    @property
    def limits(self) -> tuple[Fraction, Fraction]:
        """The limits of one pod: (cores, bytes)."""
        return (
            parse_quantity(self.cpu_limit, field="cpu_limit"),
            parse_quantity(self.memory_limit, field="memory_limit"),
        )

    def add_toleration(self, toleration: Toleration) -> None:
        """Lets the workload onto nodes with a matching taint; the ``tolerations`` prop,
        one call later. Reaches the output even after construction (rendered at synthesis).
        """
        self.targeting = self.targeting.with_tolerations(
            check_tolerations([toleration], field="toleration")
        )

    def _render(self) -> Any:
        volumes, mounts = security_context.scratch_volumes(["/tmp"])
        container = {
            "name": self.container_name,
            "image": self.image,
            "imagePullPolicy": self.image_pull_policy.value,
            "command": self.command or None,
            "args": self.args or None,
            "resources": {
                "requests": {"cpu": self.cpu, "memory": self.memory},
                "limits": {"cpu": self.cpu_limit, "memory": self.memory_limit},
            },
            "securityContext": security_context.container_security_context(self.run_as_user),
            "volumeMounts": mounts,
        }
        pod: dict[str, Any] = {
            "priorityClassName": self.priority_class_name,
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "securityContext": security_context.pod_security_context(self.run_as_user),
            "containers": [container],
            "volumes": volumes,
        }
        self.targeting.apply(pod)
        return {
            "spec": {
                # With an HPA, the HPA owns the replica count; leaving it out of the
                # manifest keeps GitOps from fighting the autoscaler.
                "replicas": None if self.max_replicas is not None else self.replicas,
                "selector": {"matchLabels": {"app": self.name}},
                "template": {"metadata": {"labels": self.labels}, "spec": pod},
            }
        }

    def _render_autoscaler(self) -> Any:
        return {
            "spec": {
                "scaleTargetRef": {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": self.name,
                },
                "minReplicas": self.replicas,
                "maxReplicas": self.max_replicas,
                "metrics": [
                    {
                        "type": "Resource",
                        "resource": {
                            "name": "cpu",
                            "target": {
                                "type": "Utilization",
                                "averageUtilization": self.target_cpu_utilization,
                            },
                        },
                    }
                ],
            }
        }

    def priority_class_referenced(self) -> object:
        return template_priority_class(self.resource, self.priority_class_name)
