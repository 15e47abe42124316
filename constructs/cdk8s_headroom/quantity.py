"""Kubernetes resource quantities: parsing, validation and comparison.

The grammar is the one of ``k8s.io/apimachinery/pkg/api/resource``::

    <quantity> ::= <signedNumber><suffix>
    <suffix>   ::= Ki | Mi | Gi | Ti | Pi | Ei | m | "" | k | M | G | T | P | E
                 | e<signedNumber> | E<signedNumber>

Values are kept as exact fractions, so ``"0.5"`` and ``"500m"`` compare equal.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Protocol, runtime_checkable

from .errors import HeadroomConfigError, warn


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

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
# ASCII digits only: Python's \d, and Fraction, also take "١٢" (Arabic-Indic 12),
# which the API server rejects.
_QUANTITY = re.compile(
    r"(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?"
)
_ALLOWED = (
    "a Kubernetes quantity: a number with an optional suffix m, k, M, G, T, P, E, "
    'Ki, Mi, Gi, Ti, Pi, Ei or an exponent e<n>, e.g. "500m", "0.5", "512Mi", "1Gi"'
)


_NOT_A_NUMBER = (
    'a string such as "500m" or "1" for CPU, "512Mi" for memory: quantities are strings, '
    "so that the unit is written, never implied"
)

MIN_CONTAINER_MEMORY = Fraction(4 * 2**20)
"""4Mi: less memory than any container starts with. A smaller slice or request is almost
surely a missing unit (``"512"`` is 512 bytes)."""

BARE_CORES_WARNING = 64
"""A bare-integer CPU slice of this many cores or more is almost surely meant as
millicores (``"500"`` is 500 cores), unless the pool's node sizes say it fits."""

_BARE_INTEGER = re.compile(r"[0-9]+")


def quantity_text(value: QuantityLike | None, *, field: str) -> str:
    """Returns the quantity as the string Kubernetes receives, without parsing it."""
    if isinstance(value, bool):
        raise HeadroomConfigError(field, value, _ALLOWED)
    if isinstance(value, int | float):
        raise HeadroomConfigError(field, value, _NOT_A_NUMBER)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, SizeLike):
        return str(value.as_string())
    if isinstance(value, CpuLike):
        return str(value.amount)
    raise HeadroomConfigError(field, value, _ALLOWED)


def parse_quantity(value: QuantityLike | None, *, field: str) -> Fraction:
    """Parses a quantity into an exact number (cores for CPU, bytes for memory)."""
    text = quantity_text(value, field=field)
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise HeadroomConfigError(field, value, _ALLOWED)
    number = Fraction(match["number"])
    suffix = match["suffix"] or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix in _DECIMAL:
        return number * _DECIMAL[suffix]
    exponent = int(suffix[1:])
    if abs(exponent) > 64:
        raise HeadroomConfigError(field, value, "an exponent between e-64 and e64")
    return number * Fraction(10) ** exponent


def positive_quantity(value: QuantityLike | None, *, field: str) -> tuple[str, Fraction]:
    """Validates a quantity that must be greater than zero.

    Returns the text to emit and its exact value.
    """
    amount = parse_quantity(value, field=field)
    if amount <= 0:
        raise HeadroomConfigError(field, value, "a quantity greater than zero")
    return quantity_text(value, field=field), amount


def memory_quantity(value: QuantityLike | None, *, field: str) -> tuple[str, Fraction]:
    """Validates a container's memory (a slice or a request): at least 4Mi.

    Returns the text to emit and its exact value, in bytes.
    """
    text, amount = positive_quantity(value, field=field)
    if amount < MIN_CONTAINER_MEMORY:
        hint = (
            f'did you mean "{text}Mi"? a number without a unit is bytes; '
            if _BARE_INTEGER.fullmatch(text)
            else ""
        )
        raise HeadroomConfigError(
            field, value, f"{hint}a memory of at least 4Mi, the least a container starts with"
        )
    return text, amount


def warn_if_cores_look_like_millicores(value: QuantityLike, *, field: str) -> None:
    """Warns when a CPU slice is a bare integer of ``BARE_CORES_WARNING`` cores or more:
    ``"500"`` is 500 cores per node, where ``"500m"`` was almost surely meant. Called
    only where the pool's node sizes are unknown; known sizes refuse such a slice."""
    text = quantity_text(value, field=field)
    if _BARE_INTEGER.fullmatch(text) and int(text) >= BARE_CORES_WARNING:
        warn(
            f'{field}: {text!r} is {int(text)} cores per node; did you mean "{text}m"? '
            "(the pool's node sizes are unknown, so the slice is not checked against them)"
        )


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
