"""The ``CapacityBuffer`` API (``autoscaling.x-k8s.io``): its versions, schema and rules.

Written here from the API's documented fields (kubernetes/autoscaler
``cluster-autoscaler/apis/capacitybuffer``, and Karpenter's copy of the CRD), so the
project validates the kind on any machine, without the upstream CRD files. Plain
Python: the constructs, ``make validate`` and the simulator all read it.

The rules are those of the CRD's ``x-kubernetes-validations`` plus two the API
documents in prose and the CRD does not enforce (``RULES`` says which), since an
autoscaler silently ignores a buffer that breaks them:

- exactly one of ``podTemplateRef`` and ``scalableRef``;
- ``percentage`` only with ``scalableRef``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

from cdk8s_headroom.vocabulary.names import INT32_MAX

API_GROUP = "autoscaling.x-k8s.io"
KIND = "CapacityBuffer"
ACTIVE_CAPACITY = "buffer.x-k8s.io/active-capacity"
"""The one provisioning strategy both autoscalers implement (and the API's default)."""

QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
"""A resource quantity, as the API's ``limits`` accept it (``resource.Quantity``)."""


class CapacityBufferVersion(Enum):
    """Which version of the API to emit.

    ``V1BETA1`` is served by Cluster Autoscaler 1.35+ and Karpenter 1.14+ (behind its
    ``CapacityBuffer`` feature gate); ``V1ALPHA1`` by Cluster Autoscaler 1.34, which
    serves no other version (deprecated from 1.35 on).
    """

    V1BETA1 = "v1beta1"
    V1ALPHA1 = "v1alpha1"

    @property
    def api_version(self) -> str:
        return f"{API_GROUP}/{self.value}"


def _int32(description: str) -> dict[str, Any]:
    return {"type": "integer", "minimum": 0, "maximum": INT32_MAX, "description": description}


def _name(description: str) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "description": description}


_SPEC: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "provisioningStrategy": {
            "type": "string",
            "description": f"how the buffer is kept; default {ACTIVE_CAPACITY}",
        },
        "podTemplateRef": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name"],
            "properties": {"name": _name("a PodTemplate in the buffer's namespace")},
            "description": "the shape of one buffer chunk",
        },
        "scalableRef": {
            "type": "object",
            "additionalProperties": False,
            "required": ["kind", "name"],
            "properties": {
                "apiGroup": {"type": "string", "description": "empty for the core group"},
                "kind": _name("a kind with a scale subresource, e.g. Deployment"),
                "name": _name("the scalable object's name"),
            },
            "description": "a scalable object whose pods are the shape of one chunk",
        },
        "replicas": _int32("how many chunks"),
        "percentage": _int32("chunks as a percentage of the scalable object's replicas"),
        "limits": {
            "type": "object",
            "additionalProperties": {
                "anyOf": [
                    {"type": "integer"},
                    {"type": "string", "pattern": QUANTITY_PATTERN},
                ]
            },
            "description": "the most the chunks may request in total, per resource",
        },
    },
}

_STATUS: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "conditions": {"type": "array", "items": {"type": "object"}},
        "podTemplateGeneration": {"type": "integer"},
        "podTemplateRef": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name"],
            "properties": {"name": _name("the PodTemplate used")},
        },
        "provisioningStrategy": {"type": "string"},
        "replicas": {"type": "integer"},
    },
}


def schema(version: CapacityBufferVersion) -> dict[str, Any]:
    """The JSON schema (draft 2020-12) of a ``CapacityBuffer`` of ``version``; strict:
    unknown fields are errors. Both versions have the same fields."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "apiVersion": {"const": version.api_version},
            "kind": {"const": KIND},
            "metadata": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "namespace": {"type": "string"},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            },
            "spec": _SPEC,
            "status": _STATUS,
        },
    }


Rule = Callable[[Mapping[str, Any]], bool]

RULES: tuple[tuple[str, Rule, str], ...] = (
    (
        "crd",
        lambda spec: "podTemplateRef" not in spec or "replicas" in spec or "limits" in spec,
        "with podTemplateRef, replicas or limits must also be set",
    ),
    (
        "crd",
        lambda spec: not ("podTemplateRef" in spec and "scalableRef" in spec),
        "podTemplateRef and scalableRef must not both be set",
    ),
    (
        "documented",
        lambda spec: "podTemplateRef" in spec or "scalableRef" in spec,
        "exactly one of podTemplateRef and scalableRef must be set",
    ),
    (
        "documented",
        lambda spec: "percentage" not in spec or "scalableRef" in spec,
        "percentage applies only with scalableRef",
    ),
)
"""The rules across fields of ``spec``: (origin, holds, message). Origin ``crd``: the
CRD's ``x-kubernetes-validations``; ``documented``: the API's field documentation."""


def is_capacity_buffer(document: Mapping[str, Any]) -> bool:
    return document.get("kind") == KIND and str(document.get("apiVersion", "")).startswith(
        f"{API_GROUP}/"
    )


def version_of(document: Mapping[str, Any]) -> CapacityBufferVersion | None:
    """The document's version, or ``None`` when this project knows no such version."""
    group_version = str(document.get("apiVersion", ""))
    return next((v for v in CapacityBufferVersion if v.api_version == group_version), None)


def rule_errors(spec: Mapping[str, Any]) -> list[str]:
    """The messages of the ``RULES`` that ``spec`` breaks."""
    return [f"spec: {message}" for _, holds, message in RULES if not holds(spec)]
