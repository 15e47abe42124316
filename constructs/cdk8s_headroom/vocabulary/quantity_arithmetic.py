"""How much a Kubernetes quantity is: exactly, and as the scheduler counts it.

Quantities compare as Kubernetes compares them: CPU in whole milli-units and memory in
whole bytes, each rounded up (the API server keeps at most nano precision and rounds
up; the scheduler counts ``MilliValue`` for CPU and ``Value`` for memory).

Below the rule language (``rule_language.AtMost`` compares with ``amount``), so this
module imports nothing of the package: which texts are quantities is the grammar
``rules.QUANTITY_SYNTAX``'s to say, not this module's.
"""

from __future__ import annotations

import functools
import math
import re
from enum import Enum
from fractions import Fraction

DECIMAL_SUFFIXES = {"m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
BINARY_SUFFIXES = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
"""Powers of ten, and of 1024, of each suffix."""


class Resource(Enum):
    """A resource whose quantities the scheduler counts; the value is the power of ten
    of its unit (milli-units for CPU, bytes for memory)."""

    CPU = 3
    MEMORY = 0


@functools.lru_cache(maxsize=4096)  # the same few quantities, judged by many rules
def exact_amount(text: str) -> Fraction:
    """The exact value of a quantity that ``rules.QUANTITY_SYNTAX`` accepts (cores, bytes)."""
    match = re.fullmatch(r"([+-]?[0-9.]+)(.*)", text)
    assert match is not None, text
    number, suffix = Fraction(match[1]), match[2]
    if suffix in BINARY_SUFFIXES:
        return number * 1024 ** BINARY_SUFFIXES[suffix]  # type: ignore[no-any-return]
    exponent = DECIMAL_SUFFIXES[suffix] if suffix in DECIMAL_SUFFIXES else int(suffix[1:])
    return number * Fraction(10) ** exponent


def amount(text: str, resource: Resource) -> int:
    """The quantity in the resource's unit, rounded up, as the scheduler counts it."""
    return math.ceil(exact_amount(text) * 10**resource.value)
