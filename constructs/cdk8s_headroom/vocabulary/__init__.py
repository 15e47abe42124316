"""The vocabulary: plain-Python terms every other layer speaks.

Quantities, Kubernetes names and labels, the configuration rules, placement (taints,
tolerations, node selectors), node pools and sizes, priority models and class specs,
the reserver's task, Pod Security. Nothing here imports cdk8s or starts Node, and
nothing here imports a layer above it.
"""
