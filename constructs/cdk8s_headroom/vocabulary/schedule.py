"""When headroom is held: ``HeadroomSchedule``, cron windows in a time zone.

A window opens each time its cron expression fires and stays open ``minutes``; the
schedule's ``time_zone`` is the CronJob's ``timeZone``. Both are judged as the API
server judges a CronJob (kubernetes ``pkg/apis/batch/validation/validation.go``,
``validateScheduleFormat`` and ``validateTimeZone``), so a schedule this module takes is
one Kubernetes takes. Windows are read on the zone's wall clock, as the CronJob
controller fires them (``pkg/controller/cronjob/utils.go``, ``mostRecentScheduleTime``
with the ``timeZone`` location): a window that opens at 08:00 opens at 08:00 local time
on both sides of a daylight-saving change.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from cdk8s_headroom.vocabulary import names, rules
from cdk8s_headroom.vocabulary.cron import CronExpression
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.places import fill
from cdk8s_headroom.vocabulary.time_zones import TZDATA_VERSION, ZONES

MAX_WINDOW_MINUTES = rules.WINDOW_MINUTES.maximum
"""The longest window: a month. A longer one is the whole time, which needs no schedule."""
DEFAULT_TIME_ZONE = "Etc/UTC"
OVERLAP_SPAN_DAYS = 366 + 31
"""How far ahead windows are laid out to find overlaps: a leap year (every day of the
month and of the week meets every month once) and the longest window after it."""
SPAN_START = datetime(2028, 1, 1)  # a leap year
ZONE_PART = r"^[A-Za-z.\-_0-9+]{1,14}$"
_ZONE_PART = re.compile(ZONE_PART, re.ASCII)
"""``validTimeZoneCharacters``: one part of an IANA name, as the API server takes it."""
ZONE_ALLOWED = (
    "an IANA time zone name as a CronJob's timeZone takes it, e.g. 'Europe/Berlin' or "
    "'Etc/UTC' (not 'Local': the controller's zone is not written in the manifest)"
)
UNKNOWN_ZONE = f" (not a zone of the IANA database, tzdata {TZDATA_VERSION})"
"""Said after ``ZONE_ALLOWED`` of a well-formed name that no zone has (``time_zones``)."""
# The messages of a schedule's refusals, which the chart's windows unit says too
# (helm/windows.py): a place in braces is the window's name or time, shown.
WINDOWS_ALLOWED = (
    "a non-empty list of HeadroomWindow, e.g. "
    "[HeadroomWindow(schedule='0 8 * * mon-fri', minutes=600)]"
)
DISTINCT_NAMES = "a name no other window has"
NEVER_FIRES = "a schedule that fires: this one names no date that exists (e.g. 30 feb)"
OVERLAP = "{name} at {opens}"
"""The value an overlap shows: the window that opens, and when."""
OVERLAP_ALLOWED = (
    "windows that are never open at once: window {name} opens while {other} is still "
    "open (until {until}); shorten it or move it"
)
OWN_OPENING = "its own previous opening"
OTHER_WINDOW = "window {holder}"
UNNAMED = "window-{n}"
"""An unnamed window's name: its position in the schedule, from 1."""
DESCRIBED = "{name} ({schedule} for {minutes} min)"
DESCRIBED_IN = "{windows} in {zone}"
"""``describe``: each window (``DESCRIBED``), joined with ``, ``, and the zone."""
CLOCK = "%a %Y-%m-%d %H:%M"
"""How a message writes a time on the schedule's wall clock."""


@dataclass(frozen=True)
class HeadroomWindow:
    """A time when headroom is held: from each time ``schedule`` fires, for ``minutes``.

    Args:
        schedule: when the window opens, as a CronJob's ``schedule``: five fields
            (minute, hour, day of month, month, day of week), each ``*``, ``?``, a
            number or name, a range ``a-b``, a step ``/n`` or a list of those, e.g.
            ``"0 8 * * mon-fri"``; or a macro (``@daily``, ``@weekly``, ...). The time
            zone is the schedule's (``HeadroomSchedule.time_zone``), never ``TZ=`` in
            the text.
        minutes: how long the window stays open, from 1 to 44640 (31 days).
        name: the window's name, in the names of its objects and in ``plan`` and
            ``status``. Default: ``window-<n>``, its position in the schedule from 1.
    """

    schedule: str
    minutes: int
    name: str | None = None
    cron: CronExpression = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "cron", CronExpression.parse(self.schedule, field="windows.schedule")
        )
        rules.WINDOW_MINUTES.check(self.minutes, field="windows.minutes")
        if self.name is not None:
            names.dns_label(self.name, field="windows.name")


@dataclass(frozen=True)
class OpenWindow:
    """A window in force (or the next one): its name, when it opened and when it closes,
    on the schedule's wall clock."""

    name: str
    opens: datetime
    closes: datetime

    def describe(self) -> str:
        return f"{self.name} ({_clock(self.opens)} to {_clock(self.closes)})"


@dataclass(frozen=True)
class HeadroomSchedule:
    """When headroom is held: only inside its windows, released outside them.

    Args:
        windows: the ``HeadroomWindow`` s, at least one; no two may be open at once
            (nor one window's next opening before it closes), so at most one is in
            force at any time.
        time_zone: the zone the windows' clocks read, as a CronJob's ``timeZone``.
            Default: ``Etc/UTC``.
    """

    windows: Sequence[HeadroomWindow]
    time_zone: str = DEFAULT_TIME_ZONE

    def __post_init__(self) -> None:
        windows = self.windows
        if isinstance(windows, (str, bytes)) or not isinstance(windows, Sequence) or not windows:
            raise HeadroomConfigError("windows", windows, WINDOWS_ALLOWED)
        for window in windows:
            if not isinstance(window, HeadroomWindow):
                raise HeadroomConfigError(
                    "windows", window, "HeadroomWindow(schedule=..., minutes=...) objects"
                )
        object.__setattr__(self, "windows", tuple(windows))
        names_seen: set[str] = set()
        for name in self.names:
            if name in names_seen:
                raise HeadroomConfigError("windows.name", name, DISTINCT_NAMES)
            names_seen.add(name)
        check_time_zone(self.time_zone, field="time_zone")
        _check_no_overlap(self)

    @property
    def names(self) -> tuple[str, ...]:
        """Each window's name, in order (``window-<n>`` for an unnamed one)."""
        return window_names(self.windows)

    def describe(self) -> str:
        """The windows in words, e.g. ``business (0 8 * * mon-fri for 600 min) in
        Europe/Berlin``."""
        windows = ", ".join(
            fill(DESCRIBED, {"name": name, "schedule": window.schedule, "minutes": window.minutes})
            for name, window in zip(self.names, self.windows, strict=True)
        )
        return str(fill(DESCRIBED_IN, {"windows": windows, "zone": self.time_zone}))

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)

    def in_force(self, when: datetime) -> OpenWindow | None:
        """The window open at ``when`` (an aware datetime), or ``None``."""
        local = when.astimezone(self.zone).replace(second=0, microsecond=0, tzinfo=None)
        for name, window in zip(self.names, self.windows, strict=True):
            for back in range(window.minutes):
                opened = local - timedelta(minutes=back)
                if window.cron.fires_at(opened):
                    return self._open(name, opened, window.minutes)
        return None

    def next_opening(self, when: datetime) -> OpenWindow | None:
        """The first window to open after ``when``, within a year; ``None`` if none."""
        local = when.astimezone(self.zone).replace(tzinfo=None)
        found: list[tuple[datetime, str, int]] = []
        for name, window in zip(self.names, self.windows, strict=True):
            first = next(_openings(window.cron, local, OVERLAP_SPAN_DAYS), None)
            if first is not None:
                found.append((first, name, window.minutes))
        if not found:
            return None
        opens, name, minutes = min(found)
        return self._open(name, opens, minutes)

    def _open(self, name: str, opens: datetime, minutes: int) -> OpenWindow:
        zone = self.zone
        return OpenWindow(
            name,
            opens.replace(tzinfo=zone),
            (opens + timedelta(minutes=minutes)).replace(tzinfo=zone),
        )


def window_names(windows: Sequence[HeadroomWindow]) -> tuple[str, ...]:
    """Each window's name, in order: its own, or ``window-<n>`` (``UNNAMED``)."""
    return tuple(w.name or fill(UNNAMED, {"n": n}) for n, w in enumerate(windows, start=1))


def check_time_zone(value: object, *, field: str) -> str:
    """A time zone as ``validateTimeZone`` takes it: IANA name parts of the allowed
    characters, not ``Local``, and one the zone database knows: the pinned ``tzdata``'s
    (``time_zones``), the same on every machine."""
    if not isinstance(value, str) or not value:
        raise HeadroomConfigError(field, value, ZONE_ALLOWED)
    parts = value.split("/")
    if any(p in (".", "..") or p.startswith("-") or not _ZONE_PART.match(p) for p in parts):
        raise HeadroomConfigError(field, value, ZONE_ALLOWED)
    if value.lower() == "local":
        raise HeadroomConfigError(field, value, ZONE_ALLOWED)
    if value not in _ZONES:
        raise HeadroomConfigError(field, value, ZONE_ALLOWED + UNKNOWN_ZONE)
    return value


_ZONES = frozenset(ZONES)


def _openings(cron: CronExpression, after: datetime, days: int) -> Iterator[datetime]:
    """The times ``cron`` fires after ``after`` (naive wall clock), for ``days`` days."""
    start = after.replace(hour=0, minute=0, second=0, microsecond=0)
    minutes = cron.minutes_of_day()
    for offset in range(days + 1):
        day = start + timedelta(days=offset)
        if cron.fires_on(day):
            for minute in minutes:
                at = day + timedelta(minutes=minute)
                if at > after:
                    yield at


def _check_no_overlap(schedule: HeadroomSchedule) -> None:
    laid: list[tuple[datetime, datetime, str]] = []
    for name, window in zip(schedule.names, schedule.windows, strict=True):
        length = timedelta(minutes=window.minutes)
        before = SPAN_START - timedelta(minutes=1)
        spans = [
            (at, at + length, name) for at in _openings(window.cron, before, OVERLAP_SPAN_DAYS)
        ]
        if not spans:
            raise HeadroomConfigError("windows.schedule", window.schedule, NEVER_FIRES)
        laid.extend(spans)
    laid.sort()
    held_until, holder = laid[0][1], laid[0][2]
    for opens, closes, name in laid[1:]:
        if opens < held_until:
            other = OWN_OPENING if name == holder else fill(OTHER_WINDOW, {"holder": shown(holder)})
            raise HeadroomConfigError(
                "windows",
                fill(OVERLAP, {"name": name, "opens": _clock(opens)}),
                fill(
                    OVERLAP_ALLOWED,
                    {"name": shown(name), "other": other, "until": _clock(held_until)},
                ),
            )
        if closes > held_until:
            held_until, holder = closes, name


def _clock(at: datetime) -> str:
    return at.strftime(CLOCK)
