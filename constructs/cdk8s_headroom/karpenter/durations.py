"""Karpenter's durations and budget schedules, checked as Karpenter parses them.

Plain Python, like the vocabulary: a ``cdk8s.Duration`` is recognised by its
``to_milliseconds`` (``MillisecondsLike``), as ``vocabulary.quantity`` recognises a
``cdk8s.Size``, so checking a duration or a cron expression never starts Node.
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable

from cdk8s_headroom.vocabulary.durations import DURATION, DURATION_PART, duration_seconds
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown


@runtime_checkable
class MillisecondsLike(Protocol):
    """A length of time that gives its milliseconds, such as ``cdk8s.Duration``."""

    def to_milliseconds(self) -> float: ...


# A protocol rather than cdk8s.Duration: importing cdk8s for an isinstance would start
# Node for every reader of a duration.
DurationLike = str | MillisecondsLike
"""A Karpenter duration: a string such as ``"1m"``, ``"720h"``, ``"1h30m"`` or ``"Never"``,
or a ``cdk8s.Duration`` of whole seconds."""

# re.ASCII throughout: Go's parsers (time.ParseDuration, robfig/cron's strconv.Atoi)
# read ASCII digits only, where Python's \d, \w and int() take any script's
# (Arabic-Indic U+0660, full-width U+FF10).
_BUDGET_DURATION = re.compile(r"^(?:\d+h|\d+m|\d+h\d+m)$", re.ASCII)

_CRON_MACROS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_CRON_FIELDS: tuple[tuple[str, int, int, tuple[str, ...]], ...] = (
    ("minute", 0, 59, ()),
    ("hour", 0, 23, ()),
    ("day of month", 1, 31, ()),
    ("month", 1, 12, _MONTHS),
    ("day of week", 0, 6, _WEEKDAYS),
)
_CRON_PART = re.compile(
    r"^(?:(?P<any>[*?])|(?P<low>\w+)(?:-(?P<high>\w+))?)(?:/(?P<step>\d+))?$", re.ASCII
)


def check_cron(value: object, *, field: str) -> str:
    """A cron expression as Karpenter parses budget schedules (robfig/cron's standard
    parser: five fields or a macro, no time zone, no ``@every``)."""
    allowed = (
        "a cron expression of five fields (minute 0-59, hour 0-23, day of month 1-31, "
        "month 1-12 or jan-dec, day of week 0-6 or sun-sat), each *, ?, a value, a range "
        f"a-b, a step /n or a list of those, e.g. '0 9 * * mon-fri'; or one of "
        f"{', '.join(_CRON_MACROS)}"
    )
    if not isinstance(value, str):
        raise HeadroomConfigError(field, value, allowed)
    if value in _CRON_MACROS:
        return value
    fields = value.split(" ")
    if len(fields) != len(_CRON_FIELDS):
        raise HeadroomConfigError(field, value, allowed)
    for text, (name, low, high, words) in zip(fields, _CRON_FIELDS, strict=True):
        for part in text.split(","):
            if not _cron_part_ok(part, low, high, words):
                raise HeadroomConfigError(
                    field, value, f"{allowed} (the {name} field {shown(text)} is not)"
                )
    return value


def _cron_part_ok(part: str, low: int, high: int, words: tuple[str, ...]) -> bool:
    match = _CRON_PART.fullmatch(part)  # match's $ would let a trailing newline by
    if match is None or match["step"] == "0":
        return False
    if match["any"]:
        return True

    def number(text: str) -> int | None:
        if text.isascii() and text.isdigit():
            return int(text)
        lowered = text.lower()
        return words.index(lowered) + low if lowered in words else None

    start = number(match["low"])
    end = start if match["high"] is None else number(match["high"])
    return start is not None and end is not None and low <= start <= end <= high


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
