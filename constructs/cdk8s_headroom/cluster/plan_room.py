"""The room ``plan`` finds held after apply: each CapacityBuffer's placeholders
(``BufferPlan``) and the room per zone (``ZoneRoom``), from the what-if's events."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from cdk8s_headroom.simulate.model import Node, Resources
from cdk8s_headroom.simulate.report import resources_json, resources_text
from cdk8s_headroom.simulate.whatif import Event
from cdk8s_headroom.simulate.workloads import Buffer
from cdk8s_headroom.vocabulary.node_labels import NO_ZONE, ZONE_LABEL

SHOWN_HOLDERS = 5
"""The pods the table names per pending node, largest first (--json lists them all)."""


@dataclass(frozen=True)
class BufferPlan:
    """A ``CapacityBuffer`` of the manifests on the snapshot: the room it asks the
    autoscaler to keep (``units`` placeholders of ``unit``), and where that room is
    free on the nodes there are (``Simulation.hold_buffer``)."""

    name: str
    units: int
    unit: Resources
    held: tuple[str, ...]
    """The node of each placeholder that finds room beside the pods, the reservers and
    the placeholders before it."""
    need_new_nodes: int
    """Placeholders without room on the nodes: the autoscaler adds nodes for them."""

    @property
    def total(self) -> Resources:
        return Resources(self.unit.cpu * self.units, self.unit.memory * self.units)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "units": self.units,
            "unit": resources_json(self.unit),
            "total": resources_json(self.total),
            "held": list(self.held),
            "need_new_nodes": self.need_new_nodes,
        }

    def render(self) -> str:
        nodes = sorted(set(self.held))
        where = f" ({', '.join(nodes[:SHOWN_HOLDERS])}" + (
            f" and {len(nodes) - SHOWN_HOLDERS} more)" if len(nodes) > SHOWN_HOLDERS else ")"
        )
        return (
            f"{self.name}: {self.units} x ({resources_text(self.unit)}) = "
            f"{resources_text(self.total)} kept free by the autoscaler; "
            f"{len(self.held)} placeholder(s) hold room on the nodes there are"
            + (where if nodes else "")
            + f", {self.need_new_nodes} need new nodes (the autoscaler adds them)"
        )


def buffer_plans(buffers: Iterable[Buffer], events: Iterable[Event]) -> list[BufferPlan]:
    by_owner: dict[str, list[Event]] = {}
    for event in events:
        by_owner.setdefault(event.pod.owner, []).append(event)
    plans = []
    for buffer in buffers:
        placed = by_owner.get(buffer.ref, [])
        held = tuple(e.decision.node for e in placed if e.decision.node is not None)
        plans.append(
            BufferPlan(
                name=f"{buffer.namespace}/{buffer.name}",
                units=buffer.units,
                unit=buffer.template.requests,
                held=held,
                need_new_nodes=len(placed) - len(held),
            )
        )
    return plans


@dataclass(frozen=True)
class ZoneRoom:
    """The room held in one zone (``topology.kubernetes.io/zone``) right after apply:
    the slices of the reservers established there and the buffers' placeholders that
    find room there."""

    zone: str
    nodes: int
    slices: Resources
    buffered: Resources

    def to_json(self) -> dict[str, object]:
        return {
            "zone": self.zone,
            "nodes": self.nodes,
            "slices": resources_json(self.slices),
            "buffered": resources_json(self.buffered),
        }

    def render(self) -> str:
        return (
            f"{self.zone}: {self.nodes} node(s), slices {resources_text(self.slices)}, "
            f"buffers {resources_text(self.buffered)}"
        )


def zone_room(
    nodes: Sequence[Node],
    slices: Mapping[str, Iterable[Resources]],
    buffers: Iterable[BufferPlan],
) -> tuple[ZoneRoom, ...]:
    """The room per zone, zones sorted (the nodes without a zone label last): ``slices``
    are the slices held per node name; each buffer placeholder holds its unit."""
    zone_of = {node.name: node.labels.get(ZONE_LABEL, NO_ZONE) for node in nodes}
    counts: dict[str, int] = {}
    for zone in zone_of.values():
        counts[zone] = counts.get(zone, 0) + 1
    held = {zone: Resources() for zone in counts}
    buffered = {zone: Resources() for zone in counts}
    for node, amounts in slices.items():
        for amount in amounts:
            held[zone_of[node]] += amount
    for buffer in buffers:
        for node in buffer.held:
            buffered[zone_of[node]] += buffer.unit
    order = sorted(counts, key=lambda zone: (zone == NO_ZONE, zone))
    return tuple(ZoneRoom(zone, counts[zone], held[zone], buffered[zone]) for zone in order)
