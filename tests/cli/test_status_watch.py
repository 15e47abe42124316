"""`status --watch` (cli/status_watch.py): when it ends and with which status, what it
prints, and the flags it takes. The loop runs on a scripted cluster and clock here; on
the live cluster in tests/live/test_cluster_reads.py."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import signal

import pytest

from cdk8s_headroom.cli import main
from cdk8s_headroom.cli.status_watch import WatchOptions, watch_status
from cdk8s_headroom.cluster.snapshot import read_snapshot
from cdk8s_headroom.cluster.status import StatusReport, status
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from tests.cluster.test_status import AFTER, N1, N2, N3, N4, V131


@pytest.fixture(scope="module")
def failing() -> StatusReport:
    return status(read_snapshot(AFTER), version=V131, version_from="test")


@pytest.fixture(scope="module")
def settled(failing: StatusReport) -> StatusReport:
    (headroom,) = failing.headrooms
    held = dataclasses.replace(headroom, held=(N1, N2, N3, N4), in_use=(), eroded=(), missing=())
    return dataclasses.replace(failing, headrooms=(held,), events=())


class Scripted:
    """Reads that return the given reports (or raise the given errors) in turn, on a
    clock that each pause moves forward."""

    def __init__(self, *reports: StatusReport | Exception) -> None:
        self.reports = list(reports)
        self.now = 0.0
        self.reads = 0

    def read(self) -> StatusReport:
        self.reads += 1
        item = self.reports.pop(0) if len(self.reports) > 1 else self.reports[0]
        if isinstance(item, Exception):
            raise item
        return item

    def pause(self, seconds: float) -> None:
        self.now += seconds

    def run(self, options: WatchOptions) -> tuple[int, list[str]]:
        out = io.StringIO()
        code, _ = watch_status(
            self.read, options, out=out, clock=lambda: self.now, pause=self.pause
        )
        return code, out.getvalue().splitlines()


def test_a_verdict_that_crosses_max_pending_ends_the_watch_with_1(
    settled: StatusReport, failing: StatusReport
) -> None:
    cluster = Scripted(settled, settled, failing)

    code, lines = cluster.run(WatchOptions(interval=10, max_pending=1))

    assert code == 1
    assert cluster.reads == 3 and cluster.now == 20
    changed = [line.split(" ", 1)[1] for line in lines if line[:4].isdigit()]
    assert changed[-1].startswith("verdict ok -> failing (2 target nodes are eroded")


def test_until_settled_waits_for_the_verdict_to_hold(
    settled: StatusReport, failing: StatusReport
) -> None:
    cluster = Scripted(failing, failing, settled)

    code, lines = cluster.run(WatchOptions(interval=5, until_settled=True))

    assert (code, cluster.reads, cluster.now) == (0, 3, 10)
    assert lines[-1].endswith("verdict failing -> ok")


def test_until_settled_on_a_settled_headroom_ends_at_once(settled: StatusReport) -> None:
    cluster = Scripted(settled)

    assert cluster.run(WatchOptions(interval=5, until_settled=True))[0] == 0
    assert cluster.reads == 1


def test_the_timeout_ends_with_the_last_verdict(failing: StatusReport) -> None:
    cluster = Scripted(failing)

    code, lines = cluster.run(WatchOptions(interval=10, timeout=25))

    assert (code, cluster.reads, cluster.now) == (1, 4, 25)  # reads at 0, 10, 20, 25
    assert not any(line[:4].isdigit() for line in lines)  # nothing changed


def test_a_failed_read_after_the_first_is_printed_and_the_watch_goes_on(
    settled: StatusReport,
) -> None:
    away = HeadroomConfigError("--context", "prod", "a context whose API server answers")
    cluster = Scripted(settled, away, settled)

    code, lines = cluster.run(WatchOptions(interval=1, timeout=3, as_json=True))

    records = [json.loads(line) for line in lines]
    assert code == 0
    assert records[0]["kind"] == "status"
    assert records[1] == {
        "time": records[1]["time"],
        "kind": "error",
        "detail": str(away),
    }
    assert len(records) == 2


def test_a_first_read_that_fails_is_the_commands_error() -> None:
    cluster = Scripted(HeadroomConfigError("--context", "nope", "a context of the kubeconfig"))

    with pytest.raises(HeadroomConfigError, match="--context: invalid value 'nope'"):
        cluster.run(WatchOptions(interval=1))


def test_sigterm_stops_the_watch_with_the_last_verdict(failing: StatusReport) -> None:
    def terminate(seconds: float) -> None:
        os.kill(os.getpid(), signal.SIGTERM)

    before = signal.getsignal(signal.SIGTERM)
    code, _ = watch_status(
        lambda: failing, WatchOptions(interval=1), out=io.StringIO(), pause=terminate
    )

    assert code == 1
    assert signal.getsignal(signal.SIGTERM) is before  # the caller's handler is back


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_waits_out_its_timeout_and_fails_as_status_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(
        capsys, "status", "--snapshot", str(AFTER), "--watch", "--interval", "1", "--timeout", "1s"
    )

    assert code == 1
    assert out.startswith("Kubernetes 1.31")
    assert err == (
        "cdk8s-headroom status: failed: 2 target nodes are eroded or missing their "
        "reserver, more than --max-pending 0\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--interval", "5s"], "--interval: invalid value '5s'; no value without --watch"),
        (["--until-settled"], "--until-settled: invalid value true; no value without --watch"),
        (["--watch", "--interval", "0"], "--interval: invalid value '0'; a duration as kubectl"),
        (["--watch", "--timeout", "soon"], "--timeout: invalid value 'soon'; a duration"),
        (["--watch", "--plot", "x.png"], "--plot: invalid value 'x.png'; no value with --watch"),
    ],
)
def test_the_watch_flags_are_checked_before_any_read(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = _run(capsys, "status", "--snapshot", str(AFTER), *argv)

    assert (code, out) == (2, "")
    assert err.startswith(f"cdk8s-headroom status: error: {message}")
    assert err.count("\n") == 1
