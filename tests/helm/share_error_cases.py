"""The bad values of a slice given as a share of each node size (``share_rules``), for
``helm_error_cases.CASES``: the share's grammar (above 0%, below 100%, three decimals at
most), the node types, and each size's slice."""

from __future__ import annotations

from typing import Any

from tests.helm.helm_cases import API

NODE_TYPES = [
    {"name": "m5.large", "cpu": "1930m", "memory": "7Gi"},
    {"name": "m5.xlarge", "cpu": "3920m", "memory": "14Gi"},
]
"""Two sizes' allocatable, as kubelet reports them for EC2's m5.large and m5.xlarge."""


def shares(cpu: Any, memory: Any, node_types: Any = NODE_TYPES) -> dict[str, Any]:
    """A slice given as ``cpu`` and ``memory``, of ``node_types``."""
    return {"reservation": {"cpu": cpu, "memory": memory, "nodeTypes": node_types}}


def _requests(cpu: str, memory: str) -> dict[str, Any]:
    return {**API, "resources": {"requests": {"cpu": cpu, "memory": memory}, "limits": {}}}


# (id, overrides, the value path, a piece of the message that says what is allowed)
SHARE_CASES = [
    ("a-share-of-0-percent", shares("0%", "10%"), "reservation.cpu", "above 0% and below 100%"),
    ("a-share-of-100-percent", shares("10%", "100%"), "reservation.memory", "below 100%"),
    ("a-share-over-100-percent", shares("150%", "10%"), "reservation.cpu", "below 100%"),
    ("a-share-of-four-decimals", shares("12.3456%", "10%"), "reservation.cpu", '"12.5%"'),
    (
        "a-share-without-node-types",
        shares("10%", "10%", []),
        "reservation.cpu",
        "a share with known node sizes",
    ),
    (
        "node-types-without-a-share",
        shares("500m", "512Mi"),
        "reservation.nodeTypes",
        "no value without a share",
    ),
    (
        "a-node-type-without-a-name",
        shares("10%", "10%", [{**NODE_TYPES[0], "name": ""}]),
        "reservation.nodeTypes[0].name",
        "an instance type, e.g. 'm5.large'",
    ),
    (
        "a-node-type-name-that-is-no-label-value",
        shares("10%", "10%", [{**NODE_TYPES[0], "name": "m5 large"}]),
        "reservation.nodeTypes[0].name",
        "a label value",
    ),
    (
        "a-node-type-with-a-bad-quantity",
        shares("10%", "10%", [NODE_TYPES[0], {**NODE_TYPES[1], "memory": "14GB"}]),
        "reservation.nodeTypes[1].memory",
        "a Kubernetes quantity",
    ),
    (
        # m5.large and m5-large both end the reserver's name with -m5-large
        "node-types-that-give-the-same-reserver-name",
        shares("10%", "10%", [*NODE_TYPES, {**NODE_TYPES[0], "name": "m5-large"}]),
        "reservation.nodeTypes",
        "give the same reserver name",
    ),
    (
        "a-share-that-holds-no-millicore",
        shares("0.01%", "10%"),
        "reservation.cpu",
        "0.01% of its 1930m allocatable CPU is under 1m",
    ),
    (
        "a-share-that-holds-under-4mi",
        shares("10%", "0.05%"),
        "reservation.memory",
        "a memory of at least 4Mi",
    ),
    (
        "a-fixed-cpu-beside-a-share-that-a-node-type-cannot-hold",
        shares("2", "10%"),
        "reservation.cpu",
        "a slice that fits on node type 'm5.large', whose allocatable is 1930m",
    ),
    (
        # The burst pod lands on any size: it must fit the smallest one's slice
        "a-burst-pod-over-the-smallest-sizes-share",
        {**shares("10%", "10%"), "burstWorkloads": [_requests("200m", "256Mi")]},
        "burstWorkloads[api].resources.requests.cpu",
        "the headroom slice (193m CPU, 716Mi memory)",
    ),
]
