"""Checks that need the whole app, and a synth that runs them first."""

from __future__ import annotations

import cdk8s
from constructs import Construct

from .burst import BurstWorkload
from .errors import HeadroomConfigError
from .kube import CLUSTER_SCOPED_KINDS
from .namespace import HeadroomNamespace
from .priority import SYSTEM_PRIORITY_CLASSES
from .priorityclasses import HeadroomPriorityClasses
from .reserver import HeadroomReserver
from .resource import RenderedApiObject


def validate_app(app: Construct) -> None:
    """Runs the checks that can only be judged once the tree is complete.

    - no two objects share a kind, namespace and name;
    - at most one PriorityClass is ``globalDefault``;
    - every pod template references a PriorityClass the app emits, the cluster's
      existing default class it declares, or a ``system-`` class;
    - no reserver that opts out of Pod Security controls runs in a
      ``HeadroomNamespace``, whose admission enforces ``restricted`` and would reject
      its pods.

    Raises:
        HeadroomConfigError: on the first problem found.
    """
    constructs = app.node.find_all()
    seen: dict[tuple[str, str, str], str] = {}
    for child in constructs:
        if isinstance(child, RenderedApiObject):
            kind, namespace, name = child.identity
        elif isinstance(child, cdk8s.ApiObject):
            kind, namespace, name = child.kind, child.metadata.namespace or "", child.name
        else:
            continue
        if kind in CLUSTER_SCOPED_KINDS:
            namespace = ""
        key = (kind, namespace, name)
        if key in seen:
            where = f" in namespace {namespace!r}" if namespace else ""
            raise HeadroomConfigError(
                "name",
                name,
                f"a name no other {kind}{where} has: {seen[key]} and "
                f"{child.node.path} both use it; give one a different name or pool",
            )
        seen[key] = child.node.path

    class_sets = [c for c in constructs if isinstance(c, HeadroomPriorityClasses)]
    defaults = [
        f"{c.node.path} ({spec.name})"
        for c in class_sets
        for spec in c.emitted
        if spec.global_default
    ]
    if len(defaults) > 1:
        raise HeadroomConfigError(
            "create_default_class",
            defaults,
            "at most one globalDefault PriorityClass per cluster: share one "
            "HeadroomPriorityClasses between headrooms (priority_classes=)",
        )
    known = {spec.name for c in class_sets for spec in c.emitted}
    known |= {c.default.name for c in class_sets if c.default is not None}
    known |= {spec.name for spec in SYSTEM_PRIORITY_CLASSES}
    for child in constructs:
        if (
            isinstance(child, (HeadroomReserver, BurstWorkload))
            and child.priority_class_name not in known
        ):
            raise HeadroomConfigError(
                f"{child.node.path}.priority_class_name",
                child.priority_class_name,
                f"a PriorityClass this app emits or declares: {sorted(known)}",
            )
    restricted = {c.name for c in app.node.find_all() if isinstance(c, HeadroomNamespace)}
    for child in app.node.find_all():
        if (
            isinstance(child, HeadroomReserver)
            and child.task.pod_security_exceptions
            and child.namespace in restricted
        ):
            raise HeadroomConfigError(
                f"{child.node.path}.namespace",
                child.namespace,
                "a namespace that does not enforce Pod Security 'restricted': this "
                "reserver's task opts out of "
                f"{sorted(c.value for c in child.task.pod_security_exceptions)}, and the "
                "HeadroomNamespace of that name would reject its pods",
            )


def synth(app: cdk8s.App) -> None:
    """``validate_app``, then ``app.synth()``: nothing is written if a check fails."""
    validate_app(app)
    app.synth()
