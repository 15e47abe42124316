"""Validation of custom resources against their CustomResourceDefinition, as the API
server does it: the version's OpenAPI schema, strictly, then its CEL rules.

For the tests, which read upstream CRDs from ``../shared/crds`` (never copied into the
repository). What the API server does, and this follows:

- the structural schema: types, enums, patterns, bounds and required fields; a field
  the schema does not declare is an error (``kubectl apply`` validates strictly since
  Kubernetes 1.27), except under ``x-kubernetes-preserve-unknown-fields`` and in
  ``metadata``, which the API server validates itself;
- ``x-kubernetes-validations``: each CEL rule evaluated with ``self`` bound to the value
  at its node, with cel-python. Transition rules (those that read ``oldSelf``) only run
  on updates, so they are skipped here: a manifest is a create.

Kubernetes adds CEL libraries of its own; the ones the CRDs here use are provided
(``find`` and ``findAll`` from the regex library).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import celpy
import jsonschema
import yaml
from celpy import celtypes
from celpy.adapter import json_to_cel
from celpy.evaluation import CELEvalError, CELFunction

Manifest = dict[str, Any]

# celpy.Environment() sets the recursion limit to 2500 each time one is made; set once
# here, on import, it does not change while a caller runs (Hypothesis warns when it does).
CEL_RECURSION_LIMIT = 2500
sys.setrecursionlimit(max(sys.getrecursionlimit(), CEL_RECURSION_LIMIT))


def _find(value: celtypes.StringType, pattern: celtypes.StringType) -> celtypes.StringType:
    match = re.search(str(pattern), str(value))
    return celtypes.StringType(match[0] if match else "")


def _find_all(value: celtypes.StringType, pattern: celtypes.StringType) -> celtypes.ListType:
    return celtypes.ListType(
        [celtypes.StringType(m[0]) for m in re.finditer(str(pattern), str(value))]
    )


KUBERNETES_CEL_FUNCTIONS: dict[str, CELFunction] = {"find": _find, "findAll": _find_all}
"""Functions of the Kubernetes CEL libraries (regex) that plain CEL lacks."""


def _strict(schema: Any) -> Any:
    """The schema with ``additionalProperties: false`` wherever it declares properties
    and says nothing else about unknown ones: the API server's strict field validation."""
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    strict = {key: _strict(value) for key, value in schema.items()}
    if (
        "properties" in strict
        and "additionalProperties" not in strict
        and not strict.get("x-kubernetes-preserve-unknown-fields")
    ):
        strict["additionalProperties"] = False
    return strict


@dataclass(frozen=True)
class CelRule:
    """One ``x-kubernetes-validations`` rule and where it sits in the schema."""

    rule: str
    message: str


class CustomResourceSchema:
    """The schema of one served version of a CRD, with its CEL rules.

    Build it with ``CustomResourceSchema.load(path)``; ``errors(document)`` lists
    what the API server would refuse.
    """

    def __init__(self, crd: Manifest, version: str) -> None:
        spec = crd["spec"]
        self.group: str = spec["group"]
        self.kind: str = spec["names"]["kind"]
        self.version = version
        served = {v["name"]: v for v in spec["versions"] if v.get("served")}
        if version not in served:
            raise ValueError(f"{self.kind}: no served version {version!r} in {sorted(served)}")
        self.schema: Manifest = served[version]["schema"]["openAPIV3Schema"]
        strict = _strict(self.schema)
        # metadata is validated by the API server itself, not by the CRD's schema.
        strict.setdefault("properties", {})["metadata"] = {"type": "object"}
        self._validator = jsonschema.Draft202012Validator(strict)
        self._cel = celpy.Environment()

    @staticmethod
    def load(path: Path, version: str | None = None) -> CustomResourceSchema:
        """The CRD in ``path``; ``version``: default, the storage version."""
        crd = yaml.safe_load(path.read_text())
        if version is None:
            version = next(v["name"] for v in crd["spec"]["versions"] if v.get("storage"))
        return CustomResourceSchema(crd, version)

    @staticmethod
    def load_served(path: Path) -> dict[str, CustomResourceSchema]:
        """Every version the CRD in ``path`` serves, by name."""
        crd = yaml.safe_load(path.read_text())
        return {
            v["name"]: CustomResourceSchema(crd, v["name"])
            for v in crd["spec"]["versions"]
            if v.get("served")
        }

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"

    def errors(self, document: Manifest) -> list[str]:
        """Every schema and CEL error of ``document`` (empty: the API server accepts it)."""
        if document.get("apiVersion") != self.api_version or document.get("kind") != self.kind:
            return [f"not a {self.api_version} {self.kind}"]
        found = [
            f"{'.'.join(map(str, e.path)) or '<root>'}: {e.message}"
            for e in sorted(
                self._validator.iter_errors(document), key=lambda e: list(map(str, e.path))
            )
        ]
        if found:
            # CEL rules assume a value that passed the schema (as in the API server).
            return found
        return [f"{path}: {message}" for path, message in self._cel_errors(self.schema, document)]

    def rules(self) -> list[CelRule]:
        """Every CEL rule of the schema, transition rules included."""
        return [rule for _, rule in _rules(self.schema, "")]

    def _cel_errors(
        self, schema: Manifest, value: Any, path: str = ""
    ) -> Iterator[tuple[str, str]]:
        for rule in schema.get("x-kubernetes-validations", ()):
            if "oldSelf" in rule["rule"]:
                continue
            if not self._evaluate(rule["rule"], value):
                yield path or "<root>", rule.get("message") or f"failed rule: {rule['rule']}"
        if isinstance(value, dict):
            properties = schema.get("properties", {})
            extra = schema.get("additionalProperties")
            for key, child in value.items():
                child_schema = properties.get(key, extra if isinstance(extra, dict) else None)
                if child_schema is not None:
                    yield from self._cel_errors(child_schema, child, f"{path}.{key}".lstrip("."))
        elif isinstance(value, list) and isinstance(schema.get("items"), dict):
            for index, item in enumerate(value):
                yield from self._cel_errors(schema["items"], item, f"{path}[{index}]")

    def _evaluate(self, rule: str, value: Any) -> bool:
        # A rule that fails to evaluate (int("x")) rejects the object, as in the API server.
        try:
            result = self._program(rule).evaluate({"self": json_to_cel(value)})
        except CELEvalError:
            return False
        return not isinstance(result, Exception) and bool(result)

    @functools.cache  # noqa: B019 - one schema per test session, rules compiled once
    def _program(self, rule: str) -> celpy.Runner:
        return self._cel.program(self._cel.compile(rule), functions=KUBERNETES_CEL_FUNCTIONS)


def _rules(schema: Any, path: str) -> Iterator[tuple[str, CelRule]]:
    if not isinstance(schema, dict):
        return
    for rule in schema.get("x-kubernetes-validations", ()):
        yield path, CelRule(rule["rule"], rule.get("message", ""))
    for key, child in schema.get("properties", {}).items():
        yield from _rules(child, f"{path}.{key}")
    for key in ("items", "additionalProperties"):
        yield from _rules(schema.get(key), f"{path}[]")
