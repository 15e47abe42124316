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
