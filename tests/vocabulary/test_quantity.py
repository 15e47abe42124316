from fractions import Fraction

import cdk8s
import cdk8s_plus_27
import pytest

from cdk8s_headroom import HeadroomConfigError
from cdk8s_headroom.vocabulary.quantity import (
    format_cpu,
    format_memory,
    parse_quantity,
    positive_quantity,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("500m", Fraction(1, 2)),
        ("0.5", Fraction(1, 2)),
        ("2", Fraction(2)),
        ("1.5", Fraction(3, 2)),
        (".5", Fraction(1, 2)),
        ("512Mi", Fraction(512 * 2**20)),
        ("1Gi", Fraction(2**30)),
        ("1k", Fraction(1000)),
        ("1e3", Fraction(1000)),
        ("1E-3", Fraction(1, 1000)),
        ("+1M", Fraction(10**6)),
    ],
)
def test_parses_the_kubernetes_quantity_grammar(text: str, expected: Fraction) -> None:
    assert parse_quantity(text, field="cpu") == expected


@pytest.mark.parametrize("text", ["500mm", "", "1.5.0", "abc", "1 Gi", "Mi", "1ki", "0x10"])
def test_rejects_text_outside_the_grammar_naming_field_and_value(text: str) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        parse_quantity(text, field="memory")
    assert raised.value.field == "memory"
    assert f"invalid value {text!r}" in str(raised.value)
    assert "Kubernetes quantity" in str(raised.value)


def test_a_quantity_of_up_to_1000_characters_parses_exactly_and_a_longer_one_is_refused() -> None:
    # Found by the readers' fuzz test: 4303 digits raised Python's ValueError (the int
    # conversion limit) instead of the field's error
    assert parse_quantity("9" * 999 + "m", field="cpu") == Fraction(10**999 - 1, 1000)
    for text in ("1" * 1001, "9" * 4303, "1" * 2000 + "Mi"):
        with pytest.raises(HeadroomConfigError, match="at most 1000 characters") as raised:
            parse_quantity(text, field="cpu")
        assert raised.value.field == "cpu"


@pytest.mark.parametrize("text", ["0", "-1", "0m", "-500m"])
def test_a_reservation_must_be_greater_than_zero(text: str) -> None:
    with pytest.raises(HeadroomConfigError, match="greater than zero"):
        positive_quantity(text, field="cpu")


def test_accepts_cdk8s_size_and_cdk8s_plus_cpu() -> None:
    assert positive_quantity(cdk8s.Size.mebibytes(512), field="memory") == (
        "512Mi",
        Fraction(512 * 2**20),
    )
    assert positive_quantity(cdk8s_plus_27.Cpu.millis(250), field="cpu") == (
        "250m",
        Fraction(1, 4),
    )


def test_rejects_numbers_and_booleans_instead_of_quantity_strings() -> None:
    for value in (1, 0.5, True, None):
        with pytest.raises(HeadroomConfigError):
            positive_quantity(value, field="cpu")  # type: ignore[arg-type]


def test_formats_for_humans() -> None:
    assert format_cpu(Fraction(1, 2)) == "500m"
    assert format_cpu(Fraction(2)) == "2"
    assert format_memory(Fraction(512 * 2**20)) == "512Mi"
    assert format_memory(Fraction(3 * 2**30)) == "3Gi"
