"""A cluster as kubectl lists it, read into the simulator's model.

The input is the objects ``kubectl get nodes,pods,priorityclasses,poddisruptionbudgets
-A -o json`` prints (and ``kubectl get events -A -o json``), each with the file it came
from. Only what kube-scheduler reads is kept:

- nodes: ``status.allocatable`` (cpu, memory, pods), labels, ``spec.taints``, and
  ``spec.unschedulable`` as the ``node.kubernetes.io/unschedulable:NoSchedule`` taint
  (the node lifecycle controller adds that taint to cordoned nodes);
- pods: ``spec.nodeName``, ``status.phase`` (Succeeded and Failed pods hold nothing),
  ``metadata.deletionTimestamp`` (a terminating pod holds its room until it is gone),
  ``status.nominatedNodeName``, ``spec.priority`` as admission resolved it (else the
  class's value), ``priorityClassName``, ``preemptionPolicy``, the controlling
  ``ownerReference`` (a DaemonSet's pod is pinned to its node), node selector, required
  node affinity, tolerations, ``status.startTime``, and requests as the scheduler counts
  them (``cluster.pod_requests``; a missing request takes the limit, as the API server
  defaults it);
- PriorityClasses (any ``scheduling.k8s.io`` version) and PodDisruptionBudgets (any
  ``policy`` version) with their status; ``Preempted`` events.

Everything else an object carries (``managedFields``, probes, most of ``status``) is
ignored. Fields that change scheduling but are not modelled are counted in
``Snapshot.not_modelled``, never dropped silently. Bad values raise
``HeadroomConfigError`` naming the file, the object and the field.
"""

from __future__ import annotations

import functools
import gc
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cdk8s_headroom.cluster.listed_object import ListedObject, Quantities
from cdk8s_headroom.cluster.not_modelled import NotModelled, not_modelled_fields
from cdk8s_headroom.cluster.pod_requests import pod_requests_of
from cdk8s_headroom.cluster.reported_status import (
    BufferStatus,
    DaemonSetCounts,
    PreemptionEvent,
    buffer_status,
    daemonset_counts,
    preemption_event,
)
from cdk8s_headroom.files.documents import SourcedObject, read_objects, read_twice_warning
from cdk8s_headroom.simulate.fields import (
    Shown,
    label_selector,
    node_selector_terms,
    rfc3339_nanos,
    taints,
    tolerations,
)
from cdk8s_headroom.simulate.model import (
    DisruptionBudget,
    Node,
    Pod,
    Resources,
    Role,
)
from cdk8s_headroom.simulate.scheduler import ClusterState
from cdk8s_headroom.simulate.versions import KubernetesVersion
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.labels import BURST_COMPONENT, COMPONENT_LABEL, RESERVER_COMPONENT
from cdk8s_headroom.vocabulary.names import CLUSTER_SCOPED_KINDS
from cdk8s_headroom.vocabulary.placement import Placement, Taint, TaintEffect, Toleration
from cdk8s_headroom.vocabulary.priority_models import (
    SYSTEM_PRIORITY_CLASSES,
    PreemptionPolicy,
    PriorityClassSpec,
)
from cdk8s_headroom.vocabulary.rules import EXTENDED_RESOURCE

DEFAULT_MAX_PODS = 110
"""A node's ``allocatable.pods`` when it reports none: the kubelet's default maxPods."""

UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", TaintEffect.NO_SCHEDULE)
"""What ``spec.unschedulable: true`` (``kubectl cordon``) means to the scheduler."""

_FINISHED_PHASES = frozenset({"Succeeded", "Failed"})
_ROLES = {RESERVER_COMPONENT: Role.HEADROOM, BURST_COMPONENT: Role.BURST}
_NO_OBJECT = "a Kubernetes object: a mapping with kind, apiVersion and metadata.name"
_NAME_ALLOWED = "a non-empty string"


@dataclass
class Snapshot:
    """What a snapshot holds for the scheduler."""

    nodes: list[Node] = field(default_factory=list)
    cordoned: set[str] = field(default_factory=set)
    kubelet_versions: list[KubernetesVersion] = field(default_factory=list)
    unversioned_nodes: list[tuple[str, str]] = field(default_factory=list)
    """Nodes whose ``kubeletVersion`` names no Kubernetes release (KWOK, virtual-kubelet,
    some managed offerings), each with what it reports."""
    bound: list[Pod] = field(default_factory=list)
    """Pods that hold room on a node of the snapshot (``node`` set): running, not yet
    started, or terminating."""
    waiting: list[Pod] = field(default_factory=list)
    """Pods not bound to a node. A nominated pod has ``nominated_node``; a DaemonSet's
    pod has ``placement.pinned_node``."""
    terminating: set[tuple[str, str]] = field(default_factory=set)
    """(namespace, name) of the pods with a deletion timestamp."""
    finished: int = 0
    """Succeeded and Failed pods: they hold nothing."""
    classes: list[tuple[PriorityClassSpec, str]] = field(default_factory=list)
    """The cluster's PriorityClasses, each with where it was read."""
    pdbs: list[DisruptionBudget] = field(default_factory=list)
    events: list[PreemptionEvent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    not_modelled: dict[NotModelled, list[str]] = field(default_factory=dict)
    """Per field, the pods (``namespace/name``) that use it."""
    daemonsets: dict[str, DaemonSetCounts] = field(default_factory=dict)
    """The DaemonSets listed (``namespace/name``), with their controller's counts."""
    buffers: list[BufferStatus] = field(default_factory=list)
    """The CapacityBuffers listed, where the cluster serves them."""
    other_kinds: Counter[str] = field(default_factory=Counter)
    """Objects of kinds that do not change scheduling (a cluster-info dump holds
    Services, Deployments, ...), by kind."""

    @property
    def version(self) -> KubernetesVersion | None:
        """The newest kubelet's release. Kubelets may lag the control plane, never lead
        it, so the newest is the closest to the scheduler's."""
        return max(self.kubelet_versions, default=None)

    def state(
        self, version: KubernetesVersion, *, without_owners: Collection[str] = ()
    ) -> ClusterState:
        """The nodes with the bound pods, as the scheduler sees them now, leaving out the
        pods of ``without_owners``. A nominated pod holds its room on the nominated node,
        as the scheduler's filters count nominated pods of equal or higher priority.

        The state holds copies of the pods, so a what-if on it leaves the snapshot as
        it was."""
        state = ClusterState(self.nodes, self.pdbs, version=version)
        for pod in self.bound:
            if pod.owner not in without_owners:
                state.bind(pod.copy(), pod.node or "")
        for pod in self.waiting:
            if pod.nominated_node is not None and state.get(pod.nominated_node) is not None:
                state.bind(pod.copy(), pod.nominated_node)
        return state


class _SnapshotReader:
    def __init__(self) -> None:
        self.snapshot = Snapshot()
        self.quantities = Quantities()
        self._tolerations: dict[str, tuple[Toleration, ...]] = {}
        self._pods: list[tuple[Pod, int | None, ListedObject]] = []
        self._node_names: set[str] = set()
        self._seen: dict[tuple[str, str | None, str], tuple[str, object]] = {}
        """Each object read, by kind, namespace and name: where, and what it held."""
        self._namespaces: set[str] = set()
        """The namespaces of the pods read."""

    def read(self, source: str, data: object, described: str | None = None) -> None:
        """Reads one object; ``described`` names it for messages when it has no name
        (``SourcedObject.describe``: the file, the kind and where it sits)."""
        if not isinstance(data, Mapping):
            raise HeadroomConfigError(source, Shown(data), _NO_OBJECT)
        kind = data.get("kind")
        if not isinstance(kind, str) or not kind:
            raise HeadroomConfigError(source, Shown(data), _NO_OBJECT)
        metadata = data.get("metadata")
        if not isinstance(metadata, Mapping):
            raise HeadroomConfigError(
                f"{described or f'{source}: {kind}'}: metadata",
                Shown(metadata),
                "a mapping with name (and namespace)",
            )
        cluster_scoped = kind in CLUSTER_SCOPED_KINDS
        name = metadata.get("name")
        namespace = metadata.get("namespace")
        obj = ListedObject(
            source,
            kind,
            None if cluster_scoped else (namespace if isinstance(namespace, str) else ""),
            name if isinstance(name, str) else "",
        )
        reader = _KINDS.get(kind)
        if reader is None:
            self.snapshot.other_kinds[kind] += 1
            return
        if not isinstance(name, str) or not name:
            raise obj.fail("metadata.name", name, _NAME_ALLOWED)
        if not cluster_scoped and kind != "Event" and (not isinstance(namespace, str)):
            raise obj.fail("metadata.namespace", namespace, _NAME_ALLOWED)
        if kind == "Pod":
            self._namespaces.add(obj.namespace or "")
        key = (kind, obj.namespace, name)
        seen = self._seen.get(key)
        if seen is not None:
            self._read_twice(obj, seen, data)
            return
        self._seen[key] = (source, data)
        reader(self, obj, data, metadata)

    def _read_twice(self, obj: ListedObject, seen: tuple[str, object], data: object) -> None:
        """The same object from two sources (overlapping ``--snapshot`` paths, a copy
        of a file): counted once with a warning when both are the same, refused when
        they differ, as no rule says which of two versions of an object is the live
        one (docs/plan-status.md, "Objects read twice")."""
        what = obj.label.split(": ", 1)[1]
        if seen[1] == data:
            self.snapshot.warnings.append(read_twice_warning(what, seen[0], obj.source))
            return
        raise obj.fail(
            "metadata.name",
            obj.name,
            f"one {obj.kind} of this name: {seen[0]} holds a different {what} "
            "(listings taken at different times?); read one of them",
        )

    def node(self, obj: ListedObject, data: Mapping[str, Any], metadata: Mapping[str, Any]) -> None:
        spec = obj.mapping(data.get("spec"), "spec")
        status = obj.mapping(data.get("status"), "status")
        allocatable = status.get("allocatable")
        if not isinstance(allocatable, Mapping):
            raise obj.fail(
                "status.allocatable", allocatable, "a mapping with cpu and memory (and pods)"
            )
        amounts = []
        for resource, unit in (("cpu", 1000), ("memory", 1)):
            amount = allocatable.get(resource)
            if amount is None:
                raise obj.fail(f"status.allocatable.{resource}", amount, "a Kubernetes quantity")
            amounts.append(self.quantities.get(obj, amount, f"status.allocatable.{resource}", unit))
        devices = tuple(
            sorted(
                (name, self.quantities.get(obj, amount, f"status.allocatable.{name}", 1))
                for name, amount in allocatable.items()
                if "/" in name and EXTENDED_RESOURCE.matches(name)
            )
        )
        pods = allocatable.get("pods")
        max_pods = (
            DEFAULT_MAX_PODS
            if pods is None
            else self.quantities.get(obj, pods, "status.allocatable.pods", 1)
        )
        node_taints = taints(obj.value(spec.get("taints"), "spec.taints"))
        unschedulable = spec.get("unschedulable")
        if unschedulable is not None and not isinstance(unschedulable, bool):
            raise obj.fail("spec.unschedulable", unschedulable, "true or false")
        if unschedulable:
            self.snapshot.cordoned.add(obj.name)
            if not any(t.key == UNSCHEDULABLE_TAINT.key for t in node_taints):
                node_taints += (UNSCHEDULABLE_TAINT,)
        info = obj.mapping(status.get("nodeInfo"), "status.nodeInfo")
        kubelet = info.get("kubeletVersion")
        if kubelet is not None:
            field = f"{obj.label}: status.nodeInfo.kubeletVersion"
            version = (
                KubernetesVersion.parse_reported(kubelet, field=field)
                if isinstance(kubelet, str)
                else KubernetesVersion.parse(kubelet, field=field)
            )
            if version is None:
                # Virtual and simulated nodes (KWOK's `kwok-0.7.0`, virtual-kubelet's)
                # report no release: the node stays readable, and the release comes
                # from --kubernetes-version, the other nodes or the default (a warning).
                self.snapshot.unversioned_nodes.append((obj.name, kubelet))
            else:
                self.snapshot.kubelet_versions.append(version)
        self._node_names.add(obj.name)
        self.snapshot.nodes.append(
            Node(
                obj.name,
                Resources(amounts[0], amounts[1], tuple((n, a) for n, a in devices if a)),
                max_pods,
                obj.labels(metadata.get("labels"), "metadata.labels"),
                node_taints,
            )
        )

    def priority_class(
        self, obj: ListedObject, data: Mapping[str, Any], metadata: Mapping[str, Any]
    ) -> None:
        value = data.get("value")
        policy = data.get("preemptionPolicy")
        global_default = data.get("globalDefault", False)
        if global_default is not None and not isinstance(global_default, bool):
            raise obj.fail("globalDefault", global_default, "true or false")
        info = PriorityClassSpec(
            obj.name,
            obj.integer(value, "value", minimum=-(2**31), maximum=2**31 - 1),
            _policy(obj, policy, "preemptionPolicy"),
            bool(global_default),
        )
        self.snapshot.classes.append((info, obj.label))

    def pdb(self, obj: ListedObject, data: Mapping[str, Any], metadata: Mapping[str, Any]) -> None:
        spec = obj.mapping(data.get("spec"), "spec")
        status = obj.mapping(data.get("status"), "status")
        allowed = status.get("disruptionsAllowed", 0)
        disrupted = obj.mapping(status.get("disruptedPods"), "status.disruptedPods")
        self.snapshot.pdbs.append(
            DisruptionBudget(
                name=obj.name,
                namespace=obj.namespace or "",
                selector=label_selector(obj.value(spec.get("selector"), "spec.selector")),
                disruptions_allowed=obj.integer(
                    allowed, "status.disruptionsAllowed", minimum=0, maximum=2**31 - 1
                ),
                disrupted_pods=frozenset(str(name) for name in disrupted),
            )
        )

    def daemonset(
        self, obj: ListedObject, data: Mapping[str, Any], metadata: Mapping[str, Any]
    ) -> None:
        self.snapshot.daemonsets[f"{obj.namespace}/{obj.name}"] = daemonset_counts(obj, data)

    def buffer(
        self, obj: ListedObject, data: Mapping[str, Any], metadata: Mapping[str, Any]
    ) -> None:
        self.snapshot.buffers.append(buffer_status(obj, data))

    def event(
        self, obj: ListedObject, data: Mapping[str, Any], metadata: Mapping[str, Any]
    ) -> None:
        if data.get("reason") == "Preempted":
            self.snapshot.events.append(preemption_event(obj, data))

    def pod(self, obj: ListedObject, data: Mapping[str, Any], metadata: Mapping[str, Any]) -> None:
        spec = data.get("spec")
        if not isinstance(spec, Mapping):
            raise obj.fail("spec", spec, "a pod spec with containers")
        status = obj.mapping(data.get("status"), "status")
        phase = status.get("phase")
        if isinstance(phase, str) and phase in _FINISHED_PHASES:
            self.snapshot.finished += 1
            return
        labels = obj.labels(metadata.get("labels"), "metadata.labels")
        owner = _controller(obj, metadata.get("ownerReferences"))
        node = spec.get("nodeName") or None
        if node is not None and not isinstance(node, str):
            raise obj.fail("spec.nodeName", node, "a node name")
        priority = spec.get("priority")
        if priority is not None:
            priority = obj.integer(priority, "spec.priority", minimum=-(2**31), maximum=2**31 - 1)
        class_name = obj.text(spec.get("priorityClassName"), "spec.priorityClassName")
        nominated = obj.text(status.get("nominatedNodeName"), "status.nominatedNodeName")
        placement = self._placement(obj, spec, node if owner.startswith("DaemonSet ") else None)
        pod = Pod(
            name=obj.name,
            namespace=obj.namespace or "",
            priority=0 if priority is None else priority,
            preemption_policy=_policy(obj, spec.get("preemptionPolicy"), "spec.preemptionPolicy"),
            requests=pod_requests_of(obj, spec, status, self.quantities),
            labels=labels,
            start_time=_time(obj, status.get("startTime"), "status.startTime"),
            placement=placement,
            role=_ROLES.get(labels.get(COMPONENT_LABEL, ""), Role.ORDINARY),
            owner=owner,
            class_name=class_name,
            node=node,
            nominated_node=nominated or None,
        )
        deleted = metadata.get("deletionTimestamp")
        if deleted is not None:
            self.snapshot.terminating.add((pod.namespace, pod.name))
            pod.terminating_by_preemption = _disrupted_by_preemption(obj, status)
        for what in not_modelled_fields(spec, status):
            self.snapshot.not_modelled.setdefault(what, []).append(f"{obj.namespace}/{obj.name}")
        self._pods.append((pod, priority, obj))

    def _placement(
        self, obj: ListedObject, spec: Mapping[str, Any], bound_daemon_node: str | None
    ) -> Placement:
        selector = obj.labels(spec.get("nodeSelector"), "spec.nodeSelector")
        affinity = obj.mapping(spec.get("affinity"), "spec.affinity")
        node_affinity = obj.mapping(affinity.get("nodeAffinity"), "spec.affinity.nodeAffinity")
        required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        path = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        terms = None
        pinned = bound_daemon_node
        if required is not None:
            terms_data = obj.mapping(required, path).get("nodeSelectorTerms")
            terms = node_selector_terms(obj.value(terms_data, f"{path}.nodeSelectorTerms"))
            if pinned is None:
                pinned = _daemon_node(terms)
        return Placement(
            node_selector=tuple(sorted(selector.items())),
            affinity=terms,
            tolerations=self._pod_tolerations(obj, spec.get("tolerations")),
            pinned_node=pinned,
        )

    def _pod_tolerations(self, obj: ListedObject, data: object) -> tuple[Toleration, ...]:
        if data is None:
            return ()
        # Most pods carry the same few tolerations (not-ready, unreachable): read each
        # distinct list once.
        key = repr(data)
        known = self._tolerations.get(key)
        if known is None:
            known = tolerations(obj.value(data, "spec.tolerations"))
            self._tolerations[key] = known
        return known

    def finish(self) -> Snapshot:
        """Resolves the priorities that admission did not record (clusters before 1.8
        have no ``spec.priority``) and binds pods to their nodes."""
        snapshot = self.snapshot
        snapshot.warnings += _partial_listing(self._namespaces)
        classes = {spec.name: spec for spec in SYSTEM_PRIORITY_CLASSES}
        classes.update((info.name, info) for info, _ in snapshot.classes)
        default = next((info for info in classes.values() if info.global_default), None)
        for pod, priority, obj in self._pods:
            if priority is None:
                info = classes.get(pod.class_name) if pod.class_name else default
                pod.priority = info.value if info is not None else 0
            # The node a pod is on, is nominated to, or (a DaemonSet's) is pinned to.
            field, node = next(
                (
                    (field, node)
                    for field, node in (
                        ("spec.nodeName", pod.node),
                        ("status.nominatedNodeName", pod.nominated_node),
                        ("the DaemonSet's node affinity", pod.placement.pinned_node),
                    )
                    if node is not None
                ),
                ("", None),
            )
            if node is not None and node not in self._node_names:
                snapshot.warnings.append(
                    f"{obj.label}: {field} {shown(node)} is not a node of the snapshot "
                    "(snapshots are not atomic); the pod is skipped"
                )
            elif pod.node is None:
                snapshot.waiting.append(pod)
            else:
                snapshot.bound.append(pod)
        return snapshot


_KINDS = {
    "Node": _SnapshotReader.node,
    "Pod": _SnapshotReader.pod,
    "PriorityClass": _SnapshotReader.priority_class,
    "PodDisruptionBudget": _SnapshotReader.pdb,
    "Event": _SnapshotReader.event,
    "DaemonSet": _SnapshotReader.daemonset,
    "CapacityBuffer": _SnapshotReader.buffer,
}


_FULL_LISTING = "kubectl get nodes,pods,priorityclasses,poddisruptionbudgets -A -o json"


def _partial_listing(namespaces: Collection[str]) -> list[str]:
    """A warning when the pods look like the listing of one namespace (``kubectl get
    pods -o json`` without ``-A``): every cluster runs pods in ``kube-system``, and the
    pods of namespaces a listing leaves out hold room it does not show."""
    if "kube-system" not in namespaces:
        found = f"pods of {', '.join(sorted(namespaces))} only" if namespaces else "no pods"
        return [
            f"the listing has {found} and none of kube-system: it looks like a listing of "
            "one namespace, and free room is overstated; take the full one with -A "
            f"({_FULL_LISTING})"
        ]
    if len(namespaces) == 1:
        return [
            "the listing has pods of kube-system only: either the cluster runs nothing "
            "else, or it is a listing of one namespace and free room is overstated; take "
            "the full one with -A "
            f"({_FULL_LISTING})"
        ]
    return []


def _policy(obj: ListedObject, data: object, path: str) -> PreemptionPolicy:
    if data is None:
        return PreemptionPolicy.PREEMPT_LOWER_PRIORITY
    for policy in PreemptionPolicy:
        if policy.value == data:
            return policy
    raise obj.fail(path, data, "PreemptLowerPriority or Never")


def _time(obj: ListedObject, data: object, path: str) -> int | None:
    if data is None:
        return None
    if isinstance(data, str) and len(data) == 20 and data[19] == "Z" and data[10] == "T":
        # The API server writes "2024-01-01T00:00:00Z": whole seconds, UTC.
        day = _day_start(data[:10])
        clock = data[11:13], data[14:16], data[17:19]
        if (
            day is not None
            and data[13] == data[16] == ":"
            and all(c.isascii() and c.isdecimal() for c in clock)
        ):
            hours, minutes, seconds = map(int, clock)
            if hours < 24 and minutes < 60 and seconds < 60:
                return (day + hours * 3600 + minutes * 60 + seconds) * 10**9
    nanos = rfc3339_nanos(data)
    if nanos is None:
        raise obj.fail(path, data, 'an RFC 3339 time, e.g. "2024-01-01T00:00:00Z"')
    return nanos


@functools.lru_cache(maxsize=4096)
def _day_start(date: str) -> int | None:
    """Seconds since the epoch at the start of ``YYYY-MM-DD``; None when it is not one."""
    nanos = rfc3339_nanos(f"{date}T00:00:00Z")
    return None if nanos is None else nanos // 10**9


def _controller(obj: ListedObject, data: object) -> str:
    """The controlling owner, as ``Kind namespace/name``; ``""`` when none."""
    for index, reference in enumerate(obj.sequence(data, "metadata.ownerReferences")):
        reference = obj.mapping(reference, f"metadata.ownerReferences[{index}]")
        if reference.get("controller") is True:
            kind = obj.text(reference.get("kind"), f"metadata.ownerReferences[{index}].kind")
            name = obj.text(reference.get("name"), f"metadata.ownerReferences[{index}].name")
            return f"{kind} {obj.namespace}/{name}"
    return ""


def _daemon_node(terms: tuple[Any, ...]) -> str | None:
    """The node a DaemonSet pod is bound to: the controller replaces the template's
    required node affinity with one ``matchFields`` term on ``metadata.name``."""
    if len(terms) != 1 or terms[0].expressions or len(terms[0].fields) != 1:
        return None
    requirement = terms[0].fields[0]
    if requirement.key == "metadata.name" and len(requirement.values) == 1:
        return str(requirement.values[0])
    return None


def _disrupted_by_preemption(obj: ListedObject, status: Mapping[str, Any]) -> bool:
    """A DisruptionTarget condition with reason PreemptionByScheduler (ALGORITHM.md §1)."""
    for condition in obj.sequence(status.get("conditions"), "status.conditions"):
        if isinstance(condition, Mapping) and condition.get("type") == "DisruptionTarget":
            return (
                condition.get("status") == "True"
                and condition.get("reason") == "PreemptionByScheduler"
            )
    return False


def read_snapshot(*paths: Path | str) -> Snapshot:
    """Reads a snapshot from one or more paths, each a file, a folder of files
    (recursively, as ``kubectl cluster-info dump --output-directory`` writes them) or
    ``-`` for stdin: for example the listing and ``kubectl get events -A -o json``."""
    return load_snapshot(item for path in paths for item in read_objects(path))


def load_snapshot(
    objects: Iterable[SourcedObject | tuple[str, object]], *, named: str | None = None
) -> Snapshot:
    """Reads Kubernetes objects, each as ``read_objects`` gives it or with the file it
    came from, into a ``Snapshot``. ``named`` is what a message calls the whole read
    (default: ``--snapshot`` and the files)."""
    reader = _SnapshotReader()
    # The cyclic garbage collector would walk the whole parsed input again each time
    # the model's new objects trigger it (that doubled the time of a 30,000-pod read);
    # reading creates no cycles, so it waits until the input is released.
    collecting = gc.isenabled()
    gc.disable()
    sources: dict[str, None] = {}
    try:
        for entry in objects:
            if isinstance(entry, SourcedObject):
                sources[entry.file] = None
                reader.read(entry.file, entry.obj, entry.describe())
            else:
                sources[entry[0]] = None
                reader.read(*entry)
    finally:
        if collecting:
            gc.enable()
    snapshot = reader.finish()
    if not snapshot.nodes:
        raise HeadroomConfigError(
            named or " ".join(["--snapshot", *sources]),
            "no nodes",
            "a snapshot that lists the cluster's nodes "
            "(kubectl get nodes,pods,priorityclasses,poddisruptionbudgets -A -o json)",
        )
    return snapshot
