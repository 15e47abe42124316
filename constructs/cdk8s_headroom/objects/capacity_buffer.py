"""A ``CapacityBuffer``: room the autoscaler keeps free for copies of a burst pod.

The autoscaler (Cluster Autoscaler 1.34+, Karpenter 1.14+ behind its ``CapacityBuffer``
feature gate) simulates placeholder pods of the buffer's shape that exist only inside
it, and adds nodes until they fit. Nothing is preempted: a burst pod that fits takes
the free room at once, and the autoscaler refills the buffer with new nodes. The room
is free capacity, open to every pod the node admits (the API's stated non-goal is
reserving capacity for particular pods); only a pool whose taint the burst pods alone
tolerate keeps it for them, which is what ``PriorityModel.DEDICATED_POOL`` gives.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.core.construct import HeadroomConstruct
from cdk8s_headroom.core.rendered import RenderedApiObject
from cdk8s_headroom.karpenter.node_pool import KarpenterNodePool
from cdk8s_headroom.karpenter.pool_ref import NodePoolFlavour
from cdk8s_headroom.objects.burst import BURST_RESOURCES, BurstWorkload
from cdk8s_headroom.objects.windows import Windowed, check_windows, window_cron_job
from cdk8s_headroom.vocabulary import names, node_labels, object_names, rules, security_context
from cdk8s_headroom.vocabulary.capacity_buffer_api import ACTIVE_CAPACITY, CapacityBufferVersion
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown, warn
from cdk8s_headroom.vocabulary.labels import BUFFER_COMPONENT, workload_labels
from cdk8s_headroom.vocabulary.node_labels import ZONE_LABEL
from cdk8s_headroom.vocabulary.node_pools import INodePool, Targeting
from cdk8s_headroom.vocabulary.node_sizes import ISizedNodePool, NodeSize, check_slice_fits
from cdk8s_headroom.vocabulary.placement import (
    NodeSelectorOperator,
    NodeSelectorRequirement,
    TaintEffect,
)
from cdk8s_headroom.vocabulary.places import fill
from cdk8s_headroom.vocabulary.priority_models import DEFAULT_HEADROOM_CLASS, class_name
from cdk8s_headroom.vocabulary.prop_rules import PropRule, PropRules
from cdk8s_headroom.vocabulary.props import (
    TypedDict,
    Unpack,
    check_props,
    spelled_out,
    with_defaults,
)
from cdk8s_headroom.vocabulary.quantity import QuantityLike, positive_quantity
from cdk8s_headroom.vocabulary.recipes import IfAny, IfGiven, PropInputs, Take, evaluate, merge
from cdk8s_headroom.vocabulary.reserver_task import PAUSE_IMAGE
from cdk8s_headroom.vocabulary.schedule import HeadroomSchedule

BUFFER_POD = {
    "automountServiceAccountToken": False,
    "enableServiceLinks": False,
    "securityContext": security_context.pod_security_context(security_context.PAUSE_UID),
    "containers": [
        {
            "name": "pause",
            "image": PAUSE_IMAGE,
            "imagePullPolicy": "IfNotPresent",
            "resources": BURST_RESOURCES,
            "securityContext": security_context.container_security_context(
                security_context.PAUSE_UID
            ),
        }
    ],
    # In its zone, when it has one (a zone's buffer), over the burst pod's selector
    "nodeSelector": IfAny(merge(Take("nodeSelector"), {ZONE_LABEL: IfGiven(Take("zone"))})),
    "affinity": IfAny(Take("affinity")),
    "tolerations": IfAny(Take("tolerations")),
}
"""The pod of a PodTemplate buffer's template: a pause container with the burst pod's
resources, where the burst pods may run (in the buffer's zone, if it has one). Declared
once (``recipes``): ``_render`` evaluates it, and ``make chart`` compiles it into
``node-headroom.recipe.bufferPod``."""


WINDOW_POD = merge(
    Take("pod"),
    {"priorityClassName": Take("priorityClassName"), "terminationGracePeriodSeconds": 0},
)
"""A scheduled buffer's placeholder pod (``node-headroom.recipe.bufferWindowPod``): the
buffer's pod at the headroom class, which a burst pod preempts, freed at once as a
reserver is."""

BUFFER_SPEC = {
    # Exactly one ref, as the API requires: the caller names the one its form takes
    "podTemplateRef": IfGiven({"name": Take("podTemplate")}, of="podTemplate"),
    "scalableRef": IfGiven(
        {"apiGroup": "apps", "kind": "Deployment", "name": Take("deployment")}, of="deployment"
    ),
    "provisioningStrategy": ACTIVE_CAPACITY,
    "replicas": IfGiven(Take("replicas")),
    "percentage": IfGiven(Take("percentage")),
    "limits": IfAny(Take("limits")),
}
"""A buffer's spec: its ``podTemplateRef`` (the ``PodTemplate`` named ``podTemplate``)
or its ``scalableRef`` (the burst Deployment named ``deployment``), and the counts it
was given. Declared once (``recipes``): ``_render`` evaluates it, and ``make chart``
compiles it into ``node-headroom.recipe.bufferSpec``, which the chart's buffers unit
runs."""

SCHEDULE_LIMITED = "with percentage or limits"
SCHEDULE_LIMITED_ALLOWED = (
    "a schedule with replicas alone: its Job holds that many placeholder "
    "pods; percentage and limits are counts only an autoscaler computes"
)
"""The refusal of a schedule beside a count that only an autoscaler computes (the
chart's windows unit says it too)."""

BUFFER_POD_WORDS = "a buffer pod"
"""What a buffer's fit check calls the pod it holds room for (``check_slice_fits``)."""


class CapacityBufferForm(Enum):
    """How the buffer names the shape of one chunk.

    ``POD_TEMPLATE``: a ``PodTemplate`` the buffer emits, with the burst pod's
    scheduling shape and a pause container (``podTemplateRef``). ``SCALABLE``: the
    burst Deployment itself (``scalableRef``), which also allows ``percentage`` of its
    replicas.
    """

    POD_TEMPLATE = "podTemplateRef"
    SCALABLE = "scalableRef"


def _limits(value: Mapping[str, QuantityLike] | None) -> dict[str, tuple[str, Fraction]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not value:
        raise HeadroomConfigError(
            "limits",
            value,
            'a non-empty mapping of resource names to quantities, e.g. {"cpu": "8"}',
        )
    parsed: dict[str, tuple[str, Fraction]] = {}
    for resource in sorted(value, key=str):
        field = f"limits[{resource}]"
        names.label_key(resource, field=field)
        parsed[resource] = positive_quantity(value[resource], field=field)
    return parsed


AUTO_MODE_LABEL_PREFIX = f"{NodePoolFlavour.EKS_AUTO_MODE.value}/"
REQUIRING_OPERATORS = tuple(NodeSelectorOperator(op) for op in rules.REQUIRING_OPERATORS)
"""``rules.REQUIRING_OPERATORS``: the operators a node must carry the key to match."""


def buffer_name(workload: str, zone: str | None) -> str:
    """A buffer's default name: ``<workload>-buffer``, ``-<zone>`` added for a zone
    (``object_names.BUFFER_NAME``)."""
    return str(evaluate(object_names.BUFFER_NAME, {"workload": workload, "zone": zone}))


def check_zone(zone: object) -> str | None:
    """A buffer's ``zone``: a label value (in the pod-template form only: ``BUFFER_RULES``)."""
    if zone is None:
        return None
    text = names.label_value(zone, field="zone")
    if not text:
        raise HeadroomConfigError("zone", zone, "a zone name, e.g. 'eu-west-1a', or None")
    return text


def is_auto_mode(pool: INodePool) -> bool:
    """Whether a pool is an EKS Auto Mode pool, as far as the app says so: an emitted
    Auto Mode ``KarpenterNodePool``, a built-in Auto Mode pool's name, or requirements
    on Auto Mode's label domain (a pool's requirements bound its instances, and only
    Auto Mode names them there, as ``sizing`` reads them)."""
    if isinstance(pool, KarpenterNodePool):
        return pool.auto_mode
    requirements = getattr(pool, "requirements", ())
    return pool.pool_name in node_labels.AUTO_MODE_BUILTIN_POOLS or any(
        requirement.key.startswith(AUTO_MODE_LABEL_PREFIX) for requirement in requirements
    )


SELECTOR_ENTRY_OPERATOR = NodeSelectorOperator.IN
"""A node selector entry is the requirement ``key In [value]``."""


def _selector_entry(key: str, value: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, SELECTOR_ENTRY_OPERATOR, (value,))


def _requirements(targeting: Targeting) -> list[NodeSelectorRequirement]:
    """The placement's requirements: the node selector's entries, then the affinity."""
    entries = [_selector_entry(key, value) for key, value in targeting.node_selector.items()]
    return [*entries, *targeting.node_affinity]


def _operands(requirement: NodeSelectorRequirement) -> dict[str, object]:
    return {
        "key": requirement.key,
        "operator": requirement.operator.value,
        "values": list(requirement.values),
    }


def check_not_on_auto_mode(targeting: Targeting) -> None:
    """Refuses a buffer whose pods target EKS Auto Mode nodes, by their pool, their node
    selector or their node affinity (``rules.BUFFER_NOT_ON_AUTO_MODE``)."""
    pool = targeting.pool
    if pool is not None:
        rules.BUFFER_NOT_ON_AUTO_MODE.check("node_pool", pool.pool_name, pool=pool.pool_name)
        if is_auto_mode(pool):  # what the app knows of the pool beyond its name
            rules.BUFFER_NOT_ON_AUTO_MODE.fail("node_pool", pool.pool_name)
    for key, value in targeting.node_selector.items():
        rules.BUFFER_NOT_ON_AUTO_MODE.check(
            f"workload.node_selector[{shown(key)}]", value, **_operands(_selector_entry(key, value))
        )
    for requirement in targeting.node_affinity:
        field = f"workload.node_affinity[{requirement.key}]"
        rules.BUFFER_NOT_ON_AUTO_MODE.check(
            field, requirement.operator.value, **_operands(requirement)
        )


def targets_karpenter(targeting: Targeting) -> bool:
    """Whether the pods go to Karpenter's nodes: an emitted ``KarpenterNodePool``, or a
    requirement on the label Karpenter puts on its nodes (``rules.ON_KARPENTER``)."""
    return isinstance(targeting.pool, KarpenterNodePool) or any(
        rules.ON_KARPENTER.holds(**_operands(r)) for r in _requirements(targeting)
    )


KEEP_OFF_EFFECTS = (TaintEffect.NO_SCHEDULE, TaintEffect.NO_EXECUTE)
"""The taint effects that keep pods without a toleration off a node."""


def keeps_ordinary_pods_off(pool: INodePool | None) -> bool:
    """Whether the pool's nodes carry a taint that keeps pods without a toleration off
    (``KEEP_OFF_EFFECTS``): then only the burst pods can take a buffer's room."""
    return pool is not None and any(taint.effect in KEEP_OFF_EFFECTS for taint in pool.taints)


@dataclass(frozen=True)
class BufferHold:
    """What a buffer holds back: ``units`` chunks of ``unit`` each.

    ``units`` is what the autoscaler computes at the workload's declared replicas
    (``percentage`` follows the replicas as they change; ``limits`` cap the count).
    """

    name: str
    units: int
    unit: NodeSize
    windows: str | None = None
    """The time windows it is held in (``HeadroomSchedule.describe``); ``None``: always."""

    @property
    def total(self) -> NodeSize:
        return NodeSize(
            cpu=None if self.unit.cpu is None else self.unit.cpu * self.units,
            memory=None if self.unit.memory is None else self.unit.memory * self.units,
        )

    def __str__(self) -> str:
        when = "" if self.windows is None else f", only in windows {self.windows}"
        return (
            f"buffer {self.name}: {self.units} x ({self.unit}) = {self.total} held back, "
            f"whatever the node count{when}"
        )


class CapacityBufferOptions(TypedDict, total=False):
    """The props of ``CapacityBuffer`` but ``workload`` and ``labels`` (see its Args for
    each one's meaning and default), which are those of
    ``NodeHeadroom.add_capacity_buffer`` too (the headroom gives its labels)."""

    form: CapacityBufferForm
    replicas: int | None
    percentage: int | None
    limits: Mapping[str, QuantityLike] | None
    api_version: CapacityBufferVersion
    name: str | None
    zone: str | None
    schedule: HeadroomSchedule | None


BUFFER_DEFAULTS: CapacityBufferOptions = {
    "form": CapacityBufferForm.POD_TEMPLATE,
    "replicas": None,
    "percentage": None,
    "limits": None,
    "api_version": CapacityBufferVersion.V1BETA1,
    "name": None,
    "zone": None,
    "schedule": None,
}

BUFFER_INPUTS = PropInputs(
    {
        "form": "form",
        "version": "api_version",
        "replicas": "replicas",
        "percentage": "percentage",
        "zone": "zone",
    },
    BUFFER_DEFAULTS,
)
"""The inputs of a buffer's spec (``BUFFER_SPEC``) and the operands of its rules that are
its props as given, declared once (``recipes.PropInputs``): ``CapacityBuffer`` reads
them, and ``make chart`` compiles them, with the values that give the props and
``BUFFER_DEFAULTS``, into the chart's ``node-headroom.props.buffer`` (``helm.props``).
Its limits are quantities, not as given, so not among them."""

BUFFER_RULES = PropRules(
    BUFFER_INPUTS,
    (
        PropRule(rules.BUFFER_ZONE_NEEDS_POD_TEMPLATE, "zone"),
        PropRule(rules.BUFFER_PERCENTAGE_NEEDS_SCALABLE, "percentage"),
        PropRule(rules.BUFFER_ONE_COUNT, "percentage"),
        # No one value is missing: replicas, percentage or limits would do
        PropRule(rules.BUFFER_NEEDS_COUNT, "replicas", shows=False),
    ),
    more=("limits",),
)
"""A buffer's rules across its zone and counts, in the order it judges them, declared once
(``prop_rules.PropRules``): the constructor runs them, with its limits' resources
(``limits``), and ``make chart`` compiles them into the chart's
``node-headroom.rules.buffer``."""


class CapacityBuffer(HeadroomConstruct, Windowed):
    """A ``CapacityBuffer`` for a burst workload: room for copies of its pod, kept free by
    the autoscaler (and, in the pod-template form, the ``PodTemplate`` it names).

    ``NodeHeadroom.add_capacity_buffer`` creates one for a workload the headroom holds;
    used standalone it takes any ``BurstWorkload``.

    Args:
        workload: the burst workload whose pod is one chunk of the buffer.
        form: default: ``CapacityBufferForm.POD_TEMPLATE``.
        replicas: how many chunks. Default: none (then ``percentage`` or ``limits``).
        percentage: chunks as a percentage of the workload's replicas, rounded up to at
            least 1; ``SCALABLE`` form only, and not with ``replicas`` (Karpenter takes
            the smaller of the two and Cluster Autoscaler documents the larger, so a
            buffer names one). Default: none.
        limits: the most all chunks may request, per resource, e.g. ``{"cpu": "8"}``;
            alone, as many chunks as fit. Default: none.
        api_version: default: ``CapacityBufferVersion.V1BETA1`` (Cluster Autoscaler
            1.35+, Karpenter 1.14+); ``V1ALPHA1`` for Cluster Autoscaler 1.34 (Karpenter
            serves no ``v1alpha1``, so it is refused for pods on Karpenter's nodes).
        name: the buffer's (and its PodTemplate's) name. Default: ``<workload>-buffer``,
            or ``<workload>-buffer-<zone>`` with a ``zone``.
        zone: keep the chunks in this zone: the PodTemplate's pods select the node label
            ``topology.kubernetes.io/zone``, so the autoscaler adds nodes there. One
            buffer per zone spreads the room across zones, with ``replicas`` chunks in
            each (``POD_TEMPLATE`` form only: a scalable buffer copies the
            Deployment's own pods). Default: none, any zone.
        schedule: hold the room only in these time windows (``HeadroomSchedule``):
            in place of the ``CapacityBuffer``, a CronJob per window
            (``<name>-<window>``) whose Job holds ``replicas`` placeholder pods of the
            buffer's shape at ``priority_class_name``, which burst pods preempt; the
            Job controller deletes them when the window closes. Karpenter adds nodes
            for placeholders that do not fit; Cluster Autoscaler does only for a class
            at or above its ``--expendable-pods-priority-cutoff`` (-10). ``replicas``
            only (docs/schedules.md). Default: none, held all the time.
        priority_class_name: with ``schedule``: the placeholders' class.
            ``NodeHeadroom.add_capacity_buffer`` gives its headroom class.
            Default: ``headroom-reserve`` (the GUARDED class).
        labels: extra labels on the buffer and its PodTemplate. Default: none.

    Raises:
        HeadroomConfigError: naming the field, for pods on EKS Auto Mode (which
            exposes no Karpenter feature gates) by their pool, node selector
            (``eks.amazonaws.com/compute-type: auto``) or node affinity (Auto Mode's
            instance labels), ``V1ALPHA1`` for pods on Karpenter's nodes (an emitted
            ``KarpenterNodePool`` or the ``karpenter.sh/nodepool`` label),
            ``percentage`` without the scalable form or with ``replicas``, neither
            ``replicas``, ``percentage`` nor ``limits``, ``limits`` that do not parse,
            and a burst pod larger than the pool's smallest node.

    Warns:
        HeadroomWarning: on a pool without a ``NoSchedule`` taint: any pod the nodes
            admit can take the room, so P1 does not hold for it.
    """

    @spelled_out(CapacityBufferOptions, BUFFER_DEFAULTS)
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        workload: BurstWorkload,
        labels: Mapping[str, str] | None = None,
        priority_class_name: str = DEFAULT_HEADROOM_CLASS,
        **options: Unpack[CapacityBufferOptions],
    ) -> None:
        check_props(options, of=CapacityBuffer.__init__)
        given = with_defaults(options, BUFFER_DEFAULTS)
        self.priority_class_name = class_name(priority_class_name, field="priority_class_name")
        form, api_version = given["form"], given["api_version"]
        replicas, percentage, name = given["replicas"], given["percentage"], given["name"]
        if not isinstance(workload, BurstWorkload):
            raise HeadroomConfigError("workload", workload, "a BurstWorkload")
        if not isinstance(form, CapacityBufferForm):
            raise HeadroomConfigError(
                "form", form, "CapacityBufferForm.POD_TEMPLATE or CapacityBufferForm.SCALABLE"
            )
        self.zone = check_zone(given["zone"])
        if not isinstance(api_version, CapacityBufferVersion):
            raise HeadroomConfigError(
                "api_version",
                api_version,
                "CapacityBufferVersion.V1BETA1 (Cluster Autoscaler 1.35+, Karpenter 1.14+) "
                "or CapacityBufferVersion.V1ALPHA1 (Cluster Autoscaler 1.34)",
            )
        self.workload = workload
        self.form = form
        self.api_version = api_version
        self.name = names.dns_label(
            buffer_name(workload.name, self.zone) if name is None else name, field="name"
        )
        self.replicas = (
            None if replicas is None else rules.REPLICAS.check(replicas, field="replicas")
        )
        self.percentage = (
            None if percentage is None else rules.REPLICAS.check(percentage, field="percentage")
        )
        self.limits = _limits(given["limits"])
        BUFFER_RULES.check(self, limits=list(self.limits))
        self.schedule, _, self._window_names = check_windows(
            given["schedule"], self.replicas, name=self.name, count="replicas"
        )
        if self.schedule is not None and (self.percentage is not None or self.limits):
            raise HeadroomConfigError("schedule", SCHEDULE_LIMITED, SCHEDULE_LIMITED_ALLOWED)
        pool = workload.targeting.pool
        check_not_on_auto_mode(workload.targeting)
        rules.BUFFER_ALPHA_NOT_ON_KARPENTER.check(
            "api_version",
            api_version.value,
            version=api_version.value,
            onKarpenter=targets_karpenter(workload.targeting),
        )
        if isinstance(pool, ISizedNodePool):
            self._check_fits(pool.pool_name, pool.smallest_node)
        self.labels = workload_labels(
            self.name, BUFFER_COMPONENT, names.labels(labels, field="labels")
        )

        super().__init__(scope, id)
        self.pod_template: RenderedApiObject | None = None
        self.windows: list[RenderedApiObject] = []
        """With a schedule, the CronJob of each window, in the buffer's place."""
        if self.schedule is not None:
            for index, window_name in enumerate(self._window_names):
                self.windows.append(
                    RenderedApiObject(
                        self,
                        "Resource" if index == 0 else f"Window{index + 1}",
                        api_version="batch/v1",
                        kind="CronJob",
                        metadata=self._metadata(window_name),
                        render=lambda index=index: self._render_window(index),  # type: ignore[misc]
                    )
                )
            self.resource = self.windows[0]
            for window in self.windows:
                window.node.add_dependency(workload)
        elif form is CapacityBufferForm.POD_TEMPLATE:
            self.pod_template = RenderedApiObject(
                self,
                "PodTemplate",
                api_version="v1",
                kind="PodTemplate",
                metadata=self._metadata(),
                render=self._render_pod_template,
            )
        if self.schedule is None:
            self.resource = RenderedApiObject(
                self,
                "Resource",
                api_version=api_version.api_version,
                kind="CapacityBuffer",
                metadata=self._metadata(),
                render=self._render,
            )
            self.resource.node.add_dependency(workload)
        if self.pod_template is not None:
            self.resource.node.add_dependency(self.pod_template)
        if isinstance(pool, KarpenterNodePool):
            # Once in the tree: a requirement added later that shrinks the pool's
            # nodes below the buffer pod is refused where it is added.
            emitted = pool
            pool.watch_slice(lambda node: self._check_fits(emitted.pool_name, node))
        if not keeps_ordinary_pods_off(pool):
            where = rules.SHARED_BUFFER_WHERE["everyNode"]
            if pool is not None:
                where = fill(rules.SHARED_BUFFER_WHERE["pool"], {"pool": shown(pool.pool_name)})
            warn(rules.SHARED_BUFFER_WARNING.format(name=self.name, where=where))

    @property
    def namespace(self) -> str:
        return self.workload.namespace

    def _check_fits(self, pool_name: str, node: NodeSize) -> None:
        workload = self.workload
        check_slice_fits(
            node,
            cpu=workload.cpu_cores,
            memory=workload.memory_bytes,
            pool_name=pool_name,
            cpu_field="workload.cpu",
            memory_field="workload.memory",
            cpu_value=workload.cpu,
            memory_value=workload.memory,
            what=BUFFER_POD_WORDS,
        )

    def _metadata(self, name: str | None = None) -> cdk8s.ApiObjectMetadata:
        return cdk8s.ApiObjectMetadata(
            name=name or self.name, namespace=self.namespace, labels=self.labels
        )

    def _render_window(self, index: int) -> Any:
        assert self.schedule is not None and self.replicas is not None
        template = self._render_pod_template()["template"]
        template["spec"] = evaluate(
            WINDOW_POD,
            {"pod": template["spec"], "priorityClassName": self.priority_class_name},
        )
        return window_cron_job(
            self.schedule,
            self.schedule.windows[index],
            self.schedule.names[index],
            pod_template=template,
            pods=self.replicas,
            one_per_node=False,
        )

    @property
    def dedicated(self) -> bool:
        """Whether only pods that tolerate the pool's taint can take the room."""
        return keeps_ordinary_pods_off(self.workload.targeting.pool)

    def hold(self) -> BufferHold:
        """How many chunks the autoscaler keeps, and their size (``BufferHold``)."""
        cores, size = self.workload.requests
        if self.replicas is not None:
            units = self.replicas
        elif self.percentage is not None:
            units = max(1, math.ceil(self.percentage * self.workload.replicas / 100))
        else:
            units = names.INT32_MAX
        per_pod = {"cpu": cores, "memory": size}
        for resource, (_, amount) in self.limits.items():
            if resource in per_pod:
                units = min(units, int(amount // per_pod[resource]))
        windows = None if self.schedule is None else self.schedule.describe()
        return BufferHold(self.name, units, NodeSize(cpu=cores, memory=size), windows)

    def _render_pod_template(self) -> Any:
        workload = self.workload
        pod = evaluate(
            BUFFER_POD,
            {
                "cpu": workload.cpu,
                "memory": workload.memory,
                "cpuLimit": workload.cpu_limit,
                "memoryLimit": workload.memory_limit,
                "extendedResources": workload.extended_resources,
                "zone": self.zone,
                # The burst pod's targeting, read at synthesis like the workload's own, so
                # the placeholders land where the burst pods may (the dedicated taint
                # included).
                **workload.targeting.placement().to_manifest(),
            },
        )
        return {"template": {"metadata": {"labels": self.labels}, "spec": pod}}

    def _render(self) -> Any:
        by_template = self.form is CapacityBufferForm.POD_TEMPLATE
        spec = evaluate(
            BUFFER_SPEC,
            {
                **BUFFER_INPUTS.of(self),
                "podTemplate": self.name if by_template else None,
                "deployment": None if by_template else self.workload.name,
                "limits": {resource: text for resource, (text, _) in self.limits.items()},
            },
        )
        return {"spec": spec}
