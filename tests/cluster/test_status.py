"""`cdk8s-headroom status`: held, in use, eroded and missing slices (status.py)."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from cdk8s_headroom.cluster.snapshot import read_snapshot
from cdk8s_headroom.cluster.status import StatusReport, status
from cdk8s_headroom.simulate.manifests import manifests_from_objects, read_manifests
from cdk8s_headroom.simulate.model import Resources
from cdk8s_headroom.simulate.versions import KubernetesVersion
from tests.cluster.kubectl_objects import kubectl_node

ROOT = Path(__file__).resolve().parents[2]
AFTER = ROOT / "docs" / "examples" / "snapshot-after.json"
BEFORE = ROOT / "docs" / "examples" / "snapshot.json"
N1, N2, N3, N4 = (f"ip-10-0-1-{i}.eu-west-1.compute.internal" for i in (11, 12, 13, 14))
V131 = KubernetesVersion(1, 31)


@pytest.fixture(scope="module")
def after() -> StatusReport:
    return status(read_snapshot(AFTER), version=V131, version_from="test")


def test_each_node_is_held_in_use_eroded_or_missing(after: StatusReport) -> None:
    (headroom,) = after.headrooms

    assert headroom.name == "node-headroom/headroom-reserver"
    assert headroom.slice == Resources(500, 512 * 2**20)
    assert headroom.target_nodes == (N1, N2, N3, N4)
    assert headroom.held == (N1,)
    assert [(n.node, n.burst_pods) for n in headroom.in_use] == [
        (N2, ("node-headroom/demo-burst-6d5f7b8c9-r9m2x",))
    ]
    assert headroom.missing == (N4,)


def test_an_eroded_node_names_the_newest_pods_that_took_the_room(after: StatusReport) -> None:
    (eroded,) = after.headrooms[0].eroded

    assert eroded.node == N3
    assert eroded.free == Resources(320, eroded.free.memory)
    # The newest pod (500m) frees enough for the 500m slice; older pods are not blamed.
    assert eroded.taken_by == ("shop/web-7c9f8d6b5-m2q6t",)


def test_a_pre_puller_pod_that_requests_nothing_is_not_blamed_for_the_room(
    tmp_path: Path,
) -> None:
    # GIVEN an image release: a new pre-puller pod, the newest on the eroded node
    snapshot = json.loads(AFTER.read_text())
    web = next(i for i in snapshot["items"] if i["metadata"]["name"] == "web-7c9f8d6b5-m2q6t")
    prepuller = json.loads(json.dumps(web))
    prepuller["metadata"].update(
        name="headroom-reserver-prepull-x1k2p",
        namespace="node-headroom",
        creationTimestamp="2026-12-01T10:00:00Z",
        labels={"app.kubernetes.io/component": "image-prepuller"},
    )
    prepuller["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": "0", "memory": "0"},
        "limits": {"cpu": "10m", "memory": "16Mi"},
    }
    prepuller.setdefault("status", {})["startTime"] = "2026-12-01T10:00:00Z"
    snapshot["items"].append(prepuller)
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot))

    (eroded,) = status(read_snapshot(path), version=V131, version_from="test").headrooms[0].eroded

    # THEN the pod that took the room is still the one named, and only it
    assert eroded.node == N3
    assert eroded.taken_by == ("shop/web-7c9f8d6b5-m2q6t",)


def test_preempted_events_come_newest_first(after: StatusReport) -> None:
    assert [(e.pod, e.time) for e in after.events] == [
        ("headroom-reserver-a8k2m", "2026-12-01T09:30:00Z"),
        ("headroom-reserver-9zq4w", "2026-12-01T09:20:00Z"),
    ]


def test_exit_status_counts_eroded_and_missing_nodes(after: StatusReport) -> None:
    assert after.lost_count == 2
    assert after.exit_status(max_pending=1) == 1
    assert after.exit_status(max_pending=2) == 0


def test_manifests_name_a_headroom_that_has_no_pod_yet() -> None:
    report = status(
        read_snapshot(BEFORE),
        version=V131,
        version_from="test",
        manifests=read_manifests(ROOT / "dist"),
    )

    (headroom,) = report.headrooms
    assert headroom.held == ()
    assert headroom.missing == (N1, N2, N3)
    assert headroom.slice == Resources(500, 512 * 2**20)
    assert report.exit_status(max_pending=2) == 1


def test_no_headroom_in_the_cluster_is_reported_and_fails() -> None:
    report = status(read_snapshot(BEFORE), version=V131, version_from="test")

    assert report.headrooms == ()
    assert "No headroom" in report.render()
    assert report.exit_status(max_pending=10) == 1


def test_the_json_has_the_documented_keys(after: StatusReport) -> None:
    data = after.to_json()

    assert list(data) == [
        "kubernetes_version",
        "kubernetes_version_from",
        "headrooms",
        "events",
        "waiting_bursts",
        "buffers",
        "windows",
        "not_modelled",
        "warnings",
    ]
    headroom = data["headrooms"][0]  # type: ignore[index]
    assert list(headroom) == [
        "name",
        "slice",
        "target_nodes",
        "held",
        "in_use",
        "eroded",
        "missing",
        "misscheduled",
        "being_removed",
        "not_targeted",
        "unmatched_selector",
        "controller",
    ]
    assert headroom["eroded"] == [
        {
            "node": N3,
            "free": {"cpu": "320m", "memory": headroom["eroded"][0]["free"]["memory"]},
            "taken_by": ["shop/web-7c9f8d6b5-m2q6t"],
        }
    ]


def test_the_table_names_each_state(after: StatusReport) -> None:
    text = after.render()

    assert "held: 1; in use by a burst: 1; eroded: 1; missing: 1" in text
    assert f"in use {N2}: node-headroom/demo-burst-6d5f7b8c9-r9m2x" in text
    assert f"eroded {N3}: free 320m cpu" in text
    assert f"missing {N4}: no reserver pod" in text
    assert "Preempted events (2, newest first)" in text


def test_with_manifests_a_pod_of_a_burst_class_counts_as_a_burst_without_the_label(
    tmp_path: Path,
) -> None:
    listing = json.loads(AFTER.read_text())
    for item in listing["items"]:
        if item["kind"] == "Pod" and item["metadata"]["name"].startswith("demo-burst-"):
            item["metadata"]["labels"] = {"app": "checkout"}
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(listing))

    without = status(read_snapshot(snapshot), version=V131, version_from="test")
    with_manifests = status(
        read_snapshot(snapshot),
        version=V131,
        version_from="test",
        manifests=read_manifests(ROOT / "dist"),
    )

    assert [n.node for n in without.headrooms[0].eroded] == [N2, N3]
    assert [n.node for n in with_manifests.headrooms[0].in_use] == [N2]


def test_reading_a_snapshot_leaves_the_garbage_collector_as_it_was() -> None:
    assert gc.isenabled()
    read_snapshot(AFTER)
    assert gc.isenabled()


def test_each_failed_condition_is_a_clause_naming_the_flag_that_relaxes_it(
    after: StatusReport,
) -> None:
    assert after.failures(max_pending=2) == []
    assert after.failures(max_pending=1) == [
        "2 target nodes are eroded or missing their reserver, more than --max-pending 1"
    ]
    nothing = status(read_snapshot(BEFORE), version=V131, version_from="test")
    assert nothing.failures(max_pending=10) == [
        "no headroom: no pod is labelled app.kubernetes.io/component=headroom-reserver "
        "(no flag relaxes it; --manifests names the headrooms to look for)"
    ]


def test_a_headroom_whose_selector_matches_no_node_fails(tmp_path: Path) -> None:
    # pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod: no node
    # matches the node selector, so the controller creates no reserver anywhere and
    # nothing is "missing": without this rule the run would pass.
    objects: list[dict[str, Any]] = []
    for path in sorted((ROOT / "dist").glob("*.k8s.yaml")):
        objects += [o for o in yaml.safe_load_all(path.read_text()) if o]
    for obj in objects:
        if obj["kind"] == "DaemonSet":
            obj["spec"]["template"]["spec"]["nodeSelector"] = {"karpenter.sh/nodepool": "bursst"}
    snapshot = tmp_path / "snapshot.json"
    listing = {"apiVersion": "v1", "kind": "List", "items": [kubectl_node("a"), kubectl_node("b")]}
    snapshot.write_text(json.dumps(listing))

    report = status(
        read_snapshot(snapshot),
        version=V131,
        version_from="test",
        manifests=manifests_from_objects([("pool", objects)]),
    )

    reserver = next(h for h in report.headrooms if h.name == "node-headroom/headroom-reserver")
    assert (reserver.target_nodes, reserver.missing) == ((), ())
    assert reserver.unmatched is not None
    reason = (
        "the selector nodeSelector karpenter.sh/nodepool=bursst matches none of the 2 nodes; "
        "the nodes have karpenter.sh/nodepool: general (2)"
    )
    assert reserver.unmatched.reason == reason
    assert f"  no target: {reason}" in report.render().splitlines()
    assert (
        f"node-headroom/headroom-reserver: {reason} (no flag relaxes it: fix the node pool or "
        "selector)"
    ) in report.failures(max_pending=10)


def test_the_table_writes_memory_as_people_do_and_the_json_keeps_it_exact(
    after: StatusReport,
) -> None:
    (eroded,) = after.headrooms[0].eroded

    # The node's allocatable (kubelet Ki) less its pods' requests: 7807920Ki.
    assert eroded.free == Resources(320, 7807920 * 1024)
    assert f"  eroded {N3}: free 320m cpu, 7.45Gi memory; taken by shop/web-7c9f8d6b5-m2q6t" in (
        after.render().splitlines()
    )
    assert eroded.to_json()["free"] == {"cpu": "320m", "memory": "7807920Ki"}


def test_the_plot_marks_eroded_and_missing_nodes(after: StatusReport) -> None:
    assert after.plot_marks() == {N3: "eroded", N4: "missing"}


def test_a_listing_with_the_daemonset_and_a_buffer_shows_what_their_controllers_report(
    tmp_path: Path,
) -> None:
    listing = json.loads(AFTER.read_text())
    listing["items"] += [
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "headroom-reserver", "namespace": "node-headroom"},
            "status": {
                "desiredNumberScheduled": 4,
                "currentNumberScheduled": 3,
                "numberReady": 1,
                "numberMisscheduled": 0,
            },
        },
        {
            "apiVersion": "autoscaling.x-k8s.io/v1beta1",
            "kind": "CapacityBuffer",
            "metadata": {"name": "checkout-buffer", "namespace": "shop"},
            "status": {
                "replicas": 2,
                "conditions": [{"type": "Ready", "status": "True", "message": "provisioned"}],
            },
        },
    ]
    path = tmp_path / "listing.json"
    path.write_text(json.dumps(listing))

    report = status(read_snapshot(path), version=V131, version_from="test")

    assert report.to_json()["headrooms"][0]["controller"] == {  # type: ignore[index]
        "desired": 4,
        "current": 3,
        "ready": 1,
        "misscheduled": 0,
    }
    assert report.to_json()["buffers"] == [
        {
            "name": "shop/checkout-buffer",
            "replicas": 2,
            "conditions": [{"type": "Ready", "status": "True", "message": "provisioned"}],
        }
    ]
    text = report.render()
    assert "  the DaemonSet controller says: desired 4, current 3, ready 1, misscheduled 0" in text
    assert "CapacityBuffer shop/checkout-buffer: replicas 2; Ready=True (provisioned)" in text
