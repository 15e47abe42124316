"""The random clusters of plan's differential runs (``e2e/plan_differential.py``),
without a cluster: reproducible, and each shape of issue 33's item 4 present."""

from __future__ import annotations

from collections.abc import Sequence

from cdk8s_headroom.simulate.daemon_targets import daemon_pod_placement, daemon_targets
from cdk8s_headroom.simulate.model import Node
from e2e.plan_differential import SHAPES, Shape, generate_plan
from e2e.scenarios import NodeCase

SEED = 33


def _nodes(scenario_nodes: Sequence[NodeCase]) -> list[Node]:
    return [
        Node(n.name, n.allocatable, n.max_pods, dict(n.labels), n.taints) for n in scenario_nodes
    ]


def test_a_seed_and_an_index_always_give_the_same_cluster() -> None:
    first = [generate_plan(SEED, i) for i in range(2 * len(SHAPES))]

    assert first == [generate_plan(SEED, i) for i in range(2 * len(SHAPES))]
    assert first != [generate_plan(SEED + 1, i) for i in range(2 * len(SHAPES))]


def test_each_shape_is_in_its_clusters() -> None:
    """The targets follow ``NodeShouldRunDaemonPod``
    (``pkg/controller/daemon/daemon_controller.go``), as ``daemon_targets`` ports it."""
    for index in range(4 * len(SHAPES)):
        scenario = generate_plan(SEED, index)
        template = scenario.daemonset()["spec"]["template"]["spec"]
        targets = daemon_targets(daemon_pod_placement(scenario.placement), _nodes(scenario.nodes))
        if scenario.shape is Shape.CORDONED_NODE:
            assert len(scenario.cordoned) == 1
        elif scenario.shape is Shape.SYSTEM_TAINT:
            assert any(
                t.key == "node.kubernetes.io/network-unavailable"
                for n in scenario.nodes
                for t in n.taints
            )
            assert targets.not_targeted
        elif scenario.shape is Shape.SELECTOR_EXCLUDES:
            assert len(scenario.placement.node_selector) > 1 or scenario.placement.affinity
        elif scenario.shape is Shape.POD_LEVEL_RESOURCES:
            assert "resources" in template
        assert "runtimeClassName" not in template  # plan refuses it: overhead is a RuntimeClass's


def test_the_shapes_leave_some_nodes_out_somewhere() -> None:
    left_out = 0
    for index in range(4 * len(SHAPES)):
        scenario = generate_plan(SEED, index)
        targets = daemon_targets(daemon_pod_placement(scenario.placement), _nodes(scenario.nodes))
        left_out += len(targets.not_targeted)

    assert left_out > 0
