"""The parts of the chart's templates that ``make chart`` generates from the library's
declarations, so that a rule added there reaches the chart without a template line
written by hand.

- ``FIELD_RULES``: the library's lists of rules across an item's fields (a toleration's,
  a node affinity term's, a reader subject's), each compiled into one helper,
  ``node-headroom.fields.<item>``, that ``library.rules_files`` places with the unit that
  calls it.
- ``placement_unit``: the lazy unit (``files/lazy/placement.tpl``, parsed only when a
  render runs it; ``chart.LAZY`` holds the hand-written ones) that calls them for every
  list of tolerations in the values (``values.item_lists``) and every node affinity term,
  as ``value_checks.check_placement`` does, with a comment naming the value paths.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from enum import Enum

from cdk8s_headroom.helm.reader import SUBJECT_RULES
from cdk8s_headroom.helm.values import NAMED_ITEMS, item_fields, item_lists
from cdk8s_headroom.vocabulary.placement import REQUIREMENT_RULES, TOLERATION_RULES, Toleration
from cdk8s_headroom.vocabulary.rule_language import Rule

TOLERATION_DEFAULTS = "tolerationDefaults"
"""The library data's map of a toleration's defaults that are choices (its operator)."""


def _camel(name: str) -> str:
    """A dataclass field's name as Kubernetes writes it (``toleration_seconds``)."""
    return re.sub(r"_([a-z])", lambda match: match[1].upper(), name)


TOLERATION_FIELDS = tuple(_camel(f.name) for f in fields(Toleration))
"""A toleration's fields as the values (and Kubernetes) name them."""


def _toleration_field(name: str, default: object) -> str:
    """A toleration's field as the library reads it (``Toleration``'s default where the
    values leave it empty): a choice's default from the library data, an empty text
    inline."""
    if isinstance(default, Enum):
        return f"(default (index .lib.{TOLERATION_DEFAULTS} {json.dumps(name)}) $i.{name})"
    if default in (MISSING, None):
        return f"$i.{name}"
    if default == "":
        return f'(default "" $i.{name})'
    raise ValueError(f"Toleration.{name}: no way to write the default {default!r}")


@dataclass(frozen=True)
class FieldRules:
    """The rules across an item's fields, as the library judges them: compiled into the
    one-line helper ``node-headroom.fields.<name>``, of (dict lib at item), which calls
    each rule with every field as an operand and the field it shows as ``value``, named
    ``<at><field>``."""

    name: str
    rules: tuple[tuple[Rule, str], ...]
    """Each rule with the field whose value a refusal shows, in the order judged."""
    fields: Mapping[str, str]
    """Each field of the item, as a Go expression over the item (``$i``)."""

    @property
    def helper(self) -> str:
        return f"node-headroom.fields.{self.name}"

    def definition(self) -> str:
        read = "".join(f"{{{{ ${name} := {item} }}}}" for name, item in self.fields.items())
        operands = " ".join(f'"{name}" ${name}' for name in self.fields if name != "value")
        calls = "".join(
            f'{{{{ include "node-headroom.rule.{rule.name}" (dict "lib" .lib '
            f'"field" (print .at "{shown}") "value" ${shown} {operands}) }}}}'
            for rule, shown in self.rules
        )
        return f'{{{{- define "{self.helper}" }}}}{{{{ $i := .item }}}}{read}{calls}{{{{ end }}}}'


FIELD_RULES = (
    FieldRules(
        "toleration",
        TOLERATION_RULES,
        {
            name: _toleration_field(name, f.default)
            for name, f in zip(TOLERATION_FIELDS, fields(Toleration), strict=True)
        },
    ),
    FieldRules(
        "requirement",
        tuple((rule, "values") for rule in REQUIREMENT_RULES),
        {"key": "$i.key", "operator": "$i.operator", "values": "(default (list) $i.values)"},
    ),
    FieldRules(
        "subject",
        SUBJECT_RULES,
        {field: f"$i.{field}" for field in item_fields("reader.subjects")},
    ),
)
"""The library's lists of rules across an item's fields, as the chart's helpers: a
toleration's (``placement.TOLERATION_RULES``), a node affinity term's values'
(``placement.REQUIREMENT_RULES``) and a reader subject's (``reader.SUBJECT_RULES``)."""


def field_rule_helpers() -> dict[str, str]:
    """The ``FIELD_RULES`` helpers by name; ``library.rules_files`` places each where its
    callers are parsed."""
    return {item.helper: item.definition() for item in FIELD_RULES}


def _toleration_lists() -> list[str]:
    """Go statements that gather ``$lists``: each list of tolerations in the values, as
    ``(list <field> <items>)``."""
    lines = ["{{- $lists := list -}}"]
    for path in item_lists(*TOLERATION_FIELDS):
        outer, _, inner = path.partition("[].")
        if not inner:
            lines.append(f'{{{{- $lists = append $lists (list "{path}" (index $v "{path}")) -}}}}')
            continue
        if "[]" in inner:
            raise ValueError(f"{path}: tolerations nested in two lists")
        label = ".name" if outer == NAMED_ITEMS else "$n"
        lines.append(
            f'{{{{- range $n, $w := index $v "{outer}" }}}}'
            f'{{{{ $lists = append $lists (list (printf "{outer}[%v].{inner}" {label}) '
            f'(index $w "{inner}")) }}}}{{{{ end -}}}}'
        )
    return lines


def placement_unit() -> str:
    """``files/lazy/placement.tpl``: ``node-headroom.placement``, of (dict lib v)."""
    toleration, requirement = FIELD_RULES[0], FIELD_RULES[1]
    requirements = []
    for path in item_lists("key", "operator", "values"):
        requirements += [
            f"{{{{- /* {path}[<key>].values */ -}}}}",
            f'{{{{- range index $v "{path}" -}}}}',
            f'{{{{- include "{requirement.helper}" (dict "lib" $lib '
            f'"at" (printf "{path}[%s]." .key) "item" .) -}}}}',
            "{{- end -}}",
        ]
    lines = [
        "{{/* The placement's unit (node-headroom.lazy), generated by `make chart` from the",
        "     library's declarations (helm/units.py): each toleration's rules across its",
        "     fields (placement.TOLERATION_RULES) in every list of tolerations, then each",
        "     node affinity term's (placement.REQUIREMENT_RULES), of (dict lib v), for the",
        "     values that have tolerations or node affinity. Do not edit. */}}",
        '{{- define "node-headroom.placement" -}}',
        "{{- $lib := .lib }}{{ $v := .v -}}",
        *_toleration_lists(),
        "{{- /* <list>[<index>].<field> */ -}}",
        "{{- range $pair := $lists }}{{ range $i, $t := index $pair 1 -}}",
        f'{{{{- include "{toleration.helper}" (dict "lib" $lib '
        '"at" (printf "%s[%d]." (index $pair 0) $i) "item" $t) -}}',
        "{{- end }}{{ end -}}",
        *requirements,
        "{{- end -}}",
    ]
    return "\n".join(lines) + "\n"


def generated_units() -> dict[str, str]:
    """The generated lazy units, by their file name in ``files/lazy/``."""
    return {"placement.tpl": placement_unit()}
