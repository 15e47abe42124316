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
- ``reader_unit``: the lazy unit ``files/lazy/reader.tpl``, which builds the reader's
  ClusterRole and binding with the library's recipes of a subject and a roleRef
  (``reader.SUBJECT``, ``ROLE_REF``), each subject after its fields' rules.
- ``dedicated_unit``: the lazy unit ``files/lazy/dedicated.tpl``, which judges the
  dedicated pool and tolerates its taint with the library's recipes of a taint
  (``placement.TAINT_TEXT``, ``TAINT_TOLERATION``).
- ``shares.shares_unit``: the lazy unit ``files/lazy/shares.tpl``, a slice given as a
  share of each node, sized per node type.
- ``windows.windows_unit``: the lazy unit ``files/lazy/windows.tpl``, time windows: the
  schedule judged, and a CronJob per window in place of a reserver or a buffer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from enum import Enum
from typing import get_args, get_type_hints

from cdk8s_headroom.helm.node_fit import node_fit_helpers
from cdk8s_headroom.helm.reader import SUBJECT_RULES
from cdk8s_headroom.helm.shares import shares_unit
from cdk8s_headroom.helm.values import NAMED_ITEMS, item_fields, item_lists
from cdk8s_headroom.helm.windows import windows_unit
from cdk8s_headroom.vocabulary.placement import REQUIREMENT_RULES, TOLERATION_RULES, Toleration
from cdk8s_headroom.vocabulary.rule_language import Rule

TOLERATION_DEFAULTS = "tolerationDefaults"
"""The library data's map of a toleration's defaults that are choices (its operator)."""
TAINT_DEFAULTS = "taintDefaults"
"""The library data's map of a taint's defaults that are choices (its effect)."""


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
    """The ``FIELD_RULES`` helpers by name, and ``node-headroom.tolerations``;
    ``library.rules_files`` places each where its callers are parsed."""
    return {
        **{item.helper: item.definition() for item in FIELD_RULES},
        "node-headroom.tolerations": tolerations_helper(),
    }


def _toleration_input(name: str, kind: object, default: object) -> str:
    """A toleration's field as ``TOLERATIONS`` takes it: as the library reads it
    (``_toleration_field``), a whole number (JSON's float64) through ``int64``."""
    read = _toleration_field(name, default).replace(".lib.", "$.lib.")
    if kind is int or int in get_args(kind):
        return f'(ternary nil (int64 {read}) (kindIs "invalid" {read}))'
    return read


def tolerations_helper() -> str:
    """``node-headroom.tolerations``, of (dict lib items): the tolerations of ``items``
    (as the values write them, each field defaulting as ``Toleration``'s does) laid out
    and each kept once by the library's recipe (``placement.TOLERATIONS``), into ``out``."""
    kinds = get_type_hints(Toleration)
    item = [
        f'{{{{- $_ := set $t "{name}" {_toleration_input(name, kinds[f.name], f.default)} -}}}}'
        for name, f in zip(TOLERATION_FIELDS, fields(Toleration), strict=True)
    ]
    return "\n".join(
        [
            "{{/* A pod's tolerations, of (dict lib items), into its out: each item read as",
            "     the library reads a Toleration (its defaults, helm/units.py) and laid out by",
            "     the library's recipe (placement.TOLERATIONS), once each. */}}",
            '{{- define "node-headroom.tolerations" -}}',
            '{{- $in := dict "tolerations" list -}}',
            "{{- range $i := .items }}{{ $t := dict -}}",
            *item,
            '{{- $_ := set $in "tolerations" (append $in.tolerations $t) }}{{ end -}}',
            '{{- include "node-headroom.recipe.tolerations" $in }}{{ $_ := set . "out" $in.out -}}',
            "{{- end -}}",
        ]
    )


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


def _taint_recipe(recipe: str, taint: str, effect: str) -> str:
    """Go statements that run ``node-headroom.recipe.<recipe>`` (a recipe of a taint's
    fields: ``TAINT_TEXT``, ``TAINT_TOLERATION``) on the values' ``taint`` with
    ``effect``, into ``$in.out``; the taint's value defaults as ``Taint.value`` does."""
    inputs = f'dict "key" {taint}.key "value" (default "" {taint}.value) "effect" {effect}'
    return f'$in := {inputs} }}}}{{{{ include "node-headroom.recipe.{recipe}" $in'


def dedicated_unit() -> str:
    """``files/lazy/dedicated.tpl``: ``node-headroom.dedicated``, of (dict lib v pool
    wanted effect out), as ``headroom_rules.require_dedicated_pool`` judges a pool and
    ``Taint.toleration`` tolerates its taint."""
    effect = f"(default $lib.{TAINT_DEFAULTS}.effect .effect)"
    lines = [
        "{{/* The dedicated pool's unit (node-headroom.lazy), generated by `make chart` from",
        "     the library's declarations (helm/units.py): its rules, each taint of",
        "     nodePool.taints as messages write it (placement.TAINT_TEXT), and the toleration",
        "     of its taint (placement.TAINT_TOLERATION) into .out.dedicated, of (dict lib v",
        "     pool wanted effect out), for the models with a tainted pool. Do not edit. */}}",
        '{{- define "node-headroom.dedicated" -}}',
        "{{- $lib := .lib }}{{ $v := .v -}}",
        '{{- include "node-headroom.rule.dedicatedPoolNeedsPool" (dict "lib" $lib '
        '"field" "nodePool.name" "value" nil "pool" .pool "taint" .wanted) -}}',
        "{{- $declared := list -}}",
        "{{- range $v.nodePool.taints }}{{ "
        + _taint_recipe("taintText", "", effect)
        + " }}{{ $declared = append $declared $in.out }}{{ end -}}",
        '{{- include "node-headroom.rule.dedicatedPoolNeedsTaint" (dict "lib" $lib '
        '"field" "nodePool.taints" "value" $declared "taint" .wanted "declared" $declared) -}}',
        "{{- " + _taint_recipe("taintToleration", "$v.dedicatedTaint", ".effect") + " -}}",
        '{{- $_ := set .out "dedicated" (list $in.out) -}}',
        "{{- end -}}",
    ]
    return "\n".join(lines) + "\n"


def reader_unit() -> str:
    """``files/lazy/reader.tpl``: ``node-headroom.reader``, of (dict lib helm r c prefix),
    as ``values_to_app`` calls ``reader.subject`` for each subject and ``add_reader``."""
    subject = FIELD_RULES[2]
    lines = [
        "{{/* The reader's unit (node-headroom.lazy), generated by `make chart` from the",
        "     library's declarations (helm/units.py), for reader.create: into .c.reader, the",
        "     library's ClusterRole (reader.add_reader), named reader.name or names.reader",
        "     after the prefix, its binding's roleRef (reader.ROLE_REF) and its subjects",
        "     (reader.SUBJECT), each after its rules across fields (reader.SUBJECT_RULES),",
        "     with the apiGroup and the namespace of its kind in the library data.",
        "     Do not edit. */}}",
        '{{- define "node-headroom.reader" -}}',
        '{{- include "node-headroom.load" (list .lib "reader") -}}',
        "{{- $lib := .lib }}{{ $lr := .lib.reader }}{{ $namespace := .c.namespace.name -}}",
        "{{- $subjects := list -}}",
        "{{- range $i, $item := .r.subjects -}}",
        f'{{{{- include "{subject.helper}" (dict "lib" $lib '
        '"at" (printf "reader.subjects[%d]." $i) "item" $item) -}}',
        "{{- $kind := index $lr.subjects $item.kind -}}",
        '{{- $in := dict "kind" $item.kind "name" $item.name "apiGroup" $kind.apiGroup '
        '"namespace" (ternary (default $namespace $item.namespace) nil '
        '(hasKey $kind "namespace")) -}}',
        '{{- include "node-headroom.recipe.readerSubject" $in }}'
        "{{ $subjects = append $subjects $in.out -}}",
        "{{- end -}}",
        "{{- $name := default (print .prefix .lib.names.reader) .r.name -}}",
        '{{- $ref := dict "name" $name }}{{ include "node-headroom.recipe.readerRoleRef" $ref -}}',
        '{{- $_ := set .c "reader" (dict "name" $name "apiVersion" $lr.apiVersion '
        '"meta" (merge (deepCopy $lr.labels) .helm) "rules" $lr.rules '
        '"roleRef" $ref.out "subjects" $subjects) -}}',
        "{{- end -}}",
    ]
    return "\n".join(lines) + "\n"


def generated_units() -> dict[str, str]:
    """The generated lazy units, by their file name in ``files/lazy/``."""
    return {
        "placement.tpl": placement_unit(),
        "dedicated.tpl": dedicated_unit(),
        "reader.tpl": reader_unit(),
        "nodefit.tpl": node_fit_unit(),
        "shares.tpl": shares_unit(),
        "windows.tpl": windows_unit(),
    }


def node_fit_unit() -> str:
    """The node-fit checks' unit (``node_fit.node_fit_helpers``): parsed only by a render
    whose values declare the pool's node (``nodePool.nodeCpu``, ``nodePool.nodeMemory``),
    so the renders that do not pay nothing for them."""
    head = (
        "{{/* The node-fit checks' unit (node-headroom.lazy), generated by `make chart` from",
        "     the library's declarations (helm/node_fit.py), for the values that declare the",
        "     pool's node. Do not edit. */}}",
    )
    return "\n".join([*head, *node_fit_helpers().values()]) + "\n"
