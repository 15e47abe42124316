"""The real Karpenter (v1.14.3, its KWOK provider, ``CapacityBuffer`` gate on) reads what
the project writes, and provisions what the project predicts.

Each check sets the project's own prediction (the example's summary, ``plan``'s reading
of the buffers) against what Karpenter does on a live control plane. The Karpenter
behaviour each check relies on is cited where it is used, from Karpenter v1.14.3:
``pkg/controllers/capacitybuffer`` (buffer resolution), ``pkg/controllers/provisioning``
(nodes for pending and virtual pods), ``pkg/controllers/disruption`` (drift, emptiness,
budgets) and ``kwok/cloudprovider`` (the instance types and their labels).
"""

from __future__ import annotations

import json
import time
from fractions import Fraction

import cdk8s
import pytest

from cdk8s_headroom import (
    BudgetNodes,
    CapacityBufferForm,
    DisruptionBudget,
    DisruptionReason,
    KarpenterNodePool,
    NodeHeadroom,
    PriorityModel,
    headroom_charts,
)
from cdk8s_headroom.karpenter.node_pool import NODE_ROOM_ANNOTATION
from cdk8s_headroom.objects.capacity_buffer import CapacityBufferOptions
from cdk8s_headroom.simulate.manifests import manifests_from_objects
from cdk8s_headroom.vocabulary.node_sizes import NodeSize, max_nodes
from cdk8s_headroom.vocabulary.quantity import parse_quantity
from e2e.cluster import LiveCluster, Manifest
from e2e.karpenter import Karpenter
from e2e.karpenter_scenarios import (
    EXAMPLES,
    POOL_LABEL,
    buffers_resolved,
    burst_seconds,
    deployments_running,
    example_objects,
    four_vcpu_pool,
    launch,
    pods,
    pool_nodes,
    reserver_on_every_node,
    reservers,
    running,
)
from e2e.promises import ORDINARY_NAMESPACE, ordinary_pods

RESERVER_PREFIX = "headroom-reserver-"
KWOK_CPU_LABEL = "karpenter.kwok.sh/instance-cpu"
KWOK_MEMORY_LABEL = "karpenter.kwok.sh/instance-memory"


def _allowed_cpus(pool: KarpenterNodePool) -> set[str]:
    (values,) = [r.values for r in pool.requirements if r.key == KWOK_CPU_LABEL]
    return set(values)


@pytest.mark.parametrize("example", EXAMPLES)
def test_an_example_on_kwok_launches_the_nodes_its_summary_predicts(
    karpenter: Karpenter, cluster: LiveCluster, example: str
) -> None:
    """Karpenter launches nodes for the example's Deployments; the reservers land on
    every one; each node is a size the pool allows, no smaller than the summary's
    smallest node, and no pool holds more nodes than its limits allow
    (``max_nodes``, the summary's worst case)."""
    objects, headrooms, pools = example_objects(example)
    slice_pools = [h.node_pool.pool_name for h in headrooms if h.reserver and h.node_pool]
    launch(cluster, karpenter, objects, slice_pools)

    for pool in pools:
        nodes = pool_nodes(cluster, pool.pool_name)
        smallest = pool.smallest_node
        limit = max_nodes(smallest, pool.limit_amounts)
        assert nodes, pool.pool_name
        assert limit is not None and len(nodes) <= limit
        for node in nodes:
            labels, allocatable = node["metadata"]["labels"], node["status"]["allocatable"]
            # a KWOK node's status.capacity is its NodeClaim's requests
            # (kwok/cloudprovider/cloudprovider.go, toNode); the labels give the instance
            assert labels[KWOK_CPU_LABEL] in _allowed_cpus(pool)
            vcpus = Fraction(int(labels[KWOK_CPU_LABEL]))
            memory = parse_quantity(labels[KWOK_MEMORY_LABEL], field="memory")
            assert vcpus >= (smallest.cpu or 0)
            assert memory >= (smallest.memory or 0)
            estimate = NodeSize(cpu=vcpus, memory=memory).allocatable()
            # The summary's allocatable estimate follows EKS's kube-reserved formula; KWOK
            # reserves a flat 100m CPU and 10Mi (kwok/cloudprovider/helpers.go,
            # newInstanceType). Memory: the estimate is a lower bound. CPU: on 4 vCPUs
            # it is 20m above KWOK's 3900m (docs/library.md, "Node sizes").
            cpu = parse_quantity(allocatable["cpu"], field="cpu")
            assert cpu == vcpus - Fraction(1, 10)
            assert abs(cpu - (estimate.cpu or cpu)) <= Fraction(2, 100)
            assert parse_quantity(allocatable["memory"], field="memory") >= (estimate.memory or 0)
    held = {p["spec"]["nodeName"] for p in running(reservers(cluster))}
    for name in slice_pools:
        assert {n["metadata"]["name"] for n in pool_nodes(cluster, name)} <= held


def _free_cpu(cluster: LiveCluster, node: str) -> Fraction:
    (live,) = cluster.get_json("node", node)["items"]
    free = parse_quantity(live["status"]["allocatable"]["cpu"], field="cpu")
    for pod in pods(cluster, "--field-selector", f"spec.nodeName={node}"):
        if pod["status"].get("phase") in ("Running", "Pending"):
            for container in pod["spec"]["containers"]:
                free -= parse_quantity(
                    container["resources"].get("requests", {}).get("cpu", "0"), field="cpu"
                )
    return free


def test_a_burst_preempts_a_reserver_on_a_karpenter_node_as_on_static_nodes(
    karpenter: Karpenter, cluster: LiveCluster
) -> None:
    """One burst pod more than a Karpenter node's free room: the scheduler preempts the
    node's reserver for it (kube-scheduler's DefaultPreemption), and the pod runs on
    that node, before Karpenter would have launched one."""
    objects, _, _ = example_objects("karpenter_dedicated_pool")
    launch(cluster, karpenter, objects, ["burst"])
    (node,) = [n["metadata"]["name"] for n in pool_nodes(cluster, "burst")]
    fitting = int(_free_cpu(cluster, node))  # checkout pods take 1 CPU each
    (deployment,) = [o for o in objects if o["kind"] == "Deployment"]
    namespace = deployment["metadata"]["namespace"]
    name = deployment["metadata"]["name"]
    (live,) = cluster.get_json("deployment", name, "-n", namespace)["items"]
    replicas = live["spec"]["replicas"] + fitting + 1  # within the HPA's max_replicas 4
    cluster.kubectl("scale", "deployment", name, "-n", namespace, f"--replicas={replicas}")

    preempted = karpenter.wait_for(
        lambda: cluster.events(namespace, "Preempted"), what="a Preempted event"
    )
    assert all(e["involvedObject"]["name"].startswith(RESERVER_PREFIX) for e in preempted)
    assert all(f"on node {node}" in e["message"] for e in preempted)
    karpenter.wait_for(
        lambda: deployments_running(cluster, [deployment | {"spec": {"replicas": replicas}}]),
        what=f"{replicas} checkout pods ready",
    )
    bursts = running(pods(cluster, "-l", "app.kubernetes.io/name=checkout", namespace=namespace))
    assert len(preempted) == 1
    assert sum(1 for p in bursts if p["spec"]["nodeName"] == node) == replicas


def test_a_dedicated_pool_s_taint_is_on_every_node_karpenter_launches_and_keeps_ordinary_pods_off(
    karpenter: Karpenter, cluster: LiveCluster
) -> None:
    """DEDICATED_POOL: every node Karpenter launches for the pool carries the taint from
    the pool's template; ordinary pods tolerate nothing, so no node of the pool takes
    them and Karpenter launches none for them (no pool they tolerate)."""
    objects, _, pools = example_objects("karpenter_dedicated_pool")
    (taint,) = [t.to_manifest() for t in pools[0].taints]
    launch(cluster, karpenter, objects, ["burst"])
    cluster.apply(ordinary_pods(2))
    karpenter.wait_for(
        lambda: (
            len(pods(cluster, namespace=ORDINARY_NAMESPACE)) == 2
            and all(
                any(c.get("reason") == "Unschedulable" for c in p["status"].get("conditions", []))
                for p in pods(cluster, namespace=ORDINARY_NAMESPACE)
            )
        ),
        what="the ordinary pods found unschedulable",
    )
    nodes = pool_nodes(cluster, "burst")
    assert nodes
    for node in nodes:
        assert taint in node["spec"].get("taints", [])
    names = {n["metadata"]["name"] for n in cluster.get_json("nodes")["items"]}
    assert not [p for p in pods(cluster, namespace=ORDINARY_NAMESPACE) if p["spec"].get("nodeName")]
    assert names == {n["metadata"]["name"] for n in nodes}


def test_karpenter_resolves_each_buffer_to_the_replicas_plan_predicts_and_provisions_them(
    karpenter: Karpenter, cluster: LiveCluster
) -> None:
    """``status.replicas`` and ``ReadyForProvisioning`` as Karpenter writes them
    (``capacitybuffer/helpers.go``: the fixed count, ``ceil(percentage x replicas)``,
    the smaller of the two and of ``limits``) equal what ``plan`` reads from the same
    objects; the pool of each buffer gets nodes for its virtual pods
    (``provisioning``: buffers add virtual pods to the scheduling simulation), and
    only that pool; scaling the Deployment moves the percentage buffer."""
    objects, _, pools = example_objects("capacity_buffer")
    predicted = {
        b.name: b.units for b in manifests_from_objects([("capacity_buffer", objects)]).buffers
    }
    assert predicted == {"checkout-buffer": 3, "search-buffer": 2}
    launch(cluster, karpenter, objects, ["checkout"])
    karpenter.wait_for(lambda: buffers_resolved(cluster, predicted), what=f"buffers at {predicted}")

    search = [o for o in objects if o["kind"] == "Deployment" and o["metadata"]["name"] == "search"]
    (deployment,) = search
    request = parse_quantity(
        deployment["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"],
        field="cpu",
    )
    wanted = request * (deployment["spec"]["replicas"] + predicted["search-buffer"])

    def search_pool_cpu() -> Fraction:
        return sum(
            (
                parse_quantity(n["status"]["allocatable"]["cpu"], field="cpu")
                for n in pool_nodes(cluster, "search")
            ),
            Fraction(0),
        )

    karpenter.wait_for(
        lambda: search_pool_cpu() >= wanted,
        what=f"pool search holding {wanted} CPU: the Deployment and its buffer",
    )
    taints = {json.dumps(t.to_manifest()) for pool in pools for t in pool.taints}
    for pool in ("checkout", "search"):
        for node in pool_nodes(cluster, pool):
            assert {json.dumps(t) for t in node["spec"].get("taints", [])} >= taints
    unpooled = [
        n for n in cluster.get_json("nodes")["items"] if POOL_LABEL not in n["metadata"]["labels"]
    ]
    assert unpooled == []

    namespace = deployment["metadata"]["namespace"]
    cluster.kubectl("scale", "deployment", "search", "-n", namespace, "--replicas=6")
    scaled = dict(predicted, **{"search-buffer": 3})
    karpenter.wait_for(lambda: buffers_resolved(cluster, scaled), what=f"buffers at {scaled}")


def test_karpenter_caps_a_buffer_by_its_limits_as_plan_predicts(
    karpenter: Karpenter, cluster: LiveCluster
) -> None:
    """``limits`` cap a buffer (``capacitybuffer/helpers.go``, ``calculateLimitReplicas``:
    the most chunks whose requests fit): alone, over a fixed count, and over a
    percentage. Karpenter's ``status.replicas`` equals ``plan``'s count for each."""
    app = cdk8s.App()
    charts = headroom_charts(app, namespace="limits", model=PriorityModel.DEDICATED_POOL)
    pool = four_vcpu_pool(charts.cluster, "limits")
    headroom = NodeHeadroom(
        charts.workloads,
        "headroom",
        model=PriorityModel.DEDICATED_POOL,
        node_pool=pool,
        namespace="limits",
        priority_classes=charts.priority_classes,
    )
    # one buffer per workload: three copies of one 1-CPU workload
    caps: list[CapacityBufferOptions] = [
        {"limits": {"cpu": "3"}},
        {"replicas": 5, "limits": {"cpu": "2"}},
        {"form": CapacityBufferForm.SCALABLE, "percentage": 100, "limits": {"cpu": "2"}},
    ]
    for name, options in zip(("alone", "fixed", "share"), caps, strict=True):
        work = headroom.add_burst_workload(
            name, image="registry.k8s.io/pause:3.10", cpu="1", memory="256Mi", replicas=3
        )
        headroom.add_capacity_buffer(work, **options)
    objects = [o for chart in app.charts for o in chart.to_json()]
    predicted = {b.name: b.units for b in manifests_from_objects([("limits", objects)]).buffers}
    assert predicted == {"alone-buffer": 3, "fixed-buffer": 2, "share-buffer": 2}
    launch(cluster, karpenter, objects, [])
    karpenter.wait_for(lambda: buffers_resolved(cluster, predicted), what=f"buffers at {predicted}")


def _drift_app(slice_cpu: str) -> tuple[list[Manifest], KarpenterNodePool]:
    """A KWOK pool of 4-vCPU nodes (3.9 CPU allocatable) that each hold a slice and one
    1.4-CPU burst pod, not two (so two pods, two nodes), drifted by the headroom's slice
    (``drift_on_change``) one node at a time."""
    app = cdk8s.App()
    charts = headroom_charts(app, namespace="drift", model=PriorityModel.DEDICATED_POOL)
    pool = four_vcpu_pool(
        charts.cluster,
        "drift",
        consolidate_after="Never",
        budgets=[DisruptionBudget(nodes=BudgetNodes.count(1), reasons=(DisruptionReason.DRIFTED,))],
    )
    headroom = NodeHeadroom(
        charts.workloads,
        "headroom",
        cpu=slice_cpu,
        memory="256Mi",
        model=PriorityModel.DEDICATED_POOL,
        node_pool=pool,
        namespace="drift",
        priority_classes=charts.priority_classes,
        drift_on_change=True,
    )
    headroom.add_burst_workload(
        "work", image="registry.k8s.io/pause:3.10", cpu="1400m", memory="256Mi", replicas=2
    )
    objects = [o for chart in app.charts for o in chart.to_json()]
    # One work pod per node, whatever order the scheduler sees pods in: without it, both
    # land on the first node Ready and its reserver stays Pending (docs/theory.md,
    # "Establishing headroom on full nodes"), which this test is not about.
    for deployment in (o for o in objects if o["kind"] == "Deployment"):
        deployment["spec"]["template"]["spec"].setdefault("affinity", {})["podAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "work"}},
                    "topologyKey": "kubernetes.io/hostname",
                }
            ]
        }
    return objects, pool


def _nodeclaims(cluster: LiveCluster) -> list[Manifest]:
    items: list[Manifest] = cluster.get_json("nodeclaims")["items"]
    return items


def test_a_slice_change_drifts_the_pools_nodes_one_at_a_time_to_nodes_with_the_new_slice(
    karpenter: Karpenter, cluster: LiveCluster
) -> None:
    """``drift_on_change``: the new slice changes the template's annotation, so the
    NodePool hash (``nodepool/hash``) and every NodeClaim's drift
    (``disruption/drift.go``) follow; Karpenter replaces the nodes and the ``Drifted``
    budget of one node keeps at most one being disrupted at a time. The new nodes hold
    the new slice."""
    old_objects, _ = _drift_app("1500m")
    launch(cluster, karpenter, old_objects, ["drift"])
    old = {n["metadata"]["name"] for n in pool_nodes(cluster, "drift")}
    assert len(old) == 2

    new_objects, _ = _drift_app("1400m")
    (pool,) = [o for o in new_objects if o["kind"] == "NodePool"]
    cluster.apply(new_objects)
    (live,) = cluster.get_json("nodepool", "drift")["items"]
    annotations = live["spec"]["template"]["metadata"]["annotations"]
    assert annotations == pool["spec"]["template"]["metadata"]["annotations"]
    assert json.loads(annotations[NODE_ROOM_ANNOTATION])

    most_at_once = 0

    def replaced() -> bool:
        nonlocal most_at_once
        claims = _nodeclaims(cluster)
        disrupting = [c for c in claims if c["metadata"].get("deletionTimestamp")]
        most_at_once = max(most_at_once, len(disrupting))
        nodes = {n["metadata"]["name"] for n in pool_nodes(cluster, "drift")}
        return not nodes & old and len(nodes) == 2 and not disrupting

    karpenter.wait_for(replaced, timeout=240, what="both drifted nodes replaced")
    assert most_at_once == 1
    karpenter.wait_for(
        lambda: (
            reserver_on_every_node(cluster, ["drift"])
            and all(
                p["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "1400m"
                for p in running(reservers(cluster))
            )
        ),
        what="every new node's reserver holding the 1400m slice",
    )


def test_a_node_left_with_only_its_reserver_is_empty_to_karpenter_and_consolidated(
    karpenter: Karpenter, cluster: LiveCluster
) -> None:
    """A burst node whose burst pods are gone holds only DaemonSet pods (the reserver):
    Karpenter counts DaemonSet pods as not reschedulable (``disruption/helpers.go``,
    ``reschedulablePods``), so the node is empty and is consolidated after
    ``consolidateAfter``, its slice with it."""
    app = cdk8s.App()
    charts = headroom_charts(app, namespace="empty", model=PriorityModel.DEDICATED_POOL)
    pool = four_vcpu_pool(charts.cluster, "empty", consolidate_after="5s")
    headroom = NodeHeadroom(
        charts.workloads,
        "headroom",
        cpu="1",
        memory="1Gi",
        model=PriorityModel.DEDICATED_POOL,
        node_pool=pool,
        namespace="empty",
        priority_classes=charts.priority_classes,
    )
    headroom.add_burst_workload(
        "work", image="registry.k8s.io/pause:3.10", cpu="1", memory="1Gi", replicas=1
    )
    objects = [o for chart in app.charts for o in chart.to_json()]
    launch(cluster, karpenter, objects, ["empty"])
    assert len(pool_nodes(cluster, "empty")) == 1

    emptied = time.monotonic()
    cluster.kubectl("scale", "deployment", "--all", "-n", "empty", "--replicas=0")
    karpenter.wait_for(
        lambda: not pool_nodes(cluster, "empty"),
        timeout=120,
        what="the node with only its reserver consolidated",
    )
    assert time.monotonic() - emptied >= 5


def test_a_burst_runs_sooner_with_a_buffer_than_waiting_for_karpenter_s_new_node(
    karpenter: Karpenter, cluster: LiveCluster
) -> None:
    """One pod more than the nodes hold: without a buffer it waits for the node
    Karpenter launches for it (``provisioning``: batching, then a NodeClaim); with a
    buffer of one chunk Karpenter launched that node ahead, and the scheduler places the
    pod at once. On KWOK both are control-plane seconds."""
    without, with_buffer, ahead = burst_seconds(cluster, karpenter)
    assert ahead == 1
    assert with_buffer < without
