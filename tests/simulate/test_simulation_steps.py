"""Simulations over the scheduler model: DaemonSets and their recreated pods, the
queue, the judges of P1-P3, and the equally good answers where the scheduler breaks a
tie at random (``simulate.whatif``, ``scheduler.equally_good``).

Nodes are 1 CPU / 1000 bytes unless a test says otherwise (``small_cluster``).
"""

from __future__ import annotations

from cdk8s_headroom.simulate import (
    DisruptionBudget,
    Placement,
    Resources,
    Role,
    Simulation,
    Step,
    schedule,
)
from cdk8s_headroom.simulate.scheduler import equally_good
from cdk8s_headroom.simulate.whatif import judge_p1, judge_p2, judge_p3
from cdk8s_headroom.simulate.workloads import ClassRegistry, PodTemplate, Workload
from cdk8s_headroom.vocabulary.placement import (
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from cdk8s_headroom.vocabulary.priority_models import PriorityClassSpec
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


def _registry(*infos: PriorityClassSpec) -> ClassRegistry:
    registry = ClassRegistry()
    for info in infos:
        registry.add(info, where="test")
    return registry


HEADROOM = PriorityClassSpec("headroom", -100, NEVER)
SEED_HEADROOM = PriorityClassSpec("headroom", 900_000_000, LOWER)
BURST = PriorityClassSpec("burst", 1_000_000_000, LOWER)
DEFAULT = PriorityClassSpec("default", 0, NEVER, global_default=True)


def _reserver(taint_toleration: bool = False) -> Workload:
    tolerations = (
        (Toleration("pool", TolerationOperator.EXISTS, "", None),) if taint_toleration else ()
    )
    template = PodTemplate(
        "default", "headroom", Resources(500, 500), Placement(tolerations=tolerations)
    )
    return Workload("DaemonSet", "reserver", "default", 0, template)


def _bursts(count: int) -> Workload:
    return Workload(
        "Deployment",
        "burst",
        "default",
        count,
        PodTemplate("default", "burst", Resources(500, 500)),
    )


def test_a_daemonset_gets_one_pinned_pod_per_node_it_selects() -> None:
    taint = Taint("pool", "x", TaintEffect.NO_SCHEDULE)
    state = cluster([node("plain"), node("tainted", taints=(taint,))], {})
    simulation = Simulation(state, _registry(HEADROOM))

    events = simulation.establish_daemonset(_reserver())

    assert [(e.pod.name, e.decision.node) for e in events] == [("reserver-plain", "plain")]
    assert events[0].pod.placement.pinned_node == "plain"


def test_a_preempted_daemonset_pod_is_recreated_on_its_node_and_waits_when_it_cannot_preempt() -> (
    None
):
    state = cluster([node("n1"), node("n2")], {"n1": [pod("o1", 500)], "n2": [pod("o2", 500)]})
    simulation = Simulation(state, _registry(HEADROOM, BURST))
    simulation.establish_daemonset(_reserver())
    simulation.create(_bursts(1), 1, Role.BURST, Step.ARRIVAL)

    recreated = simulation.recreate()

    # Both nodes offer the same victim; the newer reserver (on n2) is the one taken.
    assert [e.pod.name for e in recreated] == ["reserver-n2-r1"]
    assert recreated[0].pod.placement.pinned_node == "n2"
    assert recreated[0].decision.node is None
    assert recreated[0].victims == ()


def test_the_queue_schedules_a_pending_ordinary_pod_before_a_lower_priority_headroom_pod() -> None:
    state = cluster([node("n")], {"n": [pod("o", 500)]})
    simulation = Simulation(state, _registry(HEADROOM, BURST, DEFAULT))
    simulation.establish_daemonset(_reserver())
    arrivals = simulation.create(_bursts(1), 1, Role.BURST, Step.ARRIVAL)
    simulation.recreate()
    simulation.leave([arrivals[0].pod])

    queue = simulation.drain([pod("latecomer", 500, 0, policy=NEVER)])

    assert [(e.pod.name, e.decision.node) for e in queue] == [
        ("latecomer", "n"),
        ("reserver-n-r1", None),
    ]


def _seed_story(pdb: bool) -> Simulation:
    budget = (DisruptionBudget("web", "default", WEB_BUDGET, 0),) if pdb else ()
    state = cluster([node("n", 2000)], {"n": [web_pod(f"w{i}", i) for i in range(3)]}, budget)
    simulation = Simulation(state, _registry(SEED_HEADROOM, BURST))
    simulation.establish_daemonset(_reserver())
    return simulation


def test_seed_burst_evicts_an_ordinary_pod_and_keeps_the_headroom_which_breaks_p2() -> None:
    simulation = _seed_story(pdb=False)

    arrivals = simulation.create(_bursts(1), 1, Role.BURST, Step.ARRIVAL)

    assert names(arrivals[0].victims) == ["w2"]
    verdict = judge_p2(arrivals)
    assert verdict.holds is False
    assert "w2" in verdict.reason


def test_seed_recreated_headroom_evicts_an_ordinary_pod_which_breaks_p3() -> None:
    simulation = _seed_story(pdb=True)
    arrivals = simulation.create(_bursts(1), 1, Role.BURST, Step.ARRIVAL)

    recreated = simulation.recreate()

    assert names(arrivals[0].victims) == ["reserver-n"]
    assert names(recreated[0].victims) == ["w2"]
    assert judge_p3(recreated).holds is False


def test_p3_is_not_exercised_when_no_headroom_pod_was_preempted() -> None:
    assert judge_p3([]).holds is None


def test_p1_breaks_when_an_ordinary_class_can_preempt_the_headroom() -> None:
    state = cluster([node("n")], {"n": [pod("o", 500)]})
    Simulation(state, _registry(HEADROOM)).establish_daemonset(_reserver())

    high = judge_p1(state, [PriorityClassSpec("high", 1000, LOWER)])
    never = judge_p1(state, [DEFAULT])

    assert high.holds is False
    assert "reserver-n" in high.reason
    assert never.holds is True
    assert "cannot preempt" in never.reason


def test_p2_does_not_judge_a_burst_pod_larger_than_the_slice() -> None:
    state = cluster([node("n", 2000)], {"n": [pod(f"o{i}", 500, 0, start=i) for i in range(3)]})
    simulation = Simulation(state, _registry(HEADROOM, BURST))
    simulation.establish_daemonset(_reserver())
    big = Workload(
        "Deployment", "big", "default", 1, PodTemplate("default", "burst", Resources(800, 800))
    )

    arrivals = simulation.create(big, 1, Role.BURST, Step.ARRIVAL)

    assert "reserver-n" in names(arrivals[0].victims)
    assert any(v.role is Role.ORDINARY for v in arrivals[0].victims)
    assert judge_p2(arrivals).holds is None


def test_p1_holds_on_a_pool_whose_taint_ordinary_pods_do_not_tolerate() -> None:
    taint = Taint("pool", "burst", TaintEffect.NO_SCHEDULE)
    state = cluster([node("n", taints=(taint,))], {"n": [pod("tenant", 500)]})
    Simulation(state, _registry(HEADROOM)).establish_daemonset(_reserver(taint_toleration=True))

    verdict = judge_p1(state, [PriorityClassSpec("", 0, LOWER)])

    assert verdict.holds is True
    assert "cannot run on n: node(s) had untolerated taint {pool: burst}" in verdict.reason


def test_pods_of_equal_priority_and_start_make_each_an_equally_good_victim() -> None:
    """``MoreImportantPod`` (``pkg/scheduler/util/utils.go``) cannot order pods of one
    priority and start time, and ``SelectVictimsOnNode`` sorts with ``sort.Slice``
    (``default_preemption.go``), which is not stable: either may be reprieved."""
    state = cluster([node("n")], {"n": [pod("a", 400, start=5), pod("b", 400, start=5)]})
    preemptor = pod("new", 500, 10)

    decision = schedule(state, preemptor)
    others = equally_good(state, preemptor)

    assert names(decision.victims) == ["b"]
    assert [(o.node, names(o.victims)) for o in others] == [("n", ["a"])]
    assert names(state.nodes[0].pods) == ["a", "b"]  # the state is left as it was


def test_a_full_tie_between_candidates_names_the_other_node() -> None:
    """``pickOneNodeForPreemption`` leaves a full tie to the dry run's random start."""
    state = cluster([node("n1"), node("n2")], {"n1": [pod("a", 1000)], "n2": [pod("b", 1000)]})

    others = equally_good(state, pod("new", 1000, 10))

    assert [(o.node, names(o.victims)) for o in others] == [("n2", ["b"])]


def test_pods_told_apart_by_start_time_leave_no_alternative() -> None:
    state = cluster([node("n")], {"n": [pod("a", 400, start=5), pod("b", 400, start=6)]})

    assert equally_good(state, pod("new", 500, 10)) == ()


def test_every_order_of_three_tied_pods_is_tried() -> None:
    """Any of three pods the scheduler cannot order may be the one reprieved last."""
    state = cluster(
        [node("n")], {"n": [pod("a", 300, start=5), pod("b", 300, start=5), pod("c", 300, start=5)]}
    )
    preemptor = pod("new", 300, 10)

    decision = schedule(state, preemptor)
    victims = {names(d.victims)[0] for d in (decision, *equally_good(state, preemptor))}

    assert victims == {"a", "b", "c"}
