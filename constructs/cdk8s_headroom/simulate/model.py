"""What the simulator knows about nodes, pods and PodDisruptionBudgets.

Only the fields that kube-scheduler's default fit and preemption decisions read are
kept: allocatable cpu, memory and pod count; pod requests, priority, preemption policy,
node selector, required node affinity, tolerations and start time; PDB selectors and
budgets. Quantities are integers as the scheduler holds them: millicores and bytes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from cdk8s_headroom.vocabulary.placement import NodeSelectorRequirement, Placement, Taint
from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy

NOW = 2**63 - 1
"""The start time of a pod that has none: ``GetPodStartTime`` returns ``time.Now()``,
which is later than every recorded start time."""


class Role(Enum):
    """What a pod is in the headroom story; it decides how a verdict counts it."""

    ORDINARY = "ordinary"
    HEADROOM = "headroom"
    BURST = "burst"
    BUFFER = "buffer"
    """A CapacityBuffer's placeholder: it exists only inside the autoscaler."""


Extended = tuple[tuple[str, int], ...]
"""Extended resources (``nvidia.com/gpu``...) in whole units, by name, sorted."""


def _merge(one: Extended, other: Extended, combine: Callable[[int, int], int]) -> Extended:
    if not other:
        return one
    if not one and combine is operator.add:
        return other
    merged = dict(one)
    for name, amount in other:
        merged[name] = combine(merged.get(name, 0), amount)
    return tuple(sorted((name, amount) for name, amount in merged.items() if amount))


@dataclass(frozen=True)
class Resources:
    """Requests or allocatable amounts: millicores of CPU and bytes of memory, and
    extended resources in whole units (none by default)."""

    cpu: int = 0
    memory: int = 0
    extended: Extended = ()

    def __add__(self, other: Resources) -> Resources:
        return Resources(
            self.cpu + other.cpu,
            self.memory + other.memory,
            _merge(self.extended, other.extended, operator.add),
        )

    def __sub__(self, other: Resources) -> Resources:
        return Resources(
            self.cpu - other.cpu,
            self.memory - other.memory,
            _merge(self.extended, other.extended, operator.sub),
        )

    def max(self, other: Resources) -> Resources:
        return Resources(
            max(self.cpu, other.cpu),
            max(self.memory, other.memory),
            _merge(self.extended, other.extended, max),
        )

    def short_of(self, request: Resources, used: Resources) -> list[str]:
        """The extended resources ``request`` asks for beyond what ``used`` leaves of
        these (allocatable) amounts: ``fitsRequest`` of noderesources/fit.go, which
        checks a scalar resource only when the pod requests it."""
        if not request.extended:
            return []
        have, taken = dict(self.extended), dict(used.extended)
        return [
            name
            for name, wanted in request.extended
            if wanted > have.get(name, 0) - taken.get(name, 0)
        ]


def pod_requests(
    containers: Iterable[Resources],
    init_containers: Iterable[tuple[Resources, bool]],
    overhead: Resources,
    *,
    pod_level: tuple[int | None, int | None] = (None, None),
) -> Resources:
    """``PodRequests`` of ``k8s.io/component-helpers/resource/helpers.go``: the larger
    of the containers' sum and each init container (with the restartable init
    containers, given as ``True``, started before it); then each pod-level request
    (``spec.resources.requests``: cpu, memory; ``None`` when not set) replaces that
    resource's aggregate; then overhead is added."""
    total = Resources()
    for requests in containers:
        total += requests
    sidecars = Resources()
    init_peak = Resources()
    for requests, sidecar in init_containers:
        if sidecar:
            total += requests
            sidecars += requests
            init_peak = init_peak.max(sidecars)
        else:
            init_peak = init_peak.max(requests + sidecars)
    aggregate = total.max(init_peak)
    cpu, memory = pod_level
    return (
        Resources(
            aggregate.cpu if cpu is None else cpu,
            aggregate.memory if memory is None else memory,
            aggregate.extended,
        )
        + overhead
    )


@dataclass(frozen=True)
class Node:
    name: str
    allocatable: Resources
    max_pods: int
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()


@dataclass(eq=False)
class Pod:
    """A pod, bound (``node`` set) or waiting to be scheduled.

    Compared by identity: two pods with the same name in different runs are different.
    """

    name: str
    namespace: str
    priority: int
    preemption_policy: PreemptionPolicy
    requests: Resources
    labels: Mapping[str, str] = field(default_factory=dict)
    start_time: int | None = None
    """Nanoseconds since the epoch; ``None`` when the pod has not started."""
    placement: Placement = field(default_factory=Placement)
    role: Role = Role.ORDINARY
    owner: str = ""
    """The DaemonSet or Deployment that recreates this pod when it is preempted."""
    class_name: str = ""
    node: str | None = None
    nominated_node: str | None = None
    terminating_by_preemption: bool = False
    """Deleted, with a DisruptionTarget condition of reason PreemptionByScheduler."""

    def copy(self) -> Pod:
        """The same pod, as another object: what one run changes (``node``) leaves
        this one as it is. Faster than ``copy.copy``, which plan pays per pod."""
        twin = object.__new__(Pod)
        twin.__dict__.update(self.__dict__)
        return twin

    @property
    def start_or_now(self) -> int:
        return NOW if self.start_time is None else self.start_time


@dataclass(frozen=True)
class LabelSelector:
    """A PDB's selector. ``valid`` is False for a selector Kubernetes cannot parse,
    which then matches nothing."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    valid: bool = True

    @property
    def empty(self) -> bool:
        return not self.match_labels and not self.match_expressions

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(labels.get(key) == value for key, value in self.match_labels) and all(
            requirement.matches(labels.get(requirement.key))
            for requirement in self.match_expressions
        )


@dataclass(frozen=True)
class DisruptionBudget:
    """A PodDisruptionBudget as preemption reads it: its status, not its spec."""

    name: str
    namespace: str
    selector: LabelSelector | None
    disruptions_allowed: int
    disrupted_pods: frozenset[str] = frozenset()

    def covers(self, pod: Pod, *, empty_selector_matches_all: bool = False) -> bool:
        """``filterPodsWithPDBViolation``'s match: same namespace and a valid selector
        that matches the pod's labels. Before 1.38 an empty selector, or a pod without
        labels, matches nothing; from 1.38 both match as label selectors do
        (``KubernetesVersion.pdb_empty_selector_matches_all``). A nil selector never
        matches."""
        if self.namespace != pod.namespace:
            return False
        selector = self.selector
        if selector is None or not selector.valid:
            return False
        if not empty_selector_matches_all and (not pod.labels or selector.empty):
            return False
        return selector.matches(pod.labels)
