"""`cdk8s-headroom plan`: what apply does on a snapshot of a real cluster (plan.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from cdk8s_headroom.cluster.plan import Conflict, PlanReport, plan
from cdk8s_headroom.cluster.snapshot import Snapshot, load_snapshot, read_snapshot
from cdk8s_headroom.cluster.unmatched_selector import selector_text
from cdk8s_headroom.simulate.manifests import Manifests, manifests_from_objects, read_manifests
from cdk8s_headroom.simulate.model import Resources
from cdk8s_headroom.simulate.versions import KubernetesVersion
from cdk8s_headroom.vocabulary.placement import (
    NodeSelectorOperator,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Placement,
)
from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy
from tests.cluster.kubectl_objects import kubectl_node, taint

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
EXAMPLE = ROOT / "docs" / "examples" / "snapshot.json"
AFTER = ROOT / "docs" / "examples" / "snapshot-after.json"
EVERYTHING = ROOT / "tests" / "fixtures" / "kubectl" / "everything.json"
V131 = KubernetesVersion(1, 31)
N1, N2, N3 = (f"ip-10-0-1-{i}.eu-west-1.compute.internal" for i in (11, 12, 13))


@pytest.fixture(scope="module")
def dist() -> Manifests:
    return read_manifests(DIST)


def run(manifests: Manifests, snapshot: Snapshot, **bursts: int) -> PlanReport:
    return plan(manifests, snapshot, version=V131, version_from="test", bursts=bursts or None)


@pytest.fixture(scope="module")
def example(dist: Manifests) -> PlanReport:
    return run(dist, read_snapshot(EXAMPLE))


@pytest.fixture(scope="module")
def everything(dist: Manifests) -> PlanReport:
    return run(dist, read_snapshot(EVERYTHING))


@pytest.fixture(scope="module")
def first_pool(tmp_path_factory: pytest.TempPathFactory) -> Manifests:
    """examples/first_pool.py's output: checkout has an HPA (minReplicas 2) and no
    replicas, and a CapacityBuffer of two checkout pods on the shared pool."""
    import warnings

    import cdk8s

    from cdk8s_headroom import HeadroomWarning, synth
    from examples import first_pool as example_app

    outdir = tmp_path_factory.mktemp("first_pool")
    app = cdk8s.App(outdir=str(outdir))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)
        example_app.build(app)
    synth(app)
    return read_manifests(outdir)


def _pool_nodes(*names: str) -> Snapshot:
    """Empty nodes of the example's pool (4 cpu, 7.38Gi allocatable each)."""
    return load_snapshot(
        ("nodes.json", kubectl_node(name, labels={"karpenter.sh/nodepool": "general"}))
        for name in names
    )


def test_a_deployment_an_hpa_scales_arrives_as_many_times_as_its_min_replicas(
    first_pool: Manifests,
) -> None:
    # checkout has no replicas; its HPA keeps minReplicas 2, so two pods arrive.
    report = run(first_pool, _pool_nodes("general-1", "general-2"))

    arrivals = [event.pod.name for event in report.whatif.arrivals]

    assert sorted(arrivals) == ["checkout-1", "checkout-2", "search-1"]
    assert [a["pod"] for a in report.to_json()["bursts"]["arrivals"]] == arrivals  # type: ignore[index]


def test_plan_reports_what_each_buffer_keeps_and_whether_the_nodes_hold_it(
    first_pool: Manifests,
) -> None:
    roomy = run(first_pool, _pool_nodes("general-1", "general-2"))
    full = run(first_pool, read_snapshot(EXAMPLE))

    (buffer,) = roomy.buffers
    assert (buffer.name, buffer.units, buffer.unit, buffer.need_new_nodes) == (
        "shop/checkout-buffer",
        2,
        Resources(500, 1024**3),
        0,
    )
    assert len(buffer.held) == 2
    assert roomy.to_json()["buffers"] == [
        {
            "name": "shop/checkout-buffer",
            "units": 2,
            "unit": {"cpu": "500m", "memory": "1Gi"},
            "total": {"cpu": "1", "memory": "2Gi"},
            "held": list(buffer.held),
            "need_new_nodes": 0,
        }
    ]
    assert (
        "  shop/checkout-buffer: 2 x (500m cpu, 1Gi memory) = 1 cpu, 2Gi memory kept free "
        "by the autoscaler; 2 placeholder(s) hold room on the nodes there are"
    ) in roomy.render()
    (waiting,) = full.buffers
    assert (waiting.held, waiting.need_new_nodes) == ((), 2)
    assert "0 placeholder(s) hold room on the nodes there are, 2 need new nodes" in full.render()


def test_the_reserver_is_established_where_its_slice_fits_and_pending_where_it_does_not(
    example: PlanReport,
) -> None:
    (reserver,) = example.reservers

    assert reserver.name == "node-headroom/headroom-reserver"
    assert reserver.slice == Resources(500, 512 * 2**20)
    assert reserver.target_nodes == (N1, N2, N3)
    assert [n.node for n in reserver.established] == [N1, N3]
    assert all(n.evicts == () for n in reserver.established)
    (pending,) = reserver.pending
    assert (pending.node, pending.reason) == (N2, "room")
    assert pending.free == Resources(220, pending.free.memory)
    assert "free 220m cpu" in pending.detail and "insufficient cpu" in pending.detail
    # The four 1-cpu web pods hold the room, the largest first.
    assert pending.holders[:3] == (
        "shop/web-7c9f8d6b5-8pw3n",
        "shop/web-7c9f8d6b5-b7c6v",
        "shop/web-7c9f8d6b5-q4t8j",
    )


def test_system_classes_are_threats_with_their_pods_and_namespaces(example: PlanReport) -> None:
    threats = [(t.priority_class.name, t.pods, t.namespaces) for t in example.threats]

    assert threats == [
        ("system-node-critical", 3, ("kube-system",)),
        ("system-cluster-critical", 2, ("kube-system",)),
    ]
    assert example.conflicts == ()


def test_the_burst_takes_a_slice_and_the_promises_hold(example: PlanReport) -> None:
    (arrival,) = example.whatif.arrivals

    assert arrival.decision.node == N3
    assert [v.name for v in arrival.victims] == [f"headroom-reserver-{N3}"]
    assert [v.holds for v in example.whatif.verdicts] == [True, True, True]


def test_exit_status_counts_pending_nodes_against_max_pending(example: PlanReport) -> None:
    assert example.pending_count == 1
    assert example.exit_status(max_pending=0) == 1
    assert example.exit_status(max_pending=1) == 0


def test_a_conflict_with_the_clusters_classes_fails_the_plan(example: PlanReport) -> None:
    # The API server refuses a second globalDefault class and a changed value: the
    # apply fails, so the plan is not all well even when every promise holds.
    conflicted = dataclasses.replace(
        example, conflicts=(Conflict("headroom-reserve", "value 1000 in the cluster"),)
    )

    assert example.exit_status(max_pending=1) == 0
    assert conflicted.exit_status(max_pending=1) == 1


def test_the_table_names_the_pods_that_hold_a_pending_nodes_room(
    everything: PlanReport,
) -> None:
    (reserver,) = everything.reservers
    full = next(n for n in reserver.pending if n.node == "node-full")
    text = everything.render()

    lines = text.splitlines()
    at = lines.index(f"  pending node-full: {full.text}")
    shown = ", ".join(full.holders[:5])
    assert lines[at + 1].startswith(f"    held by (largest first): {shown}")
    assert full.holders and all(name.count("/") == 1 for name in full.holders)


def test_each_pending_reason_of_the_fixture(everything: PlanReport) -> None:
    (reserver,) = everything.reservers

    assert {n.node: n.reason for n in reserver.pending} == {
        "node-full": "room",
        "node-nominated": "room",
        "node-few-pods": "pods",
    }
    detail = {n.node: n.detail for n in reserver.pending}
    assert detail["node-few-pods"] == "too many pods: 3 of 3"
    assert "free 370m cpu" in detail["node-full"]


def test_the_gpu_node_is_not_targeted_and_not_pending(everything: PlanReport) -> None:
    # pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod: an
    # untolerated NoSchedule taint means no daemon pod is created, so none is pending.
    (reserver,) = everything.reservers
    (gpu,) = reserver.not_targeted

    assert gpu.node == "node-gpu"
    assert gpu.reason.value == "taint"
    assert gpu.detail == "untolerated taint nvidia.com/gpu=true:NoSchedule"
    assert "node-gpu" not in reserver.target_nodes
    assert gpu.advice == (
        'to target it, add tolerations=[Toleration("nvidia.com/gpu", value="true", '
        "effect=TaintEffect.NO_SCHEDULE)] to the headroom"
    )
    assert f"  not targeted (1) node-gpu: {gpu.detail}; {gpu.advice}" in everything.render()


def test_a_nominated_pod_holds_the_room_the_reserver_needs(everything: PlanReport) -> None:
    (reserver,) = everything.reservers
    nominated = next(n for n in reserver.pending if n.node == "node-nominated")

    assert nominated.free.cpu == 320
    assert "batch/batch-worker-0" in nominated.holders[:3]


def test_a_cordoned_node_gets_its_reserver_which_tolerates_unschedulable(
    everything: PlanReport,
) -> None:
    (reserver,) = everything.reservers

    assert [(n.node, n.cordoned) for n in reserver.established] == [
        ("node-free", False),
        ("node-cordoned", True),
    ]


def test_an_existing_global_default_conflicts_and_stays_the_default(
    everything: PlanReport,
) -> None:
    (conflict,) = everything.conflicts

    assert conflict.name == "default-no-preempt"
    assert "cluster-default is already globalDefault" in conflict.reason
    p1 = everything.whatif.verdicts[0]
    assert p1.holds is False
    assert "class cluster-default (0, PreemptLowerPriority)" in p1.reason
    assert "class batch-high (1000000, PreemptLowerPriority)" in p1.reason


def test_threats_list_user_classes_and_the_default_that_can_preempt(
    everything: PlanReport,
) -> None:
    threats = {t.priority_class.name: (t.pods, t.namespaces) for t in everything.threats}

    assert threats["batch-high"] == (2, ("batch",))
    assert threats["cluster-default"] == (6, ("shop",))
    assert "burst-critical" not in threats


def test_a_class_of_the_same_name_with_another_value_conflicts_and_its_value_applies(
    dist: Manifests,
) -> None:
    snapshot = read_snapshot(EXAMPLE)
    ours = next(info for info, _ in dist.classes if info.name == "headroom-reserve")
    theirs = dataclasses.replace(
        ours, value=1000, preemption_policy=PreemptionPolicy.PREEMPT_LOWER_PRIORITY
    )
    snapshot.classes.append((theirs, "cluster"))

    report = run(dist, snapshot)

    (conflict,) = report.conflicts
    assert conflict.name == "headroom-reserve"
    assert "value 1000 and PreemptLowerPriority" in conflict.reason
    assert report.reservers[0].priority_class.value == 1000


def test_reservers_of_an_earlier_apply_are_replaced_not_counted_twice(dist: Manifests) -> None:
    report = run(dist, read_snapshot(AFTER))

    (reserver,) = report.reservers
    covered = [n.node for n in reserver.established] + [n.node for n in reserver.pending]
    assert sorted(covered) == sorted(reserver.target_nodes)
    assert len(reserver.target_nodes) == 4


def test_burst_counts_override_the_replicas(dist: Manifests) -> None:
    report = run(dist, read_snapshot(EXAMPLE), **{"demo-burst": 3})

    arrivals = report.whatif.arrivals
    assert len(arrivals) == 3
    # Two slices are held (N1 and N3): two bursts take them, the third finds none.
    assert [[v.name for v in e.victims] for e in arrivals[:2]] == [
        [f"headroom-reserver-{N3}"],
        [f"headroom-reserver-{N1}"],
    ]


def test_a_seed_reserver_evicts_ordinary_pods_to_establish(dist: Manifests) -> None:
    seed = _seed_manifests(dist)

    report = run(seed, read_snapshot(EXAMPLE))

    (reserver,) = report.reservers
    assert reserver.pending == ()
    full = next(n for n in reserver.established if n.node == N2)
    # The web PDB allows one disruption: the oldest web pod uses it, the others would
    # violate it and are reprieved first, so the oldest is the victim.
    assert full.evicts == ("shop/web-7c9f8d6b5-8pw3n",)


def test_the_json_has_the_documented_keys(example: PlanReport) -> None:
    data = example.to_json()

    assert list(data) == [
        "kubernetes_version",
        "kubernetes_version_from",
        "reservers",
        "buffers",
        "zones",
        "threats",
        "conflicts",
        "bursts",
        "not_modelled",
        "warnings",
    ]
    reserver = data["reservers"][0]  # type: ignore[index]
    assert list(reserver) == [
        "name",
        "slice",
        "priority_class",
        "target_nodes",
        "established",
        "pending",
        "not_targeted",
        "unmatched_selector",
    ]
    assert reserver["pending"][0]["reason"] == "room"
    assert reserver["unmatched_selector"] is None
    assert list(data["bursts"]) == ["arrivals", "recreations", "verdict"]  # type: ignore[call-overload]


def test_the_table_names_each_section(example: PlanReport) -> None:
    text = example.render()

    assert "Reserver node-headroom/headroom-reserver: slice 500m cpu, 512Mi memory" in text
    assert "target nodes: 3; established right after apply: 2; pending: 1" in text
    assert f"pending {N2}: free 220m cpu" in text
    assert "a Never reserver evicts nobody" in text
    assert (
        "system-node-critical (2000001000, PreemptLowerPriority): 3 pod(s) in kube-system" in text
    )
    assert "P2 holds" in text


def _seed_manifests(dist: Manifests) -> Manifests:
    """dist/ with SEED's classes: the reserver at 900000000, PreemptLowerPriority."""
    objects: list[dict[str, Any]] = []
    for path in sorted(DIST.glob("*.k8s.yaml")):
        objects += [o for o in yaml.safe_load_all(path.read_text()) if o]
    for obj in objects:
        if obj["kind"] == "PriorityClass" and obj["metadata"]["name"] == "headroom-reserve":
            obj["value"] = 900_000_000
            obj["preemptionPolicy"] = "PreemptLowerPriority"
        if obj["kind"] == "PriorityClass" and obj["metadata"]["name"] == "default-no-preempt":
            obj["globalDefault"] = False
    return manifests_from_objects([("seed", objects)])


def test_without_a_default_class_pods_without_one_are_a_threat() -> None:
    objects: list[dict[str, Any]] = []
    for path in sorted(DIST.glob("*.k8s.yaml")):
        objects += [o for o in yaml.safe_load_all(path.read_text()) if o]
    no_default = [o for o in objects if o["metadata"]["name"] != "default-no-preempt"]

    report = run(manifests_from_objects([("dist", no_default)]), read_snapshot(EXAMPLE))

    threat = next(t for t in report.threats if not t.priority_class.name)
    # The ten web pods carry no class: new ones get priority 0, PreemptLowerPriority.
    assert (threat.priority_class.value, threat.pods, threat.namespaces) == (0, 10, ("shop",))
    assert threat.to_json()["name"] == "(no priorityClassName)"
    assert report.whatif.verdicts[0].holds is False


def pool_manifests(pool: str) -> Manifests:
    """dist/ with the reserver DaemonSet put on Karpenter pool ``pool`` by a node
    selector, as ``NodeHeadroom(node_pool=...)`` renders it."""
    objects: list[dict[str, Any]] = []
    for path in sorted(DIST.glob("*.k8s.yaml")):
        objects += [o for o in yaml.safe_load_all(path.read_text()) if o]
    for obj in objects:
        if obj["kind"] == "DaemonSet":
            obj["spec"]["template"]["spec"]["nodeSelector"] = {"karpenter.sh/nodepool": pool}
    return manifests_from_objects([("pool", objects)])


def pool_snapshot(tmp_path: Path, *nodes: dict[str, Any]) -> Snapshot:
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(nodes)}))
    return read_snapshot(path)


def test_a_selector_that_matches_no_node_fails_and_names_the_pools_present(
    tmp_path: Path,
) -> None:
    # pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod: a node the
    # node selector does not match gets no daemon pod, so a typo'd pool name leaves the
    # DaemonSet without a node: desiredNumberScheduled 0, nothing pending, no slice.
    snapshot = pool_snapshot(
        tmp_path,
        kubectl_node("a", labels={"karpenter.sh/nodepool": "burst"}),
        kubectl_node("b", labels={"karpenter.sh/nodepool": "burst"}),
        kubectl_node("c", labels={"karpenter.sh/nodepool": "general"}),
    )

    report = run(pool_manifests("bursst"), snapshot)

    (reserver,) = report.reservers
    assert (reserver.target_nodes, reserver.pending) == ((), ())
    assert reserver.unmatched is not None
    reason = (
        "the selector nodeSelector karpenter.sh/nodepool=bursst matches none of the 3 "
        "nodes; the nodes have karpenter.sh/nodepool: burst (2), general (1)"
    )
    assert reserver.unmatched.reason == reason
    assert f"  no target: {reason}" in report.render().splitlines()
    assert report.failures(max_pending=0)[0] == (
        f"node-headroom/headroom-reserver: {reason} (no flag relaxes it: fix the node pool "
        "or selector)"
    )
    assert report.exit_status(max_pending=10) == 1
    assert reserver.to_json()["unmatched_selector"] == {
        "selector": "nodeSelector karpenter.sh/nodepool=bursst",
        "labels": {"karpenter.sh/nodepool": {"burst": 2, "general": 1}},
        "nodes": 3,
    }


def test_a_selector_key_no_node_has_is_named_as_missing(tmp_path: Path) -> None:
    node = kubectl_node("a")
    del node["metadata"]["labels"]["karpenter.sh/nodepool"]
    snapshot = pool_snapshot(tmp_path, node)

    (reserver,) = run(pool_manifests("burst"), snapshot).reservers

    assert reserver.unmatched is not None
    assert reserver.unmatched.reason == (
        "the selector nodeSelector karpenter.sh/nodepool=burst matches none of the 1 nodes; "
        "no node has karpenter.sh/nodepool"
    )


def test_nodes_the_selector_matches_but_taints_leave_out_do_not_fail_the_run(
    tmp_path: Path,
) -> None:
    # NodeShouldRunDaemonPod: the pool matches, an untolerated NoSchedule taint keeps
    # the reserver off (the EKS listing's type=hound:NoSchedule): not targeted, and a
    # toleration adds the nodes, so this is no unmatched selector.
    hound = taint("type", "NoSchedule", "hound")
    snapshot = pool_snapshot(
        tmp_path,
        kubectl_node("a", hound, labels={"karpenter.sh/nodepool": "burst"}),
        kubectl_node("b", hound, labels={"karpenter.sh/nodepool": "burst"}),
    )

    report = run(pool_manifests("burst"), snapshot)

    (reserver,) = report.reservers
    assert reserver.unmatched is None
    assert [n.node for n in reserver.not_targeted] == ["a", "b"]
    assert report.failures(max_pending=0) == []
    assert "no target:" not in report.render()


def test_selector_text_reads_as_the_manifests_write_selector_and_affinity() -> None:
    term = NodeSelectorTerm(
        (
            NodeSelectorRequirement("topology.kubernetes.io/zone", NodeSelectorOperator.IN,
                                    ("eu-west-1a", "eu-west-1b")),
            NodeSelectorRequirement("spot", NodeSelectorOperator.DOES_NOT_EXIST),
        )
    )  # fmt: skip
    placement = Placement((("karpenter.sh/nodepool", "burst"),), (term, NodeSelectorTerm()))

    assert selector_text(placement) == (
        "nodeSelector karpenter.sh/nodepool=burst; affinity topology.kubernetes.io/zone In "
        "(eu-west-1a, eu-west-1b) and spot DoesNotExist or (empty term)"
    )
    assert selector_text(Placement()) == "(none: every node)"


def test_each_failed_condition_is_a_clause_naming_the_flag_that_relaxes_it(
    example: PlanReport,
) -> None:
    conflicted = dataclasses.replace(
        example, conflicts=(Conflict("headroom-reserve", "value 1000 in the cluster"),)
    )

    assert example.failures(max_pending=1) == []
    assert example.failures(max_pending=0) == [
        "1 target node waits for its slice, more than --max-pending 0"
    ]
    assert conflicted.failures(max_pending=1) == [
        "1 class conflicts with the cluster's, so apply fails: headroom-reserve "
        "(no flag relaxes it)"
    ]


def test_the_failure_clauses_say_one_node_or_class_in_the_singular_and_more_in_the_plural(
    example: PlanReport,
) -> None:
    # GIVEN two conflicting classes and two reservers' waits
    conflicts = tuple(Conflict(name, "value 1000 in the cluster") for name in ("a", "b"))
    reservers = tuple(
        dataclasses.replace(reserver, name=f"{reserver.name}-{copy}")
        for reserver in example.reservers
        for copy in (1, 2)
    )
    doubled = dataclasses.replace(example, conflicts=conflicts, reservers=reservers)

    assert doubled.pending_count == 2 * example.pending_count == 2
    assert doubled.failures(max_pending=1) == [
        "2 classes conflict with the cluster's, so apply fails: a, b (no flag relaxes it)",
        "2 target nodes wait for their slices, more than --max-pending 1",
    ]


def test_a_broken_promise_is_named_in_the_failure() -> None:
    objects: list[dict[str, Any]] = []
    for path in sorted(DIST.glob("*.k8s.yaml")):
        objects += [o for o in yaml.safe_load_all(path.read_text()) if o]
    # Without the default class, new web pods get priority 0 and PreemptLowerPriority,
    # above the reserver's -100: P1 breaks.
    no_default = [o for o in objects if o["metadata"]["name"] != "default-no-preempt"]

    report = run(manifests_from_objects([("dist", no_default)]), read_snapshot(EXAMPLE))

    assert report.whatif.verdicts[0].holds is False
    assert report.failures(max_pending=1) == ["P1 broken (no flag relaxes it)"]


def test_the_table_writes_memory_as_people_do_and_the_json_keeps_it_exact(
    example: PlanReport,
) -> None:
    # The kubelet reports allocatable memory in Ki (7736240Ki free on this node).
    (pending,) = example.reservers[0].pending

    assert pending.text == (
        "free 220m cpu, 7.38Gi memory; the slice needs 500m cpu, 512Mi memory: insufficient cpu"
    )
    assert f"  pending {N2}: {pending.text}" in example.render().splitlines()
    assert pending.detail == (
        "free 220m cpu, 7736240Ki memory; the slice needs 500m cpu, 512Mi memory: insufficient cpu"
    )
    assert pending.to_json()["free"] == {"cpu": "220m", "memory": "7736240Ki"}


def test_the_free_room_of_an_overfull_node_keeps_its_sign_in_people_units() -> None:
    # A listing can bind more than a node's allocatable (the kops listing's
    # generics-aws-node-one: free -17150136320 bytes).
    from cdk8s_headroom.simulate.report import memory_for_people, resources_text

    assert memory_for_people(-17150136320) == "-16Gi"
    assert memory_for_people(-(2**20 + 2**19)) == "-1.5Mi"
    assert resources_text(Resources(-7229, -512 * 2**20)) == "-7229m cpu, -512Mi memory"
