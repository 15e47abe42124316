"""plan and status on six real clusters' listings, as kubectl and the API server wrote
them (``../shared/snapshots``, read in place: the project does not copy them; its
README.md says what each holds)."""

from __future__ import annotations

import pytest

from cdk8s_headroom.cli import main
from cdk8s_headroom.cluster.plan import PlanReport, plan
from cdk8s_headroom.cluster.snapshot import read_snapshot
from cdk8s_headroom.cluster.status import status
from cdk8s_headroom.simulate.daemon_targets import daemon_pod_tolerations, daemon_targets
from cdk8s_headroom.simulate.manifests import read_manifests
from cdk8s_headroom.simulate.versions import KubernetesVersion
from cdk8s_headroom.vocabulary.placement import Placement
from tests.conftest import ROOT, SHARED

SNAPSHOTS = SHARED / "snapshots"
GKE = "gke-tesg1-default-pool-ff7a1295-"
LISTINGS = (
    "acs-engine-4node-api",
    "honeycomb-eks-2node",
    "kalc-gke-tesg1-json-default",
    "kalc-gke-tesg1-yaml",
    "splunk-kops-aws-3node",
    "troubleshoot-k3d-1node",
)

pytestmark = pytest.mark.skipif(
    not SNAPSHOTS.is_dir(),
    reason=f"{SNAPSHOTS} is absent: the real snapshots live beside the clone (CI has them)",
)


def _plan(folder: str) -> PlanReport:
    snapshot = read_snapshot(SNAPSHOTS / folder)
    assert snapshot.version is not None
    return plan(
        read_manifests(ROOT / "dist"), snapshot, version=snapshot.version, version_from="nodes"
    )


def test_api_server_typed_lists_without_kinds_or_priorities_read_whole() -> None:
    snapshot = read_snapshot(SNAPSHOTS / "acs-engine-4node-api")

    assert len(snapshot.nodes) == 4
    assert len(snapshot.bound) == 13
    assert snapshot.version == KubernetesVersion(1, 7)
    assert {p.priority for p in snapshot.bound} == {0}
    proxies = [p for p in snapshot.bound if p.owner == "DaemonSet kube-system/kube-proxy"]
    assert sorted(p.placement.pinned_node for p in proxies) == sorted(
        n.name for n in snapshot.nodes
    )
    heapster = next(p for p in snapshot.bound if p.name.startswith("heapster-"))
    assert heapster.requests.cpu == 138  # two containers, summed


def test_plan_on_the_tainted_master_cluster_keeps_the_master_out() -> None:
    report = _plan("acs-engine-4node-api")

    (reserver,) = report.reservers
    assert len(reserver.established) == 3
    assert reserver.pending == ()
    (master,) = reserver.not_targeted
    assert master.node == "k8s-master-10851795-0"
    assert "node-role.kubernetes.io/master=true:NoSchedule" in master.detail


def test_yaml_lists_with_unquoted_timestamps_and_v1beta1_classes() -> None:
    snapshot = read_snapshot(SNAPSHOTS / "kalc-gke-tesg1-yaml")

    assert (len(snapshot.nodes), len(snapshot.bound), snapshot.finished) == (5, 29, 3)
    assert snapshot.version == KubernetesVersion(1, 12)
    assert {info.name for info, _ in snapshot.classes} == {
        "high-priority",
        "system-cluster-critical",
        "system-node-critical",
    }
    assert all(p.start_time is not None for p in snapshot.bound)


def test_plan_on_the_full_gke_cluster_holds_one_slice_and_names_the_system_threats() -> None:
    report = _plan("kalc-gke-tesg1-yaml")

    (reserver,) = report.reservers
    assert [n.node for n in reserver.established] == [f"{GKE}dmtd"]
    assert [n.reason for n in reserver.pending] == ["room"] * 4
    threats = [(t.priority_class.name, t.pods) for t in report.threats]
    assert threats[:2] == [("system-node-critical", 15), ("system-cluster-critical", 5)]
    assert [v.holds for v in report.whatif.verdicts] == [True, True, True]


def test_plan_finds_the_user_class_that_breaks_p1() -> None:
    report = _plan("kalc-gke-tesg1-json-default")

    (reserver,) = report.reservers
    assert len(reserver.established) == 3
    assert sorted(n.node for n in reserver.pending) == [f"{GKE}dmtd", f"{GKE}zpc5"]
    high = next(t for t in report.threats if t.priority_class.name == "high-priority")
    assert (high.pods, high.namespaces) == (5, ("default",))
    p1 = report.whatif.verdicts[0]
    assert p1.holds is False and "high-priority (1000000" in p1.reason


def test_the_pending_pod_without_a_node_waits() -> None:
    snapshot = read_snapshot(SNAPSHOTS / "kalc-gke-tesg1-json-default")

    assert [p.name for p in snapshot.waiting] == ["redis-slave-unlimit-3-8fb949488-q474t"]
    assert snapshot.finished == 3


@pytest.mark.parametrize("folder", LISTINGS)
def test_status_finds_no_headroom_on_clusters_that_never_had_one(
    folder: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report = status(
        read_snapshot(SNAPSHOTS / folder), version=KubernetesVersion(1, 12), version_from="x"
    )

    assert report.headrooms == ()
    assert main(["status", "--snapshot", str(SNAPSHOTS / folder)]) == 1
    assert "No headroom" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("folder", "targets", "not_targeted", "pending", "exit_status"),
    [
        # The tainted masters (acs-engine, kops) and EKS's two `type=hound:NoSchedule`
        # nodes are not targeted: the DaemonSet controller creates no reserver there
        # (NodeShouldRunDaemonPod), so nothing waits there and the run does not fail
        # for them. kops still waits on its two workers, whose pods' requests (edited
        # by the listing's authors) exceed the nodes' allocatable.
        ("acs-engine-4node-api", 3, 1, 0, 0),
        ("honeycomb-eks-2node", 0, 2, 0, 0),
        ("kalc-gke-tesg1-json-default", 5, 0, 2, 1),
        ("kalc-gke-tesg1-yaml", 5, 0, 4, 1),
        ("splunk-kops-aws-3node", 2, 1, 2, 1),
        ("troubleshoot-k3d-1node", 1, 0, 0, 0),
    ],
)
def test_plan_counts_targets_not_targeted_and_pending_nodes_on_each_listing(
    folder: str, targets: int, not_targeted: int, pending: int, exit_status: int
) -> None:
    report = _plan(folder)

    (reserver,) = report.reservers
    assert len(reserver.target_nodes) == targets
    assert len(reserver.not_targeted) == not_targeted
    assert len(reserver.pending) == pending
    assert len(reserver.established) == targets - pending
    assert {n.reason for n in reserver.pending} <= {"room", "pods"}
    assert all(n.reason.value == "taint" for n in reserver.not_targeted)
    assert report.exit_status(max_pending=0) == exit_status


def test_plan_on_eks_targets_neither_hound_tainted_node_and_passes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["plan", "--manifests", str(ROOT / "dist")]
    code = main([*argv, "--snapshot", str(SNAPSHOTS / "honeycomb-eks-2node")])

    out = capsys.readouterr().out
    assert code == 0
    assert "target nodes: 0; established right after apply: 0; pending: 0; not targeted: 2" in out
    assert (
        "  not targeted (2) duckboat-01, duckboat-02: untolerated taint type=hound:NoSchedule; "
        'to target them, add tolerations=[Toleration("type", value="hound", '
        "effect=TaintEffect.NO_SCHEDULE)] to the headroom"
    ) in out


@pytest.mark.parametrize(
    ("folder", "targets", "not_targeted"),
    [
        ("acs-engine-4node-api", 3, 1),
        ("honeycomb-eks-2node", 0, 2),
        ("kalc-gke-tesg1-json-default", 5, 0),
        ("kalc-gke-tesg1-yaml", 5, 0),
        ("splunk-kops-aws-3node", 2, 1),
        ("troubleshoot-k3d-1node", 1, 0),
    ],
)
def test_status_with_the_manifests_finds_every_target_node_missing_its_reserver(
    folder: str, targets: int, not_targeted: int, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = read_snapshot(SNAPSHOTS / folder)
    report = status(
        snapshot,
        version=KubernetesVersion(1, 12),
        version_from="x",
        manifests=read_manifests(ROOT / "dist"),
    )

    (headroom,) = report.headrooms
    assert headroom.name == "node-headroom/headroom-reserver"
    assert len(headroom.target_nodes) == targets
    assert len(headroom.not_targeted) == not_targeted
    assert (headroom.held, headroom.in_use, headroom.eroded) == ((), (), ())
    assert (headroom.misscheduled, headroom.being_removed) == ((), ())
    assert headroom.missing == headroom.target_nodes
    argv = ["status", "--snapshot", str(SNAPSHOTS / folder), "--manifests", str(ROOT / "dist")]
    # Nothing is missing where nothing is targeted (EKS): the run passes.
    assert main(argv) == (1 if targets else 0)
    assert f"missing: {targets}" in capsys.readouterr().out


@pytest.mark.parametrize("folder", LISTINGS)
def test_the_real_daemonset_pods_sit_on_the_nodes_the_controller_targets(folder: str) -> None:
    # Every pod that the clusters' own DaemonSet controllers created is on a node that
    # daemon_targets (NodeShouldRunDaemonPod) names a target. The template is read back
    # from a pod: its node selector and tolerations. EKS's listing is no single moment
    # (its README: the pods are from an earlier day than the nodes), and three of its
    # pods sit where today's controller would not keep them all.
    snapshot = read_snapshot(SNAPSHOTS / folder)
    by_owner: dict[str, list[str]] = {}
    placements = {}
    for pod in [*snapshot.bound, *snapshot.waiting]:
        if pod.owner.startswith("DaemonSet "):
            by_owner.setdefault(pod.owner, []).append(pod.node or pod.placement.pinned_node or "")
            placements[pod.owner] = pod.placement
    assert by_owner, f"{folder} has DaemonSet pods"

    off_target = []
    for owner, nodes in sorted(by_owner.items()):
        sample = placements[owner]
        targets = daemon_targets(
            Placement(sample.node_selector, None, daemon_pod_tolerations(sample.tolerations)),
            snapshot.nodes,
        )
        excluded = targets.excluded()
        off_target += [
            (owner, node, excluded[node].detail, excluded[node].keeps_running)
            for node in nodes
            if node in excluded
        ]
        assert all(node in targets.names or node in excluded for node in nodes)
    if folder != "honeycomb-eks-2node":
        assert off_target == []
        return
    selector = "the node selector and required node affinity do not match its labels"
    hound = "untolerated taint type=hound:NoSchedule"
    assert off_target == [
        # nodeSelector beta.kubernetes.io/os, a label the 2022 nodes no longer carry:
        # the controller deletes the pod.
        ("DaemonSet metallb-system/speaker", "duckboat-01", selector, False),
        # Misscheduled: the NoSchedule taint came after the pods, which keep running.
        ("DaemonSet test/honeycomb-agent", "duckboat-01", hound, True),
        ("DaemonSet utils/seashell", "duckboat-01", hound, True),
    ]
