"""One preemption scenario in the format of ``shared/preemption/*.json``.

A scenario is an object with ``nodes``, ``pods`` (each bound to a node), ``pdbs`` and a
``preemptor``; ``decide`` returns the scheduler's decision for the preemptor. The
format is documented in ``docs/simulate.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from cdk8s_headroom.files.documents import read_document
from cdk8s_headroom.simulate.fields import (
    Reader,
    Value,
    label_selector,
    node_selector_terms,
    preemption_policy,
    resources,
    some,
    taints,
    tolerations,
)
from cdk8s_headroom.simulate.model import DisruptionBudget, Node, Pod, Resources
from cdk8s_headroom.simulate.scheduler import ClusterState, Decision, equally_good, schedule
from cdk8s_headroom.simulate.versions import NEWEST_VALIDATED, KubernetesVersion
from cdk8s_headroom.vocabulary.errors import shown
from cdk8s_headroom.vocabulary.names import INT32_MAX, INT32_MIN
from cdk8s_headroom.vocabulary.placement import Placement

DEFAULT_MAX_PODS = 110
"""A node's ``allocatable.pods`` when the scenario gives none: the kubelet's default."""

DOCUMENTATION_FIELDS = frozenset(
    {
        "name",
        "source",
        "notes",
        "expected",
        "reasoning",
        "derived",
        "requires",
        "victims_asserted",
        "status_message",
    }
)
"""Top-level fields that describe a scenario without changing the decision. ``requires``
names the optional inputs a vector uses; the inputs themselves are checked field by
field, so an unknown one is refused there."""


_MODELS = (
    "The simulator models node allocatable cpu, memory and pods; pod requests, priority, "
    "preemptionPolicy, labels, start time and terminating-by-preemption state; the "
    "preemptor's node selector, required node affinity, tolerations and nominated node; "
    "PDB selectors, disruptionsAllowed and disruptedPods (see docs/simulate.md)."
)


@dataclass
class Scenario:
    """A cluster state and the pod to place in it."""

    state: ClusterState
    preemptor: Pod


def _node(value: Value) -> Node:
    fields = value.fields(("name", "allocatable", "labels", "taints"), required=("name",))
    amounts = fields["allocatable"].fields(("cpu", "memory", "pods"))
    return Node(
        name=fields["name"].text(allow_empty=False),
        allocatable=Resources(
            cpu=amounts["cpu"].quantity_or(0, 1000), memory=amounts["memory"].quantity_or(0, 1)
        ),
        max_pods=amounts["pods"].integer_or(DEFAULT_MAX_PODS, minimum=0),
        labels=fields["labels"].string_map(),
        taints=taints(fields["taints"]),
    )


def _terminating_by_preemption(fields: Mapping[str, Value]) -> bool:
    """A deletion timestamp, and a DisruptionTarget condition (the first one decides)
    that is True with reason PreemptionByScheduler."""
    deleted = fields["deletion_timestamp"].time_or_none() is not None or fields[
        "terminating"
    ].boolean_or(False)
    for item in fields["conditions"].items():
        condition = item.fields(("type", "status", "reason", "message"), required=("type",))
        if condition["type"].text() == "DisruptionTarget":
            return (
                deleted
                and condition["status"].text_or("") == "True"
                and condition["reason"].text_or("") == "PreemptionByScheduler"
            )
    return False


def _pod(
    fields: Mapping[str, Value],
    *,
    placement: Placement | None = None,
    nominated_node: str | None = None,
    terminating_by_preemption: bool = False,
) -> Pod:
    return Pod(
        name=fields["name"].text(allow_empty=False),
        namespace=fields["namespace"].text_or(""),
        priority=fields["priority"].integer_or(0, minimum=INT32_MIN, maximum=INT32_MAX),
        preemption_policy=preemption_policy(fields["preemption_policy"]),
        requests=resources(fields["requests"]),
        labels=fields["labels"].string_map(),
        start_time=fields["start_time"].time_or_none(),
        placement=placement or Placement(),
        nominated_node=nominated_node,
        terminating_by_preemption=terminating_by_preemption,
    )


_COMMON_FIELDS = (
    "name",
    "namespace",
    "priority",
    "preemption_policy",
    "requests",
    "start_time",
    "labels",
)
_BOUND_POD_FIELDS = (*_COMMON_FIELDS, "node", "deletion_timestamp", "terminating", "conditions")
_PREEMPTOR_FIELDS = (
    *_COMMON_FIELDS,
    "node_selector",
    "node_affinity",
    "tolerations",
    "nominated_node_name",
)


def _bound_pod(value: Value, nodes: set[str]) -> tuple[Pod, str]:
    fields = value.fields(_BOUND_POD_FIELDS, required=("name", "node"))
    node = fields["node"].text()
    if node not in nodes:
        # An empty list of names would read as a message cut short.
        raise fields["node"].fail(
            f"the name of a node of the scenario: {some(nodes)}"
            if nodes
            else "the name of a node of the scenario, but the scenario has no nodes: "
            "add this one under nodes"
        )
    pod = _pod(fields, terminating_by_preemption=_terminating_by_preemption(fields))
    return pod, node


def _preemptor(value: Value) -> Pod:
    fields = value.fields(_PREEMPTOR_FIELDS, required=("name",))
    affinity = fields["node_affinity"]
    placement = Placement(
        node_selector=tuple(sorted(fields["node_selector"].string_map().items())),
        affinity=None if affinity.is_null() else node_selector_terms(affinity),
        tolerations=tolerations(fields["tolerations"]),
    )
    return _pod(
        fields,
        placement=placement,
        nominated_node=fields["nominated_node_name"].text_or("") or None,
    )


def _pdb(value: Value) -> DisruptionBudget:
    fields = value.fields(
        (
            "name",
            "namespace",
            "selector",
            "disruptions_allowed",
            "disrupted_pods",
            "min_available",
            "max_unavailable",
        )
    )
    return DisruptionBudget(
        name=fields["name"].text_or(""),
        namespace=fields["namespace"].text_or(""),
        selector=label_selector(fields["selector"]),
        disruptions_allowed=fields["disruptions_allowed"].integer_or(0),
        disrupted_pods=frozenset(fields["disrupted_pods"].string_list()),
    )


def _once(items: list[Value], names: list[str], allowed: str) -> None:
    """Refuses a name given twice, naming both entries: a scenario is one source, so a
    repeat is a mistake in it, never the same object read twice (docs/plan-status.md)."""
    first: dict[str, str] = {}
    for item, name in zip(items, names, strict=True):
        earlier = first.setdefault(name, item.path)
        if earlier != item.path:
            raise item.child("name").fail(f"{allowed}: {earlier} names {shown(name)} too")


def load_scenario(
    data: object, *, source: str = "scenario", version: KubernetesVersion = NEWEST_VALIDATED
) -> Scenario:
    """Reads a scenario object; unknown fields raise ``UnsupportedInputError``."""
    reader = Reader(source, _MODELS)
    root = reader.root(data)
    if isinstance(data, list):
        raise root.fail(
            "one scenario object with nodes, pods, pdbs and preemptor; a vector file holds "
            "a list of them, so pass one of its items"
        )
    fields = root.fields(
        ("nodes", "pods", "pdbs", "preemptor"),
        required=("preemptor",),
        ignored=DOCUMENTATION_FIELDS,
    )
    nodes = [_node(item) for item in fields["nodes"].items()]
    _once(fields["nodes"].items(), [node.name for node in nodes], "a node name")
    names = {node.name for node in nodes}
    pods = [_bound_pod(item, names) for item in fields["pods"].items()]
    _once(
        fields["pods"].items(),
        [f"{pod.namespace}/{pod.name}" for pod, _ in pods],
        "a pod name used once per namespace",
    )
    pdbs = [_pdb(item) for item in fields["pdbs"].items()]
    preemptor = _preemptor(fields["preemptor"])
    reader.finish()
    state = ClusterState(nodes, pdbs, version=version)
    for pod, node in pods:
        state.bind(pod, node)
    return Scenario(state, preemptor)


def read_scenario(path: Path, *, version: KubernetesVersion = NEWEST_VALIDATED) -> Scenario:
    """Loads a scenario file (JSON or YAML); ``version`` picks the scheduler's rules."""
    return load_scenario(read_document(path), source=str(path), version=version)


def decide(scenario: Scenario) -> Decision:
    """The scheduler's decision for the scenario's preemptor, with the others it may
    reach as well where it breaks a tie at random (``Decision.alternatives``)."""
    decision = schedule(scenario.state, scenario.preemptor)
    return replace(decision, alternatives=equally_good(scenario.state, scenario.preemptor))
