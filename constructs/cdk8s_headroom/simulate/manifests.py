"""Reading synthesized manifests: PriorityClasses, DaemonSets and Deployments.

Every DaemonSet is taken as a headroom reserver and every Deployment as a burst
workload, which is what this library emits. Pod template fields that change scheduling
in ways the simulator does not model (inter-pod affinity, topology spread, volumes
that bind storage, host ports, extended resources...) make the input unsupported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import HeadroomConfigError
from ..kube import CLUSTER_SCOPED_KINDS
from ..output import MANIFEST_SUFFIX
from ..priority import PriorityClassSpec
from .model import Placement, Resources
from .reading import (
    Reader,
    UnsupportedInputError,
    Value,
    node_selector_terms,
    preemption_policy,
    tolerations,
)
from .workloads import PodTemplate, Workload

MODELS = (
    "The simulator reads PriorityClasses, DaemonSets and Deployments; in pod templates it "
    "models container and init container cpu/memory requests, overhead, "
    "priorityClassName, nodeSelector, required node affinity and tolerations "
    "(see docs/simulate.md)."
)

NO_SCHEDULING_EFFECT = {
    "Namespace": "no effect on scheduling",
    "HorizontalPodAutoscaler": "not simulated; --burst sets how many replicas arrive",
    "NodePool": "not simulated; the cluster file lists the nodes",
    "EC2NodeClass": "not simulated; the cluster file lists the nodes",
    "NodeClass": "not simulated; the cluster file lists the nodes",
    "ConfigMap": "no effect on scheduling",
    "Secret": "no effect on scheduling",
    "Service": "no effect on scheduling",
    "ServiceAccount": "no effect on scheduling",
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


@dataclass
class Manifests:
    """What a folder of manifests holds for the simulator."""

    classes: list[tuple[PriorityClassSpec, str]] = field(default_factory=list)
    daemonsets: list[Workload] = field(default_factory=list)
    deployments: list[Workload] = field(default_factory=list)
    not_simulated: list[str] = field(default_factory=list)


def _container_requests(value: Value, *, init: bool) -> tuple[Resources, bool]:
    """A container's effective requests (limits stand in for missing requests, as the
    API server defaults them) and whether it is a restartable init container."""
    known = ("resources", "ports", "restartPolicy") if init else ("resources", "ports")
    fields = value.fields(known, ignored=_IGNORED_CONTAINER_FIELDS)
    for port in fields["ports"].items():
        port.fields(("containerPort", "name", "protocol"))
    resources = fields["resources"].fields(("requests", "limits"))
    amounts = {}
    for kind in ("limits", "requests"):
        given = resources[kind].fields(("cpu", "memory"))
        for name, unit in (("cpu", 1000), ("memory", 1)):
            if not given[name].is_null():
                amounts[name] = given[name].quantity(unit)
    sidecar = init and fields["restartPolicy"].text_or("") == "Always"
    return Resources(amounts.get("cpu", 0), amounts.get("memory", 0)), sidecar


def pod_requests(spec: dict[str, Value]) -> Resources:
    """``resourcehelper.PodRequests``: the larger of the containers' sum and each init
    container (with the restartable init containers started before it), plus
    overhead."""
    total = Resources()
    for container in spec["containers"].items():
        total += _container_requests(container, init=False)[0]
    sidecars = Resources()
    init_peak = Resources()
    for container in spec["initContainers"].items():
        requests, sidecar = _container_requests(container, init=True)
        if sidecar:
            total += requests
            sidecars += requests
            init_peak = init_peak.max(sidecars)
        else:
            init_peak = init_peak.max(requests + sidecars)
    overhead = spec["overhead"].fields(("cpu", "memory"))
    return total.max(init_peak) + Resources(
        overhead["cpu"].quantity_or(0, 1000), overhead["memory"].quantity_or(0, 1)
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
        requests=pod_requests(spec),
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
        value=fields["value"].integer(minimum=-(2**31), maximum=1_000_000_000),
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


def _read_document(manifests: Manifests, document: object, reader: Reader, index: int) -> None:
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
    elif kind in ("DaemonSet", "Deployment"):
        workload = _workload(value, kind, name, namespace)
        (manifests.daemonsets if kind == "DaemonSet" else manifests.deployments).append(workload)
    elif isinstance(kind, str) and kind in NO_SCHEDULING_EFFECT:
        manifests.not_simulated.append(f"{value.path}: {NO_SCHEDULING_EFFECT[kind]}")
    else:
        reader.unsupported.append(f"{value.path}: a kind the simulator does not place or read")


def read_manifests(folder: Path) -> Manifests:
    """Reads every ``*.k8s.yaml`` file under ``folder``, in name order."""
    if not folder.is_dir():
        raise HeadroomConfigError(
            "--manifests", str(folder), f"a folder of synthesized {MANIFEST_SUFFIX} files"
        )
    files = sorted(folder.rglob(f"*{MANIFEST_SUFFIX}"))
    if not files:
        raise HeadroomConfigError(
            "--manifests",
            str(folder),
            f"a folder that holds {MANIFEST_SUFFIX} files (run cdk8s synth)",
        )
    sources = []
    for path in files:
        try:
            documents = list(yaml.safe_load_all(path.read_text()))
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark
            where = f"{path}: line {mark.line + 1}" if mark else str(path)
            raise HeadroomConfigError(where, error.problem, "valid YAML") from None
        sources.append((str(path), documents))
    return manifests_from_objects(sources, source=str(folder))


def manifests_from_objects(
    sources: Iterable[tuple[str, Iterable[object]]], *, source: str = "manifests"
) -> Manifests:
    """Reads manifest objects, given as (file name, objects) pairs; every unsupported
    field or kind of every file is listed in one ``UnsupportedInputError``."""
    manifests = Manifests()
    problems: list[str] = []
    for name, documents in sources:
        reader = Reader(name, MODELS)
        objects = [document for document in documents if document is not None]
        for index, document in enumerate(objects):
            _read_document(manifests, document, reader, index)
        problems += [f"{name}: {item}" for item in reader.unsupported]
    if problems:
        raise UnsupportedInputError(source, problems, MODELS)
    return manifests
