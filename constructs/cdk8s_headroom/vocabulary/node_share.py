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

from cdk8s_headroom.vocabulary import names, object_names, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.node_sizes import (
    INSTANCE_TYPE_LABEL,
    MEMORY_PER_VCPU,
    MIB,
    NodeSize,
    size_vcpus,
)
from cdk8s_headroom.vocabulary.placement import NodeSelectorOperator, NodeSelectorRequirement
from cdk8s_headroom.vocabulary.places import fill
from cdk8s_headroom.vocabulary.quantity import (
    Quantity,
    QuantityLike,
    SliceSpec,
    check_container_memory,
    format_cpu,
    format_memory,
)
from cdk8s_headroom.vocabulary.share_rules import (
    DISTINCT_NODE_TYPES,
    NODE_TYPES_NEED_SHARE,
    SHARE,
    SHARE_HOLDS_SOMETHING,
    SHARE_MARK,
    SHARE_NEEDS_NODE_TYPES,
    SHARE_UNITS,
    SLICE_FITS_NODE_TYPE,
    TYPE_SUFFIX_PATTERN,
    TYPE_SUFFIX_SEPARATOR,
)


@dataclass(frozen=True, repr=False)
class Share:
    """A share of each node's allocatable, judged once (``share_rules.SHARE``).

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
        """``value`` judged by ``share_rules.SHARE``, named ``field`` in an error."""
        if isinstance(value, Share):
            return value
        text = SHARE.check(
            value, field=field, text=value.strip() if isinstance(value, str) else None
        )
        return cls(text, Fraction(text[:-1]) / 100, value)

    def __repr__(self) -> str:
        return shown(self.given)


SliceAmount = Quantity | Share
"""One resource of a slice: a fixed quantity on every node, or a share of each node."""


def is_share(value: object) -> bool:
    """Whether a slice's value is written as a share (ends with ``%``)."""
    return isinstance(value, Share) or (
        isinstance(value, str) and value.strip().endswith(SHARE_MARK)
    )


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
        self.name = rules.INSTANCE_TYPE.check(name, field="node_types.name")
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
        separator = TYPE_SUFFIX_SEPARATOR
        return re.sub(TYPE_SUFFIX_PATTERN, separator, self.name.lower()).strip(separator)

    def reserver_name(self, reserver: str) -> str:
        """The name of this size's reserver, of the headroom's ``reserver`` name."""
        return str(fill(object_names.SIZED_RESERVER, {"reserver": reserver, "type": self.suffix}))

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
        other = seen.get(node_type.suffix)
        DISTINCT_NODE_TYPES.check(field, node_type.name, name=node_type.name, other=other)
        seen[node_type.suffix] = node_type.name
    if not given:
        raise HeadroomConfigError(field, [], "at least one NodeType")
    return tuple(t for t in given if isinstance(t, NodeType))


def reserver_names(reserver: str, sized: Sequence[tuple[NodeType, SliceSpec]]) -> tuple[str, ...]:
    """The names of a headroom's reservers, of its ``reserver`` name: that name, or one
    per node size (``sized_slices``), in their order. A size's name too long for a DNS
    label is refused as the headroom's ``reserver_name``, which it is made of."""
    typed = (node_type.reserver_name(reserver) for node_type, _ in sized)
    return tuple(names.dns_label(name, field="reserver_name") for name in typed) or (reserver,)


def share_of(amount: SliceAmount, node_type: NodeType, *, field: str, memory: bool) -> Quantity:
    """``amount`` on a node of ``node_type``: a fixed quantity as it is, a share of its
    allocatable rounded down to whole units (``SHARE_UNITS``: millicores, MiB). Refused
    when it holds nothing or does not fit."""
    resource = "memory" if memory else "cpu"
    allocatable = node_type.memory if memory else node_type.cpu
    room = allocatable.amount
    shown_room = format_memory(room) if memory else format_cpu(room)
    unit = SHARE_UNITS[resource]
    if isinstance(amount, Quantity):
        SLICE_FITS_NODE_TYPE.check(
            field,
            amount.given,
            held=amount.text,
            allocatable=allocatable.text,
            resource=resource,
            type=node_type.name,
            room=shown_room,
        )
        return amount
    size = Fraction(unit.divisor, 10**unit.power)
    units = int(amount.fraction * room // size)
    SHARE_HOLDS_SOMETHING.check(
        field,
        amount.given,
        held=str(units),
        type=node_type.name,
        share=amount.text,
        room=shown_room,
        resource=unit.words,
        least=f"1{unit.suffix}",
    )
    text = f"{units}{unit.suffix}"
    if memory:
        check_container_memory(text, field=field, value=amount.given)
    return Quantity(text, units * size, amount.given)


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
    shared = share is not None and cpu is not None and memory is not None
    # Shown by their names, as the chart's values give them
    listed = node_types if isinstance(node_types, (list, tuple)) else None
    shown_types = node_types if listed is None else [getattr(t, "name", t) for t in listed]
    NODE_TYPES_NEED_SHARE.check("node_types", shown_types, types=node_types, share=shared)
    if share is None or cpu is None or memory is None:
        return ()
    if node_types is None:
        types = pool_node_types(getattr(node_pool, "requirements", ()))
        field = "cpu" if isinstance(cpu, Share) else "memory"
        SHARE_NEEDS_NODE_TYPES.check(field, share.given, types=types)
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
