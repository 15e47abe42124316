"""The DaemonSet controller's targets (simulate/daemon_targets.py), and the simulator
establishing reservers on them only.

Upstream: kubernetes/kubernetes ``pkg/controller/daemon/daemon_controller.go``
``NodeShouldRunDaemonPod`` and ``predicates``, and
``pkg/controller/daemon/util/daemonset_util.go`` ``AddOrUpdateDaemonPodTolerations``.
Nodes are read from kubectl's JSON (tests/cluster/kubectl_objects.py).
"""

from __future__ import annotations

from pathlib import Path

from cdk8s_headroom.cluster.snapshot import load_snapshot
from cdk8s_headroom.simulate.daemon_targets import (
    DAEMON_POD_TOLERATIONS,
    HOST_NETWORK_TOLERATION,
    NODE_CONDITION_TAINTS,
    Exclusion,
    daemon_pod_placement,
    daemon_pod_tolerations,
    daemon_targets,
    should_run,
)
from cdk8s_headroom.simulate.manifests import read_manifests
from cdk8s_headroom.simulate.model import Node
from cdk8s_headroom.simulate.report import whatif
from cdk8s_headroom.simulate.scheduler import ClusterState
from cdk8s_headroom.simulate.whatif import Simulation, Step
from cdk8s_headroom.simulate.workloads import ClassRegistry
from cdk8s_headroom.vocabulary.placement import (
    Placement,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from tests.cluster.kubectl_objects import kubectl_node, not_ready, taint

ROOT = Path(__file__).resolve().parents[2]


def nodes(*objects: dict[str, object]) -> list[Node]:
    return load_snapshot(("nodes.json", obj) for obj in objects).nodes


def test_the_controller_adds_exactly_the_upstream_tolerations() -> None:
    # AddOrUpdateDaemonPodTolerations: Exists tolerations, no value, no seconds.
    assert [
        (t.key, t.operator, t.value, t.effect, t.toleration_seconds) for t in DAEMON_POD_TOLERATIONS
    ] == [
        (
            "node.kubernetes.io/not-ready",
            TolerationOperator.EXISTS,
            "",
            TaintEffect.NO_EXECUTE,
            None,
        ),
        (
            "node.kubernetes.io/unreachable",
            TolerationOperator.EXISTS,
            "",
            TaintEffect.NO_EXECUTE,
            None,
        ),
        (
            "node.kubernetes.io/disk-pressure",
            TolerationOperator.EXISTS,
            "",
            TaintEffect.NO_SCHEDULE,
            None,
        ),
        (
            "node.kubernetes.io/memory-pressure",
            TolerationOperator.EXISTS,
            "",
            TaintEffect.NO_SCHEDULE,
            None,
        ),
        (
            "node.kubernetes.io/pid-pressure",
            TolerationOperator.EXISTS,
            "",
            TaintEffect.NO_SCHEDULE,
            None,
        ),
        (
            "node.kubernetes.io/unschedulable",
            TolerationOperator.EXISTS,
            "",
            TaintEffect.NO_SCHEDULE,
            None,
        ),
    ]


def test_network_unavailable_is_added_only_with_host_network() -> None:
    # AddOrUpdateDaemonPodTolerations: `if spec.HostNetwork` adds
    # network-unavailable:NoSchedule.
    (node,) = nodes(
        kubectl_node("no-cni", taint("node.kubernetes.io/network-unavailable", "NoSchedule"))
    )
    own = (Toleration("dedicated", value="gpu"),)

    pod_network = daemon_pod_placement(Placement(tolerations=own))
    host_network = daemon_pod_placement(Placement(tolerations=own), host_network=True)

    assert daemon_pod_tolerations(own) == (*own, *DAEMON_POD_TOLERATIONS)
    assert daemon_pod_tolerations(own, host_network=True) == (
        *own,
        *DAEMON_POD_TOLERATIONS,
        HOST_NETWORK_TOLERATION,
    )
    excluded = should_run(pod_network, node)
    assert excluded is not None and excluded.reason is Exclusion.TAINT
    assert should_run(host_network, node) is None


def test_every_untolerated_taint_is_named_and_no_execute_ends_the_running_pod() -> None:
    # NodeShouldRunDaemonPod: shouldContinueRunning is false when a NoExecute taint is
    # untolerated; the advice needs a toleration for each untolerated taint.
    only_no_schedule, with_no_execute, down = nodes(
        kubectl_node("a", taint("team", "NoSchedule", "db"), taint("spot", "PreferNoSchedule")),
        kubectl_node("b", taint("team", "NoSchedule", "db"), taint("drain", "NoExecute", "now")),
        not_ready(kubectl_node("c")),
    )
    placement = daemon_pod_placement(Placement())

    a, b, c = (should_run(placement, node) for node in (only_no_schedule, with_no_execute, down))

    assert a is not None and [str(t) for t in a.taints] == ["team=db:NoSchedule"]
    assert a.keeps_running is True
    assert b is not None and [str(t) for t in b.taints] == [
        "team=db:NoSchedule",
        "drain=now:NoExecute",
    ]
    assert b.keeps_running is False
    assert b.advice == (
        'to target it, add tolerations=[Toleration("team", value="db", '
        'effect=TaintEffect.NO_SCHEDULE), Toleration("drain", value="now", '
        "effect=TaintEffect.NO_EXECUTE)] to the headroom"
    )
    # The not-ready NoExecute taint is tolerated, the NoSchedule one is not: the pod
    # already there stays.
    assert c is not None and [str(t) for t in c.taints] == [
        "node.kubernetes.io/not-ready=:NoSchedule"
    ]
    assert c.keeps_running is True


def test_a_selector_miss_ends_the_running_pod_whatever_the_taints() -> None:
    # NodeShouldRunDaemonPod returns (false, false) when fitsNodeAffinity fails.
    (node,) = nodes(kubectl_node("general"))
    placement = daemon_pod_placement(Placement(node_selector=(("karpenter.sh/nodepool", "burst"),)))

    excluded = should_run(placement, node)

    assert excluded is not None
    assert (excluded.reason, excluded.keeps_running, excluded.taints) == (
        Exclusion.SELECTOR,
        False,
        (),
    )


def test_targets_keep_the_nodes_order_in_one_pass() -> None:
    listed = nodes(
        kubectl_node("n1"),
        kubectl_node("n2", taint("team", "NoSchedule", "db")),
        kubectl_node("n3"),
    )

    targets = daemon_targets(daemon_pod_placement(Placement()), listed)

    assert targets.names == ("n1", "n3")
    assert [n.node for n in targets.not_targeted] == ["n2"]
    assert list(targets.excluded()) == ["n2"]


def test_the_simulator_establishes_a_reserver_on_each_target_only() -> None:
    # desiredNumberScheduled counts the nodes NodeShouldRunDaemonPod accepts; the
    # simulator creates one pinned pod for each, and none elsewhere.
    manifests = read_manifests(ROOT / "dist")
    classes = ClassRegistry()
    classes.update(manifests.classes)
    state = ClusterState(
        nodes(
            kubectl_node("ready"),
            not_ready(kubectl_node("not-ready")),
            kubectl_node("cordoned", taint("node.kubernetes.io/unschedulable", "NoSchedule")),
            kubectl_node("tainted", taint("team", "NoExecute", "db")),
        )
    )

    (daemonset,) = manifests.daemonsets
    events = Simulation(state, classes).establish_daemonset(daemonset)

    assert [(e.step, e.pod.placement.pinned_node, e.decision.node) for e in events] == [
        (Step.ESTABLISH, "ready", "ready"),
        (Step.ESTABLISH, "cordoned", "cordoned"),
    ]


def test_the_what_if_reports_the_nodes_a_reserver_does_not_target() -> None:
    # desiredNumberScheduled leaves the tainted node out: the what-if establishes no
    # reserver there, counts none pending, and names the node with its taint.
    manifests = read_manifests(ROOT / "dist")
    classes = ClassRegistry()
    classes.update(manifests.classes)
    state = ClusterState(
        nodes(kubectl_node("worker"), kubectl_node("gpu", taint("nvidia.com/gpu", "NoSchedule")))
    )

    report = whatif(state, classes, manifests)

    (daemonset,) = manifests.daemonsets
    assert [e.pod.placement.pinned_node for e in report.establishment] == ["worker"]
    assert [n.node for n in report.not_targeted[daemonset.ref]] == ["gpu"]
    text = report.render()
    assert "Headroom established: 1/1 reserver pods running, 0 pending" in text
    assert "  not targeted (1) gpu: untolerated taint nvidia.com/gpu=:NoSchedule" in text
    establishment = report.to_json()["establishment"]
    assert establishment["not_targeted"][daemonset.ref][0]["node"] == "gpu"  # type: ignore[index]


def test_a_new_node_not_ready_yet_is_explained_and_never_tolerated() -> None:
    # The node lifecycle controller removes not-ready:NoSchedule once it sees the node
    # Ready; tolerating it would put reservers on nodes that are really not ready.
    (new,) = nodes(
        kubectl_node(
            "new",
            taint("node.kubernetes.io/not-ready", "NoSchedule"),
            taint("team", "NoSchedule", "db"),
        )
    )

    excluded = should_run(daemon_pod_placement(Placement()), new)

    assert excluded is not None
    assert "node.kubernetes.io/not-ready" not in excluded.advice.split("tolerations=")[-1]
    assert excluded.advice == (
        f"node.kubernetes.io/not-ready: {NODE_CONDITION_TAINTS['node.kubernetes.io/not-ready']}"
        ", and then the DaemonSet controller targets the node (do not tolerate it); "
        'to target it, add tolerations=[Toleration("team", value="db", '
        "effect=TaintEffect.NO_SCHEDULE)] to the headroom"
    )
    assert "clears when the node turns Ready" in excluded.advice


def test_no_condition_taint_of_kubernetes_controllers_is_ever_advised() -> None:
    for key in NODE_CONDITION_TAINTS:
        (node,) = nodes(kubectl_node("n", taint(key, "NoSchedule"), taint(key, "NoExecute")))
        excluded = should_run(daemon_pod_placement(Placement()), node)
        assert excluded is not None
        assert "Toleration(" not in excluded.advice
        assert excluded.advice.count(key) == 1
