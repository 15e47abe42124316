"""Checks that need the whole app, and what they ask of each construct.

The checks know no construct class. Every library construct derives from ``AppMember``
and answers its questions (what room it keeps, which PriorityClasses it emits and
references, which namespace it restricts); ``AppChecks`` runs the checks as a cdk8s
validation of the app's root (``synthesis.attach_checks``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

import cdk8s
import jsii
from constructs import Construct, IConstruct, IValidation

from cdk8s_headroom.core.rendered import RenderedApiObject
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.names import CLUSTER_SCOPED_KINDS
from cdk8s_headroom.vocabulary.priority_models import SYSTEM_PRIORITY_CLASSES

if TYPE_CHECKING:
    from cdk8s_headroom.vocabulary.pod_security import PodSecurityControl
    from cdk8s_headroom.vocabulary.priority_models import PriorityClassSpec


NO_POD_TEMPLATE = object()
"""What ``AppMember.priority_class_referenced`` answers for a construct without pods."""


class AppMember:
    """What the whole-app checks ask of a library construct (a base of every one).

    A construct overrides the answers that concern what it holds; the defaults say
    "nothing of that kind".
    """

    def missing_room(self) -> HeadroomConfigError | None:
        """The error of a headroom that keeps no room, else ``None``."""
        return None

    def priority_classes_emitted(self) -> Sequence[PriorityClassSpec]:
        """The PriorityClasses this construct emits."""
        return ()

    def priority_classes_known(self) -> Collection[str]:
        """The class names pods may reference because of this construct: the classes it
        emits, and the cluster's existing default class it declares."""
        return ()

    def priority_class_referenced(self) -> object:
        """The ``priorityClassName`` of this construct's pod template as synthesized
        (JSON patches included; ``None`` when a patch removed it), or
        ``NO_POD_TEMPLATE`` when it has no pod template to check."""
        return NO_POD_TEMPLATE

    def restricted_namespace(self) -> str | None:
        """The namespace this construct makes enforce Pod Security ``restricted``."""
        return None

    def pod_security_exceptions(self) -> tuple[str, frozenset[PodSecurityControl]] | None:
        """The namespace of this construct's pods and the Pod Security controls they opt
        out of, when they opt out of any."""
        return None


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
    members = [child for child in constructs if isinstance(child, AppMember)]
    for member in members:
        if (problem := member.missing_room()) is not None:
            yield problem
    # The first object of each identity. Paths, here and below, are read only for a
    # message: each read is two jsii round trips.
    seen: dict[tuple[str, str, str], IConstruct] = {}
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
            where = f" in namespace {shown(namespace)}" if namespace else ""
            yield HeadroomConfigError(
                "name",
                name,
                f"a name no other {kind}{where} has: {seen[key].node.path} and "
                f"{child.node.path} both use it; "
                + _RENAME_HINTS.get(kind, "give one a different name"),
            )
            continue
        seen[key] = child

    defaults = [
        (member, spec.name)
        for member in members
        for spec in member.priority_classes_emitted()
        if spec.global_default
    ]
    if len(defaults) > 1:
        yield HeadroomConfigError(
            "create_default_class",
            [f"{_path(member)} ({name})" for member, name in defaults],
            "at most one globalDefault PriorityClass per cluster: share one "
            "HeadroomPriorityClasses between headrooms (priority_classes=)",
        )
    known = {name for member in members for name in member.priority_classes_known()}
    known |= {spec.name for spec in SYSTEM_PRIORITY_CLASSES}
    for member in members:
        referenced = member.priority_class_referenced()
        if referenced is not NO_POD_TEMPLATE and referenced not in known:
            yield HeadroomConfigError(
                f"{_path(member)}.priority_class_name",
                referenced,
                f"a PriorityClass this app emits or declares: {sorted(known)}",
            )
    restricted = {member.restricted_namespace() for member in members} - {None}
    for member in members:
        opted_out = member.pod_security_exceptions()
        if opted_out is not None and opted_out[0] in restricted:
            namespace, controls = opted_out
            yield HeadroomConfigError(
                f"{_path(member)}.namespace",
                namespace,
                "a namespace that does not enforce Pod Security 'restricted': this "
                f"reserver's task opts out of {sorted(c.value for c in controls)}, and the "
                "HeadroomNamespace of that name would reject its pods",
            )


def _path(member: AppMember) -> str:
    return cast(IConstruct, member).node.path


def template_priority_class(resource: RenderedApiObject, declared: str) -> Any:
    """A workload's pod template's priorityClassName as synthesized: ``declared``,
    unless JSON patches change the object."""
    if not resource.patched:
        return declared
    document = resource.to_json()
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
