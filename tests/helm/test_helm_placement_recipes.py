"""A pod's placement as the chart builds it is the library's: its tolerations
(placement.TOLERATIONS, read from the values by helm/units.py ``tolerations_helper``), its
node affinity (helm/recipes.py ``ONE_TERM_AFFINITY``) and a taint's text and toleration
(placement.TAINT_TEXT, TAINT_TOLERATION), compiled, give what the library evaluates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cdk8s_headroom.helm.recipes import ONE_TERM_AFFINITY, RECIPES, compile_recipe
from cdk8s_headroom.helm.units import tolerations_helper
from cdk8s_headroom.vocabulary.placement import (
    TAINT_TEXT,
    TAINT_TOLERATION,
    TOLERATIONS,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Placement,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from cdk8s_headroom.vocabulary.recipes import evaluate
from scripts.helm_render import CHART
from tests.helm.recipe_charts import compiled, run

TOLERATION_ITEMS = [
    # the pool's taint's, the user's (the same again, and one of every field), the
    # dedicated taint's: as the values and the chart's build write them
    {"key": "spot", "value": "", "effect": "NoSchedule"},
    {"key": "spot", "operator": "Equal", "effect": "NoSchedule"},
    {"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 0},
    {"operator": "Exists"},
    {"key": "dedicated", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
]


@pytest.mark.parametrize(
    "items",
    [TOLERATION_ITEMS, TOLERATION_ITEMS[2:3], []],
    ids=["pool-user-dedicated", "every-field", "none"],
)
def test_the_chart_s_tolerations_are_what_the_library_s_placement_gives(
    tmp_path: Path, items: list[dict[str, Any]]
) -> None:
    # placement.TOLERATIONS, compiled, of the items as helm/units.py tolerations_helper
    # reads them (Toleration's defaults: operator Equal, an empty key and value), is what
    # Placement.to_manifest gives for the same Tolerations: each laid out as
    # placement.TOLERATION (an empty key, value or effect left out, zero seconds kept),
    # and the same toleration twice kept once, where it first comes
    tolerations = tuple(
        Toleration(
            key=item.get("key", ""),
            operator=TolerationOperator(item.get("operator", Toleration.operator.value)),
            value=item.get("value", ""),
            effect=TaintEffect(item["effect"]) if "effect" in item else None,
            toleration_seconds=item.get("tolerationSeconds"),
        )
        for item in items
    )
    library = Placement(tolerations=tuple(dict.fromkeys(tolerations))).to_manifest()
    lib = json.loads((CHART / "files" / "library.json").read_text())
    chart = run(
        tmp_path,
        [tolerations_helper(), compile_recipe("tolerations", TOLERATIONS, "a probe")],
        'include "node-headroom.tolerations" $in',
        # JSON's numbers, as Helm's values give them: seconds as float64
        {"lib": {"tolerationDefaults": lib["tolerationDefaults"]}, "items": items},
    )
    assert chart == (library["tolerations"] or [])
    if items == TOLERATION_ITEMS:
        # the pool's taint's toleration and the user's same one are one
        assert len(chart) == len(items) - 1


@pytest.mark.parametrize(
    "expressions",
    [
        [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}],
        [
            {"key": "gpu", "operator": "Exists", "values": None},
            {"key": "gpu", "operator": "DoesNotExist", "values": []},
            {"key": "zone", "operator": "NotIn", "values": ["a", "b"]},
        ],
        [],
    ],
    ids=["in", "without-values", "no-expressions"],
)
def test_the_compiled_node_affinity_is_what_the_library_evaluates(
    tmp_path: Path, expressions: list[dict[str, Any]]
) -> None:
    # helm/recipes.py ONE_TERM_AFFINITY: placement.node_affinity of one
    # NODE_SELECTOR_TERM, each requirement laid out as placement.REQUIREMENT (no values,
    # none shown); the chart gives no matchFields (RECIPES' absent)
    chart = RECIPES["nodeAffinity"]
    inputs = {"expressions": expressions}
    built = evaluate(ONE_TERM_AFFINITY, {**inputs, **{name: [] for name in chart.absent}})
    assert compiled(tmp_path, chart.recipe, inputs, chart.absent) == built
    # and it is what a pod of the library's gets for that one term
    term = NodeSelectorTerm(
        tuple(
            NodeSelectorRequirement(
                e["key"], NodeSelectorOperator(e["operator"]), e["values"] or ()
            )
            for e in expressions
        )
    )
    assert Placement(affinity=(term,)).to_manifest()["affinity"] == built


@pytest.mark.parametrize("recipe", [TAINT_TEXT, TAINT_TOLERATION], ids=["text", "toleration"])
@pytest.mark.parametrize(
    "taint",
    [Taint("headroom.cdk8s.io/dedicated", "true"), Taint("spot", "", TaintEffect.NO_EXECUTE)],
    ids=["with-value", "without-value"],
)
def test_the_compiled_taint_recipes_are_what_the_library_evaluates(
    tmp_path: Path, recipe: Any, taint: Taint
) -> None:
    # placement.TAINT_TEXT is str(taint), placement.TAINT_TOLERATION is
    # Taint.toleration's form: the dedicated pool's unit runs both (units.dedicated_unit)
    inputs = {"key": taint.key, "value": taint.value, "effect": taint.effect.value}
    assert compiled(tmp_path, recipe, inputs) == evaluate(recipe, inputs)
