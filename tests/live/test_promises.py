"""The promises on the running kube-scheduler and DaemonSet controller, per model
(``e2e/promises.py`` runs the scenario; DESIGN.md's table says what each model keeps).

SEED's failure is shown live: its bursts evict ordinary pods (P2 broken) and a
recreated reserver evicts an ordinary pod (P3 broken). GUARDED and DEDICATED_POOL
preempt reservers only and their recreated reservers wait. The free-capacity race of
GUARDED (a waiting ordinary pod takes a freed slice) depends on the scheduling queue's
timing, so it is counted (bench/results.md), not asserted; DEDICATED_POOL closes it.
"""

from __future__ import annotations

from cdk8s_headroom import PriorityModel
from e2e.cluster import LiveCluster
from e2e.promises import POOL_NODES, run_scenario


def test_seed_bursts_evict_ordinary_pods_and_a_recreated_reserver_evicts_another(
    cluster: LiveCluster,
) -> None:
    counts = run_scenario(cluster, PriorityModel.SEED)

    assert counts.bursts_placed == POOL_NODES
    # P2 broken: each burst evicts an ordinary pod (1.34's scheduler sometimes more: a
    # preemptor that preempted on one node may preempt again on another)
    assert counts.ordinary_preempted_by_bursts >= POOL_NODES
    assert counts.reservers_preempted_by_bursts == 0  # the reservers outrank them
    assert counts.recreated_reserver_evictions >= 1  # P3 broken


def test_guarded_bursts_preempt_only_reservers_and_recreated_reservers_wait(
    cluster: LiveCluster,
) -> None:
    counts = run_scenario(cluster, PriorityModel.GUARDED)

    assert counts.bursts_placed == POOL_NODES  # P2: each takes a slice at once
    assert counts.ordinary_preempted_by_bursts == 0  # P2: no ordinary pod evicted
    assert counts.reservers_preempted_by_bursts >= POOL_NODES  # only reservers
    assert counts.recreated_reserver_evictions == 0  # P3
    assert 0 <= counts.freed_slices_taken_by_ordinary <= POOL_NODES  # the documented race


def test_dedicated_pool_keeps_every_promise_and_no_ordinary_pod_reaches_the_pool(
    cluster: LiveCluster,
) -> None:
    counts = run_scenario(cluster, PriorityModel.DEDICATED_POOL)

    assert counts.bursts_placed == POOL_NODES
    assert counts.ordinary_preempted_by_bursts == 0
    assert counts.reservers_preempted_by_bursts >= POOL_NODES
    assert counts.recreated_reserver_evictions == 0
    assert counts.freed_slices_taken_by_ordinary == 0  # P1: the race is closed
    assert counts.ordinary_pods_on_the_pool == 0
