"""What `status --watch` prints between two reports (status_changes.py): each slice that
moves, burst pods that start or stop waiting, new preemptions and the verdict."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

import pytest

from cdk8s_headroom.cluster.reported_status import PreemptionEvent
from cdk8s_headroom.cluster.snapshot import read_snapshot
from cdk8s_headroom.cluster.status import ErodedNode, InUseNode, StatusReport, status
from cdk8s_headroom.cluster.status_changes import SliceState, changes, slice_states
from cdk8s_headroom.cluster.windows import WindowsReport, WindowState
from cdk8s_headroom.simulate.model import Resources
from cdk8s_headroom.vocabulary.schedule import OpenWindow
from tests.cluster.test_status import AFTER, N1, N2, N3, N4, V131

HEADROOM = "node-headroom/headroom-reserver"
BURST = "node-headroom/demo-burst-6d5f7b8c9-r9m2x"


@pytest.fixture(scope="module")
def after() -> StatusReport:
    return status(read_snapshot(AFTER), version=V131, version_from="test")


def _settled(report: StatusReport) -> StatusReport:
    """The same cluster with every slice held and no burst running."""
    (headroom,) = report.headrooms
    held = dataclasses.replace(headroom, held=(N1, N2, N3, N4), in_use=(), eroded=(), missing=())
    return dataclasses.replace(report, headrooms=(held,), events=())


def test_the_states_of_the_example_are_read_node_by_node(after: StatusReport) -> None:
    (headroom,) = after.headrooms

    assert slice_states(headroom) == {
        N1: (SliceState.HELD, ""),
        N2: (SliceState.IN_USE, BURST),
        N3: (SliceState.ERODED, "taken by shop/web-7c9f8d6b5-m2q6t"),
        N4: (SliceState.MISSING, ""),
    }


def test_a_settled_headroom_that_erodes_prints_each_slice_and_the_verdict(
    after: StatusReport,
) -> None:
    found = changes(_settled(after), after, max_pending=1)

    assert [change.render() for change in found] == [
        f"{HEADROOM} on {N2}: held -> in use by a burst ({BURST})",
        f"{HEADROOM} on {N3}: held -> eroded (taken by shop/web-7c9f8d6b5-m2q6t)",
        f"{HEADROOM} on {N4}: held -> missing its reserver",
        *(
            f"{event.namespace}/{event.pod}: preempted ({event.message})"
            for event in reversed(after.events)
        ),
        "verdict ok -> failing (2 target nodes are eroded or missing their reserver, more "
        "than --max-pending 1)",
    ]


def test_nothing_changed_prints_nothing(after: StatusReport) -> None:
    assert changes(after, after, max_pending=0) == []


def test_a_slice_returned_and_a_burst_pod_that_waits_then_lands(after: StatusReport) -> None:
    waiting = dataclasses.replace(after, waiting_bursts=("shop/checkout-1",))
    (headroom,) = after.headrooms
    landed = dataclasses.replace(
        headroom,
        held=(N1, N3),
        eroded=(),
        in_use=(*headroom.in_use, InUseNode(N4, ("shop/checkout-1",))),
        missing=(),
    )
    later = dataclasses.replace(after, headrooms=(landed,))

    assert [c.render() for c in changes(after, waiting, max_pending=4)] == [
        "shop/checkout-1: burst pod waiting (no node holds it)"
    ]
    assert [c.to_json() for c in changes(waiting, later, max_pending=0)] == [
        {
            "kind": "slice",
            "subject": f"{HEADROOM} on {N3}",
            "before": "eroded",
            "after": "held",
            "detail": "",
        },
        {
            "kind": "slice",
            "subject": f"{HEADROOM} on {N4}",
            "before": "missing its reserver",
            "after": "in use by a burst",
            "detail": "shop/checkout-1",
        },
        {
            "kind": "burst",
            "subject": "shop/checkout-1",
            "before": "waiting",
            "after": "placed",
            "detail": "on a headroom's slice",
        },
        {
            "kind": "verdict",
            "subject": "",
            "before": "failing",
            "after": "ok",
            "detail": "",
        },
    ]


def test_a_node_that_leaves_the_targets_and_a_repeated_event(after: StatusReport) -> None:
    (headroom,) = after.headrooms
    smaller = dataclasses.replace(
        headroom,
        target_nodes=(N1, N2, N3),
        missing=(),
        eroded=(ErodedNode(N3, Resources(0, 0), ("shop/web-1",)),),
    )
    event = after.events[0]
    again = dataclasses.replace(event, count=event.count + 1)
    later = dataclasses.replace(after, headrooms=(smaller,), events=(again, *after.events[1:]))

    assert [c.render() for c in changes(after, later, max_pending=0)] == [
        f"{HEADROOM} on {N4}: missing its reserver -> no target",
        f"{event.namespace}/{event.pod}: preempted ({event.message})",
    ]
    assert isinstance(event, PreemptionEvent)


def _windows(report: StatusReport, window: OpenWindow | None, bound: int) -> StatusReport:
    state = WindowState(
        namespace="node-headroom",
        owner="headroom-reserver",
        what="slices",
        in_force=window,
        next_opening=None,
        pods=bound,
        bound=bound,
        declared=3,
    )
    at = datetime(2026, 12, 7, 8, 1, tzinfo=timezone.utc)
    return dataclasses.replace(
        report, windows=WindowsReport(at=at, source="the windows' pods", states=(state,))
    )


def test_a_window_that_opens_then_closes_prints_a_line_each_time(after: StatusReport) -> None:
    # status reads a window from its Job's pods (cluster/windows.py), so the lines follow
    # the pods: the CronJob controller made them, then the Job controller removed them
    settled = _settled(after)
    opens = datetime(2026, 12, 7, 8, 0, tzinfo=timezone.utc)
    business = OpenWindow("business", opens, opens + timedelta(hours=10))
    closed, open_ = _windows(settled, None, 0), _windows(settled, business, 3)

    (opened,) = changes(closed, open_, max_pending=0)
    assert (opened.kind, opened.subject) == ("window", "node-headroom/headroom-reserver")
    assert (opened.before, opened.after) == (None, "business")
    assert opened.render().startswith(
        "node-headroom/headroom-reserver: window closed -> business (window business"
    )
    assert "3 pod(s) of 3 declared, 3 on a node, 0 waiting" in opened.detail

    (closing,) = changes(open_, closed, max_pending=0)
    assert (closing.before, closing.after) == ("business", None)
    assert closing.render().startswith("node-headroom/headroom-reserver: window business -> closed")
    assert changes(open_, open_, max_pending=0) == []
    assert changes(settled, closed, max_pending=0) == []
