"""Kubernetes resource quantities: parsing, validation and comparison.

The grammar is the one of ``k8s.io/apimachinery/pkg/api/resource``::

    <quantity> ::= <signedNumber><suffix>
    <suffix>   ::= Ki | Mi | Gi | Ti | Pi | Ei | m | "" | k | M | G | T | P | E
                 | e<signedNumber> | E<signedNumber>

The grammar is ``rules.QUANTITY`` and the comparisons are ``quantity_arithmetic``'s;
values are kept as exact fractions, so ``"0.5"`` and ``"500m"`` compare equal.

A user's quantity is judged once, where it enters the library (a construct's prop, a
chart value), into a ``Quantity``; the layers after that boundary take it as it is (as
cdk8s-plus makes a ``Cpu`` once and lightkube a Decimal once).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import NamedTuple, Protocol, runtime_checkable

from cdk8s_headroom.vocabulary import rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown, warn
from cdk8s_headroom.vocabulary.quantity_arithmetic import BINARY_SUFFIXES, exact_amount
from cdk8s_headroom.vocabulary.rule_language import Grammar


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

_BINARY = {suffix: 1024**power for suffix, power in BINARY_SUFFIXES.items()}


_NOT_A_NUMBER = (
    'a string such as "500m" or "1" for CPU, "512Mi" for memory: quantities are strings, '
    "so that the unit is written, never implied"
)


@dataclasses.dataclass(frozen=True, repr=False)
class Quantity:
    """A quantity greater than zero, judged once from the user's value.

    Made where the value enters the library (``Quantity.positive``, ``Quantity.memory``);
    a prop typed ``QuantityLike`` takes it too (it renders itself, as a ``cdk8s.Size``
    does), and ``quantity_text``, ``positive_quantity`` and ``memory_quantity`` read it
    without parsing it again. A message shows it as the user gave it.

    Attributes:
        text: the quantity as Kubernetes receives it, e.g. ``"500m"``.
        amount: its exact value: cores for CPU, bytes for memory.
        given: the value as the user gave it, which messages show.
    """

    text: str
    amount: Fraction
    given: object = dataclasses.field(compare=False)

    @classmethod
    def positive(cls, value: QuantityLike | None, *, field: str) -> Quantity:
        """``value`` judged by ``rules.QUANTITY``, named ``field`` in an error."""
        if isinstance(value, Quantity):
            return value
        text = quantity_text(value, field=field)
        return cls(text, exact_amount(text), value)

    @classmethod
    def memory(cls, value: QuantityLike | None, *, field: str) -> Quantity:
        """A container's memory (a slice or a request): ``positive``, and at least 4Mi."""
        judged = cls.positive(value, field=field)
        check_container_memory(judged.text, field=field, value=judged.given)
        return judged

    def as_string(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return shown(self.given)


class SliceSpec(NamedTuple):
    """A reserver's slice per node, both quantities judged once (``Quantity.positive``,
    ``Quantity.memory``)."""

    cpu: Quantity
    memory: Quantity


def checked_text(value: object, *, field: str, grammar: Grammar = rules.QUANTITY) -> str:
    """The quantity as Kubernetes receives it: a string as given (stripped) that
    ``grammar`` accepts; anything else is refused with what ``grammar`` allows (the
    chart's check, which turns a ``--set`` number into its digits first). A quantity the
    library emits (``rules.QUANTITY``) is at most ``rules.QUANTITY_CAP``; one read from a
    manifest (``rules.QUANTITY_SYNTAX``) is not capped: the API server took it, cut."""
    text = grammar.check(value, field=field, text=value.strip() if isinstance(value, str) else None)
    if grammar is rules.QUANTITY:
        rules.QUANTITY_CAP.check(field, value, quantity=text)
    return text


def quantity_text(
    value: QuantityLike | None, *, field: str, grammar: Grammar = rules.QUANTITY
) -> str:
    """Returns the quantity as the string Kubernetes receives; default: one greater than
    zero (``rules.QUANTITY``). A number is refused: the library's quantities are strings
    (the Helm chart turns a ``--set`` number into its digits before this rule). A
    ``Quantity`` passed these rules when it was made: its text, not parsed again."""
    if isinstance(value, Quantity) and grammar in (rules.QUANTITY, rules.QUANTITY_SYNTAX):
        return value.text
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise HeadroomConfigError(field, value, _NOT_A_NUMBER)
    if isinstance(value, SizeLike):
        value = str(value.as_string())
    elif isinstance(value, CpuLike):
        value = str(value.amount)
    return checked_text(value, field=field, grammar=grammar)


def parse_quantity(value: QuantityLike | None, *, field: str) -> Fraction:
    """Parses a quantity into an exact number (cores for CPU, bytes for memory)."""
    return exact_amount(quantity_text(value, field=field, grammar=rules.QUANTITY_SYNTAX))


def positive_quantity(value: QuantityLike | None, *, field: str) -> tuple[str, Fraction]:
    """Validates a quantity that must be greater than zero.

    Returns the text to emit and its exact value.
    """
    judged = Quantity.positive(value, field=field)
    return judged.text, judged.amount


def memory_quantity(value: QuantityLike | None, *, field: str) -> tuple[str, Fraction]:
    """Validates a container's memory (a slice or a request): at least 4Mi.

    Returns the text to emit and its exact value, in bytes.
    """
    judged = Quantity.memory(value, field=field)
    return judged.text, judged.amount


def check_container_memory(text: str, *, field: str, value: object) -> None:
    """``rules.CONTAINER_MEMORY`` on a memory slice or request that ``rules.QUANTITY``
    accepted (``text``); the error shows ``value``, as given."""
    hint = rules.BARE_BYTES_HINT.format(text=text) if text.isdigit() else ""
    rules.CONTAINER_MEMORY.check(field, value, memory=text, hint=hint)


def warn_if_cores_look_like_millicores(value: QuantityLike, *, field: str) -> None:
    """Warns when a CPU slice is a bare integer of ``rules.BARE_CORES_WARNING`` cores or
    more (``rules.BARE_CORES``): ``"500"`` is 500 cores per node, where ``"500m"`` was
    almost surely meant. Called only where the pool's node sizes are unknown; known sizes
    refuse such a slice."""
    text = quantity_text(value, field=field)
    # The count its digits make, as the message shows it (read only when they are digits)
    message = rules.BARE_CORES.broken(at=field, text=text, cores=text.lstrip("0") or "0")
    if message is not None:
        warn(message)


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
