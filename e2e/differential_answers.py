"""The differential runs' answers, without a cluster (issue 33): a scenario file read
back from the listed objects of a batch (``scenario_from_listing``), and what
``simulate --scenario`` answers for it, with the equally good answers where the
scheduler breaks a tie at random (``answers``). ``e2e/differential.py`` runs the live
side and compares.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from cdk8s_headroom.cluster.snapshot import load_snapshot
from cdk8s_headroom.simulate.model import Pod
from cdk8s_headroom.simulate.scenario import decide, load_scenario
from cdk8s_headroom.simulate.versions import KubernetesVersion
from e2e.cluster import Manifest
from e2e.scenarios import (
    DISRUPTION_TARGET,
    SCENARIO_LABEL,
)

# -- the scenario file, read back from listed objects ----------------------------------


def _time(nanos: int | None) -> str | None:
    if nanos is None:
        return None
    seconds, rest = divmod(nanos, 10**9)
    moment = datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{moment}.{rest:09d}Z" if rest else f"{moment}Z"


def _requests(pod: Pod) -> dict[str, str]:
    return {"cpu": f"{pod.requests.cpu}m", "memory": str(pod.requests.memory)}


def scenario_from_listing(
    objects: Iterable[Manifest], *, namespace: str, preemptor: str
) -> dict[str, Any]:
    """The scenario file for ``preemptor`` of ``namespace``, from listed objects: the
    nodes labelled for the scenario, the pods and budgets of its namespace, the classes.
    Requests, priorities and start times are read by ``cluster.snapshot`` as ``plan``
    reads a listing."""
    chosen = [
        (f"listing[{i}]", obj)
        for i, obj in enumerate(objects)
        if (
            obj["kind"] == "Node"
            and obj["metadata"].get("labels", {}).get(SCENARIO_LABEL) == namespace
        )
        or obj["kind"] == "PriorityClass"
        or (
            obj["kind"] in ("Pod", "PodDisruptionBudget")
            and obj["metadata"].get("namespace") == namespace
        )
    ]
    snapshot = load_snapshot(chosen)
    (waiting,) = [pod for pod in snapshot.waiting if pod.name == preemptor]
    placement = waiting.placement
    deleted = {
        obj["metadata"]["name"]: obj["metadata"]["deletionTimestamp"]
        for _, obj in chosen
        if obj["kind"] == "Pod" and obj["metadata"].get("deletionTimestamp")
    }
    pods = []
    for pod in snapshot.bound:
        entry: dict[str, Any] = {
            "name": pod.name,
            "namespace": pod.namespace,
            "node": pod.node,
            "priority": pod.priority,
            "requests": _requests(pod),
            "start_time": _time(pod.start_time),
            "labels": dict(pod.labels),
        }
        if pod.name in deleted:
            entry["deletion_timestamp"] = deleted[pod.name]
            if pod.terminating_by_preemption:
                entry["conditions"] = [
                    {k: DISRUPTION_TARGET[k] for k in ("type", "status", "reason")}
                ]
        pods.append(entry)
    return {
        "name": namespace,
        "nodes": [
            {
                "name": node.name,
                "allocatable": {
                    "cpu": f"{node.allocatable.cpu}m",
                    "memory": str(node.allocatable.memory),
                    "pods": node.max_pods,
                },
                "labels": dict(node.labels),
                "taints": [t.to_manifest() for t in node.taints],
            }
            for node in snapshot.nodes
        ],
        "pods": pods,
        "pdbs": [
            {
                "name": pdb.name,
                "namespace": pdb.namespace,
                "selector": {
                    "matchLabels": dict(pdb.selector.match_labels),
                    "matchExpressions": [r.to_manifest() for r in pdb.selector.match_expressions],
                }
                if pdb.selector is not None
                else None,
                "disruptions_allowed": pdb.disruptions_allowed,
                "disrupted_pods": sorted(pdb.disrupted_pods),
            }
            for pdb in snapshot.pdbs
        ],
        "preemptor": {
            "name": waiting.name,
            "namespace": waiting.namespace,
            "priority": waiting.priority,
            "preemption_policy": waiting.preemption_policy.value,
            "requests": _requests(waiting),
            "labels": dict(waiting.labels),
            "node_selector": dict(placement.node_selector),
            "node_affinity": None
            if placement.affinity is None
            else [term.to_manifest() for term in placement.affinity],
            "tolerations": [
                {k: v for k, v in t.to_manifest().items() if v is not None}
                for t in placement.tolerations
            ],
            "nominated_node_name": waiting.nominated_node,
        },
    }


# -- what simulate says, and the answers that are as good --------------------------------


@dataclass(frozen=True)
class Answer:
    """A decision as both sides can state it: the node the pod binds to or is nominated
    to (None: it stays unschedulable) and the pods it preempts."""

    node: str | None
    victims: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, object]:
        return {"node": self.node, "victims": sorted(self.victims)}


def simulate_answer(scenario: Mapping[str, Any], version: KubernetesVersion) -> Answer:
    decision = decide(load_scenario(scenario, source=str(scenario.get("name")), version=version))
    return Answer(decision.node, frozenset(p.name for p in decision.victims))


def answers(scenario: Mapping[str, Any], version: KubernetesVersion) -> set[Answer]:
    """Every answer the scheduler may give by the simulator: its decision and the
    equally good ones it names where the scheduler breaks a tie at random
    (``Decision.alternatives``)."""
    decision = decide(load_scenario(scenario, source=str(scenario.get("name")), version=version))
    return {
        Answer(d.node, frozenset(p.name for p in d.victims))
        for d in (decision, *decision.alternatives)
    }
