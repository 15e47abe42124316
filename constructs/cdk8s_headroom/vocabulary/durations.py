"""Durations as Go's ``time.ParseDuration`` reads them in hours, minutes and seconds:
Karpenter's fields (``karpenter/durations.py``) and kubectl's flags
(``--request-timeout``) are both read that way; and Prometheus' durations
(``PROMETHEUS_DURATION``, a grammar of ``rules``).

re.ASCII: Go reads ASCII digits only, where Python's \\d and int() take any script's
(Arabic-Indic U+0660, full-width U+FF10).
"""

from __future__ import annotations

import re

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.rule_language import Clause, Grammar

DURATION = re.compile(r"^(?:(\d+)(s|m|h))+$", re.ASCII)
"""A duration such as ``30s``, ``2m``, ``720h`` or ``1h30m``."""

DURATION_PART = re.compile(r"(\d+)(s|m|h)", re.ASCII)
SECONDS = {"s": 1, "m": 60, "h": 3600}
_WHOLE_SECONDS = re.compile(r"^[0-9]{1,9}$", re.ASCII)


def duration_seconds(text: str) -> int:
    """The seconds of a text that ``DURATION`` matches."""
    return sum(int(n) * SECONDS[unit] for n, unit in DURATION_PART.findall(text))


def flag_duration(value: str, *, field: str, zero: str | None = None) -> int:
    """The seconds of a command-line duration as kubectl reads one (its
    ``--request-timeout``): ``30s``, ``2m``, ``1h30m``, or whole seconds (``30``).
    ``zero`` says what 0 means where the flag takes it; else 0 is refused."""
    seconds = None
    if _WHOLE_SECONDS.match(value):
        seconds = int(value)
    elif DURATION.match(value):
        seconds = duration_seconds(value)
    if seconds is None or (seconds == 0 and zero is None):
        allowed = "a duration as kubectl takes one: 30s, 2m, 1h30m, or seconds (30)"
        raise HeadroomConfigError(field, value, allowed + (f"; 0 {zero}" if zero else ""))
    return seconds


PROMETHEUS_DURATION = Grammar(
    "prometheusDuration",
    (
        Clause(
            r"(?:[0-9]+y)?(?:[0-9]+w)?(?:[0-9]+d)?(?:[0-9]+h)?(?:[0-9]+m)?(?:[0-9]+s)?"
            r"(?:[0-9]+ms)?",
            'a Prometheus duration such as "30s", "5m" or "1h30m" (units y, w, d, h, m, '
            "s, ms, largest first, ASCII digits)",
        ),
        Clause(
            r"(?:0+(?:y|w|d|h|m|s|ms))*",
            "a duration longer than zero: an alert that fires at once pages on every blip",
            forbid=True,
        ),
    ),
)
"""Prometheus' duration grammar (prometheus/common ``model/time.go``, ``ParseDuration``),
as the ``for:`` of an alerting rule takes it."""
