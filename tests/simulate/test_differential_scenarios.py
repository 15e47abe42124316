"""The differential runs' scenarios (``e2e/scenario_generator.py``, ``e2e/scenarios.py``)
and the parts of the differential runs that need no cluster
(``e2e/differential_answers.py``): reproducible scenarios, every corner the issue lists,
the scenario file read back from listed objects, and the set of equally good answers
where kube-scheduler breaks a tie at random. No cluster: the listing is the one
``GeneratedScenario.listing`` writes as ``kubectl get -o json`` would."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest

from cdk8s_headroom.simulate import decide, load_scenario
from cdk8s_headroom.simulate.versions import KubernetesVersion
from e2e.differential_answers import Answer, answers, scenario_from_listing, simulate_answer
from e2e.scenario_generator import generate_many
from e2e.scenarios import (
    CORNERS,
    ContainerKind,
    Corner,
    GeneratedScenario,
)

SEED = 20240501
SAMPLE = 6 * len(CORNERS)
START = datetime(2025, 3, 1, 12, 0, 0, tzinfo=timezone.utc)
V137 = KubernetesVersion(1, 37)


def _file(scenario: GeneratedScenario) -> dict[str, Any]:
    return scenario_from_listing(
        scenario.listing(START), namespace=scenario.namespace, preemptor=scenario.preemptor.name
    )


def _sample(corner: Corner) -> list[GeneratedScenario]:
    return [s for s in generate_many(SEED, SAMPLE) if s.corner is corner]


def test_a_seed_and_an_index_always_give_the_same_scenario() -> None:
    first = list(generate_many(SEED, 2 * len(CORNERS)))
    again = list(generate_many(SEED, 2 * len(CORNERS)))

    assert first == again
    assert [_file(s) for s in first] == [_file(s) for s in again]


def test_another_seed_gives_other_scenarios() -> None:
    ours = list(generate_many(SEED, len(CORNERS)))
    theirs = list(generate_many(SEED + 1, len(CORNERS)))

    assert sum(a != b for a, b in zip(ours, theirs, strict=True)) >= len(CORNERS) - 1


def test_scenario_names_and_node_names_never_meet_in_one_batch() -> None:
    scenarios = list(generate_many(SEED, SAMPLE))
    nodes = [node.name for s in scenarios for node in s.nodes]

    assert len({s.namespace for s in scenarios}) == len(scenarios)
    assert len(set(nodes)) == len(nodes)
    for s in scenarios:
        assert all(
            dict(node.labels)["differential.headroom.cdk8s.io/scenario"] == s.namespace
            for node in s.nodes
        )
        assert (
            dict(s.preemptor.placement.node_selector)["differential.headroom.cdk8s.io/scenario"]
            == s.namespace
        )


def test_every_run_of_len_corners_scenarios_covers_every_corner() -> None:
    assert {s.corner for s in generate_many(SEED, len(CORNERS), start=5)} == set(Corner)


@pytest.mark.parametrize("corner", CORNERS, ids=[c.name for c in CORNERS])
def test_each_corner_is_in_its_scenarios(corner: Corner) -> None:
    """What each corner asks for is really in the scenario, and where the corner is a
    decision (fits, Never, a terminating victim), the simulator takes that branch in at
    least one of them (``pkg/scheduler/framework/preemption/preemption.go``
    ``PodEligibleToPreemptOthers``, ``default_preemption.go`` ``SelectVictimsOnNode``)."""
    scenarios = _sample(corner)
    assert len(scenarios) == 6
    decisions = [decide(load_scenario(_file(s), version=V137)) for s in scenarios]
    for s, decision in zip(scenarios, decisions, strict=True):
        preemptor = s.preemptor
        request = preemptor.shape.requests
        by_node: dict[str, list[Any]] = {}
        for pod in s.pods:
            by_node.setdefault(pod.node, []).append(pod)
        if corner is Corner.EQUAL_PRIORITIES:
            assert any(
                len({p.priority for p in pods}) == 1 and len(pods) >= 2 for pods in by_node.values()
            )
        elif corner is Corner.EQUAL_START_TIMES:
            assert any(
                len({(p.priority, p.wave) for p in pods}) == 1 and len(pods) >= 2
                for pods in by_node.values()
            )
        elif corner is Corner.PDB_ON_EVERY_CANDIDATE:
            (budget,) = s.budgets
            assert budget.max_unavailable == 0
            assert all(set(budget.match_labels) <= set(p.labels) for p in s.pods)
            assert all(c.pdb_violations > 0 for c in decision.candidates)
        elif corner is Corner.FITS_WITHOUT_PREEMPTION:
            assert decision.node is not None and not decision.victims
        elif corner is Corner.NEVER:
            assert not decision.eligible
        elif corner is Corner.NO_VICTIMS_ENOUGH:
            assert any(
                request.cpu
                > node.allocatable.cpu
                - sum(
                    p.shape.requests.cpu
                    for p in s.pods
                    if p.node == node.name and p.priority >= preemptor.priority
                )
                for node in s.nodes
            )
        elif corner is Corner.NOMINATED_WITH_TERMINATING_VICTIM:
            victim = next(p for p in s.pods if p.name == s.terminating)
            assert preemptor.nominated_node == victim.node
            assert victim.priority < preemptor.priority
        elif corner is Corner.DAEMON_PREEMPTOR:
            (term,) = preemptor.placement.affinity or ()
            assert [r.key for r in term.fields] == ["metadata.name"]
        elif corner is Corner.ABOVE_ALLOCATABLE:
            assert any(request.cpu > node.allocatable.cpu for node in s.nodes)
        elif corner is Corner.TOO_MANY_PODS:
            assert any(len(by_node.get(n.name, [])) == n.max_pods for n in s.nodes)
        elif corner is Corner.EMPTY_PDB_SELECTOR:
            assert any(not b.match_labels and b.max_unavailable == 0 for b in s.budgets)
        elif corner is Corner.REQUEST_SHAPES:
            kinds = {c.kind for c in preemptor.shape.containers}
            assert kinds == set(ContainerKind)
            assert preemptor.shape.overhead and preemptor.shape.pod_level is not None
    if corner is Corner.NOMINATED_WITH_TERMINATING_VICTIM:
        assert any(
            d.reason.endswith("not eligible due to a terminating pod on the nominated node.")
            for d in decisions
        )


def test_the_sample_has_pods_that_fit_preempt_and_stay_unschedulable() -> None:
    kinds = set()
    for s in generate_many(SEED, SAMPLE):
        answer = simulate_answer(_file(s), V137)
        kinds.add(
            "fits" if answer.node and not answer.victims else "preempts" if answer.node else "waits"
        )

    assert kinds == {"fits", "preempts", "waits"}


def test_the_scenario_file_counts_requests_as_the_generator_built_them() -> None:
    """Requests read back through ``cluster.snapshot`` (``PodRequests`` of
    ``k8s.io/component-helpers/resource/helpers.go``) equal the generator's sizing:
    containers, init and sidecar containers, overhead, pod-level resources."""
    for s in _sample(Corner.REQUEST_SHAPES):
        file = _file(s)
        request = s.preemptor.shape.requests

        assert file["preemptor"]["requests"] == {
            "cpu": f"{request.cpu}m",
            "memory": str(request.memory),
        }
        for pod, entry in zip(s.pods, file["pods"], strict=True):
            assert entry["name"] == pod.name
            assert entry["requests"]["cpu"] == f"{pod.shape.requests.cpu}m"


def test_the_scenario_file_is_one_simulate_reads_and_keeps_start_times_and_budgets() -> None:
    (s,) = [x for x in _sample(Corner.PDB_ON_EVERY_CANDIDATE)][:1]
    file = _file(s)

    load_scenario(json.loads(json.dumps(file)), version=V137)
    waves = {p.name: p.wave for p in s.pods}
    assert {e["name"]: e["start_time"] for e in file["pods"]} == {
        name: f"2025-03-01T12:00:0{wave}Z" for name, wave in waves.items()
    }
    assert [p["disruptions_allowed"] for p in file["pdbs"]] == [0]


def _tied(start_times: tuple[str, str]) -> dict[str, Any]:
    pod = {"namespace": "", "node": "n", "priority": 0, "requests": {"cpu": "400m"}}
    return {
        "nodes": [{"name": "n", "allocatable": {"cpu": "1", "memory": "1Gi"}}],
        "pods": [
            {**pod, "name": "a", "start_time": start_times[0]},
            {**pod, "name": "b", "start_time": start_times[1]},
        ],
        "pdbs": [],
        "preemptor": {"name": "p", "priority": 10, "requests": {"cpu": "500m"}},
    }


def test_pods_that_the_scheduler_cannot_order_make_each_of_them_an_answer() -> None:
    """``MoreImportantPod`` (``pkg/scheduler/util/utils.go``) cannot order two pods of
    one priority and start time, and ``SelectVictimsOnNode`` sorts with ``sort.Slice``
    (``default_preemption.go``): either may be reprieved first."""
    tied = answers(_tied(("2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z")), V137)
    ordered = answers(_tied(("2025-01-01T00:00:00Z", "2025-01-01T00:00:01Z")), V137)

    assert tied == {Answer("n", frozenset({"a"})), Answer("n", frozenset({"b"}))}
    assert ordered == {Answer("n", frozenset({"b"}))}  # the newer one goes
