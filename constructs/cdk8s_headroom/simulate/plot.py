"""A picture of the what-if: per node, who holds the capacity before and after."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cdk8s_headroom.simulate.model import Resources, Role
from cdk8s_headroom.simulate.report import Usage, WhatIfReport
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

_COLOURS = {
    Role.ORDINARY: "#9e9e9e",
    Role.HEADROOM: "#1f77b4",
    Role.BURST: "#ff7f0e",
    Role.BUFFER: "#aec7e8",
}
_LABELS = {
    Role.ORDINARY: "ordinary pods",
    Role.HEADROOM: "headroom",
    Role.BURST: "burst pods",
    Role.BUFFER: "buffer room (kept free)",
}


_MARK_COLOURS = {"pending": "#d62728", "eroded": "#d62728", "missing": "#d62728"}
"""The colour of a marked node's name; a mark not listed (``not targeted``) is grey."""
_UNMARKED_COLOUR = "black"
_EXCLUDED_COLOUR = "#757575"


def whatif_marks(report: WhatIfReport) -> dict[str, str]:
    """The nodes the plot of a what-if marks: ``pending`` where a reserver waits after
    establishment, else ``not targeted`` where every reserver leaves the node out."""
    marks: dict[str, str] = {}
    for event in report.establishment:
        node = event.pod.placement.pinned_node
        if event.decision.node is None and node is not None:
            marks[node] = "pending"
    excluded = [{item.node for item in items} for items in report.not_targeted.values()]
    for node in set.intersection(*excluded) if excluded else set():
        marks.setdefault(node, "not targeted")
    return marks


def plot_report(report: WhatIfReport, path: Path) -> None:
    """Writes a PNG: cpu and memory rows, before and after columns, one stacked bar per
    node in percent of its allocatable, with the pending and not-targeted nodes
    marked (``whatif_marks``)."""
    plot_usage(
        report.nodes,
        report.allocatable,
        [("before the bursts", report.before), ("after the bursts", report.after)],
        path,
        marks=whatif_marks(report),
    )


def _missing_matplotlib(path: Path) -> HeadroomConfigError:
    """The error of a plot without matplotlib. Its message blames the missing package,
    not the path, which is fine; the error stays a ``HeadroomConfigError``, so the
    command line prints it in one line and exits 2."""
    error = HeadroomConfigError("--plot", str(path), "matplotlib installed in this Python")
    # The package is not on PyPI, so its `plot` extra installs from a checkout only.
    error.args = (
        "--plot needs matplotlib, which is not installed in this Python: install the "
        "package's plot extra (pip install '.[plot]' in a checkout of cdk8s-headroom; "
        "make install does) or what it asks for: pip install 'matplotlib>=3.8'",
    )
    return error


def plot_usage(
    nodes: Sequence[str],
    allocatable: Mapping[str, Resources],
    columns: Sequence[tuple[str, Usage]],
    path: Path,
    *,
    marks: Mapping[str, str] | None = None,
) -> None:
    """Writes a PNG: cpu and memory rows, one column per ``(title, usage)``, one stacked
    bar per node in percent of its allocatable.

    Args:
        marks: per node, what to say under its name (``pending``, ``eroded``,
            ``missing``, ``not targeted``); pending, eroded and missing names are drawn
            in red, not-targeted ones in grey. Default: no node is marked.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        raise _missing_matplotlib(path) from None

    marked = dict(marks or {})
    labels = node_labels(nodes, marked)
    width = min(max(10.0, 2.0 + 0.8 * len(nodes) * len(columns) / 2), 40.0)
    # Constrained layout makes room for long rotated node names, where tight_layout gave
    # up (and warned) on a plot of many nodes; the figure grows with the longest name so
    # that the bars keep their height.
    figure, axes = pyplot.subplots(
        2,
        len(columns),
        figsize=(width, figure_height(labels)),
        sharex="col",  # the node names under the memory row only
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    highest = 0.0
    for column, (title, snapshot) in enumerate(columns):
        for row, resource in enumerate(("cpu", "memory")):
            top = _stacked(axes[row][column], nodes, allocatable, snapshot, resource)
            highest = max(highest, top)
            axes[row][column].set_title(f"{resource}, {title}")
        _name_ticks(axes[1][column], nodes, labels, marked)
    # The rows share their y axis. A listing can hold more than a node's allocatable
    # (pods bound before a resize of the node, static pods), so the top follows the
    # highest bar rather than cut it at 110%.
    axes[0][0].set_ylim(0, y_top(highest))
    axes[0][0].set_ylabel("% of allocatable")
    axes[1][0].set_ylabel("% of allocatable")
    shown = legend_roles([usage for _, usage in columns])
    handles, names = axes[0][0].get_legend_handles_labels()
    kept = [(h, n) for h, n in zip(handles, names, strict=True) if n in {_LABELS[r] for r in shown}]
    figure.legend(
        [h for h, _ in kept],
        [n for _, n in kept],
        loc="outside upper center",
        ncol=max(len(kept), 1),
        frameon=False,
    )
    try:
        figure.savefig(path, format="png", dpi=100)
    except OSError as error:
        raise HeadroomConfigError(
            "--plot", str(path), f"a writable path ({error.strerror})"
        ) from None
    finally:
        pyplot.close(figure)


def _amount(resources: Resources, resource: str) -> int:
    return resources.cpu if resource == "cpu" else resources.memory


def _stacked(
    axis: Axes,
    nodes: Sequence[str],
    allocatable: Mapping[str, Resources],
    snapshot: Usage,
    resource: str,
) -> float:
    """Draws the stacked bars; returns the highest, in percent."""
    bottoms = [0.0] * len(nodes)
    for role in Role:
        shares = []
        for node in nodes:
            capacity = _amount(allocatable[node], resource)
            used = _amount(snapshot[node][role], resource)
            shares.append(100.0 * used / capacity if capacity else 0.0)
        axis.bar(
            range(len(nodes)), shares, bottom=bottoms, color=_COLOURS[role], label=_LABELS[role]
        )
        bottoms = [b + s for b, s in zip(bottoms, shares, strict=True)]
    axis.axhline(100.0, color="black", linewidth=0.8)
    return max(bottoms, default=0.0)


def y_top(highest: float) -> float:
    """The top of the y axis, in percent: 110, or room above the highest bar."""
    return max(110.0, highest * 1.05)


def _name_ticks(
    axis: Axes, nodes: Sequence[str], labels: Sequence[str], marks: Mapping[str, str]
) -> None:
    """The node names under a column, the marked ones coloured."""
    axis.set_xticks(range(len(nodes)), labels)
    axis.tick_params(axis="x", labelrotation=label_rotation(labels))
    for node, text in zip(nodes, axis.get_xticklabels(), strict=True):
        mark = marks.get(node)
        if mark is not None:
            text.set_color(_MARK_COLOURS.get(mark, _EXCLUDED_COLOUR))
        else:
            text.set_color(_UNMARKED_COLOUR)


def legend_roles(columns: Sequence[Usage]) -> list[Role]:
    """The roles the legend names: those holding something on some node of some
    column. A plot without buffers has no "buffer room", without bursts no "burst
    pods"."""
    return [
        role
        for role in Role
        if any(
            per_role[role].cpu or per_role[role].memory
            for usage in columns
            for per_role in usage.values()
            if role in per_role
        )
    ]


def node_labels(nodes: Sequence[str], marks: Mapping[str, str]) -> list[str]:
    """The names under the bars (``tick_labels``), each marked node's with its mark:
    ``ip-10-0-1-12 (pending)``."""
    return [
        f"{label} ({marks[node]})" if node in marks else label
        for node, label in zip(nodes, tick_labels(nodes), strict=True)
    ]


NAME_INCHES_PER_CHARACTER = 0.085
"""The length of a character of a 10-point tick label, turned upright."""


def figure_height(labels: Sequence[str]) -> float:
    """Inches: two rows of bars of about 2.5 inches each, the legend and titles, and
    under them the longest node name when the names are turned (``label_rotation``),
    so that constrained layout never has to cut them. At most 16 inches."""
    bars = 6.0
    if not label_rotation(labels):
        return bars + 0.4
    longest = max(map(len, labels), default=0)
    return min(bars + NAME_INCHES_PER_CHARACTER * longest, 16.0)


def tick_labels(nodes: Sequence[str]) -> list[str]:
    """The node names as the plot shows them: the host part of DNS names
    (``ip-10-0-1-11`` of ``ip-10-0-1-11.eu-west-1.compute.internal``) when it tells the
    nodes apart, so that the bars keep the plot's height."""
    hosts = [node.split(".", 1)[0] for node in nodes]
    return hosts if len(set(hosts)) == len(hosts) else list(nodes)


def label_rotation(nodes: Sequence[str]) -> int:
    """Degrees to turn the node names by: upright only for a few short names, such as
    a scenario's. Real names (``ip-10-0-1-11.eu-west-1.compute.internal``) overlap even
    two or three to a plot."""
    return 0 if len(nodes) <= 8 and max(map(len, nodes), default=0) <= 8 else 90
