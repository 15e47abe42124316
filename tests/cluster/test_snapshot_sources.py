"""What the snapshot reader makes of its sources as a whole: an object read twice, and
a listing of one namespace (docs/plan-status.md, "Reading a snapshot")."""

from __future__ import annotations

import copy

import pytest

from cdk8s_headroom.cluster.snapshot import load_snapshot, read_snapshot
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from tests.cluster.kubectl_objects import kubectl_node, reserver_pod
from tests.conftest import SHARED

SNAPSHOTS = SHARED / "snapshots"
needs_shared = pytest.mark.skipif(
    not SNAPSHOTS.is_dir(), reason=f"{SNAPSHOTS} is absent: the real listings live beside the clone"
)


def _system_pod() -> dict[str, object]:
    pod = reserver_pod("coredns-1", "n1")
    pod["metadata"]["namespace"] = "kube-system"
    return pod


def test_the_same_pod_from_two_files_is_counted_once_with_a_warning_naming_both() -> None:
    pod = reserver_pod("r1", "n1")

    snapshot = load_snapshot(
        [
            ("nodes.json", kubectl_node("n1")),
            ("all.json", pod),
            ("pods.json", copy.deepcopy(pod)),
            ("all.json", _system_pod()),
        ]
    )

    assert [p.name for p in snapshot.bound] == ["r1", "coredns-1"]
    assert snapshot.warnings == [
        "Pod node-headroom/r1 read twice, from all.json and pods.json: the same object, "
        "counted once"
    ]


def test_two_different_pods_of_one_name_are_refused_naming_both_sources() -> None:
    first = reserver_pod("r1", "n1")
    later = reserver_pod("r1", "n1")
    later["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"

    with pytest.raises(HeadroomConfigError) as raised:
        load_snapshot(
            [("nodes.json", kubectl_node("n1")), ("monday.json", first), ("tuesday.json", later)]
        )

    assert raised.value.field == "tuesday.json: Pod node-headroom/r1: metadata.name"
    assert raised.value.allowed == (
        "one Pod of this name: monday.json holds a different Pod node-headroom/r1 "
        "(listings taken at different times?); read one of them"
    )


def test_the_same_node_twice_is_counted_once() -> None:
    snapshot = load_snapshot(
        [
            ("a.json", kubectl_node("n1")),
            ("b.json", kubectl_node("n1")),
            ("p.json", _system_pod()),
            ("p.json", reserver_pod("r", "n1")),
        ]
    )

    assert [n.name for n in snapshot.nodes] == ["n1"]
    assert snapshot.warnings == [
        "Node n1 read twice, from a.json and b.json: the same object, counted once"
    ]


@needs_shared
def test_a_folder_and_a_file_inside_it_count_each_pod_once() -> None:
    """``--snapshot dir --snapshot dir/pods.json`` on the EKS listing."""
    folder = SNAPSHOTS / "honeycomb-eks-2node"
    alone = read_snapshot(folder)

    twice = read_snapshot(folder, folder / "pods.json")

    assert len(twice.bound) == len(alone.bound) == 11
    assert len(twice.nodes) == len(alone.nodes) == 2
    repeated = [w for w in twice.warnings if "read twice" in w]
    assert len(repeated) == 11
    assert all(f"from {folder / 'pods.json'} twice" in w for w in repeated)


def test_a_listing_without_kube_system_warns_and_says_how_to_take_the_full_one() -> None:
    snapshot = load_snapshot(
        [("nodes.json", kubectl_node("n1")), ("pods.json", reserver_pod("r", "n1"))]
    )

    assert snapshot.warnings == [
        "the listing has pods of node-headroom only and none of kube-system: it looks like "
        "a listing of one namespace, and free room is overstated; take the full one with -A "
        "(kubectl get nodes,pods,priorityclasses,poddisruptionbudgets -A -o json)"
    ]


def test_a_listing_of_kube_system_only_warns() -> None:
    snapshot = load_snapshot([("nodes.json", kubectl_node("n1")), ("pods.json", _system_pod())])

    assert len(snapshot.warnings) == 1
    assert snapshot.warnings[0].startswith("the listing has pods of kube-system only")
    assert "-A" in snapshot.warnings[0]


def test_a_listing_of_several_namespaces_with_kube_system_does_not_warn() -> None:
    snapshot = load_snapshot(
        [
            ("n.json", kubectl_node("n1")),
            ("p.json", _system_pod()),
            ("p.json", reserver_pod("r", "n1")),
        ]
    )

    assert snapshot.warnings == []


@needs_shared
def test_the_gke_listing_of_the_default_namespace_warns_and_the_full_one_does_not() -> None:
    """kalc's GKE cluster, listed without -A (pods of default only) and with it."""
    one = read_snapshot(SNAPSHOTS / "kalc-gke-tesg1-json-default")
    full = read_snapshot(SNAPSHOTS / "kalc-gke-tesg1-yaml")

    assert [w for w in one.warnings if "none of kube-system" in w] == [
        "the listing has pods of default only and none of kube-system: it looks like a "
        "listing of one namespace, and free room is overstated; take the full one with -A "
        "(kubectl get nodes,pods,priorityclasses,poddisruptionbudgets -A -o json)"
    ]
    assert not [w for w in full.warnings if "listing has" in w]
