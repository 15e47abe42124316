"""``status --watch``: judge the headroom again every ``--interval``, print only what
changed, and end with ``status``'s own exit codes, so that a terminal can follow a
cluster and a pipeline can wait on it.

It ends when it is stopped (Ctrl-C, SIGTERM) or ``--timeout`` passes, with the last
verdict's status; at once with 1 when the verdict crosses ``--max-pending`` (it held,
and now more nodes are eroded or missing); and with ``--until-settled``, at once with 0
as soon as the verdict holds.
"""

from __future__ import annotations

import datetime
import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import TextIO

from cdk8s_headroom.cluster.status import StatusReport
from cdk8s_headroom.cluster.status_changes import StatusChange, changes, verdict
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

DEFAULT_INTERVAL = "10s"


@dataclass(frozen=True, kw_only=True)
class WatchOptions:
    """How ``status --watch`` runs.

    Attributes:
        interval: seconds between two reads (``--interval``, default 10 s).
        timeout: seconds until it stops (``--timeout``; default: never).
        until_settled: end with 0 as soon as the verdict holds (``--until-settled``;
            default: false).
        max_pending: ``--max-pending`` (default 0).
        as_json: one JSON object per line: the first report, then each change
            (``--json``; default: false).
    """

    interval: float
    timeout: float | None = None
    until_settled: bool = False
    max_pending: int = 0
    as_json: bool = False


class _TerminatedError(Exception):
    """SIGTERM, handled as Ctrl-C is."""


@contextmanager
def _stopped_by_sigterm() -> Iterator[None]:
    def stop(number: int, frame: FrameType | None) -> None:
        raise _TerminatedError

    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only
        return
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def watch_status(
    read: Callable[[], StatusReport],
    options: WatchOptions,
    *,
    out: TextIO | None = None,
    clock: Callable[[], float] = time.monotonic,
    pause: Callable[[float], None] = time.sleep,
) -> tuple[int, StatusReport]:
    """Runs the watch; returns the exit status and the last report.

    Raises:
        HeadroomConfigError: the first read fails (a later failed read is printed, and
            the next period reads again: a server can be away for a moment).
    """
    stream = out or sys.stdout
    last = read()
    _print_report(last, options, stream)
    if options.until_settled and verdict(last, options.max_pending) == "ok":
        return 0, last
    deadline = None if options.timeout is None else clock() + options.timeout
    with _stopped_by_sigterm():
        try:
            while deadline is None or clock() < deadline:
                left = options.interval if deadline is None else deadline - clock()
                pause(max(0.0, min(options.interval, left)))
                try:
                    report = read()
                except HeadroomConfigError as error:
                    _print_line(
                        f"cannot read: {error}",
                        {"kind": "error", "detail": str(error)},
                        options,
                        stream,
                    )
                    continue
                found = changes(last, report, max_pending=options.max_pending)
                for change in found:
                    _print_change(change, options, stream)
                was, last = verdict(last, options.max_pending), report
                now = verdict(report, options.max_pending)
                if options.until_settled and now == "ok":
                    return 0, last
                if not options.until_settled and was == "ok" and now == "failing":
                    return 1, last
        except (KeyboardInterrupt, _TerminatedError):
            pass
    return last.exit_status(options.max_pending), last


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _print_report(report: StatusReport, options: WatchOptions, stream: TextIO) -> None:
    if options.as_json:
        stream.write(
            json.dumps({"time": _now(), "kind": "status", "status": report.to_json()}) + "\n"
        )
    else:
        stream.write(report.render() + "\n")
    stream.flush()


def _print_change(change: StatusChange, options: WatchOptions, stream: TextIO) -> None:
    _print_line(change.render(), change.to_json(), options, stream)


def _print_line(text: str, data: dict[str, object], options: WatchOptions, stream: TextIO) -> None:
    if options.as_json:
        stream.write(json.dumps({"time": _now(), **data}) + "\n")
    else:
        stream.write(f"{_now()} {text}\n")
    stream.flush()
