"""The strict Kubernetes schemas as compiled: each kind's validator keeps only the
definitions its schema reaches, and judges as the whole definitions file would."""

from __future__ import annotations

import copy
from typing import Any

from cdk8s_headroom.validate import schemas
from cdk8s_headroom.validate.schemas import kubernetes_versions, schema_errors, validate_schemas

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d"},
    "spec": {
        "selector": {"matchLabels": {"app": "d"}},
        "template": {
            "metadata": {"labels": {"app": "d"}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        },
    },
}


def test_an_error_several_references_deep_is_found_in_every_release() -> None:
    # Deployment -> DeploymentSpec -> PodTemplateSpec -> PodSpec -> Container ->
    # SecurityContext -> Capabilities: each step is a $ref into the definitions.
    broken = copy.deepcopy(DEPLOYMENT)
    container = broken["spec"]["template"]["spec"]["containers"][0]
    container["securityContext"] = {"capabilities": {"dorp": ["ALL"]}}
    expected = [
        f"Kubernetes {version} schema: spec.template.spec.containers.0.securityContext."
        "capabilities: Additional properties are not allowed ('dorp' was unexpected)"
        for version in kubernetes_versions()
    ]
    assert validate_schemas([DEPLOYMENT, broken]) == [[], expected]
    assert [
        f"Kubernetes {version} schema: {error}"
        for version in kubernetes_versions()
        for error in schema_errors(broken, version)
    ] == expected


def test_only_the_reached_definitions_are_kept() -> None:
    definitions = {
        "$id": "https://kubernetes.io/api/_definitions.json",
        "$defs": {
            "A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"items": {"$ref": "#/$defs/A"}},
            "Unused": {"type": "string"},
        },
    }
    schema = {"properties": {"a": {"$ref": "/api/_definitions.json#/$defs/A"}}}
    reached = schemas._reached([schema], definitions)
    assert reached["$id"] == definitions["$id"]
    assert sorted(reached["$defs"]) == ["A", "B"]


def test_a_reference_that_is_not_to_a_definition_keeps_them_all() -> None:
    definitions = {"$defs": {"A": {"type": "string"}}}
    # As in CustomResourceDefinition's JSONSchemaProps: a property named "$ref".
    for schema in (
        {"properties": {"$ref": {"type": "string"}}},
        {"$ref": "#/$defs/Missing"},
        {"$ref": "https://example.com/other.json"},
    ):
        assert schemas._reached([schema], definitions) is definitions
