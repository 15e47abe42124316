"""Karpenter's durations and budget schedules, checked as Karpenter parses them.

Plain Python, like the vocabulary: a ``cdk8s.Duration`` is recognised by its
``to_milliseconds`` (``MillisecondsLike``), as ``vocabulary.quantity`` recognises a
``cdk8s.Size``, so checking a duration or a cron expression never starts Node.
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable

from cdk8s_headroom.vocabulary.cron import check_cron as check_cron
from cdk8s_headroom.vocabulary.durations import DURATION, DURATION_PART, duration_seconds
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError


@runtime_checkable
class MillisecondsLike(Protocol):
    """A length of time that gives its milliseconds, such as ``cdk8s.Duration``."""

    def to_milliseconds(self) -> float: ...


# A protocol rather than cdk8s.Duration: importing cdk8s for an isinstance would start
# Node for every reader of a duration.
DurationLike = str | MillisecondsLike
"""A Karpenter duration: a string such as ``"1m"``, ``"720h"``, ``"1h30m"`` or ``"Never"``,
or a ``cdk8s.Duration`` of whole seconds."""

# re.ASCII: Go's time.ParseDuration reads ASCII digits only, where Python's \d takes
# any script's (Arabic-Indic U+0660, full-width U+FF10).
_BUDGET_DURATION = re.compile(r"^(?:\d+h|\d+m|\d+h\d+m)$", re.ASCII)


def budget_duration(value: DurationLike, *, field: str) -> str:
    """A budget's duration: hours and minutes only (cron has no seconds), at least 1m."""
    allowed = (
        'a duration of at least a minute in hours and minutes, e.g. "30m", "8h" or "1h30m", '
        "or a cdk8s.Duration of whole minutes"
    )
    if isinstance(value, MillisecondsLike):
        millis = int(value.to_milliseconds())
        if millis <= 0 or millis % 60000:
            raise HeadroomConfigError(field, f"{millis}ms", allowed)
        hours, minutes = divmod(millis // 60000, 60)
        return (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "")
    if not isinstance(value, str) or not _BUDGET_DURATION.fullmatch(value):
        raise HeadroomConfigError(field, value, allowed)
    if not any(int(n) for n, _ in DURATION_PART.findall(value)):
        raise HeadroomConfigError(field, value, allowed)
    return value


def parse_duration(value: DurationLike, *, field: str) -> tuple[str, int | None]:
    """The Karpenter text of a duration and its seconds (``None`` for ``Never``)."""
    allowed = (
        'a duration in hours, minutes and seconds such as "30s", "1m", "720h" or "1h30m", '
        '"Never", or a cdk8s.Duration of whole seconds'
    )
    if isinstance(value, MillisecondsLike):
        millis = int(value.to_milliseconds())
        if millis % 1000:
            raise HeadroomConfigError(field, f"{millis}ms", allowed)
        seconds = millis // 1000
        for suffix, size in (("h", 3600), ("m", 60)):
            if seconds and seconds % size == 0:
                return f"{seconds // size}{suffix}", seconds
        return f"{seconds}s", seconds
    if value == "Never":
        return value, None
    if not isinstance(value, str) or not DURATION.fullmatch(value):
        raise HeadroomConfigError(field, value, allowed)
    return value, duration_seconds(value)
