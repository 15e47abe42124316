"""Checks that need the whole app: a cdk8s validation of the root, and a synth that runs
them first.

The first library construct added to an app registers ``AppChecks`` on the app's root
(``node.add_validation``), so plain ``app.synth()`` and ``cdk8s synth`` refuse what
``synth(app)`` refuses, with the same messages.
"""

from __future__ import annotations

import sys
import traceback
import weakref
from collections.abc import Iterator
from types import TracebackType
from typing import Any

import cdk8s
import jsii
from constructs import Construct, IConstruct, IValidation

from .burst import BurstWorkload
from .errors import HeadroomConfigError
from .headroom import NodeHeadroom
from .kube import CLUSTER_SCOPED_KINDS
from .namespace import HeadroomNamespace
from .priority import SYSTEM_PRIORITY_CLASSES
from .priorityclasses import HeadroomPriorityClasses
from .reserver import HeadroomReserver
from .resource import RenderedApiObject

_RENAME_HINTS = {
    "PriorityClass": (
        "PriorityClasses are cluster-scoped: share one HeadroomPriorityClasses between "
        "headrooms (priority_classes=), or give one set other names (headroom_class_name=, "
        "burst_class_name=, default_class_name=)"
    ),
    "DaemonSet": "give one another reserver_name= (or name=), or another node pool",
    "Deployment": "give one burst workload another name= (default: its construct id)",
    "HorizontalPodAutoscaler": "give one burst workload another name= (default: its id)",
    "Namespace": "emit one HeadroomNamespace per namespace and share it",
}
"""What to change when two objects of a kind share a name, in the words of the props."""


def problems(app: IConstruct) -> Iterator[HeadroomConfigError]:
    """Every problem that can only be judged once the tree is complete, in tree order.

    - every ``NodeHeadroom`` keeps room, with slices or a capacity buffer;
    - no two objects share a kind, namespace and name;
    - at most one PriorityClass is ``globalDefault``;
    - every pod template references a PriorityClass the app emits, the cluster's
      existing default class it declares, or a ``system-`` class;
    - no reserver that opts out of Pod Security controls runs in a
      ``HeadroomNamespace``, whose admission enforces ``restricted`` and would reject
      its pods;
    - every JSON patch on a library object applies to the rendered object.
    """
    constructs = app.node.find_all()
    for child in constructs:
        if isinstance(child, NodeHeadroom) and (problem := child.missing_room()) is not None:
            yield problem
    seen: dict[tuple[str, str, str], str] = {}
    for child in constructs:
        if isinstance(child, RenderedApiObject):
            try:
                kind, namespace, name = child.identity
            except HeadroomConfigError as error:
                yield error
                continue
        elif isinstance(child, cdk8s.ApiObject):
            kind, namespace, name = child.kind, child.metadata.namespace or "", child.name
        else:
            continue
        if kind in CLUSTER_SCOPED_KINDS:
            namespace = ""
        key = (kind, namespace, name)
        if key in seen:
            where = f" in namespace {namespace!r}" if namespace else ""
            yield HeadroomConfigError(
                "name",
                name,
                f"a name no other {kind}{where} has: {seen[key]} and "
                f"{child.node.path} both use it; "
                + _RENAME_HINTS.get(kind, "give one a different name"),
            )
            continue
        seen[key] = child.node.path

    class_sets = [c for c in constructs if isinstance(c, HeadroomPriorityClasses)]
    defaults = [
        f"{c.node.path} ({spec.name})"
        for c in class_sets
        for spec in c.emitted
        if spec.global_default
    ]
    if len(defaults) > 1:
        yield HeadroomConfigError(
            "create_default_class",
            defaults,
            "at most one globalDefault PriorityClass per cluster: share one "
            "HeadroomPriorityClasses between headrooms (priority_classes=)",
        )
    known = {spec.name for c in class_sets for spec in c.emitted}
    known |= {c.default.name for c in class_sets if c.default is not None}
    known |= {spec.name for spec in SYSTEM_PRIORITY_CLASSES}
    for child in constructs:
        if isinstance(child, (HeadroomReserver, BurstWorkload)):
            referenced = _referenced_class(child)
            if referenced not in known:
                yield HeadroomConfigError(
                    f"{child.node.path}.priority_class_name",
                    referenced,
                    f"a PriorityClass this app emits or declares: {sorted(known)}",
                )
    restricted = {c.name for c in constructs if isinstance(c, HeadroomNamespace)}
    for child in constructs:
        if (
            isinstance(child, HeadroomReserver)
            and child.task.pod_security_exceptions
            and child.namespace in restricted
        ):
            yield HeadroomConfigError(
                f"{child.node.path}.namespace",
                child.namespace,
                "a namespace that does not enforce Pod Security 'restricted': this "
                "reserver's task opts out of "
                f"{sorted(c.value for c in child.task.pod_security_exceptions)}, and the "
                "HeadroomNamespace of that name would reject its pods",
            )


def _referenced_class(workload: HeadroomReserver | BurstWorkload) -> Any:
    """The pod template's priorityClassName, as synthesized (JSON patches included)."""
    if not workload.resource.patched:
        return workload.priority_class_name
    document = workload.resource.to_json()
    return document.get("spec", {}).get("template", {}).get("spec", {}).get("priorityClassName")


def validate_app(app: Construct) -> None:
    """Runs the checks that can only be judged once the tree is complete (``problems``).

    Raises:
        HeadroomConfigError: on the first problem found.
    """
    for problem in problems(app):
        raise problem


@jsii.implements(IValidation)
class AppChecks:
    """The whole-app checks as a cdk8s validation, registered once on an app's root."""

    def __init__(self, root: IConstruct) -> None:
        self._root = root
        self.passed = False
        """Set by ``synth`` around ``app.synth()``, once it has run the checks itself."""

    def validate(self) -> list[str]:
        if self.passed:
            return []
        return [str(problem) for problem in problems(self._root)]


_CHECKS: weakref.WeakKeyDictionary[IConstruct, AppChecks] = weakref.WeakKeyDictionary()
"""The checks registered on each root."""


def register_checks(root: IConstruct) -> None:
    """Adds ``AppChecks`` to ``root`` (once per root), and shows failures without a
    traceback when a script leaves them uncaught (``show_refused_app``)."""
    global _previous_excepthook
    if root in _CHECKS:
        return
    checks = AppChecks(root)
    root.node.add_validation(checks)
    _CHECKS[root] = checks
    if sys.excepthook is not _excepthook:
        _previous_excepthook = sys.excepthook
        sys.excepthook = _excepthook


def synth(app: cdk8s.App) -> None:
    """``validate_app``, then ``app.synth()``: nothing is written if a check fails.

    Raises:
        HeadroomConfigError: on the first problem ``validate_app`` finds.
    """
    validate_app(app)
    checks = _CHECKS.get(app)
    if checks is None:
        app.synth()
        return
    checks.passed = True  # checked above; cdk8s would run the same checks again
    try:
        app.synth()
    finally:
        checks.passed = False


_VALIDATION_FAILED = "Error: Validation failed with the following errors:"
"""How cdk8s's App.synth() starts the error it throws when validations fail."""

_previous_excepthook = sys.excepthook


def refused_app_message(error: BaseException, tb: TracebackType | None) -> str | None:
    """The lines to print for an uncaught failure of cdk8s's validations, or ``None``.

    jsii turns it into a ``RuntimeError`` whose traceback is jsii's and Node's; the user
    needs the messages and the line of their script that called ``synth()``.
    """
    text = str(error)
    if not isinstance(error, RuntimeError) or not text.startswith(_VALIDATION_FAILED):
        return None
    frames = [
        frame
        for frame in traceback.extract_tb(tb)
        if "/jsii/" not in frame.filename and "/cdk8s/" not in frame.filename
    ]
    where = f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""
    # cdk8s prefixes each message with its construct's path: "[]" for the root.
    lines = [line.strip().removeprefix("[] ") for line in text.splitlines()[1:]]
    return "\n".join([f"{where}synth refused the app:", *(f"  {line}" for line in lines)])


def _excepthook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    message = refused_app_message(error, tb)
    if message is None:
        _previous_excepthook(kind, error, tb)
    else:
        print(message, file=sys.stderr)
