"""Reading kubectl snapshots into the simulator's model (simulate/snapshot.py)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from cdk8s_headroom.cluster.not_modelled import NotModelled
from cdk8s_headroom.cluster.snapshot import (
    UNSCHEDULABLE_TAINT,
    Snapshot,
    load_snapshot,
    read_snapshot,
)
from cdk8s_headroom.simulate.model import Resources, Role
from cdk8s_headroom.simulate.versions import KubernetesVersion
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.placement import TaintEffect
from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / "tests" / "fixtures" / "kubectl" / "everything.json"
MI = 2**20


@pytest.fixture(scope="module")
def everything() -> Snapshot:
    return read_snapshot(EVERYTHING)


def _pod(snapshot: Snapshot, namespace: str, name: str) -> Any:
    found = [
        pod
        for pod in [*snapshot.bound, *snapshot.waiting]
        if (pod.namespace, pod.name) == (namespace, name)
    ]
    assert len(found) == 1, f"{namespace}/{name}: {len(found)} found"
    return found[0]


def node(name: str = "n1", **status: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}, **status},
    }


def pod(name: str = "p", spec: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop", "labels": {"app": name}},
        "spec": {
            "nodeName": "n1",
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
            **(spec or {}),
        },
        "status": {"phase": "Running"},
    }
    body.update(extra)
    return body


def load(*objects: dict[str, Any]) -> Snapshot:
    return load_snapshot(("snapshot.json", obj) for obj in objects)


def test_the_fixture_reads_every_node_with_allocatable_taints_and_the_kubelet_version(
    everything: Snapshot,
) -> None:
    assert [n.name for n in everything.nodes] == [
        "node-free",
        "node-full",
        "node-cordoned",
        "node-gpu",
        "node-nominated",
        "node-few-pods",
    ]
    free = everything.nodes[0]
    assert free.allocatable == Resources(3920, 15147952 * 1024)
    assert free.max_pods == 110
    assert everything.nodes[-1].max_pods == 3
    gpu = everything.nodes[3]
    assert [(t.key, t.value, t.effect) for t in gpu.taints] == [
        ("nvidia.com/gpu", "true", TaintEffect.NO_SCHEDULE)
    ]
    assert everything.version == KubernetesVersion(1, 31)


def test_a_cordoned_node_carries_the_unschedulable_taint_once(everything: Snapshot) -> None:
    cordoned = everything.nodes[2]

    assert everything.cordoned == {"node-cordoned"}
    assert cordoned.taints == (UNSCHEDULABLE_TAINT,)


def test_spec_unschedulable_alone_becomes_the_unschedulable_taint() -> None:
    cordoned = node()
    cordoned["spec"] = {"unschedulable": True}

    snapshot = load(cordoned)

    assert snapshot.nodes[0].taints == (UNSCHEDULABLE_TAINT,)
    assert snapshot.cordoned == {"n1"}


def test_succeeded_and_failed_pods_hold_nothing(everything: Snapshot) -> None:
    names = {pod.name for pod in [*everything.bound, *everything.waiting]}

    assert everything.finished == 2
    assert "report-28870560-ab1cd" not in names
    assert "report-28870500-zz9yx" not in names


def test_a_terminating_pod_still_holds_its_room(everything: Snapshot) -> None:
    cache = _pod(everything, "shop", "cache-0")

    assert ("shop", "cache-0") in everything.terminating
    assert cache.node == "node-free"
    assert cache.requests == Resources(1000, 3 * 2**30)


def test_requests_count_sidecars_init_containers_overhead_and_limits_for_missing_requests(
    everything: Snapshot,
) -> None:
    mesh = _pod(everything, "shop", "mesh-app-6c7d8-s1")

    # containers 250m + 100m (the metrics container's limit), with the envoy sidecar
    # 550m; the migrate init container runs beside the sidecar: 500m + 200m = 700m,
    # the larger; plus 250m overhead. Memory likewise: 1Gi + 128Mi + 120Mi.
    assert mesh.requests == Resources(950, 1024 * MI + 128 * MI + 120 * MI)


def test_a_nominated_pod_waits_and_holds_room_on_its_nominated_node(everything: Snapshot) -> None:
    batch = _pod(everything, "batch", "batch-worker-0")

    assert batch.node is None
    assert batch.nominated_node == "node-nominated"
    assert batch.priority == 1_000_000
    state = everything.state(KubernetesVersion(1, 31))
    on_node = state.get("node-nominated")
    assert on_node is not None
    assert "batch-worker-0" in [p.name for p in on_node.pods]
    assert batch.node is None  # the state holds a copy: the snapshot stays as read


def test_a_daemonset_pod_is_pinned_to_its_node(everything: Snapshot) -> None:
    proxy = _pod(everything, "kube-system", "kube-proxy-a4")

    assert proxy.owner == "DaemonSet kube-system/kube-proxy"
    assert proxy.placement.pinned_node == "node-gpu"
    assert proxy.priority == 2_000_001_000


def test_priority_classes_keep_value_policy_and_global_default(everything: Snapshot) -> None:
    classes = {info.name: info for info, _ in everything.classes}

    assert classes["cluster-default"].global_default is True
    assert classes["batch-high"].value == 1_000_000
    assert classes["batch-high"].preemption_policy is PreemptionPolicy.PREEMPT_LOWER_PRIORITY
    assert classes["system-node-critical"].value == 2_000_001_000


def test_pdbs_keep_their_selector_and_status(everything: Snapshot) -> None:
    pdbs = {pdb.name: pdb for pdb in everything.pdbs}

    assert pdbs["web"].disruptions_allowed == 0
    assert pdbs["web"].selector is not None
    assert pdbs["web"].selector.match_labels == (("app", "web"),)
    assert pdbs["everything"].selector is not None and pdbs["everything"].selector.empty


def test_a_pod_on_a_node_missing_from_the_snapshot_is_a_warning_and_skipped(
    everything: Snapshot,
) -> None:
    assert len(everything.warnings) == 1
    warning = everything.warnings[0]
    assert str(EVERYTHING) in warning
    assert "Pod shop/web-7c9f8d6b5-g1" in warning
    assert "'node-gone'" in warning
    assert all(pod.name != "web-7c9f8d6b5-g1" for pod in everything.bound)


def test_a_pod_nominated_or_pinned_to_a_missing_node_is_a_warning_and_skipped() -> None:
    nominated = pod(
        "n", {"nodeName": None}, status={"phase": "Pending", "nominatedNodeName": "gone"}
    )
    pinned = pod(
        "d",
        {
            "nodeName": None,
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "In", "values": ["gone"]}
                                ]
                            }
                        ]
                    }
                }
            },
        },
        status={"phase": "Pending"},
    )
    pinned["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds", "controller": True, "uid": "u"}
    ]

    snapshot = load(node(), nominated, pinned)

    assert snapshot.warnings[0].startswith("the listing has pods of shop only")
    assert snapshot.warnings[1:] == [
        "snapshot.json: Pod shop/n: status.nominatedNodeName 'gone' is not a node of the "
        "snapshot (snapshots are not atomic); the pod is skipped",
        "snapshot.json: Pod shop/d: the DaemonSet's node affinity 'gone' is not a node of the "
        "snapshot (snapshots are not atomic); the pod is skipped",
    ]
    assert snapshot.waiting == [] and snapshot.bound == []


def test_fields_that_change_scheduling_and_are_not_modelled_are_listed(
    everything: Snapshot,
) -> None:
    assert everything.not_modelled == {
        NotModelled.NODE_BOUND_VOLUMES: ["batch/batch-worker-1"],
        NotModelled.INTER_POD_AFFINITY: ["shop/cache-0"],
        NotModelled.HOST_PORTS: ["shop/cache-0"],
        NotModelled.TOPOLOGY_SPREAD: ["shop/spread-7f8e9-s9"],
    }


def test_preempted_events_are_kept_with_their_count(everything: Snapshot) -> None:
    assert len(everything.events) == 1
    event = everything.events[0]
    assert (event.namespace, event.pod, event.count) == (
        "node-headroom",
        "headroom-reserver-old",
        2,
    )
    assert event.time == "2026-12-01T09:30:00Z"


def test_roles_come_from_the_component_label() -> None:
    reserver = pod("r", metadata={"name": "r", "namespace": "h", "labels": {}})
    reserver["metadata"]["labels"] = {"app.kubernetes.io/component": "headroom-reserver"}
    burst = pod("b")
    burst["metadata"]["labels"] = {"app.kubernetes.io/component": "burst-workload"}

    snapshot = load(node(), reserver, burst, pod("o"))

    assert [p.role for p in snapshot.bound] == [Role.HEADROOM, Role.BURST, Role.ORDINARY]


def test_without_spec_priority_the_class_value_or_the_global_default_applies() -> None:
    classes = [
        {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PriorityClass",
         "metadata": {"name": "high"}, "value": 1000},
        {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PriorityClass",
         "metadata": {"name": "base"}, "value": 7, "globalDefault": True},
    ]  # fmt: skip

    snapshot = load(
        node(),
        *classes,
        pod("a", {"priorityClassName": "high"}),
        pod("b"),
        pod("c", {"priority": -5}),
    )

    assert [p.priority for p in snapshot.bound] == [1000, 7, -5]


def test_yaml_datetimes_and_strings_give_the_same_start_time() -> None:
    as_text = pod("a", status={"phase": "Running", "startTime": "2019-09-05T15:30:07Z"})
    as_datetime = pod(
        "b",
        status={
            "phase": "Running",
            "startTime": datetime.datetime(2019, 9, 5, 15, 30, 7, tzinfo=datetime.timezone.utc),
        },
    )

    snapshot = load(node(), as_text, as_datetime)

    assert snapshot.bound[0].start_time == snapshot.bound[1].start_time == 1567697407 * 10**9


@pytest.mark.parametrize(
    "when",
    [
        "2024-13-45T00:00:00Z",
        "2024-13-01T00:00:00.5Z",
        "2024-02-30T00:00:00Z",
        "2024-01-01T25:61:61Z",
        "2024-01-01T-1:00:00Z",
        "2024-01-01T²3:00:00Z",
    ],
)
def test_a_time_out_of_range_is_a_field_error_not_a_crash(when: str) -> None:
    # Regression: month 13 reached calendar.timegm, whose ValueError was a traceback.
    with pytest.raises(HeadroomConfigError) as raised:
        load(node(), pod(status={"phase": "Running", "startTime": when}))

    assert str(raised.value).startswith(
        f"snapshot.json: Pod shop/p: status.startTime: invalid value {shown(when)};"
    )


def test_other_kinds_are_counted_not_refused() -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}

    snapshot = load(node(), service, dict(service))

    assert snapshot.other_kinds == {"Service": 2}


def test_typed_lists_older_apis_and_a_folder_read_as_kubectl_wrote_them(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    (dump / "shop").mkdir(parents=True)
    nodes = {"kind": "NodeList", "apiVersion": "v1", "items": [node()]}
    del nodes["items"][0]["kind"], nodes["items"][0]["apiVersion"]
    (dump / "nodes.json").write_text(json.dumps(nodes))
    (dump / "shop" / "pods.yaml").write_text(
        "apiVersion: v1\nkind: PodList\nitems:\n"
        "- metadata: {name: web, namespace: shop, creationTimestamp: 2019-09-05T15:30:07Z}\n"
        "  spec:\n    nodeName: n1\n    containers: [{name: c, resources: {limits: {cpu: 250m}}}]\n"
        "  status: {phase: Running, startTime: 2019-09-05T15:30:07Z}\n"
    )
    (dump / "policy.yaml").write_text(
        "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\n"
        "metadata: {name: web, namespace: shop}\n"
        "spec: {selector: {matchLabels: {app: web}}}\nstatus: {disruptionsAllowed: 1}\n"
    )

    snapshot = read_snapshot(dump)

    assert [n.name for n in snapshot.nodes] == ["n1"]
    assert [(p.name, p.requests, p.start_time) for p in snapshot.bound] == [
        ("web", Resources(250, 0), 1567697407 * 10**9)
    ]
    assert snapshot.pdbs[0].disruptions_allowed == 1


@pytest.mark.parametrize(
    ("objects", "where", "shown"),
    [
        (
            [node(), pod(spec={"containers": [{"resources": {"requests": {"cpu": "lots"}}}]})],
            "Pod shop/p: spec.containers[0].resources.requests.cpu",
            "'lots'",
        ),
        (
            [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {}}],
            "Node n1: status.allocatable",
            "null",
        ),
        (
            [node(), {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                      "metadata": {"name": "hi"}, "value": "high"}],
            "PriorityClass hi: value",
            "'high'",
        ),
        (
            [node(), pod(spec={"tolerations": [{"operator": "Maybe"}]})],
            "Pod shop/p: spec.tolerations[0].operator",
            "'Maybe'",
        ),
        (
            [node(), pod(spec={"nodeName": 7})],
            "Pod shop/p: spec.nodeName",
            "7",
        ),
        (
            [node(), {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "a"}}],
            "Pod a/(no name): metadata.name",
            "null",
        ),
    ],
    ids=["quantity", "allocatable", "class-value", "toleration", "node-name", "no-name"],
)  # fmt: skip
def test_bad_values_name_the_file_the_object_and_the_field(
    objects: list[dict[str, Any]], where: str, shown: str
) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        load(*objects)

    message = str(raised.value)
    assert message.startswith(f"snapshot.json: {where}: invalid value {shown};")
    assert "\n" not in message


def test_a_snapshot_without_nodes_is_refused_naming_its_files(tmp_path: Path) -> None:
    with pytest.raises(HeadroomConfigError, match="a snapshot that lists the cluster's nodes"):
        load(pod())
    (tmp_path / "pods.json").write_text(json.dumps(pod()))
    (tmp_path / "events.json").write_text(json.dumps(pod()))

    with pytest.raises(HeadroomConfigError) as raised:
        read_snapshot(tmp_path / "pods.json", tmp_path / "events.json")
    assert str(raised.value).startswith(
        f"--snapshot {tmp_path / 'pods.json'} {tmp_path / 'events.json'}: invalid value 'no nodes'"
    )


@pytest.mark.parametrize(
    ("metadata", "shown"), [(None, "null"), ("web-1", "'web-1'"), ([1], "[1]")]
)
def test_an_object_without_a_metadata_mapping_is_named_by_kind_and_place(
    metadata: object, shown: str, tmp_path: Path
) -> None:
    broken: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "spec": {}}
    if metadata is not None:
        broken["metadata"] = metadata
    listing = tmp_path / "snapshot.json"
    listing.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node(), broken]}))

    with pytest.raises(HeadroomConfigError) as raised:
        read_snapshot(listing)

    assert str(raised.value).startswith(
        f"{listing}: Pod (document 1, items[1]): metadata: invalid value {shown}; "
        "a mapping with name (and namespace)"
    )
