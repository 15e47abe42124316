"""The rules of a slice given as a share of each node (``cpu="10%"``) and of the node
sizes it is a share of (``node_share``): the share's grammar, how a share is rounded
into a reserver's request, and the refusals. Declared as data (``rule_language``);
``rules`` gathers them with the others, so the chart refuses what the library refuses.
"""

from __future__ import annotations

from dataclasses import dataclass

from cdk8s_headroom.vocabulary.rule_language import (
    AnyOf,
    AtMost,
    Clause,
    Const,
    Eq,
    Given,
    Grammar,
    Not,
    Rule,
    Truthy,
)

SHARE_MARK = "%"
"""What ends a share's text: a slice's value written so is a share, else a quantity."""
SHARE_DECIMALS = 3
"""The most decimals of a share's percentage."""
_SHARE_ALLOWED = (
    'a share of each node\'s allocatable above 0% and below 100%, e.g. "10%" or "12.5%": '
    "the reserver of a node size holds that share of it"
)
SHARE = Grammar(
    "share",
    (
        Clause(rf"(0|[1-9][0-9]?)(\.[0-9]{{1,{SHARE_DECIMALS}}})?%", _SHARE_ALLOWED),
        Clause(r"0(\.0*)?%", _SHARE_ALLOWED, forbid=True),
    ),
)
"""A slice as a share of each node (``cpu="10%"``), of at most three decimals."""


@dataclass(frozen=True)
class ShareUnit:
    """What a share of one resource is rounded down to: whole ``10^-power`` base units
    times ``divisor``, written ``<n><suffix>``; ``words`` names the resource in messages."""

    words: str
    suffix: str
    power: int
    divisor: int


SHARE_UNITS = {
    "cpu": ShareUnit("CPU", "m", 3, 1),
    "memory": ShareUnit("memory", "Mi", 0, 2**20),
}
"""A share of CPU is held in whole millicores, of memory in whole MiB: rounded down, so
that a reserver never asks for more than its share."""

TYPE_SUFFIX_PATTERN = "[^a-z0-9]+"
TYPE_SUFFIX_SEPARATOR = "-"
"""A node type's name (lowered) as the end of its reserver's name: each run of other
characters than ``a-z0-9`` becomes the separator, trimmed at both ends
(``m5.large``: ``m5-large``)."""

NODE_TYPES_NEED_SHARE = Rule(
    "nodeTypesNeedShare",
    'no value without a share: node sizes matter when the slice is "<n>%" of each node; '
    "a fixed slice is the same on every node",
    AnyOf(Not(Given("types")), Truthy("share")),
)
SHARE_NEEDS_NODE_TYPES = Rule(
    "shareNeedsNodeTypes",
    "a fixed quantity, or a share with known node sizes: pass "
    "node_types=[NodeType('<instance type>', cpu=..., memory=...), ...], or a "
    "KarpenterNodePool whose requirements list its instance types "
    "(node.kubernetes.io/instance-type In [...]) of categories c, m or r; the reservers "
    "are one per size, so the sizes must be known at synthesis",
    Given("types"),
)
DISTINCT_NODE_TYPES = Rule(
    "distinctNodeTypes",
    "node types with distinct names: {name!r} and {other!r} give the same reserver name",
    Not(Given("other")),
)
SHARE_HOLDS_SOMETHING = Rule(
    "shareHoldsSomething",
    "a share that holds something on node type {type!r}: {share} of its {room} "
    "allocatable {resource} is under {least}",
    # held: the whole units of SHARE_UNITS the share rounds down to, as digits
    Not(Eq("held", Const("0"))),
)
SLICE_FITS_NODE_TYPE = Rule(
    "sliceFitsNodeType",
    "a slice that fits on node type {type!r}, whose allocatable is {room}",
    AtMost("held", "allocatable", "resource"),
)
"""A fixed quantity beside a share (``cpu="500m", memory="10%"``), on each node size."""

SHARE_RULES = (
    NODE_TYPES_NEED_SHARE,
    SHARE_NEEDS_NODE_TYPES,
    DISTINCT_NODE_TYPES,
    SHARE_HOLDS_SOMETHING,
    SLICE_FITS_NODE_TYPE,
)
"""The rules of a share, in the order the library judges them."""
