"""Which time window is in force: for ``plan``, by the clock at a given time; for
``status``, by the pods the windows' Jobs made in the cluster at the time of reading.

A window's room exists only while its Job's pods do (``simulate/scheduled.py``), so
``status`` trusts the pods over the clock: a window whose time has come but whose Job
the CronJob controller has not started yet holds nothing, and says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from cdk8s_headroom.simulate.model import Pod
from cdk8s_headroom.simulate.scheduled import ScheduledHold
from cdk8s_headroom.vocabulary.labels import COMPONENT_LABEL, WINDOW_LABEL
from cdk8s_headroom.vocabulary.schedule import OpenWindow

_WHAT = {"headroom-reserver": "slices", "capacity-buffer": "buffer"}


@dataclass(frozen=True)
class WindowState:
    """One scheduled holder (a reserver or a buffer, by its ``app`` label): the window
    in force and what it holds, or the next window to open."""

    namespace: str
    owner: str
    what: str
    in_force: OpenWindow | None
    next_opening: OpenWindow | None
    pods: int
    """The pods the window holds: declared (plan), or found in the cluster (status)."""
    bound: int | None = None
    """status only: the window's pods on a node; the others wait."""
    declared: int | None = None
    """status only: the pods the manifests declare for the window in force."""

    def to_json(self) -> dict[str, object]:
        return {
            "namespace": self.namespace,
            "owner": self.owner,
            "what": self.what,
            "in_force": None if self.in_force is None else _window_json(self.in_force),
            "next": None if self.next_opening is None else _window_json(self.next_opening),
            "pods": self.pods,
            "bound": self.bound,
            "declared": self.declared,
        }

    @property
    def holder(self) -> str:
        """``<namespace>/<owner>``: the name ``status`` and ``status --watch`` give it."""
        return f"{self.namespace}/{self.owner}"

    def render(self) -> str:
        return f"{self.holder} ({self.what}): {self.held()}"

    def held(self) -> str:
        """What the holder holds now, or when it will: the report's line without its
        holder."""
        if self.in_force is None:
            upcoming = (
                "no window opens within a year"
                if self.next_opening is None
                else f"next {self.next_opening.describe()} {self.next_opening.opens.tzname()}"
            )
            return f"no window in force, nothing held; {upcoming}"
        window = f"window {self.in_force.describe()} {self.in_force.opens.tzname()} in force"
        if self.bound is None:
            return f"{window}: {self.pods} pod(s) hold their room"
        waiting = self.pods - self.bound
        declared = "" if self.declared is None else f" of {self.declared} declared"
        placed = f"{self.bound} on a node, {waiting} waiting"
        return f"{window}: {self.pods} pod(s){declared}, {placed}"


@dataclass(frozen=True)
class WindowsReport:
    at: datetime
    source: str
    states: tuple[WindowState, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "at": self.at.isoformat(),
            "source": self.source,
            "holders": [state.to_json() for state in self.states],
        }

    def render(self) -> str:
        lines = [f"Time windows at {self.at:%a %Y-%m-%d %H:%M %Z} ({self.source})"]
        return "\n".join([*lines, *(f"  {state.render()}" for state in self.states)])


def _window_json(window: OpenWindow) -> dict[str, object]:
    return {
        "name": window.name,
        "opens": window.opens.isoformat(),
        "closes": window.closes.isoformat(),
    }


def _by_owner(holds: Iterable[ScheduledHold]) -> dict[tuple[str, str], list[ScheduledHold]]:
    grouped: dict[tuple[str, str], list[ScheduledHold]] = {}
    for hold in holds:
        grouped.setdefault((hold.namespace, hold.owner), []).append(hold)
    return grouped


def _by_clock(
    holds: Sequence[ScheduledHold], at: datetime
) -> tuple[ScheduledHold | None, OpenWindow | None, OpenWindow | None]:
    """The hold whose window is open at ``at`` and that window, and the next opening."""
    for hold in holds:
        window = hold.in_force(at)
        if window is not None:
            return hold, window, None
    upcoming = [w for w in (h.schedule.next_opening(at) for h in holds) if w is not None]
    return None, None, min(upcoming, key=lambda w: w.opens, default=None)


def plan_windows(holds: Sequence[ScheduledHold], at: datetime) -> WindowsReport:
    """Which window of each scheduled holder is in force at ``at``, by the clock."""
    states = []
    for (namespace, owner), owned in _by_owner(holds).items():
        hold, window, upcoming = _by_clock(owned, at)
        states.append(
            WindowState(
                namespace,
                owner,
                _what(owned[0]),
                window,
                upcoming,
                0 if hold is None else hold.pods,
            )
        )
    return WindowsReport(at, "by the clock, --at", tuple(states))


def status_windows(
    pods: Iterable[Pod], holds: Sequence[ScheduledHold], at: datetime
) -> WindowsReport | None:
    """Which window is in force, by the windows' pods in the cluster; holders the
    manifests declare and whose pods are absent hold nothing. ``None`` when neither
    the cluster nor the manifests have a window."""
    found: dict[tuple[str, str], list[Pod]] = {}
    for pod in pods:
        if WINDOW_LABEL in pod.labels:
            found.setdefault((pod.namespace, pod.labels.get("app", pod.name)), []).append(pod)
    declared = _by_owner(holds)
    if not found and not declared:
        return None
    states = []
    for key in sorted(set(found) | set(declared)):
        namespace, owner = key
        owned = declared.get(key, [])
        running = found.get(key, [])
        if not running:
            _, _, upcoming = _by_clock(owned, at) if owned else (None, None, None)
            what = _what(owned[0]) if owned else ""
            states.append(WindowState(namespace, owner, what, None, upcoming, 0, 0))
            continue
        name = running[0].labels[WINDOW_LABEL]
        hold = next((h for h in owned if h.window == name), None)
        window = hold.in_force(at) if hold is not None else None
        if window is None:
            # The pods hold the room, whatever the clock says (a Job the controller
            # started late runs its full length): open, its end unknown here.
            window = OpenWindow(name, at, at)
        component = running[0].labels.get(COMPONENT_LABEL, "")
        states.append(
            WindowState(
                namespace,
                owner,
                _WHAT.get(component, component),
                window,
                None,
                len(running),
                sum(1 for pod in running if pod.node is not None),
                None if hold is None else hold.pods,
            )
        )
    return WindowsReport(at, "by the windows' pods in the cluster", tuple(states))


def _what(hold: ScheduledHold) -> str:
    return _WHAT.get(hold.component, hold.component)
