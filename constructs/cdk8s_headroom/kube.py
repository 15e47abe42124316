"""Kubernetes facts the library and the simulator both rely on (plain Python)."""

from __future__ import annotations

CLUSTER_SCOPED_KINDS = frozenset(
    {"Node", "PriorityClass", "Namespace", "NodePool", "EC2NodeClass", "NodeClass"}
)
"""The cluster-scoped kinds this library emits or reads: their objects have no namespace,
so a name is unique per kind across the cluster."""
