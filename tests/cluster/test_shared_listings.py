"""plan and status on three real clusters' listings, as kubectl and the API server wrote
them (``../shared/snapshots``, read in place: the project does not copy them)."""

from __future__ import annotations

import pytest

from cdk8s_headroom.cli import main
from cdk8s_headroom.cluster.plan import PlanReport, plan
from cdk8s_headroom.cluster.snapshot import read_snapshot
from cdk8s_headroom.cluster.status import status
from cdk8s_headroom.simulate.manifests import read_manifests
from cdk8s_headroom.simulate.versions import KubernetesVersion
from tests.conftest import ROOT, SHARED

SNAPSHOTS = SHARED / "snapshots"
GKE = "gke-tesg1-default-pool-ff7a1295-"

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


@pytest.mark.parametrize(
    "folder", ["acs-engine-4node-api", "kalc-gke-tesg1-json-default", "kalc-gke-tesg1-yaml"]
)
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
    ("folder", "targets"),
    [("acs-engine-4node-api", 3), ("kalc-gke-tesg1-json-default", 5), ("kalc-gke-tesg1-yaml", 5)],
)
def test_status_with_the_manifests_finds_every_target_node_missing_its_reserver(
    folder: str, targets: int, capsys: pytest.CaptureFixture[str]
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
    # acs-engine's tainted master is no target: the reserver does not tolerate it.
    assert len(headroom.target_nodes) == targets
    assert (headroom.held, headroom.in_use, headroom.eroded) == ((), (), ())
    assert headroom.missing == headroom.target_nodes
    argv = ["status", "--snapshot", str(SNAPSHOTS / folder), "--manifests", str(ROOT / "dist")]
    assert main(argv) == 1
    assert f"missing: {targets}" in capsys.readouterr().out
