"""The labels autoscalers put on their nodes, which say what manages a node.

Karpenter's and EKS Auto Mode's: the rules judge a placement by them (a capacity buffer
on Auto Mode's nodes, on Karpenter's), and a node pool selects its nodes by them. The
labels the library's own objects carry are ``labels``.
"""

from __future__ import annotations

KARPENTER_NODEPOOL_LABEL = "karpenter.sh/nodepool"
"""The label Karpenter puts on its nodes: the name of their NodePool."""
AUTO_MODE_DOMAIN = "eks.amazonaws.com"
"""EKS Auto Mode's API group and node-label domain."""
AUTO_MODE_INSTANCE_LABEL_PREFIX = f"{AUTO_MODE_DOMAIN}/instance-"
"""Auto Mode's instance labels (``instance-category``, ``instance-cpu``...), which only
its nodes carry. Other EKS node labels share the domain and are not Auto Mode's: a
managed node group's ``nodegroup`` and ``capacityType``, which Cluster Autoscaler
scales, where buffers work."""
AUTO_MODE_COMPUTE_TYPE_LABEL = f"{AUTO_MODE_DOMAIN}/compute-type"
AUTO_MODE_COMPUTE_TYPE = "auto"
"""The ``compute-type`` of Auto Mode nodes (Fargate's nodes carry ``fargate``)."""
AUTO_MODE_BUILTIN_POOLS = ("general-purpose", "system")
"""The NodePools EKS Auto Mode creates and manages (the ``karpenter.sh/nodepool`` of
their nodes); reference them, never emit them."""
ZONE_LABEL = "topology.kubernetes.io/zone"
"""The well-known label of a node's zone (cloud providers and Karpenter set it): a
zoned buffer's placeholders select it, and ``plan`` sums the held room by it."""
NO_ZONE = "(no zone)"
"""How ``plan`` names the nodes that carry no ``ZONE_LABEL``."""
