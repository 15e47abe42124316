"""Kubernetes resource quantities: parsing, validation and comparison.

The grammar is the one of ``k8s.io/apimachinery/pkg/api/resource``::

    <quantity> ::= <signedNumber><suffix>
    <suffix>   ::= Ki | Mi | Gi | Ti | Pi | Ei | m | "" | k | M | G | T | P | E
                 | e<signedNumber> | E<signedNumber>

The grammar and the comparisons are ``rules.QUANTITY`` and ``rules.amount``; values
are kept as exact fractions, so ``"0.5"`` and ``"500m"`` compare equal.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Protocol, runtime_checkable

from . import rules


@runtime_checkable
class SizeLike(Protocol):
    """A memory size that renders itself as a quantity, such as ``cdk8s.Size``."""

    def as_string(self) -> str: ...


@runtime_checkable
class CpuLike(Protocol):
    """A CPU amount that holds its quantity, such as ``cdk8s_plus_27.Cpu``."""

    @property
    def amount(self) -> str: ...


# Protocols rather than the cdk8s classes: this module is plain Python, and importing
# cdk8s for an isinstance would start Node for every reader of quantities.
QuantityLike = str | SizeLike | CpuLike
"""A quantity as a string (``"500m"``, ``"512Mi"``), a ``cdk8s.Size`` or a
``cdk8s_plus_27.Cpu``."""

_BINARY = {suffix: 1024**power for suffix, power in rules.BINARY_SUFFIXES.items()}


def quantity_text(
    value: QuantityLike | None, *, field: str, grammar: rules.Grammar = rules.QUANTITY
) -> str:
    """Returns the quantity as the string Kubernetes receives; default: one greater than
    zero (``rules.QUANTITY``)."""
    if isinstance(value, SizeLike):
        value = str(value.as_string())
    elif isinstance(value, CpuLike):
        value = str(value.amount)
    return rules.quantity_text(value, field=field, grammar=grammar)


def parse_quantity(value: QuantityLike | None, *, field: str) -> Fraction:
    """Parses a quantity into an exact number (cores for CPU, bytes for memory)."""
    return rules.exact_amount(quantity_text(value, field=field, grammar=rules.QUANTITY_SYNTAX))


def positive_quantity(value: QuantityLike | None, *, field: str) -> tuple[str, Fraction]:
    """Validates a quantity that must be greater than zero.

    Returns the text to emit and its exact value.
    """
    text = quantity_text(value, field=field)
    return text, rules.exact_amount(text)


def format_cpu(cores: Fraction) -> str:
    """Formats cores for a human: ``500m``, ``2``."""
    millis = cores * 1000
    if millis.denominator == 1 and millis % 1000 != 0:
        return f"{millis.numerator}m"
    if cores.denominator == 1:
        return str(cores.numerator)
    return f"{float(millis):.0f}m"


def format_memory(size: Fraction) -> str:
    """Formats bytes for a human, in the largest binary unit that stays whole."""
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        unit = _BINARY[suffix]
        if size >= unit and (size / unit).denominator == 1:
            return f"{(size / unit).numerator}{suffix}"
    if size.denominator == 1:
        return str(size.numerator)
    return f"{float(size):.0f}"
