"""A slice's quantities, and a burst workload's requests, are parsed once, where the
user's value enters the library (a construct's prop, a chart value); every layer after
that takes the judged ``Quantity``: the reserver, the pool's size check, the promises,
the workload, the chart's mirror.

A parse is a call of the quantity grammar (``rule_language.Grammar.check``) on the
quantity's text; ``SLICE_CPU`` is a value no other field of these apps holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import cdk8s
import pytest
import yaml
from cdk8s import Testing as K8sTesting

from cdk8s_headroom import (
    HeadroomConfigError,
    KarpenterNodePool,
    NodeHeadroom,
    NodeSelectorOperator,
    synth,
)
from cdk8s_headroom.vocabulary import rule_language
from cdk8s_headroom.vocabulary.quantity import Quantity, positive_quantity, quantity_text

SLICE_CPU = "437m"
"""A CPU slice no other field of the apps below holds, so each parse of it is the slice's."""

CHART_VALUES = Path(__file__).resolve().parent.parent / "charts" / "node-headroom" / "values.yaml"


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The fields under which the slice's CPU text was parsed, in order."""
    seen: list[str] = []
    check = rule_language.Grammar.check

    def counted(self: rule_language.Grammar, value: object, *args: Any, **kwargs: Any) -> Any:
        if value == SLICE_CPU:
            seen.append(str(kwargs.get("field")))
        return check(self, value, *args, **kwargs)

    monkeypatch.setattr(rule_language.Grammar, "check", counted)
    yield seen


def test_the_slice_cpu_of_a_headroom_is_parsed_once_through_synthesis(
    parses: list[str], tmp_path: Path
) -> None:
    app = cdk8s.App(outdir=str(tmp_path))
    chart = cdk8s.Chart(app, "c")
    NodeHeadroom(chart, "h", cpu=SLICE_CPU, memory="512Mi")

    synth(app)

    assert parses == ["cpu"]  # was 4: the headroom, the reserver twice, the promises


def test_the_slice_cpu_is_parsed_once_with_a_sized_pool(parses: list[str]) -> None:
    chart = K8sTesting.chart()
    pool = KarpenterNodePool(chart, "burst")
    NodeHeadroom(chart, "h", cpu=SLICE_CPU, memory="512Mi", node_pool=pool)
    # Sized after the headroom: the pool checks the slice again on its new smallest node.
    pool.add_requirement(f"{pool.flavour.label_prefix}instance-cpu", NodeSelectorOperator.IN, ["4"])

    K8sTesting.synth(chart)

    assert parses == ["cpu"]  # was 7: the pool's size checks parsed it again


def test_a_burst_workloads_cpu_is_parsed_once(parses: list[str]) -> None:
    chart = K8sTesting.chart()
    headroom = NodeHeadroom(chart, "h", cpu="500m", memory="512Mi")

    headroom.add_burst_workload("api", image="ghcr.io/acme/api:1.2", cpu=SLICE_CPU, memory="256Mi")
    K8sTesting.synth(chart)

    assert parses == ["cpu"]  # was 2: the fit in the slice, then the workload


def test_the_chart_mirror_parses_reservation_cpu_once(parses: list[str]) -> None:
    from cdk8s_headroom.helm import synthesize

    defaults = yaml.safe_load(CHART_VALUES.read_text())

    synthesize({"reservation": {"cpu": SLICE_CPU}}, chart_defaults=defaults)

    assert parses == ["reservation.cpu"]  # was 5: the value's check, then the headroom's 4


def test_a_judged_quantity_keeps_the_text_the_amount_and_the_value_given() -> None:
    judged = Quantity.positive(" 0.5 ", field="cpu")

    assert (judged.text, judged.amount, judged.given) == ("0.5", Fraction(1, 2), " 0.5 ")
    assert quantity_text(judged, field="cpu") == "0.5"
    assert positive_quantity(judged, field="cpu") == ("0.5", Fraction(1, 2))
    assert Quantity.positive(judged, field="cpu") is judged


def test_a_message_about_a_judged_quantity_shows_the_value_as_given() -> None:
    judged = Quantity.positive("2Mi", field="memory")

    with pytest.raises(HeadroomConfigError, match=r"^memory: invalid value '2Mi'; ") as raised:
        Quantity.memory(judged, field="memory")
    assert repr(judged) == "'2Mi'"
    assert raised.value.value == "2Mi"
