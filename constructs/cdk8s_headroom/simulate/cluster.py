"""Reading the cluster file: nodes, the pods already running, PDBs and classes.

The format is documented in ``docs/simulate.md``. The pods listed are the cluster's
ordinary pods; the what-if places the reservers and the burst pods itself.
"""

from __future__ import annotations

import calendar
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from cdk8s_headroom.files.documents import read_document
from cdk8s_headroom.simulate.fields import (
    Reader,
    Value,
    extended_amounts,
    extended_names,
    label_selector,
    preemption_policy,
    resources,
    some,
    taints,
)
from cdk8s_headroom.simulate.model import DisruptionBudget, Node, Pod, Resources, Role
from cdk8s_headroom.simulate.workloads import ClassRegistry
from cdk8s_headroom.vocabulary import rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.names import INT32_MAX, INT32_MIN
from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy, PriorityClassSpec

DEFAULT_MAX_PODS = 110
"""A node's ``allocatable.pods`` when the file gives none: the kubelet's default."""

HOSTNAME_LABEL = "kubernetes.io/hostname"

MAX_NODES = 5000
MAX_PODS = 150_000
"""The largest cluster Kubernetes is tested for ("Considerations for large clusters"):
a file that describes more is a mistake, and expanding its counts would only exhaust
memory."""

FIRST_START = calendar.timegm((2000, 1, 1, 0, 0, 0, 0, 0, 0)) * 10**9
"""When the first pod without ``startTime`` started; the next ones follow a second
apart, in file order, so pods listed earlier are older."""

MODELS = (
    "A cluster file holds priorityClasses, nodes (name, count, allocatable cpu/memory/"
    "pods, labels, taints), pods (name, count, namespace, nodeName, priorityClassName or "
    "priority and preemptionPolicy, requests, labels, startTime) and pdbs (name, "
    "namespace, selector, disruptionsAllowed, disruptedPods); see docs/simulate.md."
)


@dataclass(frozen=True)
class ExistingPod:
    """A pod already bound to a node, before its class is resolved."""

    name: str
    namespace: str
    node: str
    requests: Resources
    labels: dict[str, str]
    start_time: int
    class_name: str | None
    priority: int | None
    preemption_policy: PreemptionPolicy
    where: str

    def to_pod(self, classes: ClassRegistry) -> Pod:
        if self.priority is not None:
            info = PriorityClassSpec("", self.priority, self.preemption_policy)
        else:
            info = classes.resolve(self.class_name, where=self.where)
        return Pod(
            name=self.name,
            namespace=self.namespace,
            priority=info.value,
            preemption_policy=info.preemption_policy,
            requests=self.requests,
            labels=self.labels,
            start_time=self.start_time,
            role=Role.ORDINARY,
            class_name=info.name,
        )


@dataclass
class ClusterFile:
    nodes: list[Node] = field(default_factory=list)
    pods: list[ExistingPod] = field(default_factory=list)
    pdbs: list[DisruptionBudget] = field(default_factory=list)
    classes: list[tuple[PriorityClassSpec, str]] = field(default_factory=list)


def _names(base: str, count: int) -> list[str]:
    return [base] if count == 1 else [f"{base}-{index}" for index in range(1, count + 1)]


def _nodes(value: Value) -> list[Node]:
    fields = value.fields(
        ("name", "count", "allocatable", "labels", "taints"), required=("name", "allocatable")
    )
    devices = extended_names(fields["allocatable"])
    amounts = fields["allocatable"].fields(
        ("cpu", "memory", "pods"), required=("cpu", "memory"), ignored=devices
    )
    allocatable = Resources(
        amounts["cpu"].quantity(1000),
        amounts["memory"].quantity(1),
        extended_amounts(fields["allocatable"], devices),
    )
    max_pods = amounts["pods"].integer_or(DEFAULT_MAX_PODS, minimum=0)
    labels = fields["labels"].string_map()
    node_taints = taints(fields["taints"])
    names = _names(fields["name"].text(allow_empty=False), fields["count"].integer_or(1, minimum=1))
    # The API server validates a Node's name as a DNS-1123 subdomain
    # (apimachinery pkg/api/validation ValidateNodeName -> NameIsDNSSubdomain).
    for name in names:
        if not rules.DNS_SUBDOMAIN.matches(name):
            raise fields["name"].fail(
                "a node name Kubernetes accepts: a DNS-1123 subdomain (lowercase letters, "
                "digits, '-' and '.', at most 253 characters, with count's '-N' suffix)"
            )
    return [
        Node(name, allocatable, max_pods, {HOSTNAME_LABEL: name, **labels}, node_taints)
        for name in names
    ]


def _pods(value: Value, nodes: set[str], first_start: int) -> list[ExistingPod]:
    fields = value.fields(
        (
            "name",
            "count",
            "namespace",
            "nodeName",
            "priorityClassName",
            "priority",
            "preemptionPolicy",
            "requests",
            "labels",
            "startTime",
        ),
        required=("name", "nodeName"),
    )
    node = fields["nodeName"].text()
    if node not in nodes:
        raise fields["nodeName"].fail(f"the name of a node of this file: {some(nodes)}")
    if not fields["priorityClassName"].is_null() and not fields["priority"].is_null():
        raise fields["priority"].fail("no value when priorityClassName is set")
    start = fields["startTime"].time_or_none()
    first = ExistingPod(
        name=fields["name"].text(allow_empty=False),
        namespace=fields["namespace"].text_or("default"),
        node=node,
        requests=resources(fields["requests"]),
        labels=fields["labels"].string_map(),
        start_time=first_start if start is None else start,
        class_name=fields["priorityClassName"].text_or("") or None,
        priority=None
        if fields["priority"].is_null()
        else fields["priority"].integer(minimum=INT32_MIN, maximum=INT32_MAX),
        preemption_policy=preemption_policy(fields["preemptionPolicy"]),
        where=fields["priorityClassName"].where,
    )
    return [
        replace(
            first,
            name=name,
            start_time=first.start_time if start is not None else first_start + index * 10**9,
        )
        for index, name in enumerate(_names(first.name, fields["count"].integer_or(1, minimum=1)))
    ]


def _pdb(value: Value) -> DisruptionBudget:
    fields = value.fields(
        ("name", "namespace", "selector", "disruptionsAllowed", "disruptedPods"),
        required=("name", "selector"),
    )
    return DisruptionBudget(
        name=fields["name"].text(allow_empty=False),
        namespace=fields["namespace"].text_or("default"),
        selector=label_selector(fields["selector"]),
        disruptions_allowed=fields["disruptionsAllowed"].integer_or(0, minimum=0),
        disrupted_pods=frozenset(fields["disruptedPods"].string_list()),
    )


def _priority_class(value: Value) -> PriorityClassSpec:
    fields = value.fields(
        ("name", "value", "preemptionPolicy", "globalDefault", "description"),
        required=("name", "value"),
    )
    return PriorityClassSpec(
        name=fields["name"].text(allow_empty=False),
        value=fields["value"].integer(minimum=INT32_MIN, maximum=INT32_MAX),
        preemption_policy=preemption_policy(fields["preemptionPolicy"]),
        global_default=fields["globalDefault"].boolean_or(False),
    )


def load_cluster(data: object, *, source: str = "cluster") -> ClusterFile:
    """Reads a cluster file's content; bad values name their path."""
    reader = Reader(source, MODELS)
    root = reader.root(data)
    fields = root.fields(("priorityClasses", "nodes", "pods", "pdbs"), required=("nodes",))
    cluster = ClusterFile()
    for item in fields["nodes"].items():
        _check_total(item, len(cluster.nodes), MAX_NODES, "nodes")
        for node in _nodes(item):
            if any(known.name == node.name for known in cluster.nodes):
                raise item.child("name").fail("a node name used once")
            cluster.nodes.append(node)
    names = {node.name for node in cluster.nodes}
    # One file is one source: a pod named twice in it is a mistake in the file, never
    # the same object read twice (docs/plan-status.md, "Objects read twice").
    pod_paths: dict[tuple[str, str], str] = {}
    for item in fields["pods"].items():
        _check_total(item, len(cluster.pods), MAX_PODS, "pods")
        for pod in _pods(item, names, FIRST_START + len(cluster.pods) * 10**9):
            earlier = pod_paths.get((pod.namespace, pod.name))
            if earlier is not None:
                raise item.child("name").fail(
                    f"a pod name used once per namespace: {earlier} names "
                    f"{pod.namespace}/{pod.name} too"
                )
            pod_paths[(pod.namespace, pod.name)] = item.path
            cluster.pods.append(pod)
    cluster.pdbs = [_pdb(item) for item in fields["pdbs"].items()]
    cluster.classes = [
        (_priority_class(item), item.where) for item in fields["priorityClasses"].items()
    ]
    reader.finish()
    if not cluster.nodes:
        raise root.child("nodes").fail("at least one node")
    _check_fit(cluster, root.child("pods"))
    return cluster


def _check_total(item: Value, before: int, most: int, what: str) -> None:
    """Refuses an entry whose ``count`` takes the cluster past ``most`` ``what``, before
    its copies are made."""
    count = item.child("count")
    if before + count.integer_or(1, minimum=1) > most:
        raise count.fail(f"a count that keeps the cluster within {most} {what}")


def _check_fit(cluster: ClusterFile, pods: Value) -> None:
    """Running pods fit their node: the kubelet admits no more than allocatable."""
    used: dict[str, Resources] = {}
    counts: Counter[str] = Counter()
    for pod in cluster.pods:
        used[pod.node] = used.get(pod.node, Resources()) + pod.requests
        counts[pod.node] += 1
    for node in cluster.nodes:
        total = used.get(node.name, Resources())
        if (
            total.cpu > node.allocatable.cpu
            or total.memory > node.allocatable.memory
            or counts[node.name] > node.max_pods
            or node.allocatable.short_of(total, Resources())
        ):
            raise HeadroomConfigError(
                pods.where,
                node.name,
                f"pods that fit their node: the {counts[node.name]} pods on {node.name} "
                f"request {total.cpu}m cpu and {total.memory} bytes of memory, more than its "
                f"allocatable ({node.allocatable.cpu}m, {node.allocatable.memory} bytes, "
                f"{node.max_pods} pods)",
            )


def read_cluster(path: Path) -> ClusterFile:
    """Loads a cluster file (YAML or JSON)."""
    return load_cluster(read_document(path), source=str(path))
