"""Cron expressions, as Kubernetes CronJobs and Karpenter budgets parse them, and when
they fire.

Both parse with robfig/cron's standard parser (``cron.ParseStandard``: five fields or a
macro; kubernetes ``pkg/apis/batch/validation/validation.go`` ``validateScheduleFormat``,
Karpenter's budget schedules). ``check_cron`` judges the text; ``CronExpression`` also
says which minutes it fires at, following robfig/cron ``parser.go`` ``getRange`` (a
``*`` or ``?`` field is "any", a step turns it into a list) and ``spec.go``
``dayMatches`` (when both day fields are restricted, either may match, as in Vixie
cron; when one is ``*`` or ``?``, both must).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.places import fill

CRON_MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
"""robfig/cron ``parser.go`` ``parseDescriptor``: each macro and the five fields it means."""
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_CRON_FIELDS: tuple[tuple[str, int, int, tuple[str, ...]], ...] = (
    ("minute", 0, 59, ()),
    ("hour", 0, 23, ()),
    ("day of month", 1, 31, ()),
    ("month", 1, 12, _MONTHS),
    ("day of week", 0, 6, _WEEKDAYS),
)
# re.ASCII: robfig/cron reads numbers with Go's strconv.Atoi, ASCII digits only, where
# Python's \w and int() take any script's (Arabic-Indic U+0660, full-width U+FF10).
CRON_PART = r"^(?:(?P<any>[*?])|(?P<low>\w+)(?:-(?P<high>\w+))?)(?:/(?P<step>\d+))?$"
"""One part of a field (between commas); the chart's windows unit matches it with RE2,
whose \\w and \\d are ASCII and whose $ is the end of the text, as fullmatch here."""
_CRON_PART = re.compile(CRON_PART, re.ASCII)
CRON_ALLOWED = (
    "a cron expression of five fields (minute 0-59, hour 0-23, day of month 1-31, "
    "month 1-12 or jan-dec, day of week 0-6 or sun-sat), each *, ?, a value, a range "
    f"a-b, a step /n or a list of those, e.g. '0 9 * * mon-fri'; or one of "
    f"{', '.join(CRON_MACROS)}"
)

FIELD_REFUSED = " (the {name} field {text} is not)"
"""Said after ``CRON_ALLOWED`` of the first field robfig refuses, and its text, shown."""


def check_cron(value: object, *, field: str) -> str:
    """A cron expression as robfig/cron's standard parser takes it (five fields or a
    macro, no time zone in the text, no ``@every``); refused with the field's name."""
    CronExpression.parse(value, field=field)
    assert isinstance(value, str)
    return value


@dataclass(frozen=True)
class CronExpression:
    """A parsed cron expression: the values each field allows."""

    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days_of_month: frozenset[int]
    months: frozenset[int]
    days_of_week: frozenset[int]
    any_day_of_month: bool
    any_day_of_week: bool

    @staticmethod
    def parse(value: object, *, field: str) -> CronExpression:
        if not isinstance(value, str):
            raise HeadroomConfigError(field, value, CRON_ALLOWED)
        fields = CRON_MACROS.get(value, value).split(" ")
        if len(fields) != len(_CRON_FIELDS):
            raise HeadroomConfigError(field, value, CRON_ALLOWED)
        allowed: list[frozenset[int]] = []
        any_value: list[bool] = []
        for text, (name, low, high, words) in zip(fields, _CRON_FIELDS, strict=True):
            values: set[int] = set()
            star = False
            for part in text.split(","):
                expanded = _expand(part, low, high, words)
                if expanded is None:
                    refused = fill(FIELD_REFUSED, {"name": name, "text": shown(text)})
                    raise HeadroomConfigError(field, value, CRON_ALLOWED + refused)
                values |= expanded[0]
                star = star or expanded[1]
            allowed.append(frozenset(values))
            any_value.append(star)
        minutes, hours, days_of_month, months, days_of_week = allowed
        return CronExpression(
            value, minutes, hours, days_of_month, months, days_of_week, any_value[2], any_value[4]
        )

    def fires_on(self, day: datetime) -> bool:
        """Whether the expression fires on ``day``'s date (robfig/cron ``dayMatches``)."""
        if day.month not in self.months:
            return False
        on_month_day = day.day in self.days_of_month
        on_week_day = day.isoweekday() % 7 in self.days_of_week
        if self.any_day_of_month or self.any_day_of_week:
            return on_month_day and on_week_day
        return on_month_day or on_week_day

    def fires_at(self, when: datetime) -> bool:
        """Whether the expression fires at ``when``'s minute, in ``when``'s wall clock."""
        return when.minute in self.minutes and when.hour in self.hours and self.fires_on(when)

    def minutes_of_day(self) -> list[int]:
        """The minutes after midnight it fires at, on a day it fires on, in order."""
        return sorted(h * 60 + m for h in self.hours for m in self.minutes)


def _expand(part: str, low: int, high: int, words: tuple[str, ...]) -> tuple[set[int], bool] | None:
    """The values ``part`` allows and whether it is "any" (robfig/cron ``getRange``'s
    star bit: ``*`` or ``?`` without a step over 1); ``None`` if robfig refuses it."""
    match = _CRON_PART.fullmatch(part)  # match's $ would let a trailing newline by
    # A step of 0 in any spelling ("00" too): robfig reads it with strconv.Atoi
    if match is None or (match["step"] and int(match["step"]) == 0):
        return None
    step = int(match["step"]) if match["step"] else 1

    def number(text: str) -> int | None:
        if text.isascii() and text.isdigit():
            return int(text)
        lowered = text.lower()
        return words.index(lowered) + low if lowered in words else None

    if match["any"]:
        return set(range(low, high + 1, step)), step == 1
    start = number(match["low"])
    if match["high"] is not None:
        end = number(match["high"])
    elif match["step"]:
        end = high  # "N/step" means "N-max/step"
    else:
        end = start
    if start is None or end is None or not low <= start <= end <= high:
        return None
    return set(range(start, end + 1, step)), False
