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
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cdk8s_headroom.helm.values import BURST_BUFFER, BURST_WORKLOAD, BY_PATH
from cdk8s_headroom.objects.burst import BURST_INPUTS
from cdk8s_headroom.objects.capacity_buffer import BUFFER_INPUTS
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
    paths = {prop: path for path, prop in chart.values.items()}
    lines = []
    for input_name, prop in chart.inputs.props.items():
        if prop not in paths:
            raise LookupError(f"{chart.declared}: no value gives the prop {prop}")
        path = paths[prop]
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


def prop_helpers() -> dict[str, str]:
    """Every construct's of ``PROPS``, compiled, by helper name."""
    return {f"node-headroom.props.{name}": compile_props(name, it) for name, it in PROPS.items()}
