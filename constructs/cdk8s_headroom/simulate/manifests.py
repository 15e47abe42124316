"""Reading synthesized manifests: PriorityClasses, DaemonSets, Deployments, and
CapacityBuffers with their PodTemplates.

Every DaemonSet is taken as a headroom reserver and every Deployment as a burst
workload, which is what this library emits. A CapacityBuffer's count is the one the
autoscaler computes: ``replicas``, or ``percentage`` of the scalable Deployment's
replicas rounded up to at least 1, capped by ``limits`` on cpu and memory (as many
chunks as fit, when they are the only count). Pod template fields that change scheduling
in ways the simulator does not model (inter-pod affinity, topology spread, volumes
that bind storage, host ports...) make the input unsupported; extended resources
(``nvidia.com/gpu``...) are counted in whole units, as the scheduler counts them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cdk8s_headroom.files.documents import read_objects, read_twice_warning
from cdk8s_headroom.simulate.fields import (
    Reader,
    UnsupportedInputError,
    Value,
    extended_amounts,
    extended_names,
    node_selector_terms,
    preemption_policy,
    tolerations,
)
from cdk8s_headroom.simulate.model import Resources, pod_requests
from cdk8s_headroom.simulate.scheduled import (
    WINDOW_NOT_PLACED,
    ScheduledHold,
    is_window,
    read_hold,
)
from cdk8s_headroom.simulate.workloads import Buffer, PodTemplate, Workload
from cdk8s_headroom.vocabulary.capacity_buffer_api import API_GROUP, rule_errors, version_of
from cdk8s_headroom.vocabulary.labels import COMPONENT_LABEL, PREPULLER_COMPONENT
from cdk8s_headroom.vocabulary.names import CLUSTER_SCOPED_KINDS, INT32_MIN
from cdk8s_headroom.vocabulary.placement import Placement
from cdk8s_headroom.vocabulary.priority_models import MAX_USER_PRIORITY, PriorityClassSpec

MODELS = (
    "The simulator reads PriorityClasses, DaemonSets, Deployments, CapacityBuffers and "
    "their PodTemplates; in pod templates it "
    "models container and init container cpu/memory and extended resource (nvidia.com/gpu...) "
    "requests, overhead, "
    "priorityClassName, nodeSelector, required node affinity and tolerations "
    "(see docs/simulate.md)."
)

NO_SCHEDULING_EFFECT = {
    "Namespace": "no effect on scheduling",
    "HorizontalPodAutoscaler": (
        "scaling not simulated: its Deployment's pods arrive as many times as it keeps "
        "(minReplicas, when above the replicas); --burst sets how many arrive"
    ),
    "NodePool": "not simulated; the cluster file lists the nodes",
    "EC2NodeClass": "not simulated; the cluster file lists the nodes",
    "NodeClass": "not simulated; the cluster file lists the nodes",
    "ConfigMap": "no effect on scheduling",
    "Secret": "no effect on scheduling",
    "Service": "no effect on scheduling",
    "ServiceAccount": "no effect on scheduling",
    # The chart's reader (reader.create): who may read the cluster
    "ClusterRole": "no effect on scheduling",
    "ClusterRoleBinding": "no effect on scheduling",
}
"""Kinds that may appear in the manifests and are reported as not simulated."""

_IGNORED_POD_FIELDS = (
    "activeDeadlineSeconds",
    "automountServiceAccountToken",
    "dnsConfig",
    "dnsPolicy",
    "enableServiceLinks",
    "ephemeralContainers",
    "hostAliases",
    "hostIPC",
    "hostPID",
    "hostUsers",
    "hostname",
    "imagePullSecrets",
    "os",
    "readinessGates",
    "restartPolicy",
    "securityContext",
    "serviceAccount",
    "serviceAccountName",
    "setHostnameAsFQDN",
    "shareProcessNamespace",
    "subdomain",
    "terminationGracePeriodSeconds",
)
_IGNORED_CONTAINER_FIELDS = (
    "name",
    "image",
    "command",
    "args",
    "workingDir",
    "env",
    "envFrom",
    "imagePullPolicy",
    "lifecycle",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "securityContext",
    "stdin",
    "stdinOnce",
    "tty",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "volumeMounts",
    "volumeDevices",
    "resizePolicy",
)
_LOCAL_VOLUMES = ("name", "emptyDir", "configMap", "secret", "projected", "downwardAPI")
"""Volume sources that need nothing from the node or from storage to schedule."""


_HPA_IGNORED = ("maxReplicas", "metrics", "behavior", "targetCPUUtilizationPercentage")


def _autoscaler_floor(value: Value, namespace: str) -> tuple[tuple[str, str], int] | None:
    """The Deployment a HorizontalPodAutoscaler scales, and the fewest replicas it keeps
    (``minReplicas``, default 1); ``None`` when it scales no Deployment."""
    spec = value.child("spec")
    if spec.is_null():
        return None
    fields = spec.fields(("scaleTargetRef", "minReplicas"), ignored=_HPA_IGNORED)
    target = fields["scaleTargetRef"].fields(("apiVersion", "kind", "name"))
    group = target["apiVersion"].text_or("apps/v1").partition("/")[0]
    if (group, target["kind"].text_or("")) != ("apps", "Deployment"):
        return None
    name = target["name"].text(allow_empty=False)
    # minReplicas 0 is HPAScaleToZero (alpha); the API server refuses it otherwise.
    return (namespace, name), fields["minReplicas"].integer_or(1, minimum=0)


def _apply_autoscalers(manifests: Manifests, floors: Mapping[tuple[str, str], int]) -> None:
    """A Deployment an HPA scales runs at least the HPA's ``minReplicas``, and a
    Deployment without ``replicas`` (1) gets them as soon as the HPA acts, so its
    arrivals are max(replicas, minReplicas). One whose ``replicas`` is 0 stays at 0:
    the HPA disables scaling for it (kubernetes
    ``pkg/controller/podautoscaler/horizontal.go``, ``currentReplicas == 0``)."""
    manifests.deployments = [
        replace(workload, replicas=max(workload.replicas, floor))
        if workload.replicas > 0
        and (floor := floors.get((workload.namespace, workload.name))) is not None
        else workload
        for workload in manifests.deployments
    ]


@dataclass
class Manifests:
    """What a folder of manifests holds for the simulator."""

    classes: list[tuple[PriorityClassSpec, str]] = field(default_factory=list)
    daemonsets: list[Workload] = field(default_factory=list)
    deployments: list[Workload] = field(default_factory=list)
    buffers: list[Buffer] = field(default_factory=list)
    not_simulated: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Objects read from two files, counted once (docs/plan-status.md)."""
    holds: list[ScheduledHold] = field(default_factory=list)
    """The CronJobs of time windows (``simulate/scheduled.py``), not placed."""


def _container_requests(value: Value, *, init: bool) -> tuple[Resources, bool]:
    """A container's effective requests (limits stand in for missing requests, as the
    API server defaults them) and whether it is a restartable init container."""
    known = ("resources", "ports", "restartPolicy") if init else ("resources", "ports")
    fields = value.fields(known, ignored=_IGNORED_CONTAINER_FIELDS)
    for port in fields["ports"].items():
        port.fields(("containerPort", "name", "protocol"))
    resources = fields["resources"].fields(("requests", "limits"))
    amounts = {}
    extended: dict[str, int] = {}
    for kind in ("limits", "requests"):
        names = extended_names(resources[kind])
        given = resources[kind].fields(("cpu", "memory"), ignored=names)
        for name, unit in (("cpu", 1000), ("memory", 1)):
            if not given[name].is_null():
                amounts[name] = given[name].quantity(unit)
        extended.update(extended_amounts(resources[kind], names))
    sidecar = init and fields["restartPolicy"].text_or("") == "Always"
    devices = tuple(sorted(extended.items()))
    return Resources(amounts.get("cpu", 0), amounts.get("memory", 0), devices), sidecar


def _pod_level(value: Value) -> tuple[int | None, int | None]:
    """``spec.resources`` (pod-level resources, beta and on by default from 1.34): its
    cpu and memory requests, a missing request taking the limit as the API server
    defaults it; ``None`` where neither is set."""
    resources = value.fields(("requests", "limits"))
    found: list[int | None] = [None, None]
    for kind in ("limits", "requests"):
        given = resources[kind].fields(("cpu", "memory"))
        for slot, (name, unit) in enumerate((("cpu", 1000), ("memory", 1))):
            if not given[name].is_null():
                found[slot] = given[name].quantity(unit)
    return found[0], found[1]


def _pod_requests(spec: dict[str, Value]) -> Resources:
    overhead = spec["overhead"].fields(("cpu", "memory"))
    return pod_requests(
        (_container_requests(c, init=False)[0] for c in spec["containers"].items()),
        (_container_requests(c, init=True) for c in spec["initContainers"].items()),
        Resources(overhead["cpu"].quantity_or(0, 1000), overhead["memory"].quantity_or(0, 1)),
        pod_level=_pod_level(spec["resources"]),
    )


def _placement(spec: dict[str, Value]) -> Placement:
    affinity = spec["affinity"].fields(("nodeAffinity",))
    node_affinity = affinity["nodeAffinity"].fields(
        ("requiredDuringSchedulingIgnoredDuringExecution",)
    )
    required = node_affinity["requiredDuringSchedulingIgnoredDuringExecution"]
    terms = required.fields(("nodeSelectorTerms",))["nodeSelectorTerms"]
    return Placement(
        node_selector=tuple(sorted(spec["nodeSelector"].string_map().items())),
        affinity=None if required.is_null() else node_selector_terms(terms),
        tolerations=tolerations(spec["tolerations"]),
    )


def pod_template(template: Value, namespace: str) -> PodTemplate:
    """A workload's pod template; fields that matter and are not modelled are recorded
    as unsupported on the reader."""
    fields = template.fields(("metadata", "spec"), required=("spec",))
    metadata = fields["metadata"].fields(
        ("labels",), ignored=("annotations", "name", "creationTimestamp")
    )
    spec = fields["spec"].fields(
        (
            "containers",
            "initContainers",
            "overhead",
            "resources",
            "nodeSelector",
            "affinity",
            "tolerations",
            "priorityClassName",
            "volumes",
            "schedulerName",
            "hostNetwork",
        ),
        required=("containers",),
        ignored=_IGNORED_POD_FIELDS,
    )
    reader = template.reader
    if spec["schedulerName"].text_or("default-scheduler") != "default-scheduler":
        reader.unsupported.append(f"{spec['schedulerName'].path}: another scheduler")
    if spec["hostNetwork"].boolean_or(False):
        reader.unsupported.append(f"{spec['hostNetwork'].path}: host ports")
    for volume in spec["volumes"].items():
        volume.fields(_LOCAL_VOLUMES)
    return PodTemplate(
        namespace=namespace,
        class_name=spec["priorityClassName"].text_or("") or None,
        requests=_pod_requests(spec),
        placement=_placement(spec),
        labels=metadata["labels"].string_map(),
        where=spec["priorityClassName"].where,
    )


def _priority_class(value: Value, name: str) -> PriorityClassSpec:
    fields = value.fields(
        ("value", "preemptionPolicy", "globalDefault"),
        required=("value",),
        ignored=("apiVersion", "kind", "metadata", "description"),
    )
    return PriorityClassSpec(
        name=name,
        value=fields["value"].integer(minimum=INT32_MIN, maximum=MAX_USER_PRIORITY),
        preemption_policy=preemption_policy(fields["preemptionPolicy"]),
        global_default=fields["globalDefault"].boolean_or(False),
    )


def _workload(value: Value, kind: str, name: str, namespace: str) -> Workload:
    fields = value.fields(("spec",), required=("spec",), ignored=("apiVersion", "kind", "metadata"))
    ignored = ["selector", "minReadySeconds", "revisionHistoryLimit"]
    if kind == "Deployment":
        ignored += ["strategy", "progressDeadlineSeconds", "paused"]
        spec = fields["spec"].fields(
            ("replicas", "template"), required=("template",), ignored=ignored
        )
        replicas = spec["replicas"].integer_or(1, minimum=0)
    else:
        spec = fields["spec"].fields(
            ("template",), required=("template",), ignored=[*ignored, "updateStrategy"]
        )
        replicas = 0
    return Workload(kind, name, namespace, replicas, pod_template(spec["template"], namespace))


@dataclass(frozen=True)
class _BufferSpec:
    """A CapacityBuffer as read, before its reference is resolved."""

    value: Value
    name: str
    namespace: str
    template: str | None
    deployment: str | None
    replicas: int | None
    percentage: int | None
    limits: tuple[int | None, int | None]
    """cpu (millicores) and memory (bytes) limits; ``None`` where not given."""


def _buffer_spec(value: Value, name: str, namespace: str) -> _BufferSpec:
    fields = value.fields(
        ("spec",), required=("spec",), ignored=("apiVersion", "kind", "metadata", "status")
    )
    spec = fields["spec"]
    if version_of(value.mapping()) is None:
        raise value.child("apiVersion").fail(
            f"{API_GROUP}/v1beta1 or {API_GROUP}/v1alpha1, the versions the simulator reads"
        )
    broken = rule_errors(spec.mapping())
    if broken:
        raise spec.fail("; ".join(broken))
    given = spec.fields(
        ("podTemplateRef", "scalableRef", "replicas", "percentage", "limits"),
        ignored=("provisioningStrategy",),
    )
    template = None
    if not given["podTemplateRef"].is_null():
        reference = given["podTemplateRef"].fields(("name",), required=("name",))
        template = reference["name"].text(allow_empty=False)
    deployment = None
    if not given["scalableRef"].is_null():
        scalable = given["scalableRef"].fields(
            ("apiGroup", "kind", "name"), required=("kind", "name")
        )
        if (scalable["apiGroup"].text_or("apps"), scalable["kind"].text()) != (
            "apps",
            "Deployment",
        ):
            raise given["scalableRef"].fail(
                "a Deployment (apiGroup apps), the kind the simulator reads"
            )
        deployment = scalable["name"].text(allow_empty=False)
    amounts = given["limits"].fields(("cpu", "memory"))
    limits = tuple(
        None if amounts[name].is_null() else amounts[name].quantity(unit)
        for name, unit in (("cpu", 1000), ("memory", 1))
    )
    return _BufferSpec(
        value=value,
        name=name,
        namespace=namespace,
        template=template,
        deployment=deployment,
        replicas=None if given["replicas"].is_null() else given["replicas"].integer(minimum=0),
        percentage=None
        if given["percentage"].is_null()
        else given["percentage"].integer(minimum=0),
        limits=(limits[0], limits[1]),
    )


def _units(spec: _BufferSpec, request: Resources, scalable: Workload | None) -> int:
    """The autoscaler's count of chunks. With both ``replicas`` and ``percentage`` it is
    the smaller, as Karpenter (and Cluster Autoscaler up to 1.36.1) compute it."""
    counts = [] if spec.replicas is None else [spec.replicas]
    if spec.percentage is not None and scalable is not None:
        counts.append(max(1, math.ceil(spec.percentage * scalable.replicas / 100)))
    for limit, per_pod in zip(spec.limits, (request.cpu, request.memory), strict=True):
        if limit is not None and per_pod > 0:
            counts.append(limit // per_pod)
    return min(counts, default=0)


def _resolve_buffers(
    manifests: Manifests, specs: list[_BufferSpec], templates: dict[tuple[str, str], Value]
) -> None:
    deployments = {(w.namespace, w.name): w for w in manifests.deployments}
    for spec in specs:
        scalable = None
        if spec.template is not None:
            found = templates.get((spec.namespace, spec.template))
            if found is None:
                raise (
                    spec.value.child("spec")
                    .child("podTemplateRef")
                    .fail("the name of a PodTemplate of the manifests in the buffer's namespace")
                )
            fields = found.fields(
                ("template",), required=("template",), ignored=("apiVersion", "kind", "metadata")
            )
            template = pod_template(fields["template"], spec.namespace)
        else:
            scalable = deployments.get((spec.namespace, spec.deployment or ""))
            if scalable is None:
                raise (
                    spec.value.child("spec")
                    .child("scalableRef")
                    .fail("the name of a Deployment of the manifests in the buffer's namespace")
                )
            template = scalable.template
        units = _units(spec, template.requests, scalable)
        manifests.buffers.append(Buffer(spec.name, spec.namespace, template, units))


def _labels(document: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = document.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, Mapping) else None
    return labels if isinstance(labels, Mapping) else {}


def _read_document(
    manifests: Manifests,
    document: object,
    reader: Reader,
    index: int,
    pending: tuple[list[_BufferSpec], dict[tuple[str, str], Value]],
    floors: dict[tuple[str, str], int],
) -> None:
    root = Value(reader, document, f"[{index}]")
    header = root.mapping()
    kind = header.get("kind")
    metadata = root.child("metadata")
    name = metadata.child("name").text(allow_empty=False)
    namespace = metadata.child("namespace").text_or("default")
    label = f"{kind} {name}" if kind in CLUSTER_SCOPED_KINDS else f"{kind} {namespace}/{name}"
    value = Value(reader, document, label)
    if kind == "PriorityClass":
        manifests.classes.append((_priority_class(value, name), f"{reader.source}: {value.path}"))
    elif kind == "DaemonSet" and _labels(header).get(COMPONENT_LABEL) == PREPULLER_COMPONENT:
        manifests.not_simulated.append(
            f"{value.path}: pulls images and requests no CPU or memory, no effect on scheduling"
        )
    elif kind in ("DaemonSet", "Deployment"):
        workload = _workload(value, kind, name, namespace)
        (manifests.daemonsets if kind == "DaemonSet" else manifests.deployments).append(workload)
    elif is_window(document):
        manifests.holds.append(read_hold(value, name, namespace))
        manifests.not_simulated.append(f"{value.path}: {WINDOW_NOT_PLACED}")
    elif kind == "CapacityBuffer":
        pending[0].append(_buffer_spec(value, name, namespace))
    elif kind == "PodTemplate":
        # Read when a buffer names it: a PodTemplate alone schedules nothing.
        pending[1][(namespace, name)] = value
    elif kind == "HorizontalPodAutoscaler":
        floor = _autoscaler_floor(value, namespace)
        if floor is not None:
            floors[floor[0]] = max(floor[1], floors.get(floor[0], 0))
        manifests.not_simulated.append(f"{value.path}: {NO_SCHEDULING_EFFECT[kind]}")
    elif isinstance(kind, str) and kind in NO_SCHEDULING_EFFECT:
        manifests.not_simulated.append(f"{value.path}: {NO_SCHEDULING_EFFECT[kind]}")
    else:
        reader.unsupported.append(f"{value.path}: a kind the simulator does not place or read")


def _read_before(
    manifests: Manifests,
    seen: dict[tuple[str, str | None, str], tuple[str, object]],
    document: object,
    where: Value,
) -> bool:
    """Whether ``document``'s object (kind, namespace, name) was read before: the same
    object (a copy of a file) is counted once with a warning naming both files; a
    different one is refused naming both, as the snapshot reader decides."""
    if not isinstance(document, Mapping):
        return False
    kind, metadata = document.get("kind"), document.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    if not isinstance(kind, str) or not isinstance(name, str):
        return False
    namespace = metadata.get("namespace") if isinstance(metadata, Mapping) else None
    scope = None if kind in CLUSTER_SCOPED_KINDS else str(namespace or "default")
    what = f"{kind} {name}" if scope is None else f"{kind} {scope}/{name}"
    earlier = seen.get((kind, scope, name))
    if earlier is None:
        seen[(kind, scope, name)] = (where.reader.source, document)
        return False
    if earlier[1] == document:
        manifests.warnings.append(read_twice_warning(what, earlier[0], where.reader.source))
        return True
    raise (
        where.child("metadata")
        .child("name")
        .fail(f"one {kind} of this name: {earlier[0]} holds a different {what}; keep one of them")
    )


def read_manifests(path: Path) -> Manifests:
    """Reads every manifest file of a folder (recursively, in name order), or one file."""
    by_file: dict[str, list[object]] = {}
    for item in read_objects(path):
        by_file.setdefault(item.file, []).append(item.obj)
    return manifests_from_objects(by_file.items(), source=str(path))


def manifests_from_objects(
    sources: Iterable[tuple[str, Iterable[object]]], *, source: str = "manifests"
) -> Manifests:
    """Reads manifest objects, given as (file name, objects) pairs; every unsupported
    field or kind of every file is listed in one ``UnsupportedInputError``."""
    manifests = Manifests()
    problems: list[str] = []
    pending: tuple[list[_BufferSpec], dict[tuple[str, str], Value]] = ([], {})
    floors: dict[tuple[str, str], int] = {}
    readers = []
    seen: dict[tuple[str, str | None, str], tuple[str, object]] = {}
    for name, documents in sources:
        reader = Reader(name, MODELS)
        readers.append(reader)
        objects = [document for document in documents if document is not None]
        for index, document in enumerate(objects):
            if not _read_before(manifests, seen, document, Value(reader, document, f"[{index}]")):
                _read_document(manifests, document, reader, index, pending, floors)
    # After every file: an HPA or a buffer may name a Deployment of another file, and a
    # buffer's percentage counts the replicas the HPA keeps.
    _apply_autoscalers(manifests, floors)
    _resolve_buffers(manifests, *pending)
    for reader in readers:
        problems += [f"{reader.source}: {item}" for item in reader.unsupported]
    if problems:
        raise UnsupportedInputError(source, problems, MODELS)
    return manifests
