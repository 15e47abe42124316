"""The constructs' props as their recipes take them (``recipes.PropInputs``), compiled
into the chart's Go template helpers by ``make chart``, which ``library.rules_files``
places where their callers are parsed (a burst workload's and a buffer's, with the unit
that builds it).

``node-headroom.props.<construct>`` takes a values item as ``.item`` and leaves in
``.out`` a map of the construct's declared inputs: each the value that gives its prop
(the ``Value`` row whose ``prop=`` names it, through ``values.BURST_WORKLOAD`` or
``BURST_BUFFER``) when given (not null), else the prop's default as the construct
declares it (``BURST_DEFAULTS``, ``BUFFER_DEFAULTS``; an enum by its value); an integer
value as ``int64``, as the templates compare and place counts. One line per input, in
the declaration's order, so a reviewer can follow a value to its input.

``node-headroom.rules.<construct>`` runs a construct's rules across its props
(``prop_rules.PropRules``) in their order, on ``.in`` (the props helper's inputs and the
declaration's ``more``); each error is named by the value that gives its prop, after
``.at`` (the item's path: ``burstWorkloads[api].``). One line per rule.

``node-headroom.rules.classes`` runs the classes' rules across their props
(``priority_models.CLASS_RULES``) in their order, on ``.values`` and ``.ladder`` (the
model's classes, lowest first, each with its role, name and value), each error named by
the value that gives its prop (``values.HEADROOM_FIELDS``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cdk8s_headroom.helm.values import BURST_BUFFER, BURST_WORKLOAD, BY_PATH, HEADROOM_FIELDS
from cdk8s_headroom.objects.burst import BURST_INPUTS, BURST_RULES
from cdk8s_headroom.objects.capacity_buffer import BUFFER_INPUTS, BUFFER_RULES
from cdk8s_headroom.vocabulary.priority_models import (
    CLASS_RULES,
    ClassRules,
    ModelClasses,
    PriorityModel,
)
from cdk8s_headroom.vocabulary.prop_rules import PropRules
from cdk8s_headroom.vocabulary.recipes import PropInputs


@dataclass(frozen=True)
class ChartProps:
    """A construct's ``PropInputs``, and the values of an item that give its props."""

    inputs: PropInputs
    values: Mapping[str, str]
    """``{path: prop}`` in the item (``values.props``)."""
    item: str
    """The path of the item's values, before ``values``' paths."""
    declared: str
    """Where the inputs are declared, and whose they are."""

    def path_of(self, prop: str) -> str:
        """The path, in the item, of the value that gives ``prop``."""
        for path, given in self.values.items():
            if given == prop:
                return path
        raise LookupError(f"{self.declared}: no value gives the prop {prop}")


PROPS: Mapping[str, ChartProps] = {
    "burst": ChartProps(
        BURST_INPUTS,
        BURST_WORKLOAD,
        "burstWorkloads[].",
        "objects/burst.py BURST_INPUTS: a burst workload's props as its recipes take them",
    ),
    "buffer": ChartProps(
        BUFFER_INPUTS,
        BURST_BUFFER,
        "burstWorkloads[].buffer.",
        "objects/capacity_buffer.py BUFFER_INPUTS: a buffer's props as its spec and rules"
        " take them",
    ),
}
"""The constructs whose props the chart reads so, by helper name."""

RULES: Mapping[str, tuple[PropRules, str]] = {
    "burst": (
        BURST_RULES,
        "objects/burst.py BURST_RULES: a burst workload's rules across its props",
    ),
    "buffer": (
        BUFFER_RULES,
        "objects/capacity_buffer.py BUFFER_RULES: a buffer's rules across its zone and counts",
    ),
}
"""The constructs whose rules across props the chart runs so, by helper name (each of
``PROPS``), and where they are declared."""


def _go_constant(default: Any) -> str:
    """A prop's default as a Go template constant."""
    if default is None:
        return "nil"
    if isinstance(default, bool):
        return "true" if default else "false"
    if isinstance(default, (int, str)):
        return json.dumps(default)
    if isinstance(default, (list, tuple)) and not default:
        return "(list)"
    raise ValueError(f"no Go constant for the default {default!r}")


def _read(path: str) -> str:
    """The value at ``path`` in ``$in``, null where a map along it is missing."""
    if "." not in path:
        return f"$in.{path}"
    return "(dig " + " ".join(json.dumps(key) for key in path.split(".")) + " nil $in)"


def compile_props(name: str, chart: ChartProps) -> str:
    """``node-headroom.props.<name>``: ``chart``'s inputs of a values item."""
    lines = []
    for input_name, prop in chart.inputs.props.items():
        path = chart.path_of(prop)
        integer = BY_PATH[chart.item + path].kind == "integer"
        default = chart.inputs.default(input_name)
        key = json.dumps(input_name)
        if default is None and not integer:
            lines.append(f"{{{{- $_ := set $out {key} {_read(path)} -}}}}")
            continue
        given = "(int64 $given)" if integer else "$given"
        lines.append(
            f"{{{{- $given := {_read(path)} }}}}{{{{ $_ := set $out {key} "
            f'(ternary {_go_constant(default)} {given} (kindIs "invalid" $given)) -}}}}'
        )
    return "\n".join(
        [
            f"{{{{/* {chart.declared}; compiled from the declaration, of the values",
            f'     at {chart.item.rstrip(".")} (.item), into its "out". */}}}}',
            f'{{{{- define "node-headroom.props.{name}" -}}}}',
            "{{- $in := .item }}{{ $out := dict -}}",
            *lines,
            '{{- $_ := set . "out" $out -}}',
            "{{- end -}}",
        ]
    )


def compile_rules(name: str, chart: ChartProps, declared: PropRules, where: str) -> str:
    """``node-headroom.rules.<name>``: ``declared``, run on the inputs ``.in`` of an item
    at ``.at``, whose values ``chart`` names."""
    lines = []
    for one in declared.rules:
        path = chart.path_of(declared.inputs.props[one.field])
        value = f"$in.{one.field}" if one.shows else "nil"
        operands = "".join(
            f" {json.dumps(operand)} $in.{operand}"
            for operand in one.rule.operands
            if operand != "value"
        )
        call = (
            f'include "node-headroom.rule.{one.rule.name}" (dict "lib" $.lib "field" '
            f'(print $.at {json.dumps(path)}) "value" {value}{operands})'
        )
        if one.when is None:
            lines.append(f"{{{{- {call} -}}}}")
        else:
            lines.append(
                f'{{{{- if not (kindIs "invalid" $in.{one.when}) }}}}{{{{ {call} }}}}{{{{ end -}}}}'
            )
    return "\n".join(
        [
            f"{{{{/* {where}, in its order; compiled from the declaration, of the",
            f"     inputs .in of an item at .at ({chart.item.rstrip('.')}). */}}}}",
            f'{{{{- define "node-headroom.rules.{name}" -}}}}',
            "{{- $in := .in -}}",
            *lines,
            "{{- end -}}",
        ]
    )


def _role_path(prop_of: Callable[[str], str]) -> str:
    """The value path of a class's prop (``prop_of(role)``) with ``%s`` for the role: the
    same for every role, or the declaration and the values disagree."""
    paths = {
        HEADROOM_FIELDS[prop_of(role)].replace(f".{role}.", ".%s.")
        # the guarded model's ladder has every role
        for role, _ in ModelClasses.of(PriorityModel.GUARDED).ladder()
    }
    if len(paths) != 1:
        raise ValueError(f"the classes' values name {prop_of('<role>')} apart: {sorted(paths)}")
    return paths.pop()


def compile_class_rules(declared: ClassRules) -> str:
    """``node-headroom.rules.classes``: ``declared``, on ``.values`` and ``.ladder``."""
    holders = {HEADROOM_FIELDS[prop].rpartition(".")[0] for prop in declared.default_props}
    if len(holders) != 1:
        raise ValueError(f"the default class's values are apart: {sorted(holders)}")
    lines = []
    for prop in declared.default_props:
        given = f"$default.{HEADROOM_FIELDS[prop].rpartition('.')[2]}"
        lines.append(
            f'{{{{- include "node-headroom.rule.{declared.default_only.name}" (dict "lib" $.lib '
            f'"field" {json.dumps(HEADROOM_FIELDS[prop])} "value" {given} "given" {given} '
            '"model" $.model) -}}'
        )
    value_at, name_at = _role_path(declared.value_prop), _role_path(declared.name_prop)
    return "\n".join(
        [
            "{{/* vocabulary/priority_models.py CLASS_RULES: the classes' rules across their",
            "     props, in their order; compiled from the declaration, of the .values",
            "     and .ladder (the model's classes, lowest first), under .model. */}}",
            '{{- define "node-headroom.rules.classes" -}}',
            f"{{{{- $default := .values.{holders.pop()} -}}}}",
            *lines,
            "{{- range $i, $low := initial .ladder }}{{ $high := index $.ladder (add1 $i) -}}",
            f'{{{{- include "node-headroom.rule.{declared.ordered.name}" (dict "lib" $.lib '
            f'"field" (printf {json.dumps(value_at)} $low.role) "value" $low.value '
            '"low" $low.value "high" $high.value "above" $high.role) -}}',
            "{{- end }}{{ $seen := dict }}{{ range .ladder -}}",
            f'{{{{- include "node-headroom.rule.{declared.distinct.name}" (dict "lib" $.lib '
            f'"field" (printf {json.dumps(name_at)} .role) "value" .name '
            '"other" (index $seen .name)) }}{{ $_ := set $seen .name .role -}}',
            "{{- end -}}",
            "{{- end -}}",
        ]
    )


def prop_helpers() -> dict[str, str]:
    """Every construct's of ``PROPS`` and ``RULES``, compiled, by helper name."""
    return {
        **{f"node-headroom.props.{name}": compile_props(name, it) for name, it in PROPS.items()},
        **{
            f"node-headroom.rules.{name}": compile_rules(name, PROPS[name], declared, where)
            for name, (declared, where) in RULES.items()
        },
        "node-headroom.rules.classes": compile_class_rules(CLASS_RULES),
    }
