"""The library's recipes (``vocabulary.recipes``) compiled into the chart's Go template
helpers by ``make chart``, which ``library.rules_files`` places where their callers are
parsed (a recipe only the bursts' unit runs, in its rules file).

``node-headroom.recipe.<name>`` takes the recipe's inputs as a map, ``Take("x")`` read as
``$in.x``, and leaves the object in the map's ``out``. One statement per line, in the
order of the recipe's fields, so a reviewer can follow an input to its field: a list of
an ``Each`` is a ``range``, a map with ``IfAny`` entries is a ``dict`` of its other
entries and a ``with`` per ``IfAny``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cdk8s_headroom.objects.burst import BURST_POD
from cdk8s_headroom.objects.capacity_buffer import BUFFER_POD
from cdk8s_headroom.objects.prepuller import PREPULLER_POD
from cdk8s_headroom.objects.reserver import RESERVER_POD
from cdk8s_headroom.vocabulary.recipes import (
    Each,
    Fill,
    IfAny,
    Index,
    Item,
    Join,
    Take,
)

RECIPES: Mapping[str, tuple[Any, str]] = {
    "reserverPod": (RESERVER_POD, "objects/reserver.py RESERVER_POD: the reserver's pod"),
    "prepullerPod": (PREPULLER_POD, "objects/prepuller.py PREPULLER_POD: the pre-puller's pod"),
    "burstPod": (BURST_POD, "objects/burst.py BURST_POD: a burst workload's pod"),
    "bufferPod": (BUFFER_POD, "objects/capacity_buffer.py BUFFER_POD: a buffer's pod"),
}
"""The recipes the chart builds objects with, by helper name, each with where it is
declared."""


@dataclass
class _Scope:
    item: str = ""
    index: str = ""


class _Compiler:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def _name(self, stem: str) -> str:
        self.count += 1
        return f"${stem}{self.count}"

    def _emit(self, statement: str) -> None:
        self.lines.append(f"{{{{- {statement} -}}}}")

    def expression(self, recipe: Any, scope: _Scope) -> str:
        """A Go expression of ``recipe``'s value; the statements it needs are emitted
        before it is used."""
        if isinstance(recipe, Take):
            return f"$in.{recipe.name}"
        if isinstance(recipe, Item):
            if not scope.item:
                raise ValueError(f"{recipe!r} outside an Each")
            return f"{scope.item}.{recipe.key}" if recipe.key else scope.item
        if isinstance(recipe, Index):
            if not scope.index:
                raise ValueError("INDEX outside an Each")
            return scope.index
        if isinstance(recipe, Each):
            items, item, index = self._name("list"), self._name("item"), self._name("i")
            self._emit(f"{items} := list")
            self._emit(f"range {index}, {item} := $in.{recipe.name}")
            one = self.expression(recipe.recipe, _Scope(item, index))
            self._emit(f"{items} = append {items} {one}")
            self._emit("end")
            return items
        if isinstance(recipe, Fill):
            text = json.dumps(recipe.pattern)
            for place, part in recipe.places.items():
                value = self.expression(part, scope)
                text = f'(replace "{{{place}}}" (toString {value}) {text})'
            return text
        if isinstance(recipe, Join):
            parts = " ".join(self.expression(part, scope) for part in recipe.recipes)
            return f"(concat {parts})"
        if isinstance(recipe, Mapping):
            return self._map(recipe, scope)
        if isinstance(recipe, list):
            return "(list " + " ".join(self.expression(p, scope) for p in recipe) + ")"
        if isinstance(recipe, bool):
            return "true" if recipe else "false"
        if isinstance(recipe, (int, str)):
            return json.dumps(recipe)
        raise ValueError(f"no Go for the recipe {recipe!r}")

    def _map(self, recipe: Mapping[str, Any], scope: _Scope) -> str:
        recipe = {key: part for key, part in recipe.items() if part is not None}
        kept = {k: v for k, v in recipe.items() if not isinstance(v, IfAny)}
        entries = " ".join(
            f"{json.dumps(key)} {self.expression(part, scope)}" for key, part in kept.items()
        )
        if len(kept) == len(recipe):
            return f"(dict {entries})" if entries else "dict"
        found = self._name("map")
        self._emit(f"{found} := dict {entries}".rstrip())
        for key, part in recipe.items():
            if isinstance(part, IfAny):
                value = self.expression(part.recipe, scope)
                self._emit(
                    f"with {value} }}}}{{{{ $_ := set {found} {json.dumps(key)} . }}}}{{{{ end"
                )
        return found


def compile_recipe(name: str, recipe: Any, declared: str) -> str:
    """``node-headroom.recipe.<name>``: ``recipe`` as a Go template helper."""
    compiler = _Compiler()
    out = compiler.expression(recipe, _Scope())
    return "\n".join(
        [
            f"{{{{/* {declared}; compiled from its recipe,",
            '     of its inputs (a map), into their "out". */}}',
            f'{{{{- define "node-headroom.recipe.{name}" -}}}}',
            "{{- $in := . -}}",
            *compiler.lines,
            f'{{{{- $_ := set $in "out" {out} -}}}}',
            "{{- end -}}",
        ]
    )


def recipe_helpers() -> dict[str, str]:
    """Every recipe of ``RECIPES``, compiled, by helper name."""
    return {
        f"node-headroom.recipe.{name}": compile_recipe(name, *declared)
        for name, declared in RECIPES.items()
    }
