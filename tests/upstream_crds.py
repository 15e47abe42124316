"""The upstream CapacityBuffer CRDs, read from ``../shared/crds`` (never copied into the
project), and the check of a manifest against them: its version's structural schema,
strict, then each CEL rule (``scripts.crd``, as for the NodePool CRD).

Shared by the tests that judge emitted buffers: the construct's (test_capacity_buffer_crds),
the fuzzed props' (test_fuzz) and the chart's value sets' (test_helm_chart). Without
``../shared`` the CRDs are absent, and those tests skip or leave this check out.
"""

from __future__ import annotations

import functools

import pytest

from scripts.crd import CustomResourceSchema
from tests.conftest import SHARED, Manifest

CRDS = SHARED / "crds"
CLUSTER_AUTOSCALER = "autoscaling.x-k8s.io_capacitybuffers.yaml"
"""Cluster Autoscaler's CRD: v1alpha1 and v1beta1."""
KARPENTER = "karpenter-v1.14.1_autoscaling.x-k8s.io_capacitybuffers.yaml"
"""Karpenter's copy: v1beta1 only."""

HAVE_CRDS = (CRDS / CLUSTER_AUTOSCALER).exists() and (CRDS / KARPENTER).exists()
needs_crds = pytest.mark.skipif(
    not HAVE_CRDS,
    reason=f"the upstream CapacityBuffer CRDs are not in {CRDS} (../shared is absent)",
)


@functools.cache
def crd_versions(file: str) -> dict[str, CustomResourceSchema]:
    """The schema, CEL rules included, of each version the CRD serves."""
    return CustomResourceSchema.load_served(CRDS / file)


def crd_errors(document: Manifest, file: str) -> list[str]:
    """Errors of ``document`` for its version in the CRD ``file``."""
    version = document["apiVersion"].partition("/")[2]
    schemas = crd_versions(file)
    if version not in schemas:
        return [f"{file} serves no {version}"]
    return schemas[version].errors(document)


def buffer_crd_errors(document: Manifest) -> list[str]:
    """Errors of a CapacityBuffer for every upstream CRD that serves its version (both
    for v1beta1, Cluster Autoscaler's for v1alpha1), each prefixed with the CRD's file."""
    version = document["apiVersion"].partition("/")[2]
    files = [f for f in (CLUSTER_AUTOSCALER, KARPENTER) if version in crd_versions(f)]
    if not files:
        return [f"no upstream CRD serves {document['apiVersion']}"]
    return [f"{file}: {error}" for file in files for error in crd_errors(document, file)]


NODEPOOL = "karpenter-v1.14.1_karpenter.sh_nodepools.yaml"
"""Karpenter's NodePool CRD."""

CRD_FILES: dict[str, tuple[str, ...]] = {
    "karpenter.sh": (NODEPOOL,),
    "karpenter.k8s.aws": ("karpenter-aws-v1.14.1_karpenter.k8s.aws_ec2nodeclasses.yaml",),
    # both CapacityBuffer CRDs define capacitybuffers.autoscaling.x-k8s.io; Cluster
    # Autoscaler's serves both versions the library writes
    "autoscaling.x-k8s.io": (CLUSTER_AUTOSCALER,),
    "argoproj.io": (
        "argo-cd-v3.5.1_application-crd.yaml",
        "argo-cd-v3.5.1_applicationset-crd.yaml",
    ),
    "kustomize.toolkit.fluxcd.io": ("flux-kustomize-controller-v1.9.4_kustomizations.yaml",),
    "source.toolkit.fluxcd.io": ("flux-source-controller-v1.9.1_gitrepositories.yaml",),
    "monitoring.coreos.com": (
        "prometheus-operator-v0.93.0_monitoring.coreos.com_prometheusrules.yaml",
    ),
}
"""The upstream CRDs in ``../shared/crds`` by API group: what a cluster needs installed
before it accepts the project's objects of that group (the live tier installs them)."""


def crd_files_for(manifests: list[Manifest]) -> list[str]:
    """The CRD files the custom objects of ``manifests`` need, in a stable order; a
    group with no file here is named in the error, never skipped quietly."""
    groups = sorted(
        {m["apiVersion"].partition("/")[0] for m in manifests if "/" in m["apiVersion"]}
        - BUILT_IN_GROUPS
    )
    missing = [g for g in groups if g not in CRD_FILES]
    if missing:
        raise KeyError(f"no upstream CRD in ../shared/crds for the API groups {missing}")
    return [file for group in groups for file in CRD_FILES[group]]


BUILT_IN_GROUPS = frozenset(
    {"apps", "autoscaling", "policy", "scheduling.k8s.io", "rbac.authorization.k8s.io", "batch"}
)
