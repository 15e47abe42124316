"""Nodes and reserver pods in kubectl's exact JSON, for tests of one rule each.

They are copies of the node and the reserver pod of docs/examples/snapshot-after.json
(``kubectl get nodes,pods -A -o json``), each with the name, taints or labels a test
gives it.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.conftest import ROOT

AFTER = ROOT / "docs" / "examples" / "snapshot-after.json"
_LISTING = json.loads(AFTER.read_text())
_NODE = next(item for item in _LISTING["items"] if item["kind"] == "Node")
_RESERVER = next(
    item for item in _LISTING["items"] if item["metadata"]["name"] == "headroom-reserver-l5vq8"
)
TIME_ADDED = "2026-12-01T09:58:00Z"


def taint(key: str, effect: str, value: str | None = None) -> dict[str, str]:
    """A taint as ``kubectl get node -o json`` prints it (NoExecute with timeAdded)."""
    body = {"effect": effect, "key": key}
    if value is not None:
        body["value"] = value
    if effect == "NoExecute":
        body["timeAdded"] = TIME_ADDED
    return body


def kubectl_node(
    name: str, *taints: dict[str, str], labels: dict[str, str] | None = None
) -> dict[str, Any]:
    node = copy.deepcopy(_NODE)
    node["metadata"]["name"] = name
    node["metadata"]["labels"]["kubernetes.io/hostname"] = name
    node["metadata"]["labels"].update(labels or {})
    if taints:
        node["spec"]["taints"] = list(taints)
    return node


def not_ready(node: dict[str, Any]) -> dict[str, Any]:
    """What the node lifecycle controller makes of a node whose kubelet stopped
    posting: Ready Unknown, and the not-ready taints (TaintNodesByCondition and
    taint-based eviction)."""
    node["status"]["conditions"][0].update(
        status="Unknown", reason="NodeStatusUnknown", message="Kubelet stopped posting node status."
    )
    node["spec"]["taints"] = [
        taint("node.kubernetes.io/not-ready", "NoSchedule"),
        taint("node.kubernetes.io/not-ready", "NoExecute"),
    ]
    return node


def reserver_pod(name: str, node: str, *, bound: bool = True) -> dict[str, Any]:
    """A pod the DaemonSet controller created for ``node``: pinned by matchFields."""
    pod = copy.deepcopy(_RESERVER)
    pod["metadata"]["name"] = name
    terms = pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    terms["nodeSelectorTerms"][0]["matchFields"][0]["values"] = [node]
    if bound:
        pod["spec"]["nodeName"] = node
    else:
        del pod["spec"]["nodeName"]
        pod["status"] = {
            "phase": "Pending",
            "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}],
        }
    return pod
