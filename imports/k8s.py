"""Kubernetes 1.27 L1 bindings.

`cdk8s import k8s` writes generated bindings here, but it downloads a schema, and this
project builds offline. cdk8s-plus-27 ships the same generated classes
(`KubePriorityClass`, `KubeDaemonSet`, ...), so this module re-exports them. Running
`cdk8s import k8s@1.27.0` online replaces this file with equivalent bindings, and
`from imports import k8s` keeps working.
"""

from cdk8s_plus_27.k8s import *  # noqa: F403
