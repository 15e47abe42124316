"""``plan`` against the live DaemonSet controller and scheduler of each release, on random
clusters of a fixed seed (issue 33, item 4; ``e2e/plan_differential.py``). plan follows
``pkg/controller/daemon/daemon_controller.go`` ``NodeShouldRunDaemonPod`` for the
targets and the scheduler model (``default_preemption.go``) for where each reserver runs
or waits; the live components decide for themselves."""

from __future__ import annotations

from pathlib import Path

from e2e.cluster import LiveCluster
from e2e.plan_differential import SHAPES, Shape, describe, generate_plan, run_plan_batch

SEED = 33
PER_SHAPE = 3


def test_plan_predicts_where_the_controller_and_scheduler_put_each_reserver(
    cluster: LiveCluster, tmp_path: Path
) -> None:
    scenarios = [generate_plan(SEED, index) for index in range(PER_SHAPE * len(SHAPES))]

    outcomes = run_plan_batch(cluster, scenarios, tmp_path)

    disagreements = [describe(o) for o in outcomes if not o.agrees]
    assert disagreements == []
    assert {o.scenario.shape for o in outcomes} == set(Shape)
    # the runs exercised held and waiting reservers, evictions and nodes left out
    assert any(o.live.waiting for o in outcomes)
    assert any(o.live.evicted for o in outcomes)
    assert any(o.live.targets != {n.name for n in o.scenario.nodes} for o in outcomes)
