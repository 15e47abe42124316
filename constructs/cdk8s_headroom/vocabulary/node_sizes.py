"""Node sizes a pool allows, what a node keeps for itself, and what a slice costs.

A pool rarely names its instance types. Its requirements bound them instead, and this
module reads the lower bound of each node's capacity from the requirements it can
interpret (both the Karpenter ``karpenter.k8s.aws/`` keys and the EKS Auto Mode
``eks.amazonaws.com/`` keys):

- ``instance-cpu`` (vCPUs) and ``instance-memory`` (MiB): ``In`` values, ``Gt`` and
  ``Gte`` bounds (``Lt`` and ``Lte`` bound from above, so they only exclude values);
- ``instance-size`` and ``node.kubernetes.io/instance-type``: the vCPUs of a size name
  (``large`` 2, ``xlarge`` 4, ``<n>xlarge`` 4n; ``nano``, ``micro``, ``small`` and
  ``medium`` at least 1; ``metal`` sizes are the family's largest and bound nothing);
- memory from vCPUs, when every allowed ``instance-category`` has a known ratio:
  c 2 GiB, m 4 GiB, r 8 GiB per vCPU (the ratio since generation 5; older c4 and m4
  hold a little less, which this estimate ignores);
- on Karpenter's KWOK provider, its ``karpenter.kwok.sh/`` labels (Karpenter's
  ``kwok/cloudprovider/helpers.go``, ``setDefaultOptions``): ``instance-cpu`` and
  ``instance-size`` (both the vCPUs, as KWOK names its types ``c-4x-amd64-linux``),
  ``instance-memory`` (a quantity such as ``8Gi``, ``In`` values only), and memory
  from vCPUs by ``instance-family`` (``KWOK_MEMORY_PER_VCPU``);
- sizes the user declares (``declared``) for any other provider, whose labels this
  project does not read;
- on EKS Auto Mode, at least 2 vCPUs: Auto Mode only launches instances with more than
  one CPU, and no nano, micro or small sizes (EKS user guide, "Learn about Amazon EKS
  Auto Mode Managed instances"). A pool counts as Auto Mode when it says so, or when
  a requirement uses an ``eks.amazonaws.com/`` key, which only Auto Mode nodes carry.

Anything else (other categories, a pool without size requirements) leaves the size
unknown, and the checks that need it are skipped rather than guessed.

``minValues`` does not raise the lower bound (a node claim with five instance types on
offer still launches the cheapest), but requirements that leave a key fewer values
than its ``minValues`` allow no node at all, and are refused like an empty range.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, runtime_checkable

from cdk8s_headroom.vocabulary import rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.node_pools import INodePool
from cdk8s_headroom.vocabulary.placement import NodeSelectorOperator, NodeSelectorRequirement
from cdk8s_headroom.vocabulary.quantity import format_cpu, format_memory, parse_quantity

MIB = 2**20
GIB = 2**30

INSTANCE_LABEL_PREFIXES = ("karpenter.k8s.aws/", "eks.amazonaws.com/")
"""Karpenter on EC2 and EKS Auto Mode name the same instance facts under these prefixes."""

KWOK_LABEL_PREFIX = "karpenter.kwok.sh/"
"""The instance labels of Karpenter's KWOK provider (``kwok/apis/v1alpha1/labels.go``)."""

KWOK_INSTANCE_LABELS = tuple(
    f"{KWOK_LABEL_PREFIX}{name}"
    for name in ("instance-cpu", "instance-family", "instance-memory", "instance-size")
)
"""The only ``karpenter.kwok.sh/`` keys a NodePool may use: the provider restricts its
domain and registers these four as well-known labels (``labels.go``, ``init``)."""

INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"

MEMORY_PER_VCPU = {"c": 2 * GIB, "m": 4 * GIB, "r": 8 * GIB}
"""Memory per vCPU of the general-purpose categories (generation 5 and later)."""

KWOK_MEMORY_PER_VCPU = {"c": 2 * GIB, "s": 4 * GIB, "m": 8 * GIB}
"""Memory per vCPU of the KWOK provider's instance families, as its built-in
``kwok/cloudprovider/instance_types.json`` defines them (``c-4x`` 8Gi, ``s-4x`` 16Gi,
``m-4x`` 32Gi)."""

_SMALL_SIZES = {"nano": 1, "micro": 1, "small": 1, "medium": 1}
"""Sizes below ``large``: at least 1 vCPU."""

AUTO_MODE_MIN_VCPUS = 2
"""EKS Auto Mode launches only instances with more than one vCPU."""

_XLARGE = re.compile(r"^(?P<factor>\d*)xlarge$")

KUBELET_EVICTION_MEMORY = 100 * MIB
"""The kubelet's default hard eviction threshold, ``memory.available<100Mi``."""

ASSUMED_MAX_PODS = 110
"""The kubelet's default ``maxPods``, used for the kube-reserved memory estimate.

Karpenter on EC2 derives maxPods from the instance's ENI limits (29 on an m5.large), so
on small nodes the estimate reserves more memory than the node does: the fit check
errs on the side of refusing a slice that would barely fit.
"""

RESERVED_MEMORY = 255 * MIB + 11 * MIB * ASSUMED_MAX_PODS + KUBELET_EVICTION_MEMORY
"""The memory a node keeps from pods (``NodeSize.allocatable``), in bytes."""


@dataclass(frozen=True)
class NodeSize:
    """Resources of a node: ``cpu`` in cores, ``memory`` in bytes; ``None`` when unknown."""

    cpu: Fraction | None
    memory: Fraction | None

    def allocatable(self) -> NodeSize:
        """A rough allocatable estimate: capacity minus kube-reserved and eviction.

        CPU: the EKS and Karpenter kube-reserved formula, 6% of the first core, 1% of
        the second, 0.5% of the third and fourth, 0.25% of the rest. Memory: the same
        formula's 255 MiB + 11 MiB per pod, with ``ASSUMED_MAX_PODS`` pods, plus the
        kubelet's 100 MiB hard eviction threshold. System-reserved and other
        DaemonSets are not counted: they take from the same allocatable.
        """
        cpu = None if self.cpu is None else self.cpu - kube_reserved_cpu(self.cpu)
        memory = None
        if self.memory is not None:
            memory = self.memory - RESERVED_MEMORY
        return NodeSize(cpu=cpu, memory=memory)

    def __str__(self) -> str:
        cpu = "? CPU" if self.cpu is None else f"{format_cpu(self.cpu)} CPU"
        memory = "? memory" if self.memory is None else f"{format_memory(self.memory)} memory"
        return f"{cpu}, {memory}"


KUBE_RESERVED_CPU_STEPS = (
    (Fraction(1), Fraction(6, 100)),
    (Fraction(1), Fraction(1, 100)),
    (Fraction(2), Fraction(5, 1000)),
)
"""The EKS AMI formula's kube-reserved CPU: per (width in cores, rate) step, from the
first core up; the cores beyond them at ``KUBE_RESERVED_CPU_REST``. The chart's fit
check is generated from these (``helm.node_fit``)."""
KUBE_RESERVED_CPU_REST = Fraction(25, 10000)


def kube_reserved_cpu(cores: Fraction) -> Fraction:
    """The kube-reserved CPU of a node with ``cores`` vCPUs (EKS AMI formula)."""
    reserved = Fraction(0)
    remaining = cores
    for width, rate in KUBE_RESERVED_CPU_STEPS:
        taken = min(remaining, width)
        reserved += taken * rate
        remaining -= taken
    return reserved + max(remaining, Fraction(0)) * KUBE_RESERVED_CPU_REST


@runtime_checkable
class ISizedNodePool(INodePool, Protocol):
    """A node pool that knows the sizes of its nodes and its limits."""

    @property
    def smallest_node(self) -> NodeSize:
        """The lower bound of each node's capacity (fields ``None`` when unknown)."""

    @property
    def limit_amounts(self) -> Mapping[str, Fraction] | None:
        """The pool's ``limits`` (``cpu`` in cores, ``memory`` in bytes, ...); ``None``
        when they are not known."""


def size_vcpus(size: str) -> int | None:
    """The vCPUs of an EC2 size name, or ``None`` for ``metal`` and unknown names."""
    if size in _SMALL_SIZES:
        return _SMALL_SIZES[size]
    if size == "large":
        return 2
    match = _XLARGE.match(size)
    if match is None:
        return None
    return 4 * int(match["factor"] or 1)


def _instance_key(key: str, name: str) -> bool:
    return any(key == prefix + name for prefix in INSTANCE_LABEL_PREFIXES)


def _kwok_vcpu_key(key: str) -> bool:
    return key in (f"{KWOK_LABEL_PREFIX}instance-cpu", f"{KWOK_LABEL_PREFIX}instance-size")


def _integer_lower_bound(
    requirements: Sequence[NodeSelectorRequirement], name: str, *, field: str
) -> int | None:
    """The smallest integer a label may take under all requirements on it, if bounded."""
    allowed: set[int] | None = None
    excluded: set[int] = set()
    above = -1
    below: int | None = None
    relevant = [
        r
        for r in requirements
        if _instance_key(r.key, name) or (name == "instance-cpu" and _kwok_vcpu_key(r.key))
    ]
    for requirement in relevant:
        values = {int(v) for v in requirement.values if v.lstrip("-").isdigit()}
        if requirement.operator is NodeSelectorOperator.IN:
            allowed = values if allowed is None else allowed & values
        elif requirement.operator is NodeSelectorOperator.NOT_IN:
            excluded |= values
        elif requirement.operator in (NodeSelectorOperator.GT, NodeSelectorOperator.GTE):
            # Gte n is Gt n-1 on integers (Karpenter canonicalizes the other way).
            shift = 1 if requirement.operator is NodeSelectorOperator.GTE else 0
            above = max([above, *(v - shift for v in values)])
        elif requirement.operator in (NodeSelectorOperator.LT, NodeSelectorOperator.LTE):
            shift = 1 if requirement.operator is NodeSelectorOperator.LTE else 0
            below = min([*(v + shift for v in values), *([] if below is None else [below])])
    if allowed is None:
        if below is not None and above + 1 >= below:
            raise HeadroomConfigError(
                field,
                [f"{r.operator.value} {list(r.values)}" for r in relevant],
                f"requirements on {name} that leave at least one value: together these "
                "allow no instance at all",
            )
        return above + 1 if above >= 0 else None
    candidates = sorted(v for v in allowed - excluded if v > above and (below is None or v < below))
    if not candidates:
        raise HeadroomConfigError(
            field,
            [list(r.values) for r in relevant],
            f"requirements on {name} that leave at least one value: together these "
            "allow no instance at all",
        )
    return candidates[0]


def check_min_values(requirements: Sequence[NodeSelectorRequirement], *, field: str) -> None:
    """Raises when the requirements on a key leave it fewer values than its ``minValues``.

    A key has a known number of values when it has an ``In`` list (the values every
    ``In`` on the key allows that the key's other requirements admit too), or integer
    bounds on both sides (``Gte 4`` and ``Lte 4`` leave one value, ``4``).
    """
    for key in dict.fromkeys(r.key for r in requirements if r.min_values is not None):
        on_key = [r for r in requirements if r.key == key]
        wanted = max(r.min_values or 0 for r in on_key)
        allowed: set[str] | None = None
        for requirement in on_key:
            if requirement.operator is NodeSelectorOperator.IN:
                values = set(requirement.values)
                allowed = values if allowed is None else allowed & values
        if allowed is None:
            allowed = _bounded_integers(on_key, wanted)
        if allowed is None:
            continue
        left = [value for value in allowed if all(r.matches(value) for r in on_key)]
        if len(left) < wanted:
            raise HeadroomConfigError(
                f"{field}.min_values",
                wanted,
                f"at most {len(left)}: the requirements on {key} leave only "
                f"{sorted(left)}, so Karpenter could launch no node",
            )


def _bounded_integers(on_key: Sequence[NodeSelectorRequirement], wanted: int) -> set[str] | None:
    """The integers that bounds on both sides leave a key, or None when a side is open.

    A wide range is cut to ``wanted`` values past what ``NotIn`` lists take out: enough
    to judge ``minValues``."""
    low: int | None = None
    high: int | None = None
    for requirement in on_key:
        operator, value = requirement.operator, requirement.values
        if operator in (NodeSelectorOperator.GT, NodeSelectorOperator.GTE):
            bound = int(value[0]) + (operator is NodeSelectorOperator.GT)
            low = bound if low is None else max(low, bound)
        elif operator in (NodeSelectorOperator.LT, NodeSelectorOperator.LTE):
            bound = int(value[0]) - (operator is NodeSelectorOperator.LT)
            high = bound if high is None else min(high, bound)
    if low is None or high is None:
        return None
    excluded = sum(len(r.values) for r in on_key if r.operator is NodeSelectorOperator.NOT_IN)
    return {str(number) for number in range(low, min(high, low + wanted + excluded) + 1)}


def _allowed_values(requirements: Sequence[NodeSelectorRequirement], key: str) -> set[str] | None:
    allowed: set[str] | None = None
    for requirement in requirements:
        on_key = requirement.key == key or _instance_key(requirement.key, key)
        if on_key and requirement.operator is NodeSelectorOperator.IN:
            values = set(requirement.values)
            allowed = values if allowed is None else allowed & values
    return allowed


def _min_or_none(values: Iterable[int | Fraction | None]) -> Fraction | None:
    known = [Fraction(v) for v in values if v is not None]
    return min(known) if known else None


def _max_or_none(*values: Fraction | None) -> Fraction | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def smallest_node(
    requirements: Sequence[NodeSelectorRequirement],
    *,
    field: str,
    auto_mode: bool = False,
    declared: NodeSize | None = None,
) -> NodeSize:
    """The lower bound of the capacity of any node the requirements allow.

    Each bound is the largest of the bounds the requirements imply: ``instance-cpu In
    [4, 8]`` and ``instance-size In [large]`` give 4 vCPUs. ``auto_mode`` (or a
    requirement on an ``eks.amazonaws.com/`` key) adds Auto Mode's 2-vCPU floor.
    ``declared`` is the smallest node the user says the pool launches; it is a bound
    too, and the only one on a provider whose labels this module does not read.

    Raises:
        HeadroomConfigError: (on ``field``) when the requirements on instance-cpu or
            instance-memory exclude every value.
    """
    check_min_values(requirements, field=field)
    cpu_bound = _integer_lower_bound(requirements, "instance-cpu", field=field)
    memory_bound = _integer_lower_bound(requirements, "instance-memory", field=field)
    cpu = Fraction(cpu_bound) if cpu_bound is not None else None
    memory = Fraction(memory_bound * MIB) if memory_bound is not None else None

    auto_mode = auto_mode or any(r.key.startswith("eks.amazonaws.com/") for r in requirements)
    if auto_mode:
        cpu = _max_or_none(cpu, Fraction(AUTO_MODE_MIN_VCPUS))
    categories = _allowed_values(requirements, "instance-category")
    sizes = _allowed_values(requirements, "instance-size")
    types = _allowed_values(requirements, INSTANCE_TYPE_LABEL)
    if sizes:
        size_cpu = _min_or_none(size_vcpus(size) for size in sizes)
        cpu = _max_or_none(cpu, size_cpu)
    if types:
        type_cpu = _min_or_none(
            size_vcpus(t.partition(".")[2]) if "." in t else None for t in types
        )
        cpu = _max_or_none(cpu, type_cpu)
        type_memory = _type_memory(types)
        memory = _max_or_none(memory, type_memory)
    if cpu is not None and categories and categories <= MEMORY_PER_VCPU.keys():
        ratio = min(MEMORY_PER_VCPU[c] for c in categories)
        memory = _max_or_none(memory, cpu * ratio)
    memory = _max_or_none(memory, _kwok_memory(requirements, cpu, field=field))
    if declared is not None:
        cpu = _max_or_none(cpu, declared.cpu)
        memory = _max_or_none(memory, declared.memory)
    return NodeSize(cpu=cpu, memory=memory)


def _kwok_memory(
    requirements: Sequence[NodeSelectorRequirement], cpu: Fraction | None, *, field: str
) -> Fraction | None:
    """The memory bound of KWOK's labels: the smallest ``instance-memory`` allowed, and
    vCPUs (read from KWOK's labels) times the smallest memory per vCPU of the allowed
    ``instance-family`` s, every built-in family when no requirement names one."""
    bounds: list[Fraction] = []
    listed = _allowed_values(requirements, f"{KWOK_LABEL_PREFIX}instance-memory")
    if listed:
        bounds.append(min(parse_quantity(v, field=f"{field}.values") for v in listed))
    families = _allowed_values(requirements, f"{KWOK_LABEL_PREFIX}instance-family")
    on_kwok = any(_kwok_vcpu_key(r.key) for r in requirements)
    if families is None and on_kwok:
        families = set(KWOK_MEMORY_PER_VCPU)
    if cpu is not None and families and families <= KWOK_MEMORY_PER_VCPU.keys():
        bounds.append(cpu * min(KWOK_MEMORY_PER_VCPU[f] for f in families))
    return max(bounds) if bounds else None


def _type_memory(types: set[str]) -> Fraction | None:
    """Memory of the smallest listed instance type, if every type's category is known."""
    amounts: list[Fraction] = []
    for instance_type in types:
        family, _, size = instance_type.partition(".")
        category = re.match(r"^[a-z]+", family)
        vcpus = size_vcpus(size)
        if category is None or category[0] not in MEMORY_PER_VCPU or vcpus is None:
            return None
        amounts.append(Fraction(vcpus * MEMORY_PER_VCPU[category[0]]))
    return min(amounts) if amounts else None


def check_slice_fits(
    node: NodeSize,
    *,
    cpu: Fraction,
    memory: Fraction,
    pool_name: str,
    cpu_field: str,
    memory_field: str,
    cpu_value: object,
    memory_value: object,
    what: str = "a slice",
) -> None:
    """Raises when a slice (or ``what`` else a node must hold whole, such as a buffer
    pod) cannot fit on the smallest node the pool may launch.

    The slice is compared to the node's estimated allocatable (see
    ``NodeSize.allocatable``), not its capacity: a reserver larger than that stays
    Pending on every small node.
    """
    allocatable = node.allocatable()
    for field, value, amount, room, capacity, fmt in (
        (cpu_field, cpu_value, cpu, allocatable.cpu, node.cpu, format_cpu),
        (memory_field, memory_value, memory, allocatable.memory, node.memory, format_memory),
    ):
        if room is None or capacity is None or amount <= room:
            continue
        rules.SLICE_FITS_NODE.fail(
            field,
            value,
            what=what,
            the=what.replace("a ", "the ", 1),
            pool=pool_name,
            capacity=fmt(capacity),
            room=fmt(max(room, Fraction(0))),
        )


def max_nodes(node: NodeSize, limits: Mapping[str, Fraction]) -> int | None:
    """How many nodes a pool's ``limits`` allow at most, or ``None`` when unknown.

    Karpenter counts each node's capacity against the limits, so the most nodes the
    pool can hold are its limits divided by the smallest node it may launch.
    """
    bounds = [
        int(limits[resource] // amount)
        for resource, amount in (("cpu", node.cpu), ("memory", node.memory))
        if resource in limits and amount is not None and amount > 0
    ]
    return min(bounds) if bounds else None
