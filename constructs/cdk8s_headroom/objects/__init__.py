"""The cdk8s constructs: namespace, priority classes, reserver, pre-puller, burst
workloads, capacity buffers, and ``NodeHeadroom`` that composes them.

They emit Kubernetes objects through cdk8s (and so start Node through jsii); everything
they decide comes from the vocabulary below them.
"""
