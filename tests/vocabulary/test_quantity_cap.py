"""Quantities above 2^63-1 base units are refused: apimachinery's
``staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go`` ``ParseQuantity`` cuts
any amount above ``maxAllowed`` (``math.MaxInt64``, in cores or bytes) to it without a
word, so a slice of ``1e64`` bytes would not be what was written."""

from __future__ import annotations

import pytest

from cdk8s_headroom.vocabulary import quantity, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

CAP = "9223372036854775807"


@pytest.mark.parametrize(
    "text",
    [
        "1e64",
        "9223372036854775808",
        "8Ei",  # exactly 2^63
        "9223372036854775807001m",
        "9223372036854775807.0001",
        "9.3e18",
        "9223373P",
        " 1E19 ",
    ],
)
def test_a_quantity_above_the_cap_is_refused_naming_it(text: str) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        quantity.memory_quantity(text, field="memory")
    assert raised.value.field == "memory"
    assert raised.value.value == text
    assert "2^63-1 (9223372036854775807)" in raised.value.allowed


@pytest.mark.parametrize(
    "text", [CAP, "9223372036854775807000m", "9.223372036854775807e18", "7Ei", "1e18"]
)
def test_a_quantity_at_or_below_the_cap_is_accepted(text: str) -> None:
    assert quantity.quantity_text(text, field="cpu") == text


def test_the_cap_is_apimachinerys_max_int64() -> None:
    assert rules.QUANTITY_MAX == 2**63 - 1 == int(CAP)


def test_the_cap_is_one_of_the_rules_the_chart_compiles() -> None:
    assert rules.QUANTITY_CAP in rules.RULES
