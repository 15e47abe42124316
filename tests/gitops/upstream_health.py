"""How Argo CD and Flux judge a DaemonSet and a Deployment, ported line by line from
their sources for the tests (the tools themselves do not run here):

- Argo CD: argoproj/gitops-engine ``pkg/health/health_daemonset.go``
  (``getAppsv1DaemonSetHealth``) and ``pkg/health/health_deployment.go``
  (``getAppsv1DeploymentHealth``), messages as in v3.6.2 (the live tier runs that
  release's code on live objects and compares: tests/live/test_live_gitops_health.py);
- Flux (kustomize-controller's health checks): sigs.k8s.io/cli-utils
  ``pkg/kstatus/status/status.go`` (``checkGenericProperties``, which ``Compute`` runs
  first) and ``pkg/kstatus/status/core.go`` (``daemonsetConditions``,
  ``deploymentConditions``, ``checkGenerationSet``).

Inputs are objects in the API server's JSON form (``kubectl get -o json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

INT32_MAX = 2**31 - 1


def _status(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("status") or {}


def _int(obj: Mapping[str, Any], path: str, default: int) -> int:
    value: Any = obj
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return default
        value = value[part]
    return int(value)


def argo_daemonset_health(ds: Mapping[str, Any]) -> tuple[str, str]:
    """``getAppsv1DaemonSetHealth``: (status, message)."""
    status = _status(ds)
    generation = _int(ds, "metadata.generation", 0)
    if generation <= _int(ds, "status.observedGeneration", 0):
        strategy = ((ds.get("spec") or {}).get("updateStrategy") or {}).get("type")
        desired = int(status.get("desiredNumberScheduled", 0))
        updated = int(status.get("updatedNumberScheduled", 0))
        if strategy == "OnDelete":
            return "Healthy", f"daemon set {updated} out of {desired} new pods have been updated"
        name = (ds.get("metadata") or {}).get("name", "")
        if updated < desired:
            return "Progressing", (
                f'Waiting for daemon set "{name}" rollout to finish: '
                f"{updated} out of {desired} new pods have been updated..."
            )
        available = int(status.get("numberAvailable", 0))
        if available < desired:
            return "Progressing", (
                f'Waiting for daemon set "{name}" rollout to finish: '
                f"{available} of {desired} updated pods are available..."
            )
        return "Healthy", ""
    return (
        "Progressing",
        "Waiting for rollout to finish: observed daemon set generation less than desired "
        "generation",
    )


def argo_deployment_health(deployment: Mapping[str, Any]) -> tuple[str, str]:
    """``getAppsv1DeploymentHealth``: (status, message)."""
    spec = deployment.get("spec") or {}
    status = _status(deployment)
    if spec.get("paused"):
        return "Suspended", "Deployment is paused"
    if _int(deployment, "metadata.generation", 0) <= _int(
        deployment, "status.observedGeneration", 0
    ):
        progressing = next(
            (c for c in status.get("conditions", []) if c.get("type") == "Progressing"), None
        )
        updated = int(status.get("updatedReplicas", 0))
        name = (deployment.get("metadata") or {}).get("name", "")
        replicas = int(status.get("replicas", 0))
        available = int(status.get("availableReplicas", 0))
        if progressing is not None and progressing.get("reason") == "ProgressDeadlineExceeded":
            return "Degraded", f'Deployment "{name}" exceeded its progress deadline'
        if "replicas" in spec and updated < int(spec["replicas"]):
            return "Progressing", (
                f"Waiting for rollout to finish: {updated} out of {spec['replicas']} new "
                "replicas have been updated..."
            )
        if replicas > updated:
            return "Progressing", (
                f"Waiting for rollout to finish: {replicas - updated} old replicas are "
                "pending termination..."
            )
        if available < updated:
            return "Progressing", (
                f"Waiting for rollout to finish: {available} of {updated} updated replicas "
                "are available..."
            )
        return "Healthy", ""
    return (
        "Progressing",
        "Waiting for rollout to finish: observed deployment generation less than desired "
        "generation",
    )


def _generic(obj: Mapping[str, Any]) -> tuple[str, str] | None:
    """``checkGenericProperties``: deletion, generation, and the standard conditions."""
    metadata = obj.get("metadata") or {}
    if metadata.get("deletionTimestamp"):
        return "Terminating", "Resource scheduled for deletion"
    status = _status(obj)
    if "observedGeneration" in status and int(status["observedGeneration"]) != int(
        metadata.get("generation", 0)
    ):
        return "InProgress", "LatestGeneration"
    for condition in status.get("conditions", []):
        if condition.get("type") == "Reconciling" and condition.get("status") == "True":
            return "InProgress", str(condition.get("message", ""))
        if condition.get("type") == "Stalled" and condition.get("status") == "True":
            return "Failed", str(condition.get("message", ""))
    return None


def kstatus(obj: Mapping[str, Any]) -> tuple[str, str]:
    """kstatus ``Compute`` for a DaemonSet or a Deployment: (status, message)."""
    generic = _generic(obj)
    if generic is not None:
        return generic
    if obj.get("kind") == "DaemonSet":
        return _daemonset_conditions(obj)
    return _deployment_conditions(obj)


def _daemonset_conditions(ds: Mapping[str, Any]) -> tuple[str, str]:
    if "generation" not in (ds.get("metadata") or {}):
        return "InProgress", "DaemonSet metadata.generation not found"
    if "observedGeneration" not in _status(ds):
        return "InProgress", "DaemonSet status.observedGeneration not found"
    desired = _int(ds, "status.desiredNumberScheduled", -1)
    current = _int(ds, "status.currentNumberScheduled", 0)
    updated = _int(ds, "status.updatedNumberScheduled", 0)
    available = _int(ds, "status.numberAvailable", 0)
    ready = _int(ds, "status.numberReady", 0)
    if desired == -1:
        return "InProgress", "Missing .status.desiredNumberScheduled"
    if desired > current:
        return "InProgress", f"Current: {current}/{desired}"
    if desired > updated:
        return "InProgress", f"Updated: {updated}/{desired}"
    if desired > available:
        return "InProgress", f"Available: {available}/{desired}"
    if desired > ready:
        return "InProgress", f"Ready: {ready}/{desired}"
    return "Current", f"All replicas scheduled as expected. Replicas: {desired}"


def _deployment_conditions(deployment: Mapping[str, Any]) -> tuple[str, str]:
    progressing = _int(deployment, "spec.progressDeadlineSeconds", INT32_MAX) == INT32_MAX
    available = False
    for condition in _status(deployment).get("conditions", []):
        if condition.get("type") == "Progressing":
            if condition.get("reason") == "ProgressDeadlineExceeded":
                return "Failed", "Progress deadline exceeded"
            if (
                condition.get("status") == "True"
                and condition.get("reason") == "NewReplicaSetAvailable"
            ):
                progressing = True
        if condition.get("type") == "Available" and condition.get("status") == "True":
            available = True
    spec_replicas = _int(deployment, "spec.replicas", 1)
    replicas = _int(deployment, "status.replicas", 0)
    updated = _int(deployment, "status.updatedReplicas", 0)
    ready = _int(deployment, "status.readyReplicas", 0)
    available_replicas = _int(deployment, "status.availableReplicas", 0)
    if spec_replicas > replicas:
        return "InProgress", f"Replicas: {replicas}/{spec_replicas}"
    if spec_replicas > updated:
        return "InProgress", f"Updated: {updated}/{spec_replicas}"
    if replicas > spec_replicas:
        return "InProgress", f"Pending termination: {replicas - spec_replicas}"
    if updated > available_replicas:
        return "InProgress", f"Available: {available_replicas}/{updated}"
    if spec_replicas > ready:
        return "InProgress", f"Ready: {ready}/{spec_replicas}"
    if not progressing:
        return "InProgress", "ReplicaSet not Available"
    if not available:
        return "InProgress", "Deployment not Available"
    return "Current", f"Deployment is available. Replicas: {replicas}"
