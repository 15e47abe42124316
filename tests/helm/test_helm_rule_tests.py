"""Each rule across values is declared once, with its test (``cdk8s_headroom.vocabulary.rules``);
the library evaluates the test in Python and the chart's helper
``node-headroom.rule.<name>`` is the same test compiled to Go. Here both engines judge
the same operands, drawn for each rule from what its test compares, and must agree on
whether the rule holds and, when it does not, on the message.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cdk8s_headroom.helm import library
from cdk8s_headroom.vocabulary import rule_language, rules
from scripts.helm_render import CHART, load, render

QUANTITIES = ["1", "2", "500m", "0.5", "0.1", "100m", "1Gi", "1024Mi", "1073741824",
              "1073741824.0000001", "0.10000000000000001", "4Mi", " 2 "]  # fmt: skip
INTEGERS = [-100, 0, 1, 2, 5, 1000000000]
LISTS: list[Any] = [None, [], ["a"], ["a", "b"], ["cpu"], ["memory", "cpu"], ["In", "Gt"], ["7"]]
FLAGS: list[Any] = [None, "", [], "x", 0, 1, False, True, ["a"]]
NAMES = ["a", "b", "ok-name", "Bad_Name", "x" * 63, "x" * 64, "-x"]
DIGITS = ["7", "63", "64", "0064", "500", "1" + "0" * 30]


def _pools(test: rule_language.Test, pools: dict[str, list[Any]]) -> None:
    """The values to draw for each operand, by the first comparison that uses it."""

    def texts(*terms: rule_language.Term) -> list[Any]:
        consts = [t.value for t in terms if isinstance(t, rule_language.Const)]
        flat = [c for v in consts for c in (v if isinstance(v, tuple) else (v,))]
        return [*flat, "a", "b", None]

    def put(term: rule_language.Term, values: list[Any]) -> None:
        if isinstance(term, str):
            pools.setdefault(term, values)
        elif isinstance(term, rule_language.Length):
            pools.setdefault(term.of, NAMES if values is INTEGERS else LISTS)
        elif isinstance(term, rule_language.First):
            pools.setdefault(term.of, [["5"], ["-5"], ["x"], ["5", "6"], [], None])

    match test:
        case rule_language.Given(t) | rule_language.Truthy(t):
            put(t, FLAGS)
        case rule_language.Eq(a, b):
            put(a, texts(a, b))
            put(b, texts(a, b))
        case rule_language.Less(a, b):
            put(a, INTEGERS)
            put(b, INTEGERS)
        case rule_language.AtMost(a, b, resource):
            put(a, QUANTITIES)
            put(b, QUANTITIES)
            put(resource, ["cpu", "memory"])
        case rule_language.In(item, items):
            put(item, [*texts(item), "cpu", "In"])
            put(items, LISTS)
        case rule_language.Prefix(t, prefix):
            put(t, [prefix + "x", "x" + prefix, prefix, None])
        case rule_language.Matches(t, grammar):
            # and the counts it admits, written with and without leading zeros
            put(t, [*NAMES, *(d for d in DIGITS if grammar.matches(d))])
        case rule_language.Not(inner):
            _pools(inner, pools)
        case rule_language.AllOf(tests) | rule_language.AnyOf(tests):
            for inner in tests:
                _pools(inner, pools)


def _shown(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _repr_shown(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _cases(seed: int, per_rule: int) -> list[dict[str, Any]]:
    draw = random.Random(seed)
    cases = []
    judged: list[rule_language.Rule | rule_language.Predicate] = [
        *(r for r in rules.RULES if r.test is not None),
        *rules.PREDICATES,
    ]
    for rule in judged:
        assert rule.test is not None
        pools: dict[str, list[Any]] = {}
        _pools(rule.test, pools)
        # A message shows its parts as texts and integers ({x}), or as repr() ({x!r}),
        # which the chart's node-headroom.repr mirrors; the rules pass nothing else.
        for part in getattr(rule, "allowed", "").split("{")[1:]:
            name, shown = part.split("}")[0], _shown
            if name.endswith("!r"):
                name, shown = name.removesuffix("!r"), _repr_shown
            pools[name] = [v for v in pools.get(name, ["S"]) if shown(v)]
        for _ in range(per_rule):
            operands = {name: draw.choice(pool) for name, pool in pools.items()}
            cases.append({"rule": rule, "operands": operands})
    return cases


PROBE = """{{- $lib := fromJson (.Files.Get "files/library.json") }}
{{- $_ := set $lib "files" .Files }}
{{- range $i, $case := .Values.cases }}
{{- $operands := merge (dict "lib" $lib "warn" true "field" "f" "value" nil) $case.operands }}
{{ $i }}: {{ include (printf "node-headroom.%s" $case.helper) $operands | toJson }}
{{- end }}
"""


@pytest.fixture(scope="module")
def probe_chart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The chart's helpers, every rule's, and a template that calls the named helper on
    each case."""
    folder = tmp_path_factory.mktemp("probe")
    (folder / "templates").mkdir()
    shutil.copy(CHART / "Chart.yaml", folder / "Chart.yaml")
    for helper in ("_library.tpl", "_helpers.tpl"):
        shutil.copy(CHART / "templates" / helper, folder / "templates" / helper)
    # The rules only a lazy unit calls, which the chart parses with that unit
    for rules_file in (CHART / "files" / "lazy").glob("*-rules.tpl"):
        shutil.copy(rules_file, folder / "templates" / f"_{rules_file.name}")
    shutil.copytree(CHART / "files", folder / "files")
    (folder / "templates" / "probe.yaml").write_text(PROBE)
    return folder


def test_the_library_and_the_chart_judge_every_rule_alike(probe_chart: Path) -> None:
    cases = _cases(seed=11, per_rule=40)
    values = {
        "cases": [
            {
                "helper": f"{'rule' if isinstance(c['rule'], rule_language.Rule) else 'test'}."
                f"{c['rule'].name}",
                "operands": c["operands"],
            }
            for c in cases
        ]
    }
    with load(probe_chart) as chart:
        rendered = render(chart, values)
    judged = yaml.safe_load(rendered["node-headroom/templates/probe.yaml"])
    broken = 0
    for index, case in enumerate(cases):
        rule, operands = case["rule"], case["operands"]
        if isinstance(rule, rule_language.Rule):
            expected = rule.broken(**operands) or ""
            broken += bool(expected)
        else:
            expected = "true" if rule.holds(**operands) else ""
        assert judged[index] == expected, (rule.name, operands)
    # Both outcomes were drawn, for most rules
    assert 0.1 * len(cases) < broken < 0.9 * len(cases)


@pytest.mark.parametrize(
    ("request_", "slice_", "resource"),
    [("1073741824.0000001", "1Gi", "memory"), ("0.10000000000000001", "0.1", "cpu")],
)
def test_quantities_just_above_the_slice_are_judged_exactly(
    request_: str, slice_: str, resource: str
) -> None:
    # The regressions of float64 arithmetic: a part in 10^16 above the slice is above it
    operands = {"request": request_, "room": slice_, "resource": resource, "slice": "S"}
    assert rules.BURST_FITS_SLICE.broken(**operands) is not None


@st.composite
def cap_free_quantities(draw: st.DrawFn) -> str:
    """Quantities of library.cap_free's characters and length: sign, digits, point and
    one of its suffixes."""
    free = library.cap_free()
    text = draw(st.sampled_from(["", "+"])) + draw(st.text("0123456789", min_size=1))
    if draw(st.booleans()):
        text += "." + draw(st.text("0123456789"))
    text += draw(st.sampled_from(library.CAP_FREE_SUFFIXES))
    assume(len(text) <= free["longest"] and set(text) <= set(free["chars"]))
    return text


@settings(max_examples=300, deadline=None, derandomize=True)
@given(cap_free_quantities())
def test_the_quantities_the_chart_spares_the_cap_are_under_it(text: str) -> None:
    # node-headroom.check skips QUANTITY_CAP for them: it could not refuse one
    assert rules.QUANTITY_CAP.broken(quantity=text) is None


def test_the_cap_refuses_a_quantity_one_character_longer() -> None:
    # library.cap_free's length is the most: one more nine and the cap can refuse
    longest = library.cap_free()["longest"]
    assert rules.QUANTITY_CAP.broken(quantity="9" * longest) is None
    assert any(
        rules.QUANTITY_CAP.broken(quantity="9" * (longest + 1 - len(suffix)) + suffix)
        for suffix in library.CAP_FREE_SUFFIXES
    )
