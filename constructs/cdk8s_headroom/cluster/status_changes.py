"""What changed between two ``status`` reports of one cluster: the lines ``status
--watch`` prints as the cluster changes (a slice taken, eroded, returned; a reserver
missing; a burst pod waiting or placed; a new preemption; a time window opened or
closed; the verdict)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

from cdk8s_headroom.cluster.status import HeadroomStatus, StatusReport
from cdk8s_headroom.cluster.windows import WindowState


class SliceState(Enum):
    """Where a target node's slice is, as ``status`` judges it."""

    HELD = "held"
    IN_USE = "in use by a burst"
    ERODED = "eroded"
    MISSING = "missing its reserver"
    MISSCHEDULED = "misscheduled"
    BEING_REMOVED = "being removed"


@dataclass(frozen=True)
class StatusChange:
    """One change, as a line of text and as a JSON object."""

    kind: str
    """``slice``, ``burst``, ``preempted``, ``window`` or ``verdict``."""
    subject: str
    """The headroom and node, the burst pod, the preempted pod or the window's holder
    (``<namespace>/<owner>``); ``""`` for the verdict."""
    before: str | None
    after: str | None
    detail: str = ""

    def render(self) -> str:
        if self.kind == "slice":
            what = f"{self.before or 'no target'} -> {self.after or 'no target'}"
        elif self.kind == "burst":
            what = f"burst pod {self.after}"
        elif self.kind == "preempted":
            what = "preempted"
        elif self.kind == "window":
            what = f"window {self.before or 'closed'} -> {self.after or 'closed'}"
        else:
            what = f"verdict {self.before} -> {self.after}"
        subject = f"{self.subject}: " if self.subject else ""
        return f"{subject}{what}" + (f" ({self.detail})" if self.detail else "")

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "subject": self.subject,
            "before": self.before,
            "after": self.after,
            "detail": self.detail,
        }


def slice_states(headroom: HeadroomStatus) -> dict[str, tuple[SliceState, str]]:
    """Each node the headroom judges, with its state and who is involved."""
    states: dict[str, tuple[SliceState, str]] = {n: (SliceState.HELD, "") for n in headroom.held}
    for in_use in headroom.in_use:
        states[in_use.node] = (SliceState.IN_USE, ", ".join(in_use.burst_pods))
    for eroded in headroom.eroded:
        states[eroded.node] = (SliceState.ERODED, "taken by " + ", ".join(eroded.taken_by))
    for node in headroom.missing:
        states[node] = (SliceState.MISSING, "")
    for off in headroom.misscheduled:
        states[off.node] = (SliceState.MISSCHEDULED, off.detail)
    for off in headroom.being_removed:
        states[off.node] = (SliceState.BEING_REMOVED, off.detail)
    return states


def verdict(report: StatusReport, max_pending: int) -> str:
    """``ok`` or ``failing`` (``StatusReport.failures``)."""
    return "failing" if report.failures(max_pending) else "ok"


def changes(before: StatusReport, after: StatusReport, *, max_pending: int) -> list[StatusChange]:
    """What ``after`` says that ``before`` did not, in a stable order: slices per
    headroom and node, burst pods, new preemptions, then the verdict."""
    return [
        *_slice_changes(before, after),
        *_burst_changes(before, after),
        *_new_preemptions(before, after),
        *_window_changes(before, after),
        *_verdict_change(before, after, max_pending),
    ]


def _slice_changes(before: StatusReport, after: StatusReport) -> Iterator[StatusChange]:
    old = {h.name: slice_states(h) for h in before.headrooms}
    new = {h.name: slice_states(h) for h in after.headrooms}
    for name in sorted(old.keys() | new.keys()):
        was, now = old.get(name, {}), new.get(name, {})
        for node in sorted(was.keys() | now.keys()):
            if was.get(node, (None,))[0] == now.get(node, (None,))[0]:
                continue
            state, detail = now.get(node, (None, ""))
            yield StatusChange(
                "slice",
                f"{name} on {node}",
                was[node][0].value if node in was else None,
                state.value if state is not None else None,
                detail,
            )


def _burst_changes(before: StatusReport, after: StatusReport) -> Iterator[StatusChange]:
    waiting_before, waiting_now = set(before.waiting_bursts), set(after.waiting_bursts)
    placed_now = {pod for h in after.headrooms for u in h.in_use for pod in u.burst_pods}
    for pod in sorted(waiting_now - waiting_before):
        yield StatusChange("burst", pod, None, "waiting", "no node holds it")
    for pod in sorted(waiting_before - waiting_now):
        where = "on a headroom's slice" if pod in placed_now else "or gone"
        yield StatusChange("burst", pod, "waiting", "placed", where)


def _new_preemptions(before: StatusReport, after: StatusReport) -> Iterator[StatusChange]:
    seen = {(e.namespace, e.pod, e.time, e.count) for e in before.events}
    for event in reversed(after.events):  # oldest first, as they happened
        if (event.namespace, event.pod, event.time, event.count) not in seen:
            yield StatusChange(
                "preempted", f"{event.namespace}/{event.pod}", None, None, event.message
            )


def _window_changes(before: StatusReport, after: StatusReport) -> Iterator[StatusChange]:
    """A holder whose window in force changed: opened, closed, or one window after
    another. ``status`` reads a window from its pods, so a line comes when the Job's
    pods appear or go, not when the clock says."""

    def in_force(report: StatusReport) -> dict[str, WindowState]:
        states = () if report.windows is None else report.windows.states
        return {state.holder: state for state in states}

    old, new = in_force(before), in_force(after)
    for holder in sorted(old.keys() | new.keys()):
        was = old[holder].in_force if holder in old else None
        now = new[holder].in_force if holder in new else None
        if (was and was.name) == (now and now.name):
            continue
        state = new.get(holder)
        yield StatusChange(
            "window",
            holder,
            was.name if was else None,
            now.name if now else None,
            "" if state is None else state.held(),
        )


def _verdict_change(
    before: StatusReport, after: StatusReport, max_pending: int
) -> Iterator[StatusChange]:
    was, now = verdict(before, max_pending), verdict(after, max_pending)
    if was != now:
        yield StatusChange("verdict", "", was, now, "; ".join(after.failures(max_pending)))
