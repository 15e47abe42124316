"""Validation of Kubernetes names, label keys and label values (``rules``' grammars),
and of the plain values props are made of: integers, strings, sequences and enum members."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import TypeVar

from cdk8s_headroom.vocabulary import placement_rules, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.rules import INT32_MAX as INT32_MAX
from cdk8s_headroom.vocabulary.rules import INT32_MIN as INT32_MIN

DNS_LABEL_MAX = 63


def dns_label(value: object, *, field: str) -> str:
    """A DNS-1123 label: lowercase alphanumerics and '-', at most 63 characters."""
    return rules.DNS_LABEL.check(value, field=field)


def dns_subdomain(value: object, *, field: str) -> str:
    """A DNS-1123 subdomain: dot-separated DNS labels, at most 253 characters."""
    return rules.DNS_SUBDOMAIN.check(value, field=field)


def label_key(value: object, *, field: str) -> str:
    """A qualified label key: an optional DNS subdomain prefix and '/', then a name."""
    return rules.LABEL_KEY.check(value, field=field)


def label_value(value: object, *, field: str) -> str:
    """A label value: empty, or at most 63 letters, digits, '-', '_' or '.'."""
    return rules.LABEL_VALUE.check(value, field=field)


def labels(value: Mapping[str, str] | None, *, field: str) -> dict[str, str]:
    """Validates a label map (or a nodeSelector), returning a sorted copy."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise HeadroomConfigError(field, value, "a mapping of label keys to label values")
    return {
        label_key(key, field=f"{field}[{shown(key)}]"): label_value(
            val, field=f"{field}[{shown(key)}]"
        )
        for key, val in sorted(value.items(), key=lambda item: str(item[0]))
    }


# What YAML 1.2 cannot carry unescaped (the complement of its c-printable set, tab, LF,
# CR, 0x20-0x7E, 0x85, 0xA0-0xD7FF, 0xE000-0xFFFD, 0x10000-0x10FFFF): cdk8s writes strings
# as they are, and a control character makes the whole file unreadable to kubectl.
# Written as the complement's ranges: a negated class that spans the astral planes takes
# re about 3 ms to compile, a tenth of the simulator's start-up.
_YAML_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"
)


# Line breaks in YAML 1.1 (libyaml, PyYAML) but not in YAML 1.2 (cdk8s's writer), which
# leaves them unquoted: a reader then splits or rejects the string.
_YAML_11_BREAKS = re.compile("[\x85\u2028\u2029]")


def text(value: object, *, field: str) -> str:
    """A string that survives cdk8s's YAML and libyaml-based readers unchanged: no
    control characters but tab and newline, and no tab in a one-line string (cdk8s
    writes it unquoted, which libyaml rejects)."""
    if not isinstance(value, str):
        raise HeadroomConfigError(field, value, "a string")
    bad = _YAML_UNPRINTABLE.search(value) or _YAML_11_BREAKS.search(value)
    if bad:
        raise HeadroomConfigError(
            field,
            value,
            f"a string without control characters or unusual line breaks (found "
            f"{shown(bad.group())}); use \\n for a new line",
        )
    if "\t" in value and "\n" not in value:
        raise HeadroomConfigError(
            field,
            value,
            "a one-line string without tabs (cdk8s writes it unquoted and YAML readers "
            "such as PyYAML reject it); use spaces",
        )
    return value


def int32(value: object, *, field: str, minimum: int = INT32_MIN, maximum: int = INT32_MAX) -> int:
    """An integer within [minimum, maximum] (booleans are not integers here)."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise HeadroomConfigError(field, value, f"an integer from {minimum} to {maximum}")
    return value


INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

_SHOWN_DIGITS = 40
"""The most characters of a refused number that a message shows."""


def int_text(
    text: object, *, field: str, minimum: int = INT64_MIN, maximum: int = INT64_MAX
) -> int:
    """An integer written as text (a command-line value, a number quoted in a file),
    within [minimum, maximum] (default: int64, as ``strconv.ParseInt(s, 10, 64)``).

    The grammar is strconv.ParseInt's (``placement_rules.INTEGER``): an optional sign and ASCII
    digits. Python's ``int()`` also takes other scripts' digits (Arabic-Indic,
    full-width), underscores and spaces, and fails with a plain ``ValueError`` on
    ``'²'`` (a digit to ``str.isdigit``, not to ``int``) and beyond 4300 digits; a text
    with more digits than the bounds have is refused before it is converted.
    """
    allowed = f"an integer from {minimum} to {maximum}, in ASCII digits"
    if not isinstance(text, str) or not placement_rules.INTEGER.matches(text):
        raise HeadroomConfigError(field, _shortened(text), allowed)
    widest = max(len(str(abs(minimum))), len(str(abs(maximum))))
    if len(text.lstrip("+-").lstrip("0")) > widest:
        raise HeadroomConfigError(field, _shortened(text), allowed)
    value = int(text)
    if not minimum <= value <= maximum:
        raise HeadroomConfigError(field, text, allowed)
    return value


def _shortened(value: object) -> object:
    if isinstance(value, str) and len(value) > _SHOWN_DIGITS:
        return f"{value[:_SHOWN_DIGITS]}... ({len(value)} characters)"
    return value


_E = TypeVar("_E", bound=Enum)


def member(value: object, enum: type[_E], *, field: str) -> _E:
    """``value`` when it is a member of ``enum``; the error lists the members."""
    if isinstance(value, enum):
        return value
    allowed = ", ".join(f"{enum.__name__}.{item.name}" for item in enum)
    raise HeadroomConfigError(field, value, f"one of {allowed}")


def sequence(value: object, *, field: str, allowed: str) -> tuple[object, ...]:
    """A list or tuple as a tuple; a string, which is a sequence of characters, is not."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise HeadroomConfigError(field, value, allowed)
    return tuple(value)


CLUSTER_SCOPED_KINDS = frozenset(
    {
        "Node",
        "PriorityClass",
        "Namespace",
        "NodePool",
        "EC2NodeClass",
        "NodeClass",
        "ClusterRole",
        "ClusterRoleBinding",
    }
)
"""The cluster-scoped kinds this library emits or reads: their objects have no namespace,
so a name is unique per kind across the cluster."""
