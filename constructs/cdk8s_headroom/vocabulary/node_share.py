"""A slice given as a share of each node (``cpu="10%"``), and the node sizes it is a
share of.

A DaemonSet's pods all request the same, so a share becomes one reserver per node size:
each selects its size by ``node.kubernetes.io/instance-type`` and holds the share of
that size's allocatable. The sizes must be known when the app is synthesized: declared
as ``NodeType`` s (a KWOK or on-premises cluster, a fleet whose allocatable is measured),
or read from a Karpenter pool that lists its instance types
(``node.kubernetes.io/instance-type In [...]``) of the categories whose memory per vCPU
is known (``node_sizes.MEMORY_PER_VCPU``), whose allocatable is then estimated
(``NodeSize.allocatable``). Anything else is refused rather than guessed: a pool whose
sizes are open has no finite list of reservers.

A share is rounded down to whole millicores and whole MiB, so that the reserver never
asks for more than its share.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from cdk8s_headroom.vocabulary import names, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.node_sizes import (
    INSTANCE_TYPE_LABEL,
    MEMORY_PER_VCPU,
    MIB,
    NodeSize,
    size_vcpus,
)
from cdk8s_headroom.vocabulary.placement import NodeSelectorOperator, NodeSelectorRequirement
from cdk8s_headroom.vocabulary.quantity import (
    Quantity,
    QuantityLike,
    SliceSpec,
    check_container_memory,
    format_cpu,
    format_memory,
)


@dataclass(frozen=True, repr=False)
class Share:
    """A share of each node's allocatable, judged once (``rules.SHARE``).

    Attributes:
        text: the share as written, e.g. ``"10%"``.
        fraction: its exact value, ``Fraction(1, 10)`` for ``"10%"``.
        given: the value as the user gave it, which messages show.
    """

    text: str
    fraction: Fraction
    given: object = field(compare=False)

    @classmethod
    def parse(cls, value: object, *, field: str) -> Share:
        """``value`` judged by ``rules.SHARE``, named ``field`` in an error."""
        if isinstance(value, Share):
            return value
        text = rules.SHARE.check(
            value, field=field, text=value.strip() if isinstance(value, str) else None
        )
        return cls(text, Fraction(text[:-1]) / 100, value)

    def __repr__(self) -> str:
        return shown(self.given)


SliceAmount = Quantity | Share
"""One resource of a slice: a fixed quantity on every node, or a share of each node."""


def is_share(value: object) -> bool:
    """Whether a slice's value is written as a share (ends with ``%``)."""
    return isinstance(value, Share) or (isinstance(value, str) and value.strip().endswith("%"))


def judge_amount(value: QuantityLike | Share, *, field: str, memory: bool) -> SliceAmount:
    """A slice's cpu or memory judged once: a ``Share`` when written ``"<n>%"``, else a
    ``Quantity`` (a memory slice of at least 4Mi)."""
    if is_share(value):
        return Share.parse(value, field=field)
    assert not isinstance(value, Share)
    return Quantity.memory(value, field=field) if memory else Quantity.positive(value, field=field)


class NodeType:
    """A node size of a pool: its ``node.kubernetes.io/instance-type`` and allocatable.

    Args:
        name: the ``node.kubernetes.io/instance-type`` label of the nodes of this size,
            e.g. ``"m5.large"``.
        cpu: the allocatable CPU of such a node, e.g. ``"1930m"``.
        memory: the allocatable memory of such a node, e.g. ``"7Gi"``.
    """

    def __init__(self, name: str, *, cpu: QuantityLike, memory: QuantityLike) -> None:
        self.name = names.label_value(name, field="node_types.name")
        if not self.name:
            raise HeadroomConfigError("node_types.name", name, "an instance type, e.g. 'm5.large'")
        self.cpu = Quantity.positive(cpu, field=f"node_types[{self.name}].cpu")
        self.memory = Quantity.positive(memory, field=f"node_types[{self.name}].memory")

    @classmethod
    def estimated(cls, instance_type: str) -> NodeType | None:
        """An EC2 instance type's estimated allocatable, or ``None`` when its category's
        memory per vCPU or its size is unknown (``node_sizes``)."""
        family, _, size = instance_type.partition(".")
        category = re.match(r"^[a-z]+", family)
        vcpus = size_vcpus(size)
        if category is None or category[0] not in MEMORY_PER_VCPU or vcpus is None:
            return None
        capacity = NodeSize(Fraction(vcpus), Fraction(vcpus * MEMORY_PER_VCPU[category[0]]))
        allocatable = capacity.allocatable()
        assert allocatable.cpu is not None and allocatable.memory is not None
        return cls(
            instance_type,
            cpu=_millicores(allocatable.cpu),
            memory=f"{int(allocatable.memory // MIB)}Mi",
        )

    @property
    def allocatable(self) -> NodeSize:
        return NodeSize(self.cpu.amount, self.memory.amount)

    @property
    def suffix(self) -> str:
        """The type's name as the end of a DNS label: ``m5.large`` gives ``m5-large``."""
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")

    @property
    def selector(self) -> dict[str, str]:
        """The node selector of this size's nodes."""
        return {INSTANCE_TYPE_LABEL: self.name}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NodeType) and (self.name, self.cpu, self.memory) == (
            other.name,
            other.cpu,
            other.memory,
        )

    def __hash__(self) -> int:
        return hash((self.name, self.cpu, self.memory))

    def __repr__(self) -> str:
        return f"NodeType({self.name!r}, cpu={self.cpu.text!r}, memory={self.memory.text!r})"


def _millicores(cores: Fraction) -> str:
    return f"{int(cores * 1000)}m"


def pool_node_types(requirements: Sequence[NodeSelectorRequirement]) -> tuple[NodeType, ...]:
    """The node sizes a Karpenter pool lists (``node.kubernetes.io/instance-type In``),
    each estimated; empty when the pool lists none or one is of an unknown category."""
    listed: set[str] | None = None
    for requirement in requirements:
        if requirement.key == INSTANCE_TYPE_LABEL and requirement.operator is (
            NodeSelectorOperator.IN
        ):
            values = set(requirement.values)
            listed = values if listed is None else listed & values
    estimated = [NodeType.estimated(name) for name in sorted(listed or ())]
    if not estimated or any(node_type is None for node_type in estimated):
        return ()
    return tuple(node_type for node_type in estimated if node_type is not None)


def check_node_types(node_types: object, *, field: str = "node_types") -> tuple[NodeType, ...]:
    """A list of ``NodeType`` s with distinct names and reserver suffixes."""
    given = names.sequence(node_types, field=field, allowed="a list of NodeType")
    seen: dict[str, str] = {}
    for node_type in given:
        if not isinstance(node_type, NodeType):
            raise HeadroomConfigError(field, node_type, "NodeType objects")
        if node_type.suffix in seen:
            raise HeadroomConfigError(
                field,
                node_type.name,
                f"node types with distinct names: {shown(node_type.name)} and "
                f"{shown(seen[node_type.suffix])} give the same reserver name",
            )
        seen[node_type.suffix] = node_type.name
    if not given:
        raise HeadroomConfigError(field, [], "at least one NodeType")
    return tuple(t for t in given if isinstance(t, NodeType))


def share_of(amount: SliceAmount, node_type: NodeType, *, field: str, memory: bool) -> Quantity:
    """``amount`` on a node of ``node_type``: a fixed quantity as it is, a share of its
    allocatable rounded down to whole millicores or MiB. Refused when it does not fit."""
    room = node_type.memory.amount if memory else node_type.cpu.amount
    unit = Fraction(MIB) if memory else Fraction(1, 1000)
    if isinstance(amount, Quantity):
        held = amount
    else:
        units = int(amount.fraction * room // unit)
        text = f"{units}Mi" if memory else f"{units}m"
        if units <= 0:
            raise HeadroomConfigError(
                field,
                amount.given,
                f"a share that holds something on node type {shown(node_type.name)}: "
                f"{amount.text} of its {format_cpu(room)} allocatable CPU is under 1m",
            )
        held = Quantity(text, units * unit, amount.given)
        if memory:
            check_container_memory(text, field=field, value=amount.given)
    if held.amount > room:
        shown_room = format_memory(room) if memory else format_cpu(room)
        raise HeadroomConfigError(
            field,
            held.given,
            f"a slice that fits on node type {shown(node_type.name)}, whose allocatable is "
            f"{shown_room}",
        )
    return held


def slices_per_type(
    cpu: SliceAmount, memory: SliceAmount, node_types: Sequence[NodeType]
) -> tuple[tuple[NodeType, SliceSpec], ...]:
    """The slice each node size holds, in the order the sizes are given."""
    return tuple(
        (
            node_type,
            SliceSpec(
                share_of(cpu, node_type, field="cpu", memory=False),
                share_of(memory, node_type, field="memory", memory=True),
            ),
        )
        for node_type in node_types
    )


def sized_slices(
    cpu: SliceAmount | None,
    memory: SliceAmount | None,
    node_types: object,
    node_pool: object,
) -> tuple[tuple[NodeType, SliceSpec], ...]:
    """Each node size and its slice when ``cpu`` or ``memory`` is a share; empty when
    both are fixed. The sizes are ``node_types``, else those ``node_pool`` lists."""
    share = next((a for a in (cpu, memory) if isinstance(a, Share)), None)
    if share is None or cpu is None or memory is None:
        if node_types is not None:
            raise HeadroomConfigError(
                "node_types",
                node_types,
                'no value without a share: node sizes matter when the slice is "<n>%" of '
                "each node; a fixed slice is the same on every node",
            )
        return ()
    if node_types is None:
        types = pool_node_types(getattr(node_pool, "requirements", ()))
        if not types:
            field = "cpu" if isinstance(cpu, Share) else "memory"
            raise HeadroomConfigError(
                field,
                share.given,
                "a fixed quantity, or a share with known node sizes: pass "
                "node_types=[NodeType('<instance type>', cpu=..., memory=...), ...], or a "
                "KarpenterNodePool whose requirements list its instance types "
                "(node.kubernetes.io/instance-type In [...]) of categories c, m or r; the "
                "reservers are one per size, so the sizes must be known at synthesis",
            )
    else:
        types = check_node_types(node_types)
    return slices_per_type(cpu, memory, types)


def slice_of(
    cpu: SliceAmount | None,
    memory: SliceAmount | None,
    sized: Sequence[tuple[NodeType, SliceSpec]],
) -> SliceSpec | None:
    """The slice every node holds at least: the fixed slice, or the smallest size's."""
    if sized:
        return min((spec for _, spec in sized), key=lambda s: (s.cpu.amount, s.memory.amount))
    if isinstance(cpu, Quantity) and isinstance(memory, Quantity):
        return SliceSpec(cpu, memory)
    return None
