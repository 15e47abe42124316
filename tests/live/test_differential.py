"""``simulate --scenario`` against the live kube-scheduler of each release, on a fixed
seed (issue 33; ``make fidelity`` runs the long version). ``e2e/differential.py`` runs
the scenarios side by side and compares each decision, tie-aware, with the simulator,
which follows ``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``
(``SelectVictimsOnNode``), ``pkg/scheduler/framework/preemption/preemption.go``
(``PodEligibleToPreemptOthers``, ``DryRunPreemption``, ``SelectCandidate``) and the
default profile's filters and scores.

A disagreement is written as a regression vector to
``tests/simulate/vectors/differential-<release>.json`` and fails the test: fix the
simulator, or explain the limit in docs/simulate.md and say so in the vector's
``reasoning`` (``tests/simulate/test_differential_vectors.py`` holds both to it).
"""

from __future__ import annotations

from pathlib import Path

from e2e.cluster import LiveCluster
from e2e.differential import record_vectors, run
from e2e.scenario_generator import generate_many
from e2e.scenarios import CORNERS, Corner

SEED = 33
PER_CORNER = 2


def test_simulate_decides_as_the_live_scheduler_on_every_corner(
    cluster: LiveCluster, tmp_path: Path
) -> None:
    scenarios = list(generate_many(SEED, PER_CORNER * len(CORNERS)))

    tally = run(cluster, scenarios, tmp_path)

    assert {o.scenario.corner for o in tally.outcomes} == set(Corner)
    disagreements = [o for o in tally.outcomes if not o.agrees]
    if disagreements:
        path = record_vectors(cluster.binaries.release, disagreements)
        lines = [
            f"{o.scenario.key} ({o.scenario.corner.value}): scheduler {o.live.answer.to_json()}"
            f", simulate {o.simulated.to_json()}"
            for o in disagreements
        ]
        raise AssertionError(
            f"{len(disagreements)} of {len(tally.outcomes)} scenarios disagree on "
            f"{cluster.binaries.release}, written to {path}:\n" + "\n".join(lines)
        )
    # the scheduler took every kind of decision the corners call for
    kinds = {(o.live.answer.node is None, bool(o.live.answer.victims)) for o in tally.outcomes}
    assert kinds == {(True, False), (False, False), (False, True)}
