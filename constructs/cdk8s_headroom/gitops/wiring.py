"""The objects a GitOps user applies to pull the headroom: Argo CD and Flux, from the
synthesized manifests (plain Python: they are read as data, no construct is loaded).

Each choice follows how the tool orders and judges what it applies:

- Argo CD sorts a sync by phase, then sync wave, then kind (argoproj/gitops-engine
  ``pkg/sync/sync_tasks.go``, ``syncTasks.Less`` and ``kindOrder``). ``PriorityClass``
  is not in ``kindOrder``, so without a wave it is applied after the DaemonSet and the
  Deployments whose pods name it; the manifests carry
  ``argocd.argoproj.io/sync-wave: "-1"`` on their PriorityClasses and Namespaces.
  A DaemonSet is ``Healthy`` whatever its counts only with the ``OnDelete`` update
  strategy (``pkg/health/health_daemonset.go``, ``getAppsv1DaemonSetHealth``), which
  the reserver uses: a reserver that waits for room is normal operation.
- Flux's kustomize-controller judges health with kstatus
  (sigs.k8s.io/cli-utils ``pkg/kstatus/status/core.go``): ``daemonsetConditions`` is
  ``InProgress`` while ``desiredNumberScheduled > numberAvailable``, whatever the
  strategy. So the Kustomization does not ``wait`` on everything; it lists
  ``healthChecks`` for what must be healthy, the burst Deployments
  (``deploymentConditions``: ``Failed`` once the progress deadline passes). It applies
  Namespaces first, then kinds whose name ends in ``Class`` (fluxcd/pkg ``ssa``,
  ``ApplyAllStaged`` with ``IsClusterDefinition`` and ``IsClassDefinition``), so the
  PriorityClasses need no second Kustomization; ``dependsOn`` names the
  Kustomizations that install the CRDs the manifests use (Karpenter, the Prometheus
  Operator, the CapacityBuffer API).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from cdk8s_headroom.vocabulary import names
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.labels import BURST_COMPONENT, COMPONENT_LABEL

ARGO_CD_NAMESPACE = "argocd"
FLUX_NAMESPACE = "flux-system"
IN_CLUSTER = "https://kubernetes.default.svc"
"""The API server address Argo CD gives the cluster it runs in."""

SYNC_WAVE_ANNOTATION = "argocd.argoproj.io/sync-wave"
FIRST_WAVE = "-1"
"""The wave of the objects other objects need first: Namespaces and PriorityClasses."""

CRD_GROUPS = {
    "karpenter.sh": "karpenter",
    "karpenter.k8s.aws": "karpenter",
    "monitoring.coreos.com": "prometheus-operator",
    "autoscaling.x-k8s.io": "capacity-buffers",
}
"""The API groups whose CRDs another release installs, and the default name of the Flux
Kustomization that installs them (``dependsOn``; ``crd_providers`` overrides it)."""


def _url(value: object, field: str) -> str:
    if not isinstance(value, str) or not value.startswith(("https://", "ssh://", "http://")):
        raise HeadroomConfigError(
            field, value, "a Git repository URL that starts with https://, ssh:// or http://"
        )
    return names.text(value, field=field)


def _path(value: object, field: str) -> str:
    text = names.text(value, field=field)
    if text.startswith("/") or ".." in text.split("/"):
        raise HeadroomConfigError(field, value, "a path inside the repository, such as dist")
    return text


def burst_deployments(manifests: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """The (namespace, name) of each burst Deployment among ``manifests``."""
    found = []
    for document in manifests:
        metadata = document.get("metadata") or {}
        labels = metadata.get("labels") or {}
        if document.get("kind") == "Deployment" and labels.get(COMPONENT_LABEL) == BURST_COMPONENT:
            found.append((str(metadata.get("namespace") or "default"), str(metadata["name"])))
    return sorted(found)


def crd_groups(manifests: Sequence[Mapping[str, Any]]) -> list[str]:
    """The API groups of ``CRD_GROUPS`` that ``manifests`` use."""
    used = {str(d.get("apiVersion", "")).partition("/")[0] for d in manifests}
    return sorted(group for group in CRD_GROUPS if group in used)


def argo_cd_application(
    *,
    repo_url: str,
    revision: str = "main",
    path: str = "dist",
    name: str = "node-headroom",
    namespace: str = ARGO_CD_NAMESPACE,
    destination: str = IN_CLUSTER,
) -> dict[str, Any]:
    """An Argo CD ``Application`` that syncs the manifests folder ``path`` of
    ``repo_url`` at ``revision``, pruning what disappears from it (so the folder must
    never be half-written: every synthesis path publishes it whole)."""
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": names.dns_subdomain(name, field="name"), "namespace": namespace},
        "spec": {
            "project": "default",
            "source": {
                "repoURL": _url(repo_url, "repo_url"),
                "targetRevision": names.text(revision, field="revision"),
                "path": _path(path, "path"),
                "directory": {"recurse": True},
            },
            "destination": {"server": destination},
            "syncPolicy": {
                "automated": {"prune": True, "selfHeal": True},
                "syncOptions": ["ServerSideApply=true"],
            },
        },
    }


def argo_cd_application_set(
    *,
    repo_url: str,
    revision: str = "main",
    chart_path: str = "charts/node-headroom",
    name: str = "node-headroom",
    namespace: str = ARGO_CD_NAMESPACE,
    cluster_selector: Mapping[str, str] | None = None,
    values_from_labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """An Argo CD ``ApplicationSet`` that installs the chart on every cluster its
    cluster generator selects, each with values read from the cluster's labels.

    ``values_from_labels`` maps a chart value (dotted, e.g. ``reservation.cpu``) to the
    label of the cluster's Secret that gives it (e.g. ``headroom.cdk8s.io/slice-cpu``),
    so a slice size per cluster class is a label on the clusters of that class. Default:
    the slice's CPU and memory from ``headroom.cdk8s.io/slice-cpu`` and
    ``headroom.cdk8s.io/slice-memory``, and only clusters labelled
    ``headroom.cdk8s.io/enabled: "true"``.
    """
    selector = names.labels(
        {"headroom.cdk8s.io/enabled": "true"} if cluster_selector is None else cluster_selector,
        field="cluster_selector",
    )
    from_labels = (
        {
            "reservation.cpu": "headroom.cdk8s.io/slice-cpu",
            "reservation.memory": "headroom.cdk8s.io/slice-memory",
        }
        if values_from_labels is None
        else dict(values_from_labels)
    )
    for value, label in from_labels.items():
        names.label_key(label, field=f"values_from_labels[{shown(value)}]")
    # Argo CD's Go templates read a cluster Secret's labels as .metadata.labels.
    parameters = [
        {"name": value, "value": "{{index .metadata.labels " + json.dumps(label) + "}}"}
        for value, label in sorted(from_labels.items())
    ]
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": names.dns_subdomain(name, field="name"), "namespace": namespace},
        "spec": {
            "goTemplate": True,
            "goTemplateOptions": ["missingkey=error"],
            "generators": [{"clusters": {"selector": {"matchLabels": selector}}}],
            "template": {
                "metadata": {"name": f"{name}-{{{{.name}}}}"},
                "spec": {
                    "project": "default",
                    "source": {
                        "repoURL": _url(repo_url, "repo_url"),
                        "targetRevision": names.text(revision, field="revision"),
                        "path": _path(chart_path, "chart_path"),
                        "helm": {"releaseName": "node-headroom", "parameters": parameters},
                    },
                    "destination": {"server": "{{.server}}", "namespace": "node-headroom"},
                    "syncPolicy": {
                        "automated": {"prune": True, "selfHeal": True},
                        "syncOptions": ["CreateNamespace=true", "ServerSideApply=true"],
                    },
                },
            },
        },
    }


def flux_git_repository(
    *,
    repo_url: str,
    branch: str = "main",
    name: str = "node-headroom",
    namespace: str = FLUX_NAMESPACE,
    interval: str = "5m",
) -> dict[str, Any]:
    """A Flux ``GitRepository`` (source.toolkit.fluxcd.io/v1) for the repository."""
    return {
        "apiVersion": "source.toolkit.fluxcd.io/v1",
        "kind": "GitRepository",
        "metadata": {"name": names.dns_subdomain(name, field="name"), "namespace": namespace},
        "spec": {
            "interval": interval,
            "url": _url(repo_url, "repo_url"),
            "ref": {"branch": names.text(branch, field="branch")},
        },
    }


def flux_kustomization(
    *,
    manifests: Sequence[Mapping[str, Any]],
    path: str = "dist",
    name: str = "node-headroom",
    source: str = "node-headroom",
    namespace: str = FLUX_NAMESPACE,
    crd_providers: Mapping[str, str] | None = None,
    interval: str = "10m",
    timeout: str = "5m",
) -> dict[str, Any]:
    """A Flux ``Kustomization`` (kustomize.toolkit.fluxcd.io/v1) that applies ``path``
    from the ``GitRepository`` named ``source``.

    It is ``Ready`` once the burst Deployments among ``manifests`` are available, and
    not before; the reserver DaemonSet is applied but not waited on (see the module's
    docstring). ``dependsOn`` lists the Kustomizations that install the CRDs the
    manifests use: ``crd_providers`` maps an API group to that Kustomization's name
    (default: ``CRD_GROUPS``).
    """
    providers = dict(CRD_GROUPS if crd_providers is None else crd_providers)
    depends = sorted({providers[group] for group in crd_groups(manifests) if group in providers})
    checks = [
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": burst, "namespace": ns}
        for ns, burst in burst_deployments(manifests)
    ]
    spec: dict[str, Any] = {
        "interval": interval,
        "sourceRef": {"kind": "GitRepository", "name": source},
        "path": f"./{_path(path, 'path')}",
        "prune": True,
        "wait": False,
        "timeout": timeout,
    }
    if checks:
        spec["healthChecks"] = checks
    if depends:
        spec["dependsOn"] = [{"name": provider} for provider in depends]
    return {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": names.dns_subdomain(name, field="name"), "namespace": namespace},
        "spec": spec,
    }
