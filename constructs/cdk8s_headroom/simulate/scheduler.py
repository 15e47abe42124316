"""kube-scheduler's fit and DefaultPreemption decisions for one pod at a time.

The steps and their order follow ``shared/preemption/ALGORITHM.md`` (kubernetes
``default_preemption.go``, ``preemption.go`` and ``util/utils.go``):

1. Filter every node. Node name (a DaemonSet pod's node), node selector, required
   node affinity and untolerated NoSchedule/NoExecute taints fail with
   UnschedulableAndUnresolvable; too many pods, or too little cpu or memory, fail with
   Unschedulable (UnschedulableAndUnresolvable when the request exceeds the node's
   allocatable, as NodeResourcesFit does).
2. When nodes pass, the pod binds to its nominated node if that one passes, otherwise to
   the node with the best score of the default profile (TaintToleration,
   NodeResourcesFit's LeastAllocated and NodeResourcesBalancedAllocation,
   ``scores.node_scores``);
   the scheduler picks at random among equal scores, the simulator the first from
   ``offset``.
3. Otherwise PostFilter: ``PodEligibleToPreemptOthers``, then ``DryRunPreemption`` over
   the Unschedulable nodes (``SelectVictimsOnNode`` on each), then
   ``pickOneNodeForPreemption``.

Where the scheduler is random or parallel, the simulator is deterministic: the dry run
starts at the first node (the scheduler starts at a random offset, so this is one of
its possible outcomes), and remaining ties go to the first candidate found.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass

from cdk8s_headroom.simulate.model import DisruptionBudget, Node, Pod, Resources
from cdk8s_headroom.simulate.node_fit import (
    Code,
    NodeState,
    Victims,
    devices_of,
    exceeds,
    fits,
    resource_status,
)
from cdk8s_headroom.simulate.scores import node_scores
from cdk8s_headroom.simulate.versions import NEWEST_VALIDATED, KubernetesVersion
from cdk8s_headroom.vocabulary.placement import Placement, Taint, TaintEffect, Toleration
from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy

MIN_CANDIDATE_NODES_PERCENTAGE = 10
"""DefaultPreemptionArgs.minCandidateNodesPercentage, default."""
MIN_CANDIDATE_NODES_ABSOLUTE = 100
"""DefaultPreemptionArgs.minCandidateNodesAbsolute, default."""

_PRIORITY_SHIFT = 2**31
"""``math.MaxInt32 + 1``: added to each victim priority before summing, so that a node
with more negative-priority victims does not win just because it has more of them."""

BLOCKING_EFFECTS = (TaintEffect.NO_SCHEDULE, TaintEffect.NO_EXECUTE)
"""The taint effects that keep a pod off a node (PreferNoSchedule only scores)."""

_NOT_SELECTED = "node(s) didn't match Pod's node affinity/selector"


class ClusterState:
    """Nodes, the pods bound to them, and the PodDisruptionBudgets."""

    def __init__(
        self,
        nodes: Iterable[Node],
        pdbs: Sequence[DisruptionBudget] = (),
        *,
        version: KubernetesVersion = NEWEST_VALIDATED,
    ) -> None:
        self._version = version
        self.nodes: list[NodeState] = []
        self._by_name: dict[str, NodeState] = {}
        for node in nodes:
            state = NodeState(node)
            self.nodes.append(state)
            self._by_name[node.name] = state
        self._pdbs = tuple(pdbs)
        self._reachable: dict[Placement, list[NodeState]] = {}
        self._within_allocatable: dict[tuple[Placement, Resources], list[NodeState]] = {}

    # Read-only: each node's remembered victims depend on both.
    @property
    def version(self) -> KubernetesVersion:
        """The release whose rules apply where they differ (``versions``)."""
        return self._version

    @property
    def pdbs(self) -> tuple[DisruptionBudget, ...]:
        return self._pdbs

    def get(self, name: str) -> NodeState | None:
        return self._by_name.get(name)

    def bind(self, pod: Pod, node: str) -> None:
        self._by_name[node].add(pod)
        pod.node = node

    def evict(self, pod: Pod) -> None:
        if pod.node is not None:
            self._by_name[pod.node].remove(pod)
        pod.node = None

    def pods(self) -> Iterator[Pod]:
        for state in self.nodes:
            yield from state.pods

    def reachable(self, placement: Placement) -> list[NodeState]:
        """The nodes that pass the filters that do not depend on other pods."""
        cached = self._reachable.get(placement)
        if cached is None:
            candidates = self.nodes
            if placement.pinned_node is not None:
                pinned = self._by_name.get(placement.pinned_node)
                candidates = [pinned] if pinned is not None else []
            cached = [s for s in candidates if placement_problem(placement, s.node) is None]
            self._reachable[placement] = cached
        return cached

    def within_allocatable(self, placement: Placement, request: Resources) -> list[NodeState]:
        """The reachable nodes whose allocatable ``request`` does not exceed: once no
        node fits, those where preemption may help (NodeResourcesFit's Unschedulable,
        not UnschedulableAndUnresolvable). Requests are never negative (the readers
        refuse negative quantities), so this depends on the nodes alone, not their pods."""
        key = (placement, request)
        cached = self._within_allocatable.get(key)
        if cached is None:
            cached = [
                state
                for state in self.reachable(placement)
                if not exceeds(request, state.node.allocatable)
            ]
            self._within_allocatable[key] = cached
        return cached


def placement_problem(placement: Placement, node: Node) -> str | None:
    """Why NodeName, NodeAffinity or TaintToleration reject ``node``, or None."""
    if not selects(placement, node):
        return _NOT_SELECTED
    taint = next(untolerated_taints(placement.tolerations, node.taints), None)
    if taint is not None:
        value = f": {taint.value}" if taint.value else ""
        return f"node(s) had untolerated taint {{{taint.key}{value}}}"
    return None


def selects(placement: Placement, node: Node) -> bool:
    """Whether the pinned node, the node selector and the required node affinity admit
    ``node`` (``nodeaffinity.GetRequiredNodeAffinity(pod).Match``, and NodeName)."""
    if placement.pinned_node is not None and placement.pinned_node != node.name:
        return False
    labels = node.labels
    if any(labels.get(key) != value for key, value in placement.node_selector):
        return False
    return placement.affinity is None or any(
        (term.expressions or term.fields)
        and all(r.matches(labels.get(r.key)) for r in term.expressions)
        and all(r.matches(node.name) for r in term.fields)
        for term in placement.affinity
    )


def untolerated_taints(
    tolerations: Sequence[Toleration],
    taints: Iterable[Taint],
    effects: Collection[TaintEffect] = BLOCKING_EFFECTS,
) -> Iterator[Taint]:
    """The taints of ``effects`` that no toleration tolerates, in the node's order
    (``v1helper.FindMatchingUntoleratedTaint`` returns the first of them)."""
    for taint in taints:
        if taint.effect in effects and not any(t.tolerates(taint) for t in tolerations):
            yield taint


@dataclass(frozen=True)
class Candidate:
    """A node where the preemptor fits once ``victims`` are gone."""

    node: str
    victims: tuple[Pod, ...]
    pdb_violations: int


@dataclass(frozen=True)
class Decision:
    """Where one pod goes, and whom it evicts.

    ``node`` is None when the pod stays pending. ``candidates`` is DryRunPreemption's
    result (empty when the pod fit without preemption or could not preempt).
    """

    pod: Pod
    eligible: bool
    node: str | None
    victims: tuple[Pod, ...] = ()
    candidates: tuple[Candidate, ...] = ()
    reason: str = ""
    alternatives: tuple[Decision, ...] = ()
    """Other decisions the scheduler may reach as well, where it breaks a tie at random
    (``equally_good``); empty unless asked for."""

    def to_json(self) -> dict[str, object]:
        """The decision as the ``simulate --scenario --json`` command prints it."""
        return {
            "eligible": self.eligible,
            "node": self.node,
            "victims": [pod.name for pod in self.victims],
            "per_node_victims": {c.node: [p.name for p in c.victims] for c in self.candidates},
            "per_node_pdb_violations": {c.node: c.pdb_violations for c in self.candidates},
            "alternatives": [
                {"node": other.node, "victims": [pod.name for pod in other.victims]}
                for other in self.alternatives
            ],
        }


def importance(pod: Pod) -> tuple[int, int]:
    """``MoreImportantPod`` as a sort key: higher priority, then earlier start, first."""
    return (-pod.priority, pod.start_or_now)


def num_candidates(potential_nodes: int) -> int:
    """``calculateNumCandidates`` with the default DefaultPreemptionArgs."""
    wanted = potential_nodes * MIN_CANDIDATE_NODES_PERCENTAGE // 100
    return min(max(wanted, MIN_CANDIDATE_NODES_ABSOLUTE), potential_nodes)


def eligible_to_preempt(state: ClusterState, pod: Pod) -> tuple[bool, str]:
    """``PodEligibleToPreemptOthers``."""
    if pod.preemption_policy is PreemptionPolicy.NEVER:
        return False, "not eligible due to preemptionPolicy=Never."
    nominated = state.get(pod.nominated_node) if pod.nominated_node else None
    if nominated is None:
        # No nomination, or a node the filters never saw: its status is the absent
        # nodes' UnschedulableAndUnresolvable, which makes the pod eligible again.
        return True, ""
    if placement_problem(pod.placement, nominated.node) is not None:
        return True, ""
    if resource_status(pod.requests, nominated)[0] is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
        return True, ""
    for other in nominated.pods:
        if other.priority < pod.priority and other.terminating_by_preemption:
            return False, "not eligible due to a terminating pod on the nominated node."
    return True, ""


def _split_by_pdb(state: ClusterState, pods: Sequence[Pod]) -> tuple[list[Pod], list[Pod]]:
    """``filterPodsWithPDBViolation``: a stable split into violating and non-violating."""
    allowed = [pdb.disruptions_allowed for pdb in state.pdbs]
    empty_matches_all = state.version.pdb_empty_selector_matches_all
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    for pod in pods:
        violated = False
        for index, pdb in enumerate(state.pdbs):
            if (
                not pdb.covers(pod, empty_selector_matches_all=empty_matches_all)
                or pod.name in pdb.disrupted_pods
            ):
                continue
            allowed[index] -= 1
            if allowed[index] < 0:
                violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


def select_victims_on_node(state: ClusterState, node: NodeState, pod: Pod) -> Victims:
    """``SelectVictimsOnNode``: the victims and their PDB violations, or None when the
    node is no candidate."""
    # Only the preemptor's priority and requests are read: they are the whole question.
    key = (pod.priority, pod.requests)
    if key not in node.victims:
        node.victims[key] = _select_victims(state, node, pod)
    return node.victims[key]


def _select_victims(state: ClusterState, node: NodeState, pod: Pod) -> Victims:
    potential = [other for other in node.pods if other.priority < pod.priority]
    if not potential:
        return None
    cpu, memory = node.cpu, node.memory
    for victim in potential:
        cpu -= victim.requests.cpu
        memory -= victim.requests.memory
    devices = node.devices - devices_of(potential)
    count = len(node.pods) - len(potential)
    request, spec = pod.requests, node.node
    if not fits(request, spec, cpu, memory, count, devices):
        return None
    potential.sort(key=importance)
    violating, non_violating = _split_by_pdb(state, potential)
    victims: list[Pod] = []
    violations = 0
    for group_is_violating, group in ((True, violating), (False, non_violating)):
        for other in group:
            with_other = (cpu + other.requests.cpu, memory + other.requests.memory)
            devices_with = devices + devices_of((other,))
            if fits(request, spec, with_other[0], with_other[1], count + 1, devices_with):
                cpu, memory = with_other
                devices = devices_with
                count += 1
            else:
                victims.append(other)
                if group_is_violating:
                    violations += 1
    if violating and non_violating:
        victims.sort(key=importance)
    return tuple(victims), violations


def dry_run_preemption(
    state: ClusterState, pod: Pod, potential: Sequence[NodeState], offset: int = 0
) -> list[Candidate]:
    """``DryRunPreemption`` run one node at a time from ``offset``: it stops once it has
    a candidate without PDB violations and ``num_candidates`` candidates in all."""
    wanted = num_candidates(len(potential))
    non_violating: list[Candidate] = []
    violating: list[Candidate] = []
    for step in range(len(potential)):
        node = potential[(offset + step) % len(potential)]
        selected = select_victims_on_node(state, node, pod)
        if selected is None or not selected[0]:
            continue
        victims, violations = selected
        found = non_violating if violations == 0 else violating
        if len(found) < wanted:
            found.append(Candidate(node.name, victims, violations))
        if non_violating and len(non_violating) + len(violating) >= wanted:
            break
    return non_violating + violating


def _earliest_start_of_most_important(victims: Sequence[Pod]) -> int:
    """``GetEarliestPodStartTime``: earliest start among the highest-priority victims."""
    top = max(victim.priority for victim in victims)
    return min(victim.start_or_now for victim in victims if victim.priority == top)


_SCORES: tuple[Callable[[Candidate], int], ...] = (
    lambda c: -c.pdb_violations,
    lambda c: -c.victims[0].priority,
    lambda c: -sum(victim.priority + _PRIORITY_SHIFT for victim in c.victims),
    lambda c: -len(c.victims),
    lambda c: _earliest_start_of_most_important(c.victims),
)


def pick_one_node(candidates: Sequence[Candidate]) -> Candidate:
    """``SelectCandidate``/``pickOneNodeForPreemption``: keep the best-scoring nodes
    criterion by criterion, stop when one is left, else take the first."""
    remaining = list(candidates)
    if len(remaining) == 1:
        return remaining[0]
    for score in _SCORES:
        scores = [score(candidate) for candidate in remaining]
        best = max(scores)
        remaining = [c for c, s in zip(remaining, scores, strict=True) if s == best]
        if len(remaining) == 1:
            break
    return remaining[0]


def _summary(state: ClusterState, pod: Pod, reachable: Sequence[NodeState]) -> str:
    """Why no node fits ``pod``: the scheduler's "0/N nodes are available" message."""
    statuses: Counter[str] = Counter()
    pinned = pod.placement.pinned_node
    nodes: Iterable[NodeState] = state.nodes
    if pinned is not None:
        # A pinned pod fails every other node on its name: no need to ask why, nor to
        # visit them (node names are unique, as ``bind`` relies on).
        named = state.get(pinned)
        nodes = [named] if named is not None else []
        others = len(state.nodes) - len(nodes)
        if others:
            statuses[_NOT_SELECTED] = others
    reachable_names = {node.name for node in reachable}
    for node in nodes:
        if node.name in reachable_names:
            statuses.update(resource_status(pod.requests, node)[1])
        else:
            statuses[placement_problem(pod.placement, node.node) or _NOT_SELECTED] += 1
    parts = ", ".join(f"{count} {reason}" for reason, count in sorted(statuses.items()))
    return f"0/{len(state.nodes)} nodes are available" + (f": {parts}" if parts else "")


def schedule(state: ClusterState, pod: Pod, *, offset: int = 0) -> Decision:
    """Decides where ``pod`` goes, and whom it preempts, without changing ``state``."""
    eligible, not_eligible_because = eligible_to_preempt(state, pod)
    reachable = state.reachable(pod.placement)
    request = pod.requests
    feasible = [
        node
        for node in reachable
        if fits(request, node.node, node.cpu, node.memory, len(node.pods), node.devices)
    ]
    if feasible:
        nominated = [node for node in feasible if node.name == pod.nominated_node]
        if nominated:
            chosen = nominated[0]
        else:
            # selectHost picks at random among the best: ties go to the first from offset
            ranked = node_scores(state.version, pod, feasible)
            best = max(ranked)
            tied = [node for node, score in zip(feasible, ranked, strict=True) if score == best]
            chosen = tied[offset % len(tied)]
        return Decision(pod, eligible, chosen.name, reason="fits without preemption")

    # The summary of every node's status is read only when the pod stays pending: a
    # pod that preempts does without it.
    if not eligible:
        summary = _summary(state, pod, reachable)
        return Decision(pod, False, None, reason=f"{summary}; {not_eligible_because}")
    potential = state.within_allocatable(pod.placement, request)
    if not potential:
        summary = _summary(state, pod, reachable)
        return Decision(pod, True, None, reason=f"{summary}; preemption is not helpful")
    candidates = dry_run_preemption(state, pod, potential, offset)
    if not candidates:
        summary = _summary(state, pod, reachable)
        return Decision(
            pod, True, None, reason=f"{summary}; no node has lower-priority victims that make room"
        )
    picked = pick_one_node(candidates)
    return Decision(
        pod,
        True,
        picked.node,
        victims=picked.victims,
        candidates=tuple(candidates),
        reason=f"preempts {len(picked.victims)} pod(s) on {picked.node}",
    )


MAX_TIE_ORDERS = 256
"""``equally_good`` tries at most this many orders of tied pods."""


def _answer(decision: Decision) -> tuple[str | None, frozenset[str]]:
    return decision.node, frozenset(f"{p.namespace}/{p.name}" for p in decision.victims)


def equally_good(state: ClusterState, pod: Pod) -> tuple[Decision, ...]:
    """The decisions other than ``schedule``'s that the scheduler may reach as well.

    Where the scheduler breaks a tie at random, ``schedule`` takes one side: equal node
    scores (``selectHost``), the dry run's random start and a full tie between
    candidates (``DryRunPreemption``, ``pickOneNodeForPreemption``), and pods of one
    node with equal priority and start time, which ``MoreImportantPod`` cannot order
    and ``SelectVictimsOnNode`` sorts with the unstable ``sort.Slice`` (startTime has
    whole seconds, so such ties are common). Each order of such pods (at most
    ``MAX_TIE_ORDERS``) and each start offset is tried; ``state`` is left as it was."""
    first = schedule(state, pod)
    if first.node is None:
        return ()  # no order or offset makes a node fit or a candidate
    groups: list[tuple[NodeState, list[int]]] = []
    if first.victims:
        for node in state.nodes:
            positions: dict[tuple[int, int], list[int]] = {}
            for index, other in enumerate(node.pods):
                if other.priority < pod.priority:
                    positions.setdefault(importance(other), []).append(index)
            groups += [(node, indexes) for indexes in positions.values() if len(indexes) > 1]
    originals = [list(node.pods) for node in state.nodes]
    position = {node.name: index for index, node in enumerate(state.nodes)}
    seen = {_answer(first)}
    found: list[Decision] = []
    orders = itertools.product(*(itertools.permutations(indexes) for _, indexes in groups))
    try:
        for order in itertools.islice(orders, MAX_TIE_ORDERS):
            # each order is laid over the pods' first order, not over the last one tried
            for (node, indexes), permuted in zip(groups, order, strict=True):
                first_order = originals[position[node.name]]
                for slot, source in zip(indexes, permuted, strict=True):
                    node.pods[slot] = first_order[source]
                node.victims.clear()  # its remembered victims were chosen in another order
            for offset in range(len(state.nodes)):
                decision = schedule(state, pod, offset=offset)
                if _answer(decision) not in seen:
                    seen.add(_answer(decision))
                    found.append(decision)
    finally:
        for node, pods in zip(state.nodes, originals, strict=True):
            if node.pods != pods:
                node.pods[:] = pods
                node.victims.clear()
    return tuple(found)


def apply(state: ClusterState, decision: Decision) -> None:
    """Carries a decision out: victims are deleted at once (grace period 0) and the
    pod binds to its node (the preemptor's nominated node, once the victims are gone)."""
    for victim in decision.victims:
        state.evict(victim)
    if decision.node is not None:
        state.bind(decision.pod, decision.node)
