"""The reader: the ClusterRole a user needs to run ``plan`` and ``status`` on the cluster,
and the ClusterRoleBinding that grants it, as the chart's ``reader`` values make them.

Its rules are ``reader_rules``, which the cluster read declares (docs/plan-status.md,
"Reading the cluster"); ``library.library_data`` reads what the templates place from a
reference made here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.cluster.live_listing import reader_rules
from cdk8s_headroom.core.rendered import RenderedApiObject
from cdk8s_headroom.vocabulary import rbac, rule_language, rules
from cdk8s_headroom.vocabulary.labels import PART_OF
from cdk8s_headroom.vocabulary.rbac import SubjectKind
from cdk8s_headroom.vocabulary.recipes import IfGiven, Take, evaluate

SUBJECT_RULES: tuple[tuple[rule_language.Rule, str], ...] = (
    (rules.SERVICE_ACCOUNT_NAME, "name"),
    (rules.SUBJECT_NAMESPACE, "namespace"),
)
"""A ``reader.subjects`` item's rules across its fields, in order, each with the field
whose value a refusal shows (the chart's too: ``units.FIELD_RULES``)."""


SUBJECT = {
    "kind": Take("kind"),
    "name": Take("name"),
    "apiGroup": IfGiven(Take("apiGroup")),
    "namespace": IfGiven(Take("namespace")),
}
"""An RBAC subject of the reader's binding, declared once (``recipes``): ``subject``
evaluates it, and ``make chart`` compiles it into ``node-headroom.recipe.readerSubject``.
Its ``apiGroup`` and whether it has a ``namespace`` follow its kind (``SubjectKind``),
which the chart reads from the library data (``library._reader_data``)."""

ROLE_REF = {"apiGroup": rbac.API_GROUP, "kind": "ClusterRole", "name": Take("name")}
"""The reader binding's ``roleRef``: the ClusterRole ``name``, declared once
(``recipes``): ``add_reader`` evaluates it, and ``make chart`` compiles it into
``node-headroom.recipe.readerRoleRef``."""


def subject(item: Mapping[str, Any], namespace: str, *, field: str) -> dict[str, Any]:
    """A ``reader.subjects`` item as an RBAC subject (``SUBJECT``), after its rules
    across fields: its ``apiGroup`` follows its kind, and a service account's namespace
    is ``namespace`` unless the item gives one."""
    kind = SubjectKind(item["kind"])
    fields = {"kind": kind.value, "name": item["name"], "namespace": item.get("namespace")}
    for rule, shown in SUBJECT_RULES:
        rule.check(f"{field}.{shown}", fields[shown], **fields)
    given = item.get("namespace") or namespace
    inputs = {
        "kind": kind.value,
        "name": item["name"],
        "apiGroup": kind.api_group,
        "namespace": given if kind.namespaced else None,
    }
    return dict(evaluate(SUBJECT, inputs))


def add_reader(scope: Construct, *, name: str, subjects: Sequence[Mapping[str, Any]]) -> None:
    """The ClusterRole ``name`` with ``reader_rules``, and, for any ``subjects`` (RBAC
    subjects, ``subject``), the ClusterRoleBinding of the same name that grants it."""
    metadata = cdk8s.ApiObjectMetadata(name=name, labels={"app.kubernetes.io/part-of": PART_OF})
    RenderedApiObject(
        scope,
        "reader",
        api_version=rbac.API_VERSION,
        kind="ClusterRole",
        metadata=metadata,
        render=lambda: {"rules": reader_rules()},
    )
    if subjects:
        role_ref = evaluate(ROLE_REF, {"name": name})
        RenderedApiObject(
            scope,
            "reader-binding",
            api_version=rbac.API_VERSION,
            kind="ClusterRoleBinding",
            metadata=metadata,
            render=lambda: {"roleRef": role_ref, "subjects": list(subjects)},
        )
