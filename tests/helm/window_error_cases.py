"""The bad values of a schedule (``reservation.schedule``, a buffer's ``schedule``), for
``helm_error_cases.CASES``: the windows (``HeadroomWindow``: cron, minutes, name), the
schedule (``HeadroomSchedule``: names, zone, a window that never fires, overlaps), and
what goes with it (``objects/windows.check_windows``: the count, the CronJob names, a
share, a buffer's percentage or limits)."""

from __future__ import annotations

from typing import Any

from tests.helm.helm_cases import API

BUSINESS = {"schedule": "0 8 * * mon-fri", "minutes": 600, "name": "business"}


def scheduled(*windows: Any, zone: Any = None, nodes: Any = 3) -> dict[str, Any]:
    """The slices held in ``windows`` (in ``zone``, on ``nodes`` nodes)."""
    schedule: dict[str, Any] = {"windows": list(windows)}
    if zone is not None:
        schedule["timeZone"] = zone
    return {"reservation": {"schedule": schedule, "scheduledNodes": nodes}}


def cron(text: str) -> dict[str, Any]:
    return scheduled({"schedule": text, "minutes": 60})


def one(text: str, minutes: Any) -> dict[str, Any]:
    """A schedule of one window."""
    return {"windows": [{"schedule": text, "minutes": minutes}]}


def buffered(buffer: dict[str, Any]) -> dict[str, Any]:
    """A burst workload whose buffer is ``buffer``."""
    return {"burstWorkloads": [{**API, "buffer": buffer}]}


_AT = "reservation.schedule"
_CRON = f"{_AT}.windows[0].schedule"
_ONCE = one("0 1 * * *", 60)

# (id, overrides, the value path, a piece of the message that says what is allowed)
WINDOW_CASES = [
    ("no-windows", scheduled(), f"{_AT}.windows", "a non-empty list of HeadroomWindow"),
    ("cron-minute-out-of-range", cron("60 8 * * *"), _CRON, "the minute field '60' is not"),
    ("cron-hour-out-of-range", cron("0 24 * * *"), _CRON, "the hour field '24' is not"),
    ("cron-day-out-of-range", cron("0 8 0 * *"), _CRON, "the day of month field '0' is not"),
    ("cron-bad-month-name", cron("0 8 * foo *"), _CRON, "the month field 'foo' is not"),
    ("cron-bad-weekday-name", cron("0 8 * * mon-fryday"), _CRON, "the day of week field"),
    ("cron-step-0", cron("*/0 8 * * *"), _CRON, "the minute field '*/0' is not"),
    ("cron-step-00", cron("*/00 8 * * *"), _CRON, "the minute field '*/00' is not"),
    ("cron-reversed-range", cron("0 17-8 * * *"), _CRON, "the hour field '17-8' is not"),
    ("cron-six-fields", cron("0 0 8 * * *"), _CRON, "a cron expression of five fields"),
    ("cron-tz-prefix", cron("TZ=UTC 0 8 * * *"), _CRON, "a cron expression of five fields"),
    ("cron-every", cron("@every 1h"), _CRON, "a cron expression of five fields"),
    ("cron-trailing-newline", cron("0 8 * * *\n"), _CRON, "the day of week field '*\\n'"),
    ("cron-huge-number", cron("0 99999999999999999999 * * *"), _CRON, "the hour field"),
    (
        "minutes-0",
        scheduled({"schedule": "0 8 * * *", "minutes": 0}),
        f"{_AT}.windows[0].minutes",
        "an integer from 1 to 44640",
    ),
    (
        "minutes-44641",
        scheduled({"schedule": "0 8 1 * *", "minutes": 44641}),
        f"{_AT}.windows[0].minutes",
        "an integer from 1 to 44640",
    ),
    (
        "minutes-not-an-integer",
        scheduled({"schedule": "0 8 * * *", "minutes": 60.5}),
        f"{_AT}.windows[0].minutes",
        "an integer from 1 to 44640",
    ),
    (
        "a-bad-window-name",
        scheduled({**BUSINESS, "name": "Business Hours"}),
        f"{_AT}.windows[0].name",
        "a DNS-1123 label",
    ),
    (
        "two-windows-of-one-name",
        scheduled(BUSINESS, {"schedule": "0 1 * * *", "minutes": 60, "name": "business"}),
        f"{_AT}.windows[1].name",
        "a name no other window has",
    ),
    (
        "a-name-that-an-unnamed-window-takes",
        scheduled({"schedule": "0 1 * * *", "minutes": 60, "name": "window-2"}, BUSINESS | {
            "name": None}),
        f"{_AT}.windows[1].name",
        "a name no other window has",
    ),
    ("a-zone-of-bad-characters", scheduled(BUSINESS, zone="Europe/Ber lin"), f"{_AT}.timeZone",
     "an IANA time zone name"),
    ("the-local-zone", scheduled(BUSINESS, zone="Local"), f"{_AT}.timeZone", "not 'Local'"),
    ("an-empty-zone", scheduled(BUSINESS, zone=""), f"{_AT}.timeZone", "an IANA time zone"),
    (
        "an-unknown-zone",
        scheduled(BUSINESS, zone="Mars/Olympus"),
        f"{_AT}.timeZone",
        "not a zone of the IANA database, tzdata",
    ),
    (
        "two-windows-open-at-once",
        scheduled(BUSINESS, {"schedule": "0 12 * * *", "minutes": 60, "name": "lunch"}),
        f"{_AT}.windows",
        "window 'lunch' opens while window 'business' is still open (until Mon 2028-01-03 18:00)",
    ),
    (
        "a-window-over-its-next-opening",
        scheduled({"schedule": "*/5 * * * *", "minutes": 10}),
        f"{_AT}.windows",
        "window 'window-1' opens while its own previous opening is still open",
    ),
    (
        "a-window-over-the-next-day",
        scheduled({"schedule": "0 20 * * *", "minutes": 1500, "name": "night"}),
        f"{_AT}.windows",
        "(until Sun 2028-01-02 21:00)",
    ),
    (
        "a-window-that-never-fires",
        scheduled(BUSINESS, {"schedule": "0 0 30 feb *", "minutes": 60}),
        f"{_AT}.windows[1].schedule",
        "a schedule that fires",
    ),
    (
        "scheduled-nodes-without-a-schedule",
        {"reservation": {"scheduledNodes": 3}},
        "reservation.scheduledNodes",
        "no value without a schedule",
    ),
    (
        "a-schedule-without-scheduled-nodes",
        scheduled(BUSINESS, nodes=None),
        "reservation.scheduledNodes",
        "the number of nodes that hold a slice in a window",
    ),
    (
        "a-schedule-without-slices",
        {"prepullBurstImages": False, "reservation": {
            **scheduled(BUSINESS)["reservation"], "cpu": None, "memory": None}},
        "reservation.schedule",
        "no value without slices",
    ),
    (
        "a-schedule-with-a-share",
        {"reservation": {
            **scheduled(BUSINESS)["reservation"], "cpu": "10%", "memory": "10%",
            "nodeTypes": [{"name": "m5.large", "cpu": "1930m", "memory": "7Gi"}]}},
        "reservation.schedule",
        "no schedule with a share of each node",
    ),
    (
        "a-cron-job-name-over-52-characters",
        scheduled({**BUSINESS, "name": "a-window-with-a-name-long-enough-to-pass"}),
        "reservation.schedule",
        "a CronJob name of at most 52 characters",
    ),
    (
        "a-buffer-schedule-without-replicas",
        buffered({"limits": {"cpu": "2"}, "schedule": _ONCE}),
        "burstWorkloads[api].buffer.replicas",
        "the number of placeholder pods in a window",
    ),
    (
        "a-buffer-schedule-with-replicas-0",
        buffered({"replicas": 0, "schedule": _ONCE}),
        "burstWorkloads[api].buffer.replicas",
        "an integer from 1 to 2147483647",
    ),
    (
        "a-buffer-schedule-with-limits",
        buffered({"replicas": 2, "limits": {"cpu": "2"}, "schedule": _ONCE}),
        "burstWorkloads[api].buffer.schedule",
        "a schedule with replicas alone",
    ),
    (
        "a-buffer-schedule-with-percentage",
        buffered({"form": "scalableRef", "percentage": 50, "schedule": _ONCE}),
        "burstWorkloads[api].buffer.replicas",
        "the number of placeholder pods in a window",
    ),
    (
        "a-buffer-window-that-overlaps-itself",
        buffered({"replicas": 2, "schedule": one("@hourly", 61)}),
        "burstWorkloads[api].buffer.schedule.windows",
        "its own previous opening",
    ),
    (
        "a-buffer-window-with-a-bad-cron",
        buffered({"replicas": 2, "schedule": one("0 1 * *", 9)}),
        "burstWorkloads[api].buffer.schedule.windows[0].schedule",
        "a cron expression of five fields",
    ),
    (
        "a-buffer-window-of-bad-minutes",
        buffered({"replicas": 2, "schedule": one("0 1 * * *", 0)}),
        "burstWorkloads[api].buffer.schedule.windows[0].minutes",
        "an integer from 1 to 44640",
    ),
]  # fmt: skip
