"""plan and status count a reserver's targets as the DaemonSet controller does.

Each rule follows kubernetes/kubernetes ``pkg/controller/daemon/daemon_controller.go``
(``NodeShouldRunDaemonPod`` and ``predicates``, ``updateDaemonSetStatus`` for the
counts) or ``pkg/controller/daemon/util/daemonset_util.go``
(``AddOrUpdateDaemonPodTolerations``). The nodes and pods are kubectl's JSON
(``tests/cluster/kubectl_objects.py``), with the taints, labels or selector the rule needs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from cdk8s_headroom.cluster.plan import PlanReport, plan
from cdk8s_headroom.cluster.snapshot import Snapshot, load_snapshot
from cdk8s_headroom.cluster.status import HeadroomStatus, status
from cdk8s_headroom.simulate.daemon_targets import Exclusion
from cdk8s_headroom.simulate.manifests import Manifests, manifests_from_objects
from cdk8s_headroom.simulate.versions import KubernetesVersion
from tests.cluster.kubectl_objects import kubectl_node, not_ready, reserver_pod, taint

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
AFTER = ROOT / "docs" / "examples" / "snapshot-after.json"
V131 = KubernetesVersion(1, 31)


def snapshot(*objects: dict[str, Any]) -> Snapshot:
    return load_snapshot(("snapshot.json", obj) for obj in objects)


def manifests(**template_spec: Any) -> Manifests:
    """dist/ as synthesized, the reserver's pod template given ``template_spec``."""
    files = []
    for path in sorted(DIST.glob("*.yaml")):
        documents = [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
        for doc in documents:
            if doc["kind"] == "DaemonSet" and doc["metadata"]["name"] == "headroom-reserver":
                doc["spec"]["template"]["spec"].update(template_spec)
        files.append((str(path), documents))
    return manifests_from_objects(files)


def run_plan(listing: Snapshot, dist: Manifests | None = None) -> PlanReport:
    return plan(dist or manifests(), listing, version=V131, version_from="test")


def headroom_of(listing: Snapshot, dist: Manifests | None = None) -> HeadroomStatus:
    (headroom,) = status(listing, version=V131, version_from="test", manifests=dist).headrooms
    return headroom


@pytest.mark.parametrize("effect", ["NoSchedule", "NoExecute"])
def test_an_untolerated_taint_leaves_the_node_out_not_pending(effect: str) -> None:
    # NodeShouldRunDaemonPod / predicates: FindMatchingUntoleratedTaint over NoSchedule
    # and NoExecute fails fitsTaints, so shouldRun is false and desiredNumberScheduled
    # does not count the node.
    listing = snapshot(
        kubectl_node("free"), kubectl_node("dedicated", taint("dedicated", effect, "gpu"))
    )

    report = run_plan(listing)

    (reserver,) = report.reservers
    assert reserver.target_nodes == ("free",)
    assert reserver.pending == ()
    (dedicated,) = reserver.not_targeted
    assert (dedicated.node, dedicated.reason) == ("dedicated", Exclusion.TAINT)
    assert dedicated.detail == f"untolerated taint dedicated=gpu:{effect}"
    name = {"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE"}[effect]
    assert dedicated.advice == (
        f'to target it, add tolerations=[Toleration("dedicated", value="gpu", '
        f"effect=TaintEffect.{name})] to the headroom"
    )
    assert report.exit_status(max_pending=0) == 0


def test_a_prefer_no_schedule_taint_keeps_the_node_a_target() -> None:
    # predicates filters taints to NoSchedule and NoExecute: PreferNoSchedule only
    # scores, it never keeps a daemon pod off.
    listing = snapshot(kubectl_node("soft", taint("spot", "PreferNoSchedule", "true")))

    (reserver,) = run_plan(listing).reservers

    assert reserver.target_nodes == ("soft",)
    assert reserver.not_targeted == ()


def test_a_toleration_of_the_template_adds_the_tainted_node() -> None:
    # NewPod copies the template's tolerations; the controller's are added to them.
    dist = manifests(
        tolerations=[
            {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
        ]
    )
    listing = snapshot(kubectl_node("dedicated", taint("dedicated", "NoSchedule", "gpu")))

    (reserver,) = run_plan(listing, dist).reservers

    assert reserver.target_nodes == ("dedicated",)
    assert [node.node for node in reserver.established] == ["dedicated"]


@pytest.mark.parametrize(
    "condition", ["disk-pressure", "memory-pressure", "pid-pressure", "unschedulable"]
)
def test_the_controller_tolerates_node_condition_taints_with_no_schedule(condition: str) -> None:
    # AddOrUpdateDaemonPodTolerations: every daemon pod tolerates the NoSchedule taints
    # TaintNodesByCondition puts on nodes under pressure, and on cordoned nodes.
    listing = snapshot(
        kubectl_node("pressed", taint(f"node.kubernetes.io/{condition}", "NoSchedule"))
    )

    (reserver,) = run_plan(listing).reservers

    assert reserver.target_nodes == ("pressed",)
    assert reserver.not_targeted == ()


@pytest.mark.parametrize("condition", ["not-ready", "unreachable"])
def test_the_controller_tolerates_not_ready_and_unreachable_no_execute(condition: str) -> None:
    # AddOrUpdateDaemonPodTolerations: not-ready and unreachable NoExecute, so that
    # taint-based eviction leaves daemon pods alone.
    listing = snapshot(kubectl_node("flaky", taint(f"node.kubernetes.io/{condition}", "NoExecute")))

    (reserver,) = run_plan(listing).reservers

    assert reserver.target_nodes == ("flaky",)


def test_a_not_ready_node_is_not_targeted_but_its_reserver_stays() -> None:
    # The node lifecycle controller adds not-ready:NoSchedule too, which
    # AddOrUpdateDaemonPodTolerations does not tolerate: shouldRun is false. No
    # NoExecute taint is untolerated, so shouldContinueRunning is true: the pod
    # already there is misscheduled, not deleted.
    listing = snapshot(
        kubectl_node("up"),
        not_ready(kubectl_node("down")),
        reserver_pod("headroom-reserver-up", "up"),
        reserver_pod("headroom-reserver-down", "down"),
    )

    (reserver,) = run_plan(listing).reservers
    headroom = headroom_of(listing)

    assert reserver.target_nodes == ("up",)
    assert [(n.node, n.detail) for n in reserver.not_targeted] == [
        ("down", "untolerated taint node.kubernetes.io/not-ready=:NoSchedule")
    ]
    assert reserver.pending == ()
    assert headroom.target_nodes == ("up",)
    assert headroom.held == ("up",)
    assert [(n.node, n.pod, n.bound) for n in headroom.misscheduled] == [
        ("down", "node-headroom/headroom-reserver-down", True)
    ]
    assert headroom.missing == ()


def test_network_unavailable_is_tolerated_only_by_host_network_reservers() -> None:
    # AddOrUpdateDaemonPodTolerations adds network-unavailable:NoSchedule only when
    # spec.hostNetwork is true. Such a pod carries the toleration in its own spec,
    # which is where status reads it without --manifests.
    no_network = taint("node.kubernetes.io/network-unavailable", "NoSchedule")
    pod = reserver_pod("headroom-reserver-net", "no-network")
    pod["spec"]["hostNetwork"] = True
    pod["spec"]["tolerations"].append(
        {
            "effect": "NoSchedule",
            "key": "node.kubernetes.io/network-unavailable",
            "operator": "Exists",
        }
    )

    plain = run_plan(snapshot(kubectl_node("no-network", no_network))).reservers[0]
    host_network = headroom_of(snapshot(kubectl_node("no-network", no_network), pod))

    assert plain.target_nodes == ()
    assert [n.node for n in plain.not_targeted] == ["no-network"]
    assert host_network.target_nodes == ("no-network",)
    assert host_network.held == ("no-network",)


def test_a_node_selector_that_does_not_match_leaves_the_node_out() -> None:
    # predicates: nodeaffinity.GetRequiredNodeAffinity(pod).Match checks the node
    # selector; a node it fails is neither a target nor pending, and the advice is
    # no toleration (the pool is chosen on purpose).
    dist = manifests(nodeSelector={"karpenter.sh/nodepool": "burst"})
    listing = snapshot(
        kubectl_node("burst-1", labels={"karpenter.sh/nodepool": "burst"}),
        kubectl_node("general-1"),
    )

    (reserver,) = run_plan(listing, dist).reservers

    assert reserver.target_nodes == ("burst-1",)
    (other,) = reserver.not_targeted
    assert (other.node, other.reason, other.advice) == ("general-1", Exclusion.SELECTOR, "")


def test_required_node_affinity_that_does_not_match_leaves_the_node_out() -> None:
    # predicates: GetRequiredNodeAffinity(pod).Match also checks
    # requiredDuringSchedulingIgnoredDuringExecution.
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "topology.kubernetes.io/zone",
                                "operator": "In",
                                "values": ["eu-west-1b"],
                            }
                        ]
                    }
                ]
            }
        }
    }
    listing = snapshot(
        kubectl_node("zone-a"),
        kubectl_node("zone-b", labels={"topology.kubernetes.io/zone": "eu-west-1b"}),
    )

    (reserver,) = run_plan(listing, manifests(affinity=affinity)).reservers

    assert reserver.target_nodes == ("zone-b",)
    assert [(n.node, n.reason) for n in reserver.not_targeted] == [("zone-a", Exclusion.SELECTOR)]


def test_status_counts_a_reserver_under_an_untolerated_no_schedule_taint_as_misscheduled() -> None:
    # NodeShouldRunDaemonPod returns (false, true) for an untolerated NoSchedule taint:
    # the pod keeps running (and holding its slice), and updateDaemonSetStatus counts
    # it in numberMisscheduled, not as scheduled. Karpenter taints a node it disrupts so.
    listing = snapshot(
        kubectl_node("kept"),
        kubectl_node("leaving", taint("karpenter.sh/disrupted", "NoSchedule")),
        reserver_pod("headroom-reserver-kept", "kept"),
        reserver_pod("headroom-reserver-leaving", "leaving"),
    )

    report = status(listing, version=V131, version_from="test")
    (headroom,) = report.headrooms

    assert headroom.held == ("kept",)
    (off,) = headroom.misscheduled
    assert (off.node, off.pod, off.bound) == (
        "leaving",
        "node-headroom/headroom-reserver-leaving",
        True,
    )
    assert headroom.being_removed == ()
    text = report.render()
    assert "held: 1; in use by a burst: 0; eroded: 0; missing: 0; misscheduled: 1" in text
    assert (
        "  misscheduled leaving: node-headroom/headroom-reserver-leaving runs and holds its "
        "slice; untolerated taint karpenter.sh/disrupted=:NoSchedule" in text
    )
    data = report.to_json()["headrooms"][0]  # type: ignore[index]
    assert data["misscheduled"] == [
        {
            "node": "leaving",
            "pod": "node-headroom/headroom-reserver-leaving",
            "detail": "untolerated taint karpenter.sh/disrupted=:NoSchedule",
            "bound": True,
        }
    ]
    assert report.exit_status(max_pending=0) == 0


def test_status_counts_a_reserver_under_an_untolerated_no_execute_taint_as_being_removed() -> None:
    # NodeShouldRunDaemonPod returns (false, false) when a NoExecute taint is not
    # tolerated; podsShouldBeOnNode then deletes the node's daemon pods.
    listing = snapshot(
        kubectl_node("evicting", taint("maintenance", "NoExecute", "now")),
        reserver_pod("headroom-reserver-evicting", "evicting"),
    )

    report = status(listing, version=V131, version_from="test")
    (headroom,) = report.headrooms

    assert (headroom.held, headroom.misscheduled, headroom.missing) == ((), (), ())
    (off,) = headroom.being_removed
    assert (off.node, off.detail) == ("evicting", "untolerated taint maintenance=now:NoExecute")
    assert "being removed: 1" in report.render()
    assert "  being removed evicting: node-headroom/headroom-reserver-evicting" in report.render()
    data = report.to_json()["headrooms"][0]  # type: ignore[index]
    assert [entry["node"] for entry in data["being_removed"]] == ["evicting"]
    assert [entry["node"] for entry in data["not_targeted"]] == ["evicting"]


def test_status_counts_a_reserver_on_a_node_the_selector_no_longer_matches_as_being_removed() -> (
    None
):
    # NodeShouldRunDaemonPod returns (false, false) when fitsNodeAffinity fails: the
    # controller deletes the pod, whatever the taints.
    dist = manifests(nodeSelector={"karpenter.sh/nodepool": "burst"})
    listing = snapshot(
        kubectl_node("relabelled"), reserver_pod("headroom-reserver-relabelled", "relabelled")
    )

    headroom = headroom_of(listing, dist)

    assert headroom.target_nodes == ()
    assert [(n.node, n.bound) for n in headroom.being_removed] == [("relabelled", True)]


def test_a_waiting_reserver_on_a_tainted_node_is_misscheduled_and_holds_nothing() -> None:
    # updateDaemonSetStatus counts a node as scheduled when a daemon pod exists for it,
    # bound or not: on a node it should not run on, that pod is misscheduled.
    listing = snapshot(
        kubectl_node("tainted", taint("dedicated", "NoSchedule", "db")),
        reserver_pod("headroom-reserver-waiting", "tainted", bound=False),
    )

    headroom = headroom_of(listing)

    assert headroom.eroded == ()
    assert [(n.node, n.bound) for n in headroom.misscheduled] == [("tainted", False)]


def test_the_never_reserver_advice_names_karpenter_only_on_karpenters_nodes() -> None:
    # Karpenter adds no node for a pending DaemonSet pod, but it replaces its nodes;
    # on other nodes the room comes back only when pods leave.
    full = {"cpu": "100m", "memory": "256Mi", "pods": "110"}
    karpenter = kubectl_node("karpenter-full")
    other = kubectl_node("static-full")
    del other["metadata"]["labels"]["karpenter.sh/nodepool"]
    for node in (karpenter, other):
        node["status"]["allocatable"] = dict(full)

    karpenter_text = run_plan(snapshot(karpenter)).render()
    other_text = run_plan(snapshot(other)).render()

    assert "Karpenter adds no node for a pending DaemonSet pod" in karpenter_text
    assert "as they are replaced" in karpenter_text
    assert "Karpenter" not in other_text
    assert "the slice appears when pods leave and free the room" in other_text
