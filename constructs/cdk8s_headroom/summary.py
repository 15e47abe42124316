"""The synth summary: per headroom, what is reserved, for whom, and what is promised."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from constructs import Construct

from .headroom import HeadroomSummary, NodeHeadroom
from .priority import PriorityModel
from .quantity import format_cpu, format_memory

PROMISES: dict[PriorityModel, dict[str, str]] = {
    PriorityModel.GUARDED: {
        "P1": "against preemption only (a pending ordinary pod can take a freed slice)",
        "P2": "kept",
        "P3": "kept",
    },
    PriorityModel.DEDICATED_POOL: {"P1": "kept", "P2": "kept", "P3": "kept"},
    PriorityModel.SEED: {
        "P1": "kept",
        "P2": "BROKEN: bursts evict ordinary pods, the headroom stays",
        "P3": "BROKEN: recreated reservers evict ordinary pods",
    },
}
"""What each model promises, from the scheduler's victim selection (see PriorityModel)."""


@dataclass(frozen=True)
class BurstFit:
    """A burst workload and whether one of its pods fits in the slice."""

    name: str
    cpu: str
    memory: str
    replicas: int
    fits: bool


@dataclass(frozen=True)
class HeadroomReport:
    """What one ``NodeHeadroom`` reserves, costs and promises."""

    path: str
    pool: str
    slice_cpu: str
    slice_memory: str
    model: PriorityModel
    bursts: tuple[BurstFit, ...]
    promises: dict[str, str]
    prepull: bool
    cost: HeadroomSummary
    """The share of each node and the worst case over the pool (``NodeHeadroom.summary``)."""


def summarize(app: Construct) -> list[HeadroomReport]:
    """The summary of every ``NodeHeadroom`` in ``app``, in tree order."""
    found = []
    for headroom in app.node.find_all():
        if not isinstance(headroom, NodeHeadroom):
            continue
        cores, size = headroom.reserver.slice
        bursts = tuple(
            BurstFit(
                name=burst.name,
                cpu=burst.cpu,
                memory=burst.memory,
                replicas=burst.replicas,
                fits=burst.cpu_cores <= cores and burst.memory_bytes <= size,
            )
            for burst in headroom.burst_workloads
        )
        promises = dict(PROMISES[headroom.model])
        prepull = bool(headroom.reserver.prepull_images)
        promises["P4"] = "grace 0s, " + ("burst images pre-pulled" if prepull else "no pre-pull")
        found.append(
            HeadroomReport(
                path=headroom.node.path,
                pool=headroom.node_pool.pool_name if headroom.node_pool else "every node",
                slice_cpu=format_cpu(cores),
                slice_memory=format_memory(size),
                model=headroom.model,
                bursts=bursts,
                promises=promises,
                prepull=prepull,
                cost=headroom.summary(),
            )
        )
    return found


def render(summaries: Sequence[HeadroomReport], files: Sequence[str]) -> str:
    """A short plain-text table for the end of ``make synth``."""
    lines = []
    header = ("pool", "slice per node", "model", "burst workload", "per pod", "fits")
    rows: list[tuple[str, ...]] = []
    for summary in summaries:
        first = (summary.pool, f"{summary.slice_cpu} / {summary.slice_memory}", summary.model.name)
        if not summary.bursts:
            rows.append((*first, "-", "-", "-"))
        for index, burst in enumerate(summary.bursts):
            lead = first if index == 0 else ("", "", "")
            fits = "yes" if burst.fits else "NO"
            rows.append(
                (*lead, f"{burst.name} x{burst.replicas}", f"{burst.cpu} / {burst.memory}", fits)
            )
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        lines.append(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    for summary in summaries:
        lines.append(f"cost: {summary.cost}")
        lines.append(f"promises for {summary.pool} ({summary.model.name}):")
        lines.extend(f"  {key}: {value}" for key, value in sorted(summary.promises.items()))
    lines.append("files: " + (", ".join(files) if files else "none"))
    return "\n".join(lines)
