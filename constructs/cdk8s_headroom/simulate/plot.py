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


def plot_report(report: WhatIfReport, path: Path) -> None:
    """Writes a PNG: cpu and memory rows, before and after columns, one stacked bar per
    node in percent of its allocatable."""
    plot_usage(
        report.nodes,
        report.allocatable,
        [("before the bursts", report.before), ("after the bursts", report.after)],
        path,
    )


def plot_usage(
    nodes: Sequence[str],
    allocatable: Mapping[str, Resources],
    columns: Sequence[tuple[str, Usage]],
    path: Path,
) -> None:
    """Writes a PNG: cpu and memory rows, one column per ``(title, usage)``, one stacked
    bar per node in percent of its allocatable."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        # The package is not on PyPI, so its `plot` extra cannot be installed by name.
        raise HeadroomConfigError(
            "--plot",
            str(path),
            "matplotlib installed in this Python: pip install 'matplotlib>=3.8' (the "
            "version the package's plot extra asks for)",
        ) from None

    width = min(max(10.0, 2.0 + 0.8 * len(nodes) * len(columns) / 2), 40.0)
    # Constrained layout makes room for long rotated node names, where tight_layout gave
    # up (and warned) on a plot of many nodes
    figure, axes = pyplot.subplots(
        2,
        len(columns),
        figsize=(width, 7.0),
        sharex="col",  # the node names under the memory row only
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    for column, (title, snapshot) in enumerate(columns):
        for row, resource in enumerate(("cpu", "memory")):
            _stacked(axes[row][column], nodes, allocatable, snapshot, resource)
            axes[row][column].set_title(f"{resource}, {title}")
    axes[0][0].set_ylabel("% of allocatable")
    axes[1][0].set_ylabel("% of allocatable")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside upper center", ncol=len(_LABELS), frameon=False)
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
) -> None:
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
    axis.set_ylim(0, 110)
    labels = tick_labels(nodes)
    axis.set_xticks(range(len(nodes)), labels)
    axis.tick_params(axis="x", labelrotation=label_rotation(labels))


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
