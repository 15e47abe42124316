"""The library's recipes (``vocabulary.recipes``) compiled into the chart's Go template
helpers by ``make chart``, which ``library.rules_files`` places where their callers are
parsed (a recipe only the bursts' unit runs, in its rules file).

``node-headroom.recipe.<name>`` takes the recipe's inputs as a map, ``Take("x")`` read as
``$in.x``, and leaves the object in the map's ``out``. One statement per line, in the
order of the recipe's fields, so a reviewer can follow an input to its field: a list of
an ``Each`` (a map of an ``EachEntry`` or a ``Merge``) is a ``range``, a map with
``IfAny`` (``IfGiven``) entries is a ``dict`` of its other entries and a ``with`` (an
``if``) per such entry, a ``Choose`` a ``ternary``,
a ``JoinText`` is Sprig's ``join`` and a ``Unique`` its ``uniq``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cdk8s_headroom.helm.reader import ROLE_REF, SUBJECT
from cdk8s_headroom.objects.alerts import RULE_LABELS
from cdk8s_headroom.objects.burst import BURST_POD, DEPLOYMENT_FIELDS
from cdk8s_headroom.objects.capacity_buffer import BUFFER_POD, BUFFER_SPEC, WINDOW_POD
from cdk8s_headroom.objects.prepuller import PREPULLER_POD
from cdk8s_headroom.objects.reserver import RESERVER_POD
from cdk8s_headroom.objects.windows import ONE_PER_NODE, WINDOW_CRON_JOB
from cdk8s_headroom.vocabulary.alert_rules import ALERT_FIELDS
from cdk8s_headroom.vocabulary.labels import WORKLOAD_LABELS
from cdk8s_headroom.vocabulary.object_names import BUFFER_NAME, RESERVER_NAME
from cdk8s_headroom.vocabulary.placement import (
    NODE_SELECTOR_TERM,
    TAINT_TEXT,
    TAINT_TOLERATION,
    TOLERATIONS,
    node_affinity,
)
from cdk8s_headroom.vocabulary.priority_models import PRIORITY_CLASS
from cdk8s_headroom.vocabulary.recipes import (
    Choose,
    Each,
    EachEntry,
    Fill,
    IfAny,
    IfGiven,
    Index,
    Item,
    Join,
    JoinText,
    Merge,
    Take,
    Unique,
    merge,
)
from cdk8s_headroom.vocabulary.security_context import CONTAINER_USER, POD_USER


@dataclass(frozen=True)
class ChartRecipe:
    """A recipe the chart builds an object with."""

    recipe: Any
    declared: str
    """Where the recipe is declared, and what it builds."""
    absent: frozenset[str] = frozenset()
    """The inputs the chart never gives, as no value leads to them: an ``Each`` over one
    is left out of the compiled helper, which the default values parse on every render."""


CONTAINER_CONTEXT = merge(Take("containerSecurityContext"), CONTAINER_USER)
"""A container's security context: the library's restricted one (helm.library: the
reserver's, without the user), run as the user ``uid`` (security_context.CONTAINER_USER):
a workload's container's, and the reserver's image pullers' as nobody."""

WORKLOAD = {
    "labels": WORKLOAD_LABELS,
    # An object's own metadata: Helm's labels under the workload's
    "meta": merge(Take("helm"), WORKLOAD_LABELS),
    # The library's restricted contexts, run as the workload's user
    "pod": merge(Take("podSecurityContext"), POD_USER),
    "container": CONTAINER_CONTEXT,
}
"""What the chart gives each workload: its labels, its objects' metadata labels, and its
pods' and containers' security contexts, of the library's recipes."""

ONE_TERM_AFFINITY = node_affinity([NODE_SELECTOR_TERM])
"""The node affinity the chart gives its pods: one term of the ``nodeAffinity`` values'
requirements (its ``expressions``), as ``Targeting.placement`` gives the library's pods,
laid out by the library's recipes (vocabulary/placement.py ``node_affinity``,
``NODE_SELECTOR_TERM``)."""

PROMETHEUS_RULE = {
    "fields": ALERT_FIELDS,
    "labels": RULE_LABELS,
    # The object's own metadata: Helm's labels under the rule's
    "meta": merge(Take("helm"), RULE_LABELS),
}
"""What the chart gives its PrometheusRule (alerts.enabled): what fills the alerts'
places and its labels, of the library's recipes (vocabulary/alert_rules.py
``ALERT_FIELDS``, which ``HeadroomAlertRules.fields`` evaluates, and objects/alerts.py
``RULE_LABELS``, which ``HeadroomAlerts`` evaluates), and its metadata's labels. Compiled
as ``node-headroom.recipe.prometheusRule``, which only the alerts' unit runs."""

RECIPES: Mapping[str, ChartRecipe] = {
    "workload": ChartRecipe(
        WORKLOAD,
        "vocabulary/labels.py WORKLOAD_LABELS, security_context.py POD_USER and"
        " CONTAINER_USER: a workload's labels and security contexts",
    ),
    "containerContext": ChartRecipe(
        CONTAINER_CONTEXT,
        "vocabulary/security_context.py CONTAINER_USER: a container's security context",
    ),
    "reserverPod": ChartRecipe(
        RESERVER_POD,
        "objects/reserver.py RESERVER_POD: the reserver's pod",
        # ReserverTask.custom(host_paths=...): the chart's custom task has none
        absent=frozenset({"hostPaths"}),
    ),
    "prepullerPod": ChartRecipe(
        PREPULLER_POD, "objects/prepuller.py PREPULLER_POD: the pre-puller's pod"
    ),
    "burstPod": ChartRecipe(BURST_POD, "objects/burst.py BURST_POD: a burst workload's pod"),
    "burstSpec": ChartRecipe(
        DEPLOYMENT_FIELDS,
        "objects/burst.py DEPLOYMENT_FIELDS: the fields a burst workload's Deployment adds",
    ),
    "bufferPod": ChartRecipe(BUFFER_POD, "objects/capacity_buffer.py BUFFER_POD: a buffer's pod"),
    "bufferSpec": ChartRecipe(
        BUFFER_SPEC, "objects/capacity_buffer.py BUFFER_SPEC: a CapacityBuffer's spec"
    ),
    "priorityClass": ChartRecipe(
        PRIORITY_CLASS,
        "vocabulary/priority_models.py PRIORITY_CLASS: a class of the model, as named and ranked",
    ),
    "tolerations": ChartRecipe(
        TOLERATIONS, "vocabulary/placement.py TOLERATIONS: a pod's tolerations, once each"
    ),
    "nodeAffinity": ChartRecipe(
        ONE_TERM_AFFINITY,
        "vocabulary/placement.py node_affinity of one NODE_SELECTOR_TERM: a pod's node affinity",
        # No value gives a term matchFields: a DaemonSet pod's pinned node is its
        # controller's to write, and Placement.to_manifest leaves it out too
        absent=frozenset({"fields"}),
    ),
    "reserverName": ChartRecipe(
        RESERVER_NAME,
        "vocabulary/object_names.py RESERVER_NAME: a reserver's name when none is given",
    ),
    "bufferName": ChartRecipe(
        BUFFER_NAME, "vocabulary/object_names.py BUFFER_NAME: a CapacityBuffer's name"
    ),
    "taintText": ChartRecipe(TAINT_TEXT, "vocabulary/placement.py TAINT_TEXT: a taint as text"),
    "taintToleration": ChartRecipe(
        TAINT_TOLERATION, "vocabulary/placement.py TAINT_TOLERATION: a taint's toleration"
    ),
    "readerSubject": ChartRecipe(SUBJECT, "helm/reader.py SUBJECT: a reader binding's subject"),
    "readerRoleRef": ChartRecipe(ROLE_REF, "helm/reader.py ROLE_REF: the reader binding's roleRef"),
    "windowCronJob": ChartRecipe(
        WINDOW_CRON_JOB, "objects/windows.py WINDOW_CRON_JOB: the CronJob of a time window"
    ),
    "onePerNode": ChartRecipe(
        ONE_PER_NODE, "objects/windows.py ONE_PER_NODE: a window's slices, one per node"
    ),
    "bufferWindowPod": ChartRecipe(
        WINDOW_POD, "objects/capacity_buffer.py WINDOW_POD: a scheduled buffer's pod"
    ),
    "prometheusRule": ChartRecipe(
        PROMETHEUS_RULE,
        "vocabulary/alert_rules.py ALERT_FIELDS and objects/alerts.py RULE_LABELS: the"
        " alerts' fields and the PrometheusRule's labels",
    ),
}
"""The recipes the chart builds objects with, by helper name."""


@dataclass
class _Scope:
    item: str = ""
    index: str = ""


def _constant(recipe: Any) -> bool:
    """Whether ``recipe`` is a constant throughout."""
    if isinstance(recipe, Mapping):
        return all(_constant(part) for part in recipe.values())
    if isinstance(recipe, list):
        return all(_constant(part) for part in recipe)
    return recipe is None or isinstance(recipe, (bool, int, str))


def _without_none(constant: Any) -> Any:
    if isinstance(constant, Mapping):
        return {k: _without_none(v) for k, v in constant.items() if v is not None}
    if isinstance(constant, list):
        return [_without_none(part) for part in constant]
    return constant


class _Compiler:
    def __init__(self, absent: frozenset[str]) -> None:
        self.lines: list[str] = []
        self.count = 0
        self.absent = absent

    def _left_out(self, recipe: Any) -> bool:
        """Whether ``recipe`` only reads inputs the chart never gives, so comes out empty."""
        if isinstance(recipe, (Take, Each, EachEntry)):
            return recipe.name in self.absent
        if isinstance(recipe, (Join, Merge)):
            return all(self._left_out(part) for part in recipe.recipes)
        return False

    def _name(self, stem: str) -> str:
        self.count += 1
        return f"${stem}{self.count}"

    def _emit(self, statement: str) -> None:
        self.lines.append(f"{{{{- {statement} -}}}}")

    def expression(self, recipe: Any, scope: _Scope) -> str:
        """A Go expression of ``recipe``'s value; the statements it needs are emitted
        before it is used."""
        if self._left_out(recipe):
            raise ValueError(f"{recipe!r} reads an input the chart never gives")
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
        if isinstance(recipe, EachEntry):
            items, key, item = self._name("map"), self._name("key"), self._name("item")
            self._emit(f"{items} := dict")
            self._emit(f"range {key}, {item} := $in.{recipe.name}")
            one = self.expression(recipe.recipe, _Scope(item))
            self._emit(f"$_ := set {items} {key} {one}")
            self._emit("end")
            return items
        if isinstance(recipe, Merge):
            parts = [self.expression(p, scope) for p in recipe.recipes if not self._left_out(p)]
            merged, key, item = self._name("map"), self._name("key"), self._name("item")
            self._emit(f"{merged} := dict")
            for part in parts:
                self._emit(
                    f"range {key}, {item} := {part} }}}}"
                    f"{{{{ $_ := set {merged} {key} {item} }}}}{{{{ end"
                )
            return merged
        if isinstance(recipe, Fill) and [f"{{{p}}}" for p in recipe.places] == [recipe.pattern]:
            # A lone place: its value's text
            (value,) = recipe.places.values()
            return f"(toString {self.expression(value, scope)})"
        if isinstance(recipe, Fill):
            text = json.dumps(recipe.pattern)
            for place, part in recipe.places.items():
                value = self.expression(part, scope)
                text = f'(replace "{{{place}}}" (toString {value}) {text})'
            return text
        if isinstance(recipe, Join):
            given = [self.expression(p, scope) for p in recipe.recipes if not self._left_out(p)]
            return given[0] if len(given) == 1 else f"(concat {' '.join(given)})"
        if isinstance(recipe, Choose):
            then = self.expression(recipe.then, scope)
            otherwise = self.expression(recipe.otherwise, scope)
            return f'(ternary {then} {otherwise} (not (kindIs "invalid" $in.{recipe.of})))'
        if isinstance(recipe, Unique):
            return f"(uniq {self.expression(recipe.recipe, scope)})"
        if isinstance(recipe, JoinText):
            texts = self.expression(recipe.recipe, scope)
            return f"(join {json.dumps(recipe.separator)} {texts})"
        if isinstance(recipe, (Mapping, list)) and recipe and _constant(recipe):
            # One token for Helm to parse, decoded at run time, instead of a literal
            # per field
            text = json.dumps(_without_none(recipe), separators=(",", ":"))
            decode = "fromJson" if isinstance(recipe, Mapping) else "fromJsonArray"
            return f"({decode} {f'`{text}`' if '`' not in text else json.dumps(text)})"
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
        recipe = {
            key: part
            for key, part in recipe.items()
            if part is not None
            and not (isinstance(part, (IfAny, IfGiven)) and self._left_out(part.recipe))
        }
        kept = {k: v for k, v in recipe.items() if not isinstance(v, (IfAny, IfGiven))}
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
            elif isinstance(part, IfGiven):
                value = self.expression(part.recipe, scope)
                given = f"$in.{part.of}" if part.of else value
                test = f'not (kindIs "invalid" {given})'
                if part.unless:
                    test = f'and (kindIs "invalid" $in.{part.unless}) ({test})'
                self._emit(
                    f"if {test} }}}}{{{{ $_ := set {found} {json.dumps(key)} {value} }}}}{{{{ end"
                )
        return found


def compile_recipe(
    name: str, recipe: Any, declared: str, absent: frozenset[str] = frozenset()
) -> str:
    """``node-headroom.recipe.<name>``: ``recipe`` as a Go template helper, without what
    reads only the ``absent`` inputs."""
    compiler = _Compiler(absent)
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
        f"node-headroom.recipe.{name}": compile_recipe(name, it.recipe, it.declared, it.absent)
        for name, it in RECIPES.items()
    }
