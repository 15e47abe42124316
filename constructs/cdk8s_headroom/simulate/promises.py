"""The synth-time check: does a priority model keep P1-P3 for a given slice?

Each promise is put to the scheduler model on a one-node cluster built from the
model's own PriorityClass specs (plain ``ModelClasses``, no construct): the node holds
a headroom pod and ordinary pods of the default class, each the size of the slice, and
is full.

- P1: an ordinary pod arrives. Does it preempt the headroom pod?
- P2: a burst pod the size of the slice arrives. Does it evict only the headroom pod?
- P3: the burst pod holds the slice and the headroom pod is recreated. Does it evict
  anybody?
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cdk8s_headroom.simulate.model import Node, Pod, Resources, Role
from cdk8s_headroom.simulate.scheduler import ClusterState, Decision, schedule
from cdk8s_headroom.simulate.workloads import NO_CLASS
from cdk8s_headroom.vocabulary.placement import DEFAULT_DEDICATED_TAINT, Placement, Taint
from cdk8s_headroom.vocabulary.priority_models import (
    ModelClasses,
    PriorityClassSpec,
    PriorityModel,
    check_model,
)
from cdk8s_headroom.vocabulary.quantity import QuantityLike, positive_quantity

_ORDINARY_PODS_PER_NODE = 7
"""Ordinary pods on the probe node, each the size of the slice: the node holds eight
slices, and is full with the headroom pod."""


@dataclass(frozen=True)
class BrokenPromise:
    """A promise the model breaks, and what the scheduler does instead."""

    promise: str
    reason: str

    def __str__(self) -> str:
        return f"{self.promise}: {self.reason}"


def describe_broken(model: PriorityModel, broken: list[BrokenPromise]) -> str:
    """The warning text for ``broken``, e.g. ``PriorityModel.SEED breaks P2 and P3: ...``."""
    names = [b.promise for b in broken]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    reasons = "; ".join(str(b) for b in broken)
    return (
        f"PriorityModel.{model.name} breaks {listed} (simulated with kube-scheduler's "
        f"preemption rules): {reasons}. PriorityModel.GUARDED and DEDICATED_POOL keep them."
    )


class _Probe:
    """Builds the one-node clusters the promises are checked on."""

    def __init__(self, classes: ModelClasses, slice_size: Resources, taint: Taint | None) -> None:
        self.slice = slice_size
        self.headroom = classes.headroom
        self.burst = classes.burst
        self.ordinary = NO_CLASS if classes.default is None else classes.default
        self.taints = () if taint is None else (taint,)
        self.pool_tolerations = () if taint is None else (taint.toleration(),)
        self._started = 0

    def pod(
        self, name: str, info: PriorityClassSpec, role: Role, *, pinned_node: str | None = None
    ) -> Pod:
        self._started += 1
        tolerations = self.pool_tolerations if role is not Role.ORDINARY else ()
        return Pod(
            name=name,
            namespace="default",
            priority=info.value,
            preemption_policy=info.preemption_policy,
            requests=self.slice,
            start_time=self._started,
            placement=Placement(tolerations=tolerations, pinned_node=pinned_node),
            role=role,
            class_name=info.name,
        )

    def full_node(self, slice_holder: Pod) -> ClusterState:
        node = Node(
            "node",
            Resources(
                self.slice.cpu * (_ORDINARY_PODS_PER_NODE + 1),
                self.slice.memory * (_ORDINARY_PODS_PER_NODE + 1),
            ),
            max_pods=110,
            taints=self.taints,
        )
        state = ClusterState([node])
        state.bind(slice_holder, "node")
        for index in range(1, _ORDINARY_PODS_PER_NODE + 1):
            state.bind(self.pod(f"ordinary-{index}", self.ordinary, Role.ORDINARY), "node")
        return state


def _ranks(value: int, other: int) -> str:
    """How a class of ``value`` ranks against one of ``other``, in a reason's words."""
    return "above" if value > other else "as high as" if value == other else "below"


def _evicted(decision: Decision, role: Role) -> list[Pod]:
    return [victim for victim in decision.victims if victim.role is role]


def check_promises(
    model: PriorityModel,
    *,
    cpu: QuantityLike,
    memory: QuantityLike,
    classes: ModelClasses | None = None,
    dedicated_taint: Taint | None = None,
) -> list[BrokenPromise]:
    """The promises among P1-P3 that ``model`` breaks for a slice of ``cpu``/``memory``.

    Args:
        model: the priority model.
        cpu: the slice's CPU, e.g. ``"500m"``.
        memory: the slice's memory, e.g. ``"512Mi"``.
        classes: the classes to judge (``HeadroomPriorityClasses.classes``).
            Default: the model's default classes.
        dedicated_taint: the pool's taint under DEDICATED_POOL.
            Default: ``DEFAULT_DEDICATED_TAINT``.

    Returns:
        One ``BrokenPromise`` per broken promise, with what the scheduler does instead;
        empty when the model keeps P1, P2 and P3.
    """
    model = check_model(model)
    cores = positive_quantity(cpu, field="cpu")[1]
    size = positive_quantity(memory, field="memory")[1]
    if classes is None:
        classes = ModelClasses.of(model)
    taint = None
    if model is PriorityModel.DEDICATED_POOL:
        taint = dedicated_taint or DEFAULT_DEDICATED_TAINT
    probe = _Probe(classes, Resources(math.ceil(cores * 1000), math.ceil(size)), taint)
    broken: list[BrokenPromise] = []

    state = probe.full_node(probe.pod("headroom", probe.headroom, Role.HEADROOM))
    ordinary = schedule(state, probe.pod("ordinary-new", probe.ordinary, Role.ORDINARY))
    if _evicted(ordinary, Role.HEADROOM):
        broken.append(
            BrokenPromise(
                "P1",
                f"an ordinary pod (priority {probe.ordinary.value}, "
                f"{probe.ordinary.preemption_policy.value}) preempts the headroom pod "
                f"(priority {probe.headroom.value}) and takes its slice",
            )
        )

    burst = schedule(state, probe.pod("burst", probe.burst, Role.BURST))
    evicted = _evicted(burst, Role.ORDINARY)
    if evicted:
        broken.append(
            BrokenPromise(
                "P2",
                f"a burst pod that fits in the slice evicts {len(evicted)} ordinary pod(s) and "
                f"keeps the headroom pod: the headroom class ({probe.headroom.value}) ranks "
                f"{_ranks(probe.headroom.value, probe.ordinary.value)} ordinary pods "
                f"({probe.ordinary.value}) and the scheduler reprieves the more important "
                # A tie is broken by the start time (MoreImportantPod), and the headroom
                # pod, on its node first, started before them
                + (
                    "pods first, by priority, then by start time: the headroom pod started "
                    "before them"
                    if probe.headroom.value == probe.ordinary.value
                    else "pods first"
                ),
            )
        )
    elif not _evicted(burst, Role.HEADROOM):
        broken.append(
            BrokenPromise(
                "P2", f"a burst pod that fits in the slice cannot take it ({burst.reason})"
            )
        )

    holder = probe.pod("burst", probe.burst, Role.BURST)
    state = probe.full_node(holder)
    recreated = schedule(
        state, probe.pod("headroom-recreated", probe.headroom, Role.HEADROOM, pinned_node="node")
    )
    if recreated.victims:
        broken.append(
            BrokenPromise(
                "P3",
                f"a recreated headroom pod (priority {probe.headroom.value}, "
                f"{probe.headroom.preemption_policy.value}) evicts "
                f"{len(recreated.victims)} ordinary pod(s) to take its slice back",
            )
        )
    return broken
