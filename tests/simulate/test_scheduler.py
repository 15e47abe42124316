"""The scheduler model, one behaviour of ALGORITHM.md per test.

Nodes are 1 CPU / 1000 bytes unless a test says otherwise; requests are millicores and
bytes, so "300" below means 300m CPU and 300 bytes.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdk8s_headroom.simulate import (
    ClusterState,
    DisruptionBudget,
    Node,
    Placement,
    Pod,
    Resources,
    apply,
    schedule,
)
from cdk8s_headroom.simulate.model import LabelSelector
from cdk8s_headroom.simulate.scheduler import (
    Candidate,
    dry_run_preemption,
    num_candidates,
    pick_one_node,
)
from cdk8s_headroom.simulate.versions import KubernetesVersion
from cdk8s_headroom.vocabulary.placement import (
    NodeSelectorOperator,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from tests.simulate.small_cluster import (
    LOWER,
    NEVER,
    WEB_BUDGET,
    cluster,
    names,
    node,
    pod,
    web_pod,
)

# Fit without preemption


def test_a_pod_that_fits_binds_without_preemption_to_the_least_allocated_node() -> None:
    state = cluster([node("busy"), node("idle")], {"busy": [pod("a", 600)]})

    decision = schedule(state, pod("new", 300, 10))

    assert decision.node == "idle"
    assert decision.victims == ()
    assert decision.candidates == ()


def _fits_on(version: KubernetesVersion) -> str | None:
    """Two 4-CPU/4Gi nodes: n0 holds 2500m and 768Mi, n1 300m and 1920Mi; the pod asks
    100m and 896Mi. LeastAllocated scores n0 47 and n1 60; BalancedAllocation scores
    the balance with the pod (87 and 70) before 1.36, and the change in balance
    (50 + (50 + 87 - 78) / 2 = 79 and 50 + (50 + 70 - 80) / 2 = 70) from 1.36."""
    gib, mib = 2**30, 2**20
    state = ClusterState(
        [Node(name, Resources(4000, 4 * gib), 110) for name in ("n0", "n1")], version=version
    )
    state.bind(Pod("a0", "", 0, LOWER, Resources(2500, 768 * mib)), "n0")
    state.bind(Pod("a1", "", 0, LOWER, Resources(300, 1920 * mib)), "n1")
    return schedule(state, Pod("new", "", 0, LOWER, Resources(100, 896 * mib))).node


def test_balanced_allocation_scores_the_balance_with_the_pod_before_1_36() -> None:
    """``balanced_allocation.go`` ``balancedResourceScorer`` of kubernetes 1.34."""
    assert _fits_on(KubernetesVersion(1, 34)) == "n0"  # 47 + 87 against 60 + 70


def test_balanced_allocation_scores_the_change_in_balance_from_1_36() -> None:
    """``balancedResourceScorer`` of kubernetes PR 135573 (1.36 on)."""
    assert _fits_on(KubernetesVersion(1, 37)) == "n1"  # 47 + 79 against 60 + 70


def test_an_untolerated_prefer_no_schedule_taint_outweighs_more_room() -> None:
    """TaintToleration scores with weight 3, reversed and normalized
    (``taint_toleration.go``, ``DefaultNormalizeScore``): an untolerated
    PreferNoSchedule taint costs 300 points, more than any room can win back."""
    soft = Taint("dedicated", "batch", TaintEffect.PREFER_NO_SCHEDULE)
    state = cluster([node("idle", taints=(soft,)), node("busy")], {"busy": [pod("a", 600)]})
    tolerant = Placement(tolerations=(Toleration("dedicated", TolerationOperator.EXISTS),))

    assert schedule(state, pod("new", 300, 10)).node == "busy"
    assert schedule(state, pod("new", 300, 10, placement=tolerant)).node == "idle"


def test_equal_scores_go_to_the_first_node_from_the_offset() -> None:
    """``selectHost`` picks at random among the best scores; the simulator takes the
    first from ``offset``, so every offset names each of the tied nodes."""
    state = cluster([node("a"), node("b"), node("c")], {"c": [pod("x", 600)]})

    assert [schedule(state, pod("new", 300), offset=k).node for k in range(3)] == ["a", "b", "a"]


def test_a_nominated_node_that_fits_is_chosen_first() -> None:
    state = cluster([node("idle"), node("busy")], {"busy": [pod("a", 600)]})

    decision = schedule(state, pod("new", 300, 10, nominated_node="busy"))

    assert decision.node == "busy"


def test_a_zero_request_pod_only_needs_a_free_pod_slot() -> None:
    state = cluster([node("n", 0, pods=1)], {})

    assert schedule(state, pod("new", 0)).node == "n"


# §1 eligibility


def test_a_preemptor_with_policy_never_is_not_eligible_and_evicts_nobody() -> None:
    state = cluster([node("n")], {"n": [pod("low", 1000, -5)]})

    decision = schedule(state, pod("new", 500, 100, policy=NEVER))

    assert decision.eligible is False
    assert decision.node is None
    assert decision.victims == ()
    assert "preemptionPolicy=Never" in decision.reason


def test_a_pod_terminating_by_preemption_on_the_nominated_node_blocks_preemption() -> None:
    state = cluster(
        [node("n1"), node("n2")],
        {"n1": [pod("dying", 1000, 0, terminating_by_preemption=True)], "n2": [pod("x", 1000)]},
    )

    decision = schedule(state, pod("new", 500, 100, nominated_node="n1"))

    assert decision.eligible is False
    assert decision.victims == ()


def test_a_terminating_pod_of_higher_priority_on_the_nominated_node_does_not_block() -> None:
    state = cluster(
        [node("n1")],
        {"n1": [pod("dying", 500, 200, terminating_by_preemption=True), pod("low", 500)]},
    )

    decision = schedule(state, pod("new", 500, 100, nominated_node="n1"))

    assert decision.eligible is True
    assert names(decision.victims) == ["low"]


def test_a_nominated_node_the_pod_cannot_reach_makes_it_eligible_again() -> None:
    taint = Taint("dedicated", "x", TaintEffect.NO_SCHEDULE)
    state = cluster(
        [node("tainted", taints=(taint,)), node("n2")],
        {
            "tainted": [pod("dying", 1000, 0, terminating_by_preemption=True)],
            "n2": [pod("low", 1000)],
        },
    )

    decision = schedule(state, pod("new", 500, 100, nominated_node="tainted"))

    assert decision.eligible is True
    assert decision.node == "n2"


# §2 which nodes are tried


def test_a_node_whose_labels_do_not_match_the_node_selector_is_never_a_candidate() -> None:
    state = cluster(
        [node("a", labels={"pool": "a"}), node("b", labels={"pool": "b"})],
        {"a": [pod("x", 1000)], "b": [pod("y", 1000)]},
    )

    decision = schedule(
        state, pod("new", 500, 10, placement=Placement(node_selector=(("pool", "b"),)))
    )

    assert [c.node for c in decision.candidates] == ["b"]
    assert names(decision.victims) == ["y"]


@pytest.mark.parametrize(
    ("effect", "blocks"),
    [
        (TaintEffect.NO_SCHEDULE, True),
        (TaintEffect.NO_EXECUTE, True),
        (TaintEffect.PREFER_NO_SCHEDULE, False),
    ],
)
def test_untolerated_taints_block_noschedule_and_noexecute_only(
    effect: TaintEffect, blocks: bool
) -> None:
    state = cluster([node("n", taints=(Taint("k", "v", effect),))], {})

    decision = schedule(state, pod("new", 500))

    assert (decision.node is None) is blocks


@pytest.mark.parametrize(
    "toleration",
    [
        Toleration("k", TolerationOperator.EQUAL, "v", TaintEffect.NO_SCHEDULE),
        Toleration("k", TolerationOperator.EXISTS, "", None),
        Toleration("", TolerationOperator.EXISTS, "", None),
    ],
    ids=["equal", "exists-key", "exists-everything"],
)
def test_a_matching_toleration_lets_the_pod_onto_a_tainted_node(toleration: Toleration) -> None:
    state = cluster([node("n", taints=(Taint("k", "v", TaintEffect.NO_SCHEDULE),))], {})

    decision = schedule(state, pod("new", 500, placement=Placement(tolerations=(toleration,))))

    assert decision.node == "n"


def test_a_toleration_for_another_value_or_effect_does_not_match() -> None:
    taint = Taint("k", "v", TaintEffect.NO_SCHEDULE)
    wrong = (
        Toleration("k", TolerationOperator.EQUAL, "other", None),
        Toleration("k", TolerationOperator.EXISTS, "", TaintEffect.NO_EXECUTE),
    )
    state = cluster([node("n", taints=(taint,))], {})

    assert schedule(state, pod("new", 500, placement=Placement(tolerations=wrong))).node is None


@pytest.mark.parametrize(
    ("operator", "values", "matching"),
    [
        (NodeSelectorOperator.IN, ("a", "b"), ["a", "b"]),
        (NodeSelectorOperator.NOT_IN, ("a",), ["b", "c", "none"]),
        (NodeSelectorOperator.EXISTS, (), ["a", "b", "c"]),
        (NodeSelectorOperator.DOES_NOT_EXIST, (), ["none"]),
        (NodeSelectorOperator.GT, ("5",), ["c"]),
        (NodeSelectorOperator.LT, ("5",), []),
    ],
)
def test_required_node_affinity_operators(
    operator: NodeSelectorOperator, values: tuple[str, ...], matching: list[str]
) -> None:
    nodes = [
        node("a", labels={"k": "a"}),
        node("b", labels={"k": "b"}),
        node("c", labels={"k": "7"}),
        node("none"),
    ]
    affinity = (NodeSelectorTerm((NodeSelectorRequirement("k", operator, values),)),)
    state = cluster(nodes, {})

    reachable = state.reachable(Placement(affinity=affinity))

    assert sorted(n.name for n in reachable) == sorted(matching)


def test_affinity_terms_are_ored_and_requirements_in_a_term_anded() -> None:
    nodes = [
        node("a", labels={"x": "1", "y": "1"}),
        node("b", labels={"x": "1"}),
        node("c", labels={"z": "1"}),
    ]
    exists = NodeSelectorOperator.EXISTS
    affinity = (
        NodeSelectorTerm(
            (NodeSelectorRequirement("x", exists), NodeSelectorRequirement("y", exists))
        ),
        NodeSelectorTerm((NodeSelectorRequirement("z", exists),)),
    )

    reachable = cluster(nodes, {}).reachable(Placement(affinity=affinity))

    assert [n.name for n in reachable] == ["a", "c"]


def test_a_request_above_the_node_allocatable_makes_preemption_not_helpful() -> None:
    state = cluster([node("n", 400)], {"n": [pod("low", 100)]})

    decision = schedule(state, pod("new", 500, 100))

    assert decision.node is None
    assert decision.candidates == ()
    assert "preemption is not helpful" in decision.reason


@pytest.mark.parametrize(("nodes", "wanted"), [(5, 5), (100, 100), (500, 100), (2000, 200)])
def test_the_number_of_candidates_wanted(nodes: int, wanted: int) -> None:
    assert num_candidates(nodes) == wanted


def test_the_dry_run_stops_once_it_has_enough_candidates_with_one_without_pdb_violation() -> None:
    count = 150
    nodes = [node(f"n{i:03d}") for i in range(count)]
    state = cluster(nodes, {f"n{i:03d}": [pod(f"p{i}", 1000)] for i in range(count)})

    candidates = dry_run_preemption(state, pod("new", 500, 100), state.nodes)

    assert len(candidates) == 100
    assert candidates[0].node == "n000"


def test_the_dry_run_offset_wraps_around_the_potential_nodes() -> None:
    nodes = [node(f"n{i}") for i in range(3)]
    state = cluster(nodes, {f"n{i}": [pod(f"p{i}", 1000)] for i in range(3)})

    candidates = dry_run_preemption(state, pod("new", 500, 100), state.nodes, offset=2)

    assert [c.node for c in candidates] == ["n2", "n0", "n1"]


# §3 victims on one node


def test_pods_of_equal_priority_are_never_victims() -> None:
    state = cluster([node("n")], {"n": [pod("same", 1000, 100)]})

    decision = schedule(state, pod("new", 500, 100))

    assert decision.node is None
    assert decision.victims == ()


def test_the_more_important_pod_is_reprieved_and_the_lower_priority_one_evicted() -> None:
    state = cluster([node("n")], {"n": [pod("low", 500, 1), pod("mid", 500, 50)]})

    assert names(schedule(state, pod("new", 500, 100)).victims) == ["low"]


def test_on_equal_priority_the_newer_pod_is_evicted() -> None:
    state = cluster(
        [node("n")], {"n": [pod("newer", 500, 0, start=20), pod("older", 500, 0, start=10)]}
    )

    assert names(schedule(state, pod("new", 500, 100)).victims) == ["newer"]


def test_a_pod_without_start_time_counts_as_the_newest() -> None:
    state = cluster(
        [node("n")],
        {"n": [pod("unstarted", 500, 0, start=None), pod("started", 500, 0, start=10**18)]},
    )

    assert names(schedule(state, pod("new", 500, 100)).victims) == ["unstarted"]


def test_a_small_lower_priority_pod_stays_when_evicting_a_bigger_one_is_enough() -> None:
    state = cluster(
        [node("n")], {"n": [pod("small", 100, 0), pod("big", 600, 50), pod("keep", 300, 200)]}
    )

    decision = schedule(state, pod("new", 600, 100))

    assert names(decision.victims) == ["big"]


def test_a_full_pod_count_is_resolved_by_preemption() -> None:
    state = cluster([node("n", pods=2)], {"n": [pod("a", 0, 0), pod("b", 0, 50)]})

    decision = schedule(state, pod("new", 0, 100))

    assert decision.node == "n"
    assert names(decision.victims) == ["a"]


def test_pdb_violating_pods_are_reprieved_before_the_others() -> None:
    budget = DisruptionBudget("web", "default", WEB_BUDGET, disruptions_allowed=0)
    other = pod("other", 500, 0, start=0)
    state = cluster([node("n")], {"n": [web_pod("web", 5), other]}, (budget,))

    decision = schedule(state, pod("new", 500, 100))

    assert names(decision.victims) == ["other"]
    assert decision.candidates[0].pdb_violations == 0


def test_evicting_a_protected_pod_counts_a_pdb_violation() -> None:
    budget = DisruptionBudget("web", "default", WEB_BUDGET, disruptions_allowed=1)
    state = cluster([node("n")], {"n": [web_pod("w1", 1), web_pod("w2", 2)]}, (budget,))

    decision = schedule(state, pod("new", 1000, 100))

    assert sorted(names(decision.victims)) == ["w1", "w2"]
    assert decision.candidates[0].pdb_violations == 1


def test_a_pod_already_in_disrupted_pods_uses_no_budget_and_never_violates() -> None:
    budget = DisruptionBudget("web", "default", WEB_BUDGET, 1, frozenset({"w2"}))
    state = cluster([node("n")], {"n": [web_pod("w1", 1), web_pod("w2", 2)]}, (budget,))

    decision = schedule(state, pod("new", 1000, 100))

    assert decision.candidates[0].pdb_violations == 0


@pytest.mark.parametrize(
    "budget",
    [
        DisruptionBudget("web", "elsewhere", WEB_BUDGET, 0),
        DisruptionBudget("web", "default", LabelSelector(), 0),
        DisruptionBudget("web", "default", None, 0),
        DisruptionBudget("web", "default", LabelSelector(valid=False), 0),
    ],
    ids=["other-namespace", "empty-selector", "nil-selector", "invalid-selector"],
)
def test_budgets_that_match_nothing(budget: DisruptionBudget) -> None:
    assert not budget.covers(web_pod("w", 1))


def test_a_pod_without_labels_matches_no_budget() -> None:
    budget = DisruptionBudget(
        "all",
        "default",
        LabelSelector(
            match_expressions=(NodeSelectorRequirement("app", NodeSelectorOperator.DOES_NOT_EXIST),)
        ),
        0,
    )

    assert not budget.covers(pod("bare", 1))


# §6 choice of the node


def _candidate(
    name: str, priorities: list[int], *, violations: int = 0, starts: list[int] | None = None
) -> Candidate:
    starts = starts or [0] * len(priorities)
    victims = tuple(
        pod(f"{name}-{i}", 1, p, start=s)
        for i, (p, s) in enumerate(zip(priorities, starts, strict=True))
    )
    return Candidate(name, victims, violations)


def test_the_node_with_fewest_pdb_violations_is_picked_first() -> None:
    assert (
        pick_one_node(
            [_candidate("a", [0], violations=1), _candidate("b", [500], violations=0)]
        ).node
        == "b"
    )


def test_then_the_node_whose_most_important_victim_has_the_lowest_priority() -> None:
    assert pick_one_node([_candidate("a", [100, 0]), _candidate("b", [50, 40, 30])]).node == "b"


def test_then_the_smallest_sum_of_priorities_each_shifted_by_maxint32_plus_one() -> None:
    # Without the shift, a's -200 would beat b's -100; shifted, b has one victim fewer.
    assert pick_one_node([_candidate("a", [0, -100, -100]), _candidate("b", [0, -100])]).node == "b"


def test_with_equal_highest_priorities_fewer_victims_win_through_the_shifted_sum() -> None:
    # Once each priority is shifted by 2**31 the sum already counts the victims, so the
    # "fewest victims" criterion that follows never has to separate these nodes.
    assert pick_one_node([_candidate("a", [10, 10]), _candidate("b", [10])]).node == "b"


def test_then_the_latest_start_among_the_most_important_victims() -> None:
    a = _candidate("a", [10, 0], starts=[100, 1])
    b = _candidate("b", [10, 0], starts=[50, 900])

    assert pick_one_node([a, b]).node == "a"


def test_a_full_tie_goes_to_the_first_candidate() -> None:
    assert pick_one_node([_candidate("a", [5]), _candidate("b", [5])]).node == "a"


def test_the_scheduler_picks_the_node_with_the_lowest_priority_victims() -> None:
    state = cluster(
        [node("n1"), node("n2"), node("n3")],
        {"n1": [pod("p1", 1000, 100)], "n2": [pod("p2", 1000, 50)], "n3": [pod("p3", 1000, 60)]},
    )

    decision = schedule(state, pod("new", 1000, 1000))

    assert decision.node == "n2"
    assert names(decision.victims) == ["p2"]
    assert decision.to_json() == {
        "eligible": True,
        "node": "n2",
        "victims": ["p2"],
        "per_node_victims": {"n1": ["p1"], "n2": ["p2"], "n3": ["p3"]},
        "per_node_pdb_violations": {"n1": 0, "n2": 0, "n3": 0},
        "alternatives": [],
    }


def test_applying_a_decision_evicts_the_victims_and_binds_the_pod() -> None:
    state = cluster([node("n")], {"n": [pod("low", 1000)]})
    new = pod("new", 500, 100)

    apply(state, schedule(state, new))

    assert names(state.nodes[0].pods) == ["new"]
    assert new.node == "n"


# What a state remembers between decisions (each node's victims)


def test_a_node_forgets_its_victims_when_a_pod_is_bound_or_evicted() -> None:
    low = pod("low", 300)
    state = cluster([node("n")], {"n": [low]})
    new = pod("new", 800, 100)
    assert names(schedule(state, new).victims) == ["low"]

    state.bind(pod("mid", 400, 50), "n")
    assert names(schedule(state, new).victims) == ["mid", "low"]

    state.evict(low)
    assert names(schedule(state, new).victims) == ["mid"]


def _rebuilt(state: ClusterState) -> ClusterState:
    """The same nodes, pods (in their order) and PDBs, in a state that remembers nothing."""
    fresh = ClusterState([n.node for n in state.nodes], state.pdbs, version=state.version)
    for n in state.nodes:
        for p in n.pods:
            fresh.bind(p, n.name)
    return fresh


_SIZES = st.sampled_from([100, 300, 500])
_PRIORITIES = st.sampled_from([-1, 0, 100])
_PODS = st.lists(st.tuples(_SIZES, _PRIORITIES, st.sampled_from([None, 1, 2])), max_size=4)
_ARRIVALS = st.lists(
    st.tuples(
        _SIZES, st.sampled_from([0, 100, 1000]), st.sampled_from([None, 0, 1]), st.booleans()
    ),
    min_size=1,
    max_size=12,
)

_PROBES = (pod("probe-small", 300, 1000), pod("probe-large", 900, 1000))


@settings(max_examples=150, deadline=None)
@given(st.lists(_PODS, min_size=1, max_size=4), _ARRIVALS, st.integers(0, 2))
def test_decisions_are_those_of_a_state_that_remembers_nothing(
    bound: list[list[tuple[int, int, int | None]]],
    arrivals: list[tuple[int, int, int | None, bool]],
    allowed: int,
) -> None:
    """GIVEN random full-ish nodes, a PDB and a run of arrivals, some alike, with pods
    leaving between them
    WHEN each arrival is decided on the live state, then carried out
    THEN each decision is the one a state rebuilt from scratch makes."""
    labelled = {"app": "web"}
    pdb = DisruptionBudget("web", "default", LabelSelector((("app", "web"),)), allowed)
    state = ClusterState([node(f"n{i}") for i in range(len(bound))], (pdb,))
    for i, pods in enumerate(bound):
        for j, (size, priority, start) in enumerate(pods):
            if state.nodes[i].cpu + size <= 1000:
                bound_pod = pod(f"n{i}-p{j}", size, priority, start=start)
                bound_pod.labels = labelled if j % 2 else {}
                state.bind(bound_pod, f"n{i}")
    for k, (size, priority, pinned, leaves) in enumerate(arrivals):
        left = state.nodes[k % len(state.nodes)].pods
        if leaves and left:
            state.evict(left[0])
        placement = Placement(pinned_node=f"n{pinned}" if pinned is not None else None)
        arrival = pod(f"a{k}", size, priority, start=10 + k, placement=placement)

        live = schedule(state, arrival)
        rebuilt = _rebuilt(state)
        fresh = schedule(rebuilt, arrival)

        assert (live.to_json(), live.reason) == (fresh.to_json(), fresh.reason)
        # Every node asked the probes' questions before each change, so that what a
        # node remembers is put to the test after each.
        for probe in _PROBES:
            assert dry_run_preemption(state, probe, state.nodes) == dry_run_preemption(
                rebuilt, probe, rebuilt.nodes
            )
        apply(state, live)
