"""The synth summary: per headroom, what is reserved, for whom, and what is promised."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from constructs import Construct

from cdk8s_headroom.objects.headroom import NodeHeadroom
from cdk8s_headroom.objects.headroom_cost import HeadroomSummary
from cdk8s_headroom.vocabulary.priority_models import PriorityModel
from cdk8s_headroom.vocabulary.quantity import format_cpu, format_memory

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
    fits: bool | None
    """``None`` when the headroom has no slices to fit in."""
    buffer: str | None = None
    """The workload's capacity buffer, e.g. ``api-buffer x3``; ``None`` without one."""


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
        reserver = headroom.reserver
        buffers = {
            buffer.workload: f"{buffer.name} x{buffer.hold().units}"
            for buffer in headroom.capacity_buffers
        }
        bursts = tuple(
            BurstFit(
                name=burst.name,
                cpu=burst.cpu,
                memory=burst.memory,
                replicas=burst.replicas,
                fits=None
                if reserver is None
                else burst.cpu_cores <= reserver.cpu_cores
                and burst.memory_bytes <= reserver.memory_bytes,
                buffer=buffers.get(burst),
            )
            for burst in headroom.burst_workloads
        )
        promises = dict(PROMISES[headroom.model])
        prepull = reserver is not None and bool(
            reserver.prepull_images or (headroom.prepuller and headroom.prepuller.images)
        )
        promises["P4"] = "grace 0s, " + ("burst images pre-pulled" if prepull else "no pre-pull")
        if headroom.drift_on_change and headroom.node_pool is not None:
            # The limit the README states: room sized by Karpenter is not room held.
            promises["drift"] = (
                f"a change of the slice rolls pool {headroom.node_pool.pool_name}'s nodes "
                "under its budgets (Drifted); an eroded slice waits for a replaced node"
            )
        if headroom.capacity_buffers:
            dedicated = all(buffer.dedicated for buffer in headroom.capacity_buffers)
            promises["buffer"] = (
                "no preemption; room kept for the burst pods by the pool's taint"
                if dedicated
                else "no preemption; BROKEN P1: any pod the nodes admit can take the room"
            )
        found.append(
            HeadroomReport(
                path=headroom.node.path,
                pool=headroom.node_pool.pool_name if headroom.node_pool else "every node",
                slice_cpu="-" if reserver is None else slice_text(headroom, 0),
                slice_memory="-" if reserver is None else slice_text(headroom, 1),
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
    header = ("pool", "slice per node", "model", "burst workload", "per pod", "fits", "buffer")
    rows: list[tuple[str, ...]] = []
    for summary in summaries:
        first = (summary.pool, f"{summary.slice_cpu} / {summary.slice_memory}", summary.model.name)
        if not summary.bursts:
            rows.append((*first, "-", "-", "-", "-"))
        for index, burst in enumerate(summary.bursts):
            lead = first if index == 0 else ("", "", "")
            fits = {True: "yes", False: "NO", None: "-"}[burst.fits]
            rows.append(
                (
                    *lead,
                    f"{burst.name} x{burst.replicas}",
                    f"{burst.cpu} / {burst.memory}",
                    fits,
                    burst.buffer or "-",
                )
            )
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        lines.append(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    for summary in summaries:
        lines.extend(f"cost: {line}" for line in str(summary.cost).splitlines())
        lines.append(f"promises for {summary.pool} ({summary.model.name}):")
        lines.extend(f"  {key}: {value}" for key, value in sorted(summary.promises.items()))
    lines.append("files: " + (", ".join(files) if files else "none"))
    return "\n".join(lines)


def slice_text(headroom: NodeHeadroom, index: int) -> str:
    """A slice's cpu (``index`` 0) or memory (1) for the table: the amount, or for a share
    the range it holds over the node sizes, e.g. ``200m-800m``."""
    amounts = sorted({reserver.slice[index] for reserver in headroom.reservers})
    show = format_memory if index else format_cpu
    return "-".join(show(amount) for amount in (amounts[0], amounts[-1])[: len(amounts)])
