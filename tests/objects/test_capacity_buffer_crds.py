"""Every CapacityBuffer the library emits is valid for the upstream CRDs, CEL rules included,
and the project's own schema and rules (``capacitybufferapi``) agree with them.

The CRDs are read from ``../shared/crds`` (Cluster Autoscaler's, with v1alpha1 and
v1beta1, and Karpenter 1.14.1's v1beta1), never copied into the project; the tests
skip when that folder is absent. ``x-kubernetes-validations`` rules are evaluated with
cel-python, with ``self`` bound to the object at the rule's place in the schema, as the
API server does.
"""

from __future__ import annotations

import copy
import functools
import importlib
import warnings
from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import (
    DEFAULT_DEDICATED_TAINT,
    CapacityBufferForm,
    CapacityBufferVersion,
    HeadroomPriorityClasses,
    HeadroomWarning,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
)
from cdk8s_headroom.vocabulary import capacity_buffer_api as api
from scripts.validation import capacity_buffer_errors
from tests.conftest import Manifest
from tests.test_output_validity import example_sources
from tests.upstream_crds import (
    CLUSTER_AUTOSCALER,
    KARPENTER,
    buffer_crd_errors,
    crd_errors,
    crd_versions,
    needs_crds,
)

NODE_GROUP_LABEL = "eks.amazonaws.com/nodegroup"
"""A managed node group's label: a pool that Cluster Autoscaler scales, for v1alpha1."""


def pool_for(version: CapacityBufferVersion) -> NodePoolRef:
    """A dedicated pool that serves ``version``: Karpenter's for v1beta1, a Cluster
    Autoscaler node group's for v1alpha1 (Karpenter serves no v1alpha1)."""
    if version is CapacityBufferVersion.V1BETA1:
        return NodePoolRef.karpenter("pool", taints=[DEFAULT_DEDICATED_TAINT])
    return NodePoolRef("pool", label_key=NODE_GROUP_LABEL, taints=(DEFAULT_DEDICATED_TAINT,))


def emitted_buffers() -> list[Manifest]:
    """Buffers of every form and version the constructs offer."""
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "buffers")
    # One set for every headroom: PriorityClasses are cluster-scoped, and synthesis
    # refuses two of one name.
    classes = HeadroomPriorityClasses(chart, "classes", model=PriorityModel.DEDICATED_POOL)
    variants: list[dict[str, Any]] = [
        {"replicas": 3},
        {"limits": {"cpu": "8", "memory": "16Gi"}},
        {"replicas": 0, "limits": {"cpu": "2"}},
        {"form": CapacityBufferForm.SCALABLE, "percentage": 25},
        {"form": CapacityBufferForm.SCALABLE, "replicas": 2, "limits": {"memory": "8Gi"}},
        {"form": CapacityBufferForm.SCALABLE, "limits": {"cpu": "4"}},
    ]
    for index, props in enumerate(variants):
        for version in CapacityBufferVersion:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", HeadroomWarning)
                headroom = NodeHeadroom(
                    chart,
                    f"h{index}{version.value}",
                    model=PriorityModel.DEDICATED_POOL,
                    node_pool=pool_for(version),
                    namespace=f"n{index}{version.value}",
                    priority_classes=classes,
                )
                workload = headroom.add_burst_workload(
                    "api", image="example/api:1", cpu="500m", memory="1Gi", replicas=4
                )
                headroom.add_capacity_buffer(workload, api_version=version, **props)
    return [o for o in chart.to_json() if o["kind"] == "CapacityBuffer"]


@functools.cache
def example_buffers() -> tuple[Manifest, ...]:
    """The CapacityBuffers of every example app that builds some (in process)."""
    found: list[Manifest] = []
    for source in example_sources():
        if source.suffix != ".py" or "CapacityBuffer" not in source.read_text():
            continue
        app = cdk8s.App()
        importlib.import_module(f"examples.{source.stem}").build(app)
        found += [o for chart in app.charts for o in chart.to_json() if api.is_capacity_buffer(o)]
    return tuple(found)


BUFFERS = emitted_buffers()


def test_every_form_and_version_is_emitted() -> None:
    assert {b["apiVersion"] for b in BUFFERS} == {v.api_version for v in CapacityBufferVersion}
    assert len(BUFFERS) == 12


@needs_crds
@pytest.mark.parametrize("buffer", BUFFERS, ids=lambda b: b["metadata"]["namespace"])
def test_an_emitted_buffer_is_valid_for_cluster_autoscalers_crd(buffer: Manifest) -> None:
    assert crd_errors(buffer, CLUSTER_AUTOSCALER) == []


@needs_crds
@pytest.mark.parametrize(
    "buffer",
    [b for b in BUFFERS if b["apiVersion"].endswith("/v1beta1")],
    ids=lambda b: b["metadata"]["namespace"],
)
def test_an_emitted_v1beta1_buffer_is_valid_for_karpenters_crd(buffer: Manifest) -> None:
    assert crd_errors(buffer, KARPENTER) == []


@needs_crds
def test_the_examples_buffers_are_valid_for_both_crds() -> None:
    buffers = example_buffers()
    assert buffers, "an example emits CapacityBuffers"
    for buffer in buffers:
        assert crd_errors(buffer, CLUSTER_AUTOSCALER) == []
        assert crd_errors(buffer, KARPENTER) == []
        assert capacity_buffer_errors(buffer) == []


@pytest.mark.parametrize("buffer", BUFFERS, ids=lambda b: b["metadata"]["namespace"])
def test_an_emitted_buffer_passes_the_projects_own_schema_and_rules(buffer: Manifest) -> None:
    assert capacity_buffer_errors(buffer) == []


def _with_spec(spec: dict[str, Any], version: str = "v1beta1") -> Manifest:
    return {
        "apiVersion": f"autoscaling.x-k8s.io/{version}",
        "kind": "CapacityBuffer",
        "metadata": {"name": "b", "namespace": "n"},
        "spec": spec,
    }


REJECTED_BY_BOTH = {
    "pod template without replicas or limits": {"podTemplateRef": {"name": "t"}},
    "both references": {
        "podTemplateRef": {"name": "t"},
        "scalableRef": {"kind": "Deployment", "name": "d"},
        "replicas": 1,
    },
    "negative replicas": {"podTemplateRef": {"name": "t"}, "replicas": -1},
    "an unknown field": {"podTemplateRef": {"name": "t"}, "replica": 1},
    "a limit that is no quantity": {"podTemplateRef": {"name": "t"}, "limits": {"cpu": "lots"}},
    "a scalable reference without kind": {"scalableRef": {"name": "d"}, "replicas": 1},
    "an empty template name": {"podTemplateRef": {"name": ""}, "replicas": 1},
}


@needs_crds
@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])
@pytest.mark.parametrize("case", sorted(REJECTED_BY_BOTH))
def test_the_projects_rules_reject_what_the_crd_rejects(case: str, version: str) -> None:
    document = _with_spec(copy.deepcopy(REJECTED_BY_BOTH[case]), version)
    assert crd_errors(document, CLUSTER_AUTOSCALER), "the CRD rejects it"
    assert capacity_buffer_errors(document), "so does the project"


STRICTER_THAN_THE_CRD = {
    "no reference": {"replicas": 1},
    "percentage with a pod template": {
        "podTemplateRef": {"name": "t"},
        "replicas": 1,
        "percentage": 10,
    },
}


@needs_crds
@pytest.mark.parametrize("case", sorted(STRICTER_THAN_THE_CRD))
def test_the_documented_rules_the_crd_leaves_out_are_the_projects_own(case: str) -> None:
    document = _with_spec(copy.deepcopy(STRICTER_THAN_THE_CRD[case]))
    assert crd_errors(document, CLUSTER_AUTOSCALER) == []
    assert capacity_buffer_errors(document) == [
        f"spec: {message}"
        for origin, holds, message in api.RULES
        if origin == "documented" and not holds(document["spec"])
    ]


@needs_crds
@pytest.mark.parametrize("file", [CLUSTER_AUTOSCALER, KARPENTER])
def test_the_project_has_one_rule_per_cel_rule_of_the_crd(file: str) -> None:
    """A rule added upstream fails here until the project writes it too."""
    for version, schema in crd_versions(file).items():
        crd_rules = schema.rules()
        assert len(crd_rules) == sum(1 for origin, _, _ in api.RULES if origin == "crd"), version


@needs_crds
@pytest.mark.parametrize("file", [CLUSTER_AUTOSCALER, KARPENTER])
def test_the_projects_schema_has_the_crds_spec_fields(file: str) -> None:
    for version, schema in crd_versions(file).items():
        own = api.schema(CapacityBufferVersion(version))
        assert set(own["properties"]["spec"]["properties"]) == set(
            schema.schema["properties"]["spec"]["properties"]
        ), version


@needs_crds
def test_the_shared_check_judges_a_buffer_by_every_crd_that_serves_its_version() -> None:
    """The check the fuzz and chart tests run on every buffer they emit."""
    broken = {"podTemplateRef": {"name": "t"}}  # neither replicas nor limits
    beta = buffer_crd_errors(_with_spec(broken))
    assert [error.partition(": ")[0] for error in beta] == [CLUSTER_AUTOSCALER, KARPENTER]
    alpha = buffer_crd_errors(_with_spec(broken, "v1alpha1"))
    assert [error.partition(": ")[0] for error in alpha] == [CLUSTER_AUTOSCALER]
    assert buffer_crd_errors(_with_spec({**broken, "replicas": 1}, "v1alpha1")) == []
    assert buffer_crd_errors(_with_spec({**broken, "replicas": 1}, "v2")) == [
        "no upstream CRD serves autoscaling.x-k8s.io/v2"
    ]


def test_an_unknown_version_has_no_schema() -> None:
    (error,) = capacity_buffer_errors(_with_spec({"replicas": 1}, "v1"))
    assert error.startswith("no schema for autoscaling.x-k8s.io/v1 CapacityBuffer")


@needs_crds
def test_the_cel_evaluation_itself_tells_a_broken_rule_from_a_kept_one() -> None:
    kept = _with_spec({"podTemplateRef": {"name": "t"}, "limits": {"cpu": "1"}})
    broken = _with_spec({"podTemplateRef": {"name": "t"}})
    assert crd_errors(kept, KARPENTER) == []
    assert crd_errors(broken, KARPENTER) == [
        "spec: If podTemplateRef is set, replicas or limits must also be set"
    ]
