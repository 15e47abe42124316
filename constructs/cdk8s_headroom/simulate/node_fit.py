"""A node as the scheduler holds it (``NodeInfo``: its pods and the sums of their
requests) and NodeResourcesFit's filter on it (kubernetes
``pkg/scheduler/framework/plugins/noderesources/fit.go``, ``fitsRequest``).

Pod count, cpu and memory are checked when the pod requests them; each extended
resource (``nvidia.com/gpu``...) only when the pod requests it, in whole units and
against what the node's pods hold of it: never overcommitted.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from cdk8s_headroom.simulate.model import Node, Pod, Resources

Victims = tuple[tuple[Pod, ...], int] | None
"""``select_victims_on_node``'s answer: the victims and their PDB violations, or None."""

_NONE = Resources()


class Code(Enum):
    """A filter status code, as the framework reports it."""

    SUCCESS = "Success"
    UNSCHEDULABLE = "Unschedulable"
    UNSCHEDULABLE_AND_UNRESOLVABLE = "UnschedulableAndUnresolvable"


class NodeState:
    """A node with its pods and the sums of their requests (the scheduler's NodeInfo).

    ``victims`` remembers ``select_victims_on_node``'s answer per preemptor priority and
    requests until a pod is added or removed: a burst of replicas asks every node the
    same question, and only the node the last one landed on has changed since. That
    holds because a bound pod is not changed in place (``Simulation.place`` sets a pod's
    start time before binding it) and a state's PDBs and version are fixed.
    """

    __slots__ = ("cpu", "devices", "memory", "node", "pods", "victims")

    def __init__(self, node: Node) -> None:
        self.node = node
        self.pods: list[Pod] = []
        self.cpu = 0
        self.memory = 0
        self.devices = _NONE
        """The extended resources the pods hold (its cpu and memory are zero)."""
        self.victims: dict[tuple[int, Resources], Victims] = {}

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def free(self) -> Resources:
        """Allocatable that the pods on the node do not request."""
        return self.node.allocatable - Resources(self.cpu, self.memory, self.devices.extended)

    def add(self, pod: Pod) -> None:
        self.pods.append(pod)
        self.cpu += pod.requests.cpu
        self.memory += pod.requests.memory
        if pod.requests.extended:
            self.devices += Resources(extended=pod.requests.extended)
        self.victims.clear()

    def remove(self, pod: Pod) -> None:
        self.pods.remove(pod)
        self.cpu -= pod.requests.cpu
        self.memory -= pod.requests.memory
        if pod.requests.extended:
            self.devices -= Resources(extended=pod.requests.extended)
        self.victims.clear()


def devices_of(pods: Sequence[Pod]) -> Resources:
    """The extended resources ``pods`` request together."""
    total = _NONE
    for pod in pods:
        if pod.requests.extended:
            total += Resources(extended=pod.requests.extended)
    return total


def fits(
    request: Resources, node: Node, cpu: int, memory: int, count: int, devices: Resources = _NONE
) -> bool:
    """NodeResourcesFit with the given usage: pod count, then cpu, memory and the
    extended resources the pod requests."""
    if count + 1 > node.max_pods:
        return False
    if request.cpu > 0 and request.cpu > node.allocatable.cpu - cpu:
        return False
    if request.memory > 0 and request.memory > node.allocatable.memory - memory:
        return False
    return not node.allocatable.short_of(request, devices)


def exceeds(request: Resources, allocatable: Resources) -> bool:
    """Whether a resource is requested beyond the node's allocatable: no preemption
    makes room for it."""
    return (
        (request.cpu > 0 and request.cpu > allocatable.cpu)
        or (request.memory > 0 and request.memory > allocatable.memory)
        or bool(allocatable.short_of(request, _NONE))
    )


def fits_beside(request: Resources, state: NodeState, held: Sequence[Pod]) -> bool:
    """Whether ``request`` fits on the node beside its pods and the ``held`` pods, which
    count against it without being bound (a CapacityBuffer's placeholders)."""
    cpu = state.cpu + sum(pod.requests.cpu for pod in held)
    memory = state.memory + sum(pod.requests.memory for pod in held)
    devices = state.devices + devices_of(held)
    return fits(request, state.node, cpu, memory, len(state.pods) + len(held), devices)


def resource_status(request: Resources, state: NodeState) -> tuple[Code, list[str]]:
    """NodeResourcesFit's status and reasons for ``state`` as it is."""
    node = state.node
    reasons = []
    code = Code.UNSCHEDULABLE
    if len(state.pods) + 1 > node.max_pods:
        reasons.append("Too many pods")
    for resource, wanted, have, used in (
        ("cpu", request.cpu, node.allocatable.cpu, state.cpu),
        ("memory", request.memory, node.allocatable.memory, state.memory),
    ):
        if wanted > 0 and wanted > have - used:
            reasons.append(f"Insufficient {resource}")
            if wanted > have:
                code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    short = node.allocatable.short_of(request, state.devices)
    reasons.extend(f"Insufficient {name}" for name in short)
    if node.allocatable.short_of(request, _NONE):
        code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    return (code, reasons) if reasons else (Code.SUCCESS, [])
