"""Burst-critical workloads: Deployments that preempt the headroom to start at once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from fractions import Fraction
from typing import Any

from constructs import Construct

from cdk8s_headroom.core.rendered import RenderedApiObject
from cdk8s_headroom.objects.workload import PLACEMENT_DEFAULTS, HeadroomWorkload, PlacementOptions
from cdk8s_headroom.vocabulary import names, rules, security_context
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.extended_resources import (
    DEVICES,
    ExtendedResources,
    check_extended_resources,
)
from cdk8s_headroom.vocabulary.labels import BURST_COMPONENT
from cdk8s_headroom.vocabulary.priority_models import DEFAULT_BURST_CLASS
from cdk8s_headroom.vocabulary.prop_rules import PropRule, PropRules
from cdk8s_headroom.vocabulary.props import (
    Required,
    Unpack,
    check_props,
    required,
    spelled_out,
    with_defaults,
)
from cdk8s_headroom.vocabulary.quantity import (
    QuantityLike,
    memory_quantity,
    parse_quantity,
    positive_quantity,
    quantity_text,
)
from cdk8s_headroom.vocabulary.quantity_arithmetic import Resource
from cdk8s_headroom.vocabulary.recipes import (
    Choose,
    IfAny,
    IfGiven,
    PropInputs,
    Take,
    evaluate,
    merge,
)
from cdk8s_headroom.vocabulary.reserver_task import check_image

_SCRATCH_VOLUMES, _SCRATCH_MOUNTS = security_context.scratch_volumes(["/tmp"])

BURST_RESOURCES = {
    "requests": merge({"cpu": Take("cpu"), "memory": Take("memory")}, DEVICES),
    "limits": merge(
        {
            "cpu": Choose("cpuLimit", Take("cpuLimit"), Take("cpu")),
            "memory": Choose("memoryLimit", Take("memoryLimit"), Take("memory")),
        },
        DEVICES,
    ),
}
"""A burst pod's resources (and its CapacityBuffer's placeholder's): its devices in its
requests and limits alike, and a limit not given its request (no bursting above it). The
one place that default is decided: ``BurstWorkload.cpu_limit`` and the chart's
``node-headroom.recipe.burstPod`` both take it from here."""

BURST_POD = {
    "priorityClassName": Take("priorityClassName"),
    "automountServiceAccountToken": False,
    "enableServiceLinks": False,
    "securityContext": Take("podSecurityContext"),
    "containers": [
        {
            "name": Take("containerName"),
            "image": Take("image"),
            "imagePullPolicy": Take("imagePullPolicy"),
            "command": IfAny(Take("command")),
            "args": IfAny(Take("args")),
            "resources": BURST_RESOURCES,
            "securityContext": Take("containerSecurityContext"),
            "volumeMounts": _SCRATCH_MOUNTS,
        }
    ],
    "volumes": _SCRATCH_VOLUMES,
    "nodeSelector": IfAny(Take("nodeSelector")),
    "affinity": IfAny(Take("affinity")),
    "tolerations": IfAny(Take("tolerations")),
}
"""A burst workload's pod, declared once (``recipes``): ``BurstWorkload._render``
evaluates it, and ``make chart`` compiles it into the chart's
``node-headroom.recipe.burstPod`` (``helm.recipes``). A writable ``/tmp``, since the
root filesystem is read-only."""

DEPLOYMENT_FIELDS = {
    # With an HPA, the HPA owns the replica count; leaving it out of the manifest keeps
    # GitOps from fighting the autoscaler
    "replicas": IfGiven(Take("replicas"), unless="maxReplicas"),
}
"""The fields a burst workload's Deployment adds to its spec (``WORKLOAD_SPEC``): its
replica count, unless an autoscaler scales it. Declared once (``recipes``):
``BurstWorkload._render`` evaluates it, and ``make chart`` compiles it into the chart's
``node-headroom.recipe.burstSpec`` (``helm.recipes``)."""

AUTOSCALER_SPEC = {
    "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": Take("name")},
    "minReplicas": Take("replicas"),
    "maxReplicas": Take("maxReplicas"),
    "metrics": [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "target": {
                    "type": "Utilization",
                    "averageUtilization": Take("targetCPUUtilization"),
                },
            },
        }
    ],
}
"""A burst workload's HorizontalPodAutoscaler's spec: its Deployment, scaled from its
``replicas`` up to ``maxReplicas`` on the pods' CPU utilization. Declared once
(``recipes``), of the inputs of ``DEPLOYMENT_FIELDS``: ``BurstWorkload._render_autoscaler``
evaluates it, and ``make chart`` lays it out in the chart's manifests
(``helm.manifests``)."""


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


class BurstWorkloadOptions(PlacementOptions, total=False):
    """The props of a burst workload that have defaults (see ``BurstWorkload``'s Args
    and ``PlacementOptions`` for each one's meaning and default)."""

    replicas: int
    cpu_limit: QuantityLike | None
    memory_limit: QuantityLike | None
    command: Sequence[str]
    args: Sequence[str]
    name: str | None
    container_name: str | None
    image_pull_policy: ImagePullPolicy
    run_as_user: int
    max_replicas: int | None
    target_cpu_utilization: int
    extended_resources: ExtendedResources | None


class BurstWorkloadProps(BurstWorkloadOptions, total=False):
    """The props of ``BurstWorkload`` but ``priority_class_name``, which is also those of
    ``NodeHeadroom.add_burst_workload`` (the headroom sets the class). ``image``, ``cpu``
    and ``memory`` are required.

    Typed for ``Unpack``, so ``mypy`` and editors check and complete a consumer's calls.
    """

    image: Required[str]
    cpu: Required[QuantityLike]
    memory: Required[QuantityLike]


BURST_DEFAULTS: BurstWorkloadOptions = {
    **PLACEMENT_DEFAULTS,
    "replicas": 1,
    "cpu_limit": None,
    "memory_limit": None,
    "command": (),
    "args": (),
    "name": None,
    "container_name": None,
    "image_pull_policy": ImagePullPolicy.IF_NOT_PRESENT,
    "run_as_user": security_context.NOBODY_UID,
    "max_replicas": None,
    "target_cpu_utilization": 80,
    "extended_resources": None,
}

BURST_INPUTS = PropInputs(
    {
        "image": "image",
        "imagePullPolicy": "image_pull_policy",
        "command": "command",
        "args": "args",
        # The user its contexts run as (security_context.POD_USER, CONTAINER_USER)
        "uid": "run_as_user",
        "replicas": "replicas",
        "maxReplicas": "max_replicas",
        "targetCPUUtilization": "target_cpu_utilization",
    },
    BURST_DEFAULTS,
)
"""The inputs of a burst workload's recipes (``BURST_POD``, ``DEPLOYMENT_FIELDS``,
``AUTOSCALER_SPEC``) that are its props as given, declared once (``recipes.PropInputs``):
``_render`` and ``_scaling`` read them, and ``make chart`` compiles them, with the values
that give the props and ``BURST_DEFAULTS``, into the chart's
``node-headroom.props.burst`` (``helm.props``). Its container's name (default: its
name), its limits (default: its requests) and its resources' quantities are not as given,
so not among them."""

BURST_RULES = PropRules(
    BURST_INPUTS,
    (
        PropRule(rules.MAX_REPLICAS_NOT_BELOW_REPLICAS, "maxReplicas", when="maxReplicas"),
        PropRule(rules.REPLICAS_WITH_AUTOSCALER, "replicas", when="maxReplicas"),
    ),
)
"""A burst workload's rules across its props, in the order it judges them, declared once
(``prop_rules.PropRules``): the constructor runs them, and ``make chart`` compiles them
into the chart's ``node-headroom.rules.burst``. Both are of its autoscaler, so judged only
with one."""


def check_burst_props(props: Mapping[str, object]) -> None:
    """Refuses a prop ``BurstWorkload`` does not take, and a missing required one."""
    check_props(props, of=BurstWorkload.__init__)
    for prop in required(BurstWorkloadProps):
        if prop not in props:
            raise HeadroomConfigError(prop, None, "a value: every burst workload needs one")


class BurstWorkload(HeadroomWorkload):
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
        priority_class_name: default: ``burst-critical``.
        image_pull_policy: default: ``ImagePullPolicy.IF_NOT_PRESENT``.
        run_as_user: a non-zero user id. Default: 65534 (``nobody``).
        max_replicas: add an HPA scaling from ``replicas`` to this. Default: no HPA.
        target_cpu_utilization: the HPA's target, in percent of the request. Default: 80.
        extended_resources: whole devices per pod, e.g. ``{"nvidia.com/gpu": "1"}``,
            requested and limited alike (``extended_resources`` module). Default: none.
        placement: ``PlacementOptions``: the namespace, the pool to run on (it should
            be the headroom's), node selector, tolerations, node affinity and labels.
    """

    @spelled_out(BurstWorkloadProps, BURST_DEFAULTS)
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        priority_class_name: str = DEFAULT_BURST_CLASS,
        **props: Unpack[BurstWorkloadProps],
    ) -> None:
        check_burst_props(props)
        given = with_defaults(props, BURST_DEFAULTS)
        name = names.dns_label(id if given["name"] is None else given["name"], field="name")
        self.container_name = names.dns_label(
            name if given["container_name"] is None else given["container_name"],
            field="container_name",
        )
        self.image = check_image(given["image"], field="image")
        self.cpu, self.cpu_cores = positive_quantity(given["cpu"], field="cpu")
        self.memory, self.memory_bytes = memory_quantity(given["memory"], field="memory")
        self._given_limits = {
            "cpuLimit": self._limit(given["cpu_limit"], self.cpu, Resource.CPU, field="cpu_limit"),
            "memoryLimit": self._limit(
                given["memory_limit"], self.memory, Resource.MEMORY, field="memory_limit"
            ),
        }
        self.replicas = rules.REPLICAS.check(given["replicas"], field="replicas")
        self.max_replicas: int | None = None
        max_replicas = given["max_replicas"]
        if max_replicas is not None:
            self.max_replicas = rules.POSITIVE.check(max_replicas, field="max_replicas")
        self.target_cpu_utilization = rules.PERCENT.check(
            given["target_cpu_utilization"], field="target_cpu_utilization"
        )
        self.command = _strings(given["command"], field="command")
        self.args = _strings(given["args"], field="args")
        image_pull_policy = given["image_pull_policy"]
        if not isinstance(image_pull_policy, ImagePullPolicy):
            raise HeadroomConfigError(
                "image_pull_policy",
                image_pull_policy,
                "one of ImagePullPolicy.IF_NOT_PRESENT, ALWAYS, NEVER",
            )
        self.image_pull_policy = image_pull_policy
        self.run_as_user = rules.POSITIVE.check(given["run_as_user"], field="run_as_user")
        BURST_RULES.check(self)
        self.extended_resources = check_extended_resources(
            given["extended_resources"], field="extended_resources"
        )

        super().__init__(
            scope,
            id,
            kind="Deployment",
            name=name,
            component=BURST_COMPONENT,
            priority_class_name=priority_class_name,
            placement=props,
            render=self._render,
        )
        self.autoscaler: RenderedApiObject | None = None
        if self.max_replicas is not None:
            self.autoscaler = RenderedApiObject(
                self,
                "Autoscaler",
                api_version="autoscaling/v2",
                kind="HorizontalPodAutoscaler",
                metadata=self.metadata(),
                render=self._render_autoscaler,
            )

    @staticmethod
    def _limit(
        value: QuantityLike | None, request: str, resource: Resource, *, field: str
    ) -> str | None:
        """A limit as given, as text, judged against its request; ``None`` if not given."""
        if value is None:
            return None
        text = quantity_text(value, field=field)
        rules.LIMIT_NOT_BELOW_REQUEST.check(
            field, value, request=request, limit=text, resource=resource.name.lower()
        )
        return text

    def _resource_inputs(self) -> dict[str, Any]:
        """The inputs of ``BURST_RESOURCES``: its requests, devices and limits as given."""
        return {
            "cpu": self.cpu,
            "memory": self.memory,
            "extendedResources": self.extended_resources,
            **self._given_limits,
        }

    def _resources(self) -> dict[str, Any]:
        """Its container's resources, as ``BURST_RESOURCES`` makes them of its props."""
        resources: dict[str, Any] = evaluate(BURST_RESOURCES, self._resource_inputs())
        return resources

    @property
    def cpu_limit(self) -> str:
        """Its CPU limit: as given, else its request (``BURST_RESOURCES``)."""
        limit: str = self._resources()["limits"]["cpu"]
        return limit

    @property
    def memory_limit(self) -> str:
        """Its memory limit: as given, else its request (``BURST_RESOURCES``)."""
        limit: str = self._resources()["limits"]["memory"]
        return limit

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

    def _render(self) -> Any:
        given = BURST_INPUTS.of(self)
        pod = evaluate(
            BURST_POD,
            {
                **given,
                "priorityClassName": self.priority_class_name,
                "podSecurityContext": security_context.pod_security_context(given["uid"]),
                "containerSecurityContext": security_context.container_security_context(
                    given["uid"]
                ),
                "containerName": self.container_name,
                **self._resource_inputs(),
                **self.targeting.placement().to_manifest(),
            },
        )
        return self.workload_spec(pod, **evaluate(DEPLOYMENT_FIELDS, self._scaling()))

    def _render_autoscaler(self) -> Any:
        return {"spec": evaluate(AUTOSCALER_SPEC, self._scaling())}

    def _scaling(self) -> dict[str, Any]:
        """The inputs of ``DEPLOYMENT_FIELDS`` and ``AUTOSCALER_SPEC``: its name, and its
        props as given (``BURST_INPUTS``)."""
        return {"name": self.name, **BURST_INPUTS.of(self)}
