"""What one headroom costs: ``HeadroomSummary``, the value ``NodeHeadroom.summary()``
returns.

One headroom in numbers: the slice's share of the smallest node, the worst case over
the pool's limits, and what each capacity buffer holds back. ``synth_summary`` is a
different thing: the report printed at synthesis for the whole app (a table row per
headroom and burst workload, and the promises of each model), which shows each
headroom's cost as ``cost:`` lines, the text of this summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from cdk8s_headroom.objects.capacity_buffer import BufferHold
from cdk8s_headroom.vocabulary.node_sizes import NodeSize, max_nodes
from cdk8s_headroom.vocabulary.quantity import format_cpu, format_memory


def _share(part: Fraction, whole: Fraction | None) -> Fraction | None:
    return None if whole is None or whole <= 0 else part / whole


def _percent(share: Fraction) -> str:
    if 0 < share < Fraction(1, 100):
        return "<1%"
    return f"{round(share * 100)}%"


def _size_percent(size: NodeSize, allocatable: NodeSize) -> str:
    """``10% CPU, 5% memory``: what a node size's slice takes of its allocatable."""
    return ", ".join(
        f"{_percent(_share(part or Fraction(0), whole) or Fraction(0))} {resource}"
        for part, whole, resource in (
            (size.cpu, allocatable.cpu, "CPU"),
            (size.memory, allocatable.memory, "memory"),
        )
    )


def _limits_text(limits: Mapping[str, Fraction]) -> str:
    parts = []
    for resource, amount in sorted(limits.items()):
        text = format_memory(amount) if resource == "memory" else format_cpu(amount)
        parts.append(f"{resource} {text}")
    return ", ".join(parts)


@dataclass(frozen=True)
class HeadroomSummary:
    """What one headroom costs: the share of each node, and the worst case over the pool.

    Attributes:
        name: the reserver DaemonSet's name (the headroom's id without slices).
        model: the priority model's name, e.g. ``GUARDED``.
        pool_name: the targeted pool, or ``None`` for every node.
        slice: the slice each node holds, or ``None`` for a headroom kept by capacity
            buffers alone.
        smallest_node: the smallest node the pool may launch (fields ``None`` when the
            pool does not say), or ``None`` without a sized pool.
        limits: the pool's limits (``cpu`` in cores, ``memory`` in bytes); empty when
            the pool has none (or there is no pool), ``None`` when a referenced pool
            does not declare them.
        buffers: what each capacity buffer of the headroom holds back. Default: none.
        sizes: for a slice given as a share, each node size's name, its slice and its
            allocatable, one reserver each. Default: none (one slice on every node).
        scheduled_nodes: with a schedule, the nodes that hold a slice in a window.
            Default: none, the slices are held on every node all the time.
        windows: with a schedule, its windows (``HeadroomSchedule.describe``).
            Default: none.
    """

    name: str
    model: str
    pool_name: str | None
    slice: NodeSize | None
    smallest_node: NodeSize | None
    limits: Mapping[str, Fraction] | None
    buffers: tuple[BufferHold, ...] = ()
    sizes: tuple[tuple[str, NodeSize, NodeSize], ...] = ()
    scheduled_nodes: int | None = None
    windows: str | None = None

    @property
    def allocatable(self) -> NodeSize | None:
        """The smallest node's estimated allocatable (``NodeSize.allocatable``)."""
        return None if self.smallest_node is None else self.smallest_node.allocatable()

    @property
    def cpu_share(self) -> Fraction | None:
        """The slice's share of the smallest node's allocatable CPU."""
        allocatable = self.allocatable
        if allocatable is None or self.slice is None:
            return None
        return _share(self.slice.cpu or Fraction(0), allocatable.cpu)

    @property
    def memory_share(self) -> Fraction | None:
        """The slice's share of the smallest node's allocatable memory."""
        allocatable = self.allocatable
        if allocatable is None or self.slice is None:
            return None
        return _share(self.slice.memory or Fraction(0), allocatable.memory)

    @property
    def max_nodes(self) -> int | None:
        """The most nodes that hold a slice: the scheduled nodes, else the most the
        pool's limits allow, or ``None`` (unbounded or unknown)."""
        if self.scheduled_nodes is not None:
            return self.scheduled_nodes
        if self.smallest_node is None or not self.limits:
            return None
        return max_nodes(self.smallest_node, self.limits)

    @property
    def worst_case(self) -> NodeSize | None:
        """The slice times ``max_nodes``: the most the headroom can hold in the pool."""
        count = self.max_nodes
        if count is None or self.slice is None:
            return None
        return NodeSize(
            cpu=None if self.slice.cpu is None else self.slice.cpu * count,
            memory=None if self.slice.memory is None else self.slice.memory * count,
        )

    def __str__(self) -> str:
        """One line for the slices (or ``no slices``), then one per buffer."""
        where = f"pool {self.pool_name}" if self.pool_name else "every node"
        first = (
            f"{self.name} ({self.model}) on {where}: no slices"
            if self.slice is None
            else self._slice_line(where)
        )
        return "\n".join([first, *(str(buffer) for buffer in self.buffers)])

    def _slice_line(self, where: str) -> str:
        if self.sizes:
            held = "; ".join(
                f"{name} holds {size} of {allocatable} allocatable "
                f"({_size_percent(size, allocatable)})"
                for name, size, allocatable in self.sizes
            )
            return f"{self.name} ({self.model}) on {where}: a share of each node size: {held}"
        line = f"{self.name} ({self.model}) on {where}: {self.slice} per node"
        cpu_share, memory_share = self.cpu_share, self.memory_share
        if cpu_share is not None or memory_share is not None:
            shares = ", ".join(
                f"{_percent(share)} {resource}"
                for share, resource in ((cpu_share, "CPU"), (memory_share, "memory"))
                if share is not None
            )
            line += f" = {shares} of the smallest node's allocatable ({self.smallest_node})"
        elif self.pool_name:
            line += (
                "; node size unknown (the pool declares no instance-cpu, instance-memory, "
                "instance-size or instance-type requirement, nor node_cpu or node_memory)"
            )
        worst = self.worst_case
        if worst is not None and self.windows is not None:
            line += f"; held on {self.max_nodes} nodes ({worst}) only in windows {self.windows}"
        elif worst is not None and self.limits:
            line += (
                f"; worst case {self.max_nodes} nodes (limits {_limits_text(self.limits)}) "
                f"hold {worst}"
            )
        elif self.limits is None:
            line += "; worst case unknown: the pool's limits are not declared"
        elif self.limits:
            line += f"; worst case unknown (limits {_limits_text(self.limits)}, node size unknown)"
        else:
            line += "; worst case unbounded: one slice per node, and the pool has no limits"
        return line
