"""HeadroomSchedule: cron windows in a time zone, judged as the API server judges a
CronJob (kubernetes pkg/apis/batch/validation/validation.go, validateScheduleFormat and
validateTimeZone; robfig/cron parser.go ParseStandard), and which window is in force."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from cdk8s_headroom.vocabulary.cron import CronExpression
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.schedule import HeadroomSchedule, HeadroomWindow

BUSINESS = HeadroomWindow("0 8 * * mon-fri", 600, "business")
BATCH = HeadroomWindow("30 23 * * *", 90, "batch")


def berlin() -> HeadroomSchedule:
    return HeadroomSchedule([BUSINESS, BATCH], time_zone="Europe/Berlin")


def test_the_window_in_force_is_read_on_the_zones_wall_clock() -> None:
    # Monday 2026-12-07 07:30 UTC is 08:30 in Berlin (CET, UTC+1): business is open.
    window = berlin().in_force(datetime(2026, 12, 7, 7, 30, tzinfo=timezone.utc))
    assert window is not None
    assert (window.name, window.opens.hour, window.closes.hour) == ("business", 8, 18)


def test_no_window_is_in_force_between_windows_and_the_next_one_is_named() -> None:
    saturday_noon = datetime(2026, 12, 5, 11, 0, tzinfo=timezone.utc)
    assert berlin().in_force(saturday_noon) is None
    upcoming = berlin().next_opening(saturday_noon)
    assert upcoming is not None
    assert (upcoming.name, upcoming.opens.hour, upcoming.opens.minute) == ("batch", 23, 30)


def test_a_window_that_crosses_midnight_is_in_force_after_midnight() -> None:
    # 23:50 UTC on Tuesday is 00:50 Wednesday in Berlin; batch opened 23:30, for 90 min.
    assert berlin().in_force(datetime(2026, 12, 8, 23, 50, tzinfo=timezone.utc)) is not None
    assert berlin().in_force(datetime(2026, 12, 9, 0, 1, tzinfo=timezone.utc)) is None


def test_the_window_closes_at_its_last_minute() -> None:
    schedule = HeadroomSchedule([HeadroomWindow("*/2 * * * *", 1)])
    assert schedule.in_force(datetime(2026, 1, 1, 0, 0, 59, tzinfo=timezone.utc)) is not None
    assert schedule.in_force(datetime(2026, 1, 1, 0, 1, tzinfo=timezone.utc)) is None


def test_unnamed_windows_are_named_by_position() -> None:
    schedule = HeadroomSchedule([HeadroomWindow("0 1 * * *", 60), HeadroomWindow("0 3 * * *", 60)])
    assert schedule.names == ("window-1", "window-2")


def test_days_of_month_and_week_both_restricted_match_either() -> None:
    # robfig/cron spec.go dayMatches: neither field is * or ?, so either day matches.
    cron = CronExpression.parse("0 0 1 * mon", field="schedule")
    assert cron.fires_on(datetime(2026, 6, 1))  # the 1st, a Monday
    assert cron.fires_on(datetime(2026, 6, 8))  # a Monday, not the 1st
    assert cron.fires_on(datetime(2026, 7, 1))  # the 1st, a Wednesday
    assert not cron.fires_on(datetime(2026, 7, 2))


def test_a_star_day_of_month_makes_both_day_fields_needed() -> None:
    cron = CronExpression.parse("0 0 * * mon", field="schedule")
    assert not cron.fires_on(datetime(2026, 7, 1))  # a Wednesday


@pytest.mark.parametrize(
    ("windows", "time_zone", "field", "says"),
    [
        ([], "Etc/UTC", "windows", "a non-empty list of HeadroomWindow"),
        ("0 8 * * *", "Etc/UTC", "windows", "a non-empty list of HeadroomWindow"),
        ([{"schedule": "0 8 * * *"}], "Etc/UTC", "windows", "HeadroomWindow(schedule="),
        ([BUSINESS, HeadroomWindow("0 12 * * *", 60)], "Etc/UTC", "windows", "never open at once"),
        ([HeadroomWindow("*/5 * * * *", 10)], "Etc/UTC", "windows", "its own previous opening"),
        (
            [HeadroomWindow("0 0 30 feb *", 60)],
            "Etc/UTC",
            "windows.schedule",
            "a schedule that fires",
        ),
        (
            [BUSINESS, HeadroomWindow("0 1 * * *", 60, "business")],
            "Etc/UTC",
            "windows.name",
            "no other",
        ),
        ([BUSINESS], "", "time_zone", "an IANA time zone name"),
        ([BUSINESS], "Local", "time_zone", "not 'Local'"),
        ([BUSINESS], "local", "time_zone", "not 'Local'"),
        ([BUSINESS], "Mars/Olympus_Mons", "time_zone", "not a zone of the IANA database"),
        ([BUSINESS], "../etc/passwd", "time_zone", "an IANA time zone name"),
        ([BUSINESS], "America/Argentina_Buenos_Aires_", "time_zone", "an IANA time zone name"),
        ([BUSINESS], 1, "time_zone", "an IANA time zone name"),
    ],
)
def test_a_bad_schedule_is_refused_naming_the_field(
    windows: object, time_zone: object, field: str, says: str
) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        HeadroomSchedule(windows, time_zone=time_zone)  # type: ignore[arg-type]
    assert raised.value.field == field
    assert says in str(raised.value)


@pytest.mark.parametrize(
    ("schedule", "minutes", "name", "field"),
    [
        ("TZ=UTC 0 8 * * *", 60, None, "windows.schedule"),
        ("CRON_TZ=UTC 0 8 * * *", 60, None, "windows.schedule"),
        ("@every 1h", 60, None, "windows.schedule"),
        ("0 8 * *", 60, None, "windows.schedule"),
        ("60 8 * * *", 60, None, "windows.schedule"),
        ("0 8 * * 7", 60, None, "windows.schedule"),
        ("0 8-6 * * *", 60, None, "windows.schedule"),
        ("*/0 8 * * *", 60, None, "windows.schedule"),
        ("0 \u0668 * * *", 60, None, "windows.schedule"),
        ("0 8 * * *\n", 60, None, "windows.schedule"),
        (None, 60, None, "windows.schedule"),
        ("0 8 * * *", 0, None, "windows.minutes"),
        ("0 8 * * *", 31 * 24 * 60 + 1, None, "windows.minutes"),
        ("0 8 * * *", True, None, "windows.minutes"),
        ("0 8 * * *", 60, "Business", "windows.name"),
        ("0 8 * * *", 60, "", "windows.name"),
    ],
)
def test_a_bad_window_is_refused_naming_the_field(
    schedule: object, minutes: object, name: object, field: str
) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        HeadroomWindow(schedule, minutes, name)  # type: ignore[arg-type]
    assert raised.value.field == field


@pytest.mark.parametrize(
    "schedule",
    ["@daily", "@hourly", "0 8 * * MON-FRI", "0 8 ? * *", "5/15 * * * *", "0 0 1,15 jan-jun *"],
)
def test_schedules_kubernetes_takes_are_taken(schedule: str) -> None:
    assert HeadroomWindow(schedule, 1).schedule == schedule
