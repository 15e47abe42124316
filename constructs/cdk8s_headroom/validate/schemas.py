"""The strict schemas: does each object have a schema, and does it pass it?

kubernetes-validate's strict JSON schemas (unknown fields are errors) for Kubernetes
1.27 and the newest release the package ships; the npm @kubernetes-models validators for
the CRD groups of ``models.MODEL_PACKAGES``; CapacityBuffers to the project's own schema
and rules (``cdk8s_headroom.vocabulary.capacity_buffer_api``). A kind without a schema
is a failure, never a pass.

The verdicts of the Kubernetes schemas are kept between runs (``verdict_cache``): an
object judged before is not judged again, and jsonschema and kubernetes-validate are
imported only when an object is.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cdk8s_headroom.files.publish import load_manifests
from cdk8s_headroom.validate.models import is_karpenter, is_modelled, validate_models
from cdk8s_headroom.validate.verdict_cache import VerdictStore
from cdk8s_headroom.vocabulary import capacity_buffer_api
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

if TYPE_CHECKING:
    import jsonschema

OLDEST_KUBERNETES = "1.27"
"""The oldest Kubernetes release the output must be valid for (cdk8s-plus-27's API)."""

Manifest = dict[str, Any]


def _major_minor(version: str) -> str:
    return ".".join(version.lstrip("v").split(".")[:2])


@functools.cache  # kubernetes-validate lists and sorts its schema folders on each call
def newest_kubernetes() -> str:
    """The newest Kubernetes release kubernetes-validate has schemas for, e.g. ``1.37``."""
    import kubernetes_validate.utils as kv  # here: importing it imports jsonschema

    return _major_minor(kv.latest_version())


def kubernetes_versions() -> tuple[str, ...]:
    """The releases every object is validated for: 1.27 and the newest known."""
    return tuple(dict.fromkeys((OLDEST_KUBERNETES, newest_kubernetes())))


@functools.cache
def _schema_folder(version: str) -> str:
    # The release's own schemas (its newest patch). kubernetes-validate would fall back to
    # an older release it has; here a release it lacks is an error, not a quieter check.
    import kubernetes_validate.utils as kv

    known = [v for v in kv.all_versions() if _major_minor(v) == _major_minor(version)]
    if not known:
        raise HeadroomConfigError(
            "kubernetes version",
            version,
            f"one of {sorted(set(map(_major_minor, kv.all_versions())))}",
        )
    return f"kubernetes-json-schema/v{known[-1]}-local-strict"


_DEFINITION_REF = re.compile(r"[^#]*#/\$defs/([^/]+)(?:/.*)?")
"""A ``$ref`` into the release's ``_definitions.json``: the kinds' files write
``/api/_definitions.json#/$defs/NAME``, the definitions ``#/$defs/NAME``."""


def _reached(schemas: Sequence[Manifest], definitions: Manifest) -> Manifest:
    """``definitions`` (a release's ``_definitions.json``) with only the ``$defs`` that
    ``schemas`` reach through ``$ref``, or whole when a reference is not one to a
    definition it holds.

    Validation never reads a definition that no ``$ref`` reaches, so the verdicts are
    the same; what the validators keep is a fifth of the file or less, where the whole
    file (1-2 MB of JSON for each release) would lengthen every garbage collection for
    the rest of the process.
    """
    available: dict[str, Any] = definitions["$defs"]
    reached: dict[str, Any] = {}
    # Only containers are walked: the leaves (descriptions, types) hold no reference.
    pending: list[Any] = list(schemas)
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending += [value for value in node if isinstance(value, (dict, list))]
            continue
        ref = node.get("$ref")
        if ref is not None:
            match = _DEFINITION_REF.fullmatch(ref) if isinstance(ref, str) else None
            if match is None or match[1] not in available:
                return definitions
            if match[1] not in reached:
                reached[match[1]] = available[match[1]]
                pending.append(available[match[1]])
        pending += [value for value in node.values() if isinstance(value, (dict, list))]
    return {**definitions, "$defs": reached}


_KIND = re.compile(r"[A-Za-z][A-Za-z0-9]{0,62}")
_API_VERSION = re.compile(r"(?:[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?v[0-9][a-z0-9]{0,20}")

_VALIDATORS: dict[tuple[str, str, str], jsonschema.protocols.Validator | None] = {}
"""The validator of each (release, apiVersion, kind) compiled so far; ``None``: no
schema for the kind."""


def _kind_schema(version: str, api_version: str, kind: str) -> Manifest | None:
    """The release's schema file of a kind, or ``None`` when it has none."""
    # A kind or apiVersion is part of a file name below: only API names may get there.
    if not _KIND.fullmatch(kind) or not _API_VERSION.fullmatch(api_version):
        return None
    # The file naming of kubernetes-validate: "rbac.authorization.k8s.io/v1" -> "rbac-v1".
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    import kubernetes_validate.utils as kv

    try:
        schema: Manifest = kv.schema_contents(
            f"{_schema_folder(version)}/{kind.lower()}-{group_version}.json", version
        )
    except FileNotFoundError:
        return None
    return schema


def _compile(version: str, kinds: Iterable[tuple[str, str]]) -> None:
    """Compiles the validators of the ``(apiVersion, kind)`` pairs not compiled yet, with
    one read of the release's definitions for all of them, of which they keep what
    they reach (``_reached``): a caller passes every kind it is about to validate."""
    schemas: dict[tuple[str, str], Manifest] = {}
    for api_version, kind in kinds:
        if (version, api_version, kind) in _VALIDATORS:
            continue
        schema = _kind_schema(version, api_version, kind)
        if schema is None:
            _VALIDATORS[(version, api_version, kind)] = None
        else:
            schemas[(api_version, kind)] = schema
    if not schemas:
        return
    import jsonschema
    import kubernetes_validate.utils as kv
    from referencing import Registry, Resource

    definitions = kv.schema_contents(f"{_schema_folder(version)}/_definitions.json", version)
    shared: Registry[Any] = (
        Resource.from_contents(_reached(list(schemas.values()), definitions)) @ Registry()
    )
    for (api_version, kind), schema in schemas.items():
        registry = Resource.from_contents(schema) @ shared
        _VALIDATORS[(version, api_version, kind)] = jsonschema.Draft202012Validator(
            schema, registry=registry
        )


def _validator(version: str, api_version: str, kind: str) -> jsonschema.protocols.Validator | None:
    _compile(version, [(api_version, kind)])
    return _VALIDATORS[(version, api_version, kind)]


def schema_errors(document: Manifest, version: str) -> list[str]:
    """Every strict-schema error of a (non-Karpenter) object for a Kubernetes release.

    The same schemas as ``kubernetes-validate --strict``, loaded once per process, and
    every error rather than the first. No schema for the kind is an error.
    """
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return ["apiVersion and kind must be strings"]
    validator = _validator(version, api_version, kind)
    if validator is None:
        return [f"no schema for {api_version} {kind} in Kubernetes {version}"]
    errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.path)))
    return [f"{'.'.join(map(str, e.path)) or '<root>'}: {e.message}" for e in errors]


def has_own_schema(document: Manifest) -> bool:
    """Whether the object is of a kind the Kubernetes schemas do not hold, validated
    with a schema of its own (Karpenter's, the project's CapacityBuffer)."""
    return is_modelled(document) or capacity_buffer_api.is_capacity_buffer(document)


@functools.cache
def _capacity_buffer_validator(
    version: capacity_buffer_api.CapacityBufferVersion,
) -> jsonschema.protocols.Validator:
    import jsonschema

    validator: jsonschema.protocols.Validator = jsonschema.Draft202012Validator(
        capacity_buffer_api.schema(version)
    )
    return validator


def capacity_buffer_errors(document: Manifest) -> list[str]:
    """A CapacityBuffer's errors against the project's schema and rules of its version
    (``cdk8s_headroom.vocabulary.capacity_buffer_api``); an unknown version is one."""
    version = capacity_buffer_api.version_of(document)
    if version is None:
        known = [v.api_version for v in capacity_buffer_api.CapacityBufferVersion]
        return [f"no schema for {document.get('apiVersion')} CapacityBuffer; known: {known}"]
    errors = sorted(
        _capacity_buffer_validator(version).iter_errors(document),
        key=lambda e: list(map(str, e.path)),
    )
    found = [f"{'.'.join(map(str, e.path)) or '<root>'}: {e.message}" for e in errors]
    spec = document.get("spec")
    if not found and isinstance(spec, dict):
        found += capacity_buffer_api.rule_errors(spec)
    return found


def _model_name(document: Manifest) -> str:
    """How a schema error names the package's schema: ``karpenter`` as before, else the
    API group."""
    if is_karpenter(document):
        return "karpenter"
    return str(document.get("apiVersion", "")).partition("/")[0]


def _is_json(document: Manifest) -> bool:
    # YAML's .inf and .nan, and JSON's 1e400, have no JSON form for the Node validator.
    try:
        json.dumps(document, allow_nan=False)
    except ValueError:
        return False
    return True


@dataclass
class SchemaVerdict:
    """The schema errors of one object, and why its schema could not be checked here
    (``models.unavailable``): such an object is not valid, only not judged."""

    errors: list[str] = field(default_factory=list)
    not_validated: str | None = None


def _kubernetes_errors(documents: Sequence[Manifest]) -> list[list[str]]:
    """The Kubernetes schema errors of each object, in order, for every release in
    ``kubernetes_versions()``: those kept in the ``VerdictStore``, the others judged
    (and kept)."""
    store = VerdictStore.open()
    releases = store.releases or kubernetes_versions()
    found = [store.get(document, releases) for document in documents]
    judged = [d for d, errors in zip(documents, found, strict=True) if errors is None]
    # The kinds judged below, compiled first, all at once.
    kinds = sorted(
        {
            (api_version, kind)
            for d in judged
            if isinstance(api_version := d.get("apiVersion"), str)
            and isinstance(kind := d.get("kind"), str)
        }
    )
    for version in releases:
        _compile(version, kinds)
    results = []
    for document, errors in zip(documents, found, strict=True):
        if errors is None:
            errors = [schema_errors(document, version) for version in releases]
            store.put(document, releases, errors)
        results.append(
            [
                f"Kubernetes {version} schema: {e}"
                for version, version_errors in zip(releases, errors, strict=True)
                for e in version_errors
            ]
        )
    store.save()
    return results


def schema_verdicts(documents: Sequence[Manifest]) -> list[SchemaVerdict]:
    """The schema verdict of each object, in order, for every release in
    ``kubernetes_versions()`` (objects of the modelled CRD groups and CapacityBuffers:
    their own schemas)."""
    results = [SchemaVerdict() for _ in documents]
    modelled = [i for i, d in enumerate(documents) if is_modelled(d)]
    sendable = [i for i in modelled if _is_json(documents[i])]
    for index in set(modelled) - set(sendable):
        results[index].errors.append(
            f"{_model_name(documents[index])} schema: a number that JSON cannot hold (inf or nan)"
        )
    for index, result in zip(
        sendable, validate_models([documents[i] for i in sendable]), strict=True
    ):
        if result.not_validated is not None:
            results[index] = SchemaVerdict(not_validated=result.not_validated)
        results[index].errors.extend(
            f"{_model_name(documents[index])} schema: {e}" for e in result.errors
        )
    for index, document in enumerate(documents):
        if capacity_buffer_api.is_capacity_buffer(document):
            results[index].errors.extend(
                f"CapacityBuffer schema: {e}" for e in capacity_buffer_errors(document)
            )
    kubernetes = [i for i, d in enumerate(documents) if not has_own_schema(d)]
    for index, errors in zip(
        kubernetes, _kubernetes_errors([documents[i] for i in kubernetes]), strict=True
    ):
        results[index].errors.extend(errors)
    return results


def validate_schemas(documents: Sequence[Manifest]) -> list[list[str]]:
    """The schema errors of each object, in order (``schema_verdicts``); an object whose
    schema cannot be checked here has that as its error: this is the check that
    publications must pass."""
    return [
        v.errors
        if v.not_validated is None
        else [f"{_model_name(d)} schema: not validated: {v.not_validated}"]
        for d, v in zip(documents, schema_verdicts(documents), strict=True)
    ]


def check_schemas(folder: Path) -> None:
    """A publication check (``promote(checks=...)``): every object passes its schemas."""
    loaded = list(load_manifests(folder))
    failures = [
        f"{path.name} {document.get('kind')}/{document.get('metadata', {}).get('name')}: "
        + "; ".join(errors)
        for (path, document), errors in zip(
            loaded, validate_schemas([d for _, d in loaded]), strict=True
        )
        if errors
    ]
    if failures:
        raise HeadroomConfigError(
            "schema",
            failures,
            "objects valid for the strict schemas of Kubernetes "
            + " and ".join(kubernetes_versions()),
        )
