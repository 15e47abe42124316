"""Scenarios of the project's objects under the real Karpenter (``e2e/karpenter.py``),
shared by the live tests (``tests/live/test_karpenter_live.py``) and the benchmark
(``bench/bench_karpenter.py``): the Karpenter examples built for its KWOK provider,
waiting until Karpenter has provisioned them, the buffers' resolution, and the time
from a burst's arrival to its pods Running with a buffer and without.

The times are control-plane seconds on KWOK (Karpenter's batching, the scheduler, the
API server), not cloud minutes: a KWOK node is Ready as soon as it is created.
"""

from __future__ import annotations

import importlib
import time
import warnings
from collections.abc import Sequence
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom import (
    HeadroomWarning,
    KarpenterNodePool,
    NodeClassRef,
    NodeHeadroom,
    NodeSelectorOperator,
    PriorityModel,
    headroom_charts,
)
from cdk8s_headroom.vocabulary.labels import COMPONENT_LABEL, RESERVER_COMPONENT
from e2e.cluster import LiveCluster, Manifest
from e2e.karpenter import Karpenter

POOL_LABEL = "karpenter.sh/nodepool"
EXAMPLES = ("first_pool", "karpenter_dedicated_pool", "capacity_buffer")
"""The examples that emit their own NodePools. ``karpenter_spot_budgets`` names EC2
instance families with ``minValues: 5``, which KWOK's three families (c, s, m) cannot
meet, and ``eks_auto_mode`` targets Auto Mode's built-in pool: neither runs on KWOK."""


def example_objects(
    name: str,
) -> tuple[list[Manifest], list[NodeHeadroom], list[KarpenterNodePool]]:
    app = cdk8s.App()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)  # first_pool's shared-pool buffer
        importlib.import_module(f"examples.{name}").build(app, node_class=NodeClassRef.kwok())
        objects = [o for chart in app.charts for o in chart.to_json()]
    found = app.node.find_all()
    return (
        objects,
        [c for c in found if isinstance(c, NodeHeadroom)],
        [c for c in found if isinstance(c, KarpenterNodePool)],
    )


def pods(cluster: LiveCluster, *selector: str, namespace: str | None = None) -> list[Manifest]:
    where = ("-A",) if namespace is None else ("-n", namespace)
    items: list[Manifest] = cluster.get_json("pods", *where, *selector)["items"]
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def running(pods: Sequence[Manifest]) -> list[Manifest]:
    return [p for p in pods if p["status"].get("phase") == "Running"]


def reservers(cluster: LiveCluster) -> list[Manifest]:
    return pods(cluster, "-l", f"{COMPONENT_LABEL}={RESERVER_COMPONENT}")


def pool_nodes(cluster: LiveCluster, pool: str) -> list[Manifest]:
    items: list[Manifest] = cluster.get_json("nodes", "-l", f"{POOL_LABEL}={pool}")["items"]
    return [n for n in items if not n["metadata"].get("deletionTimestamp")]


def deployments_running(cluster: LiveCluster, objects: Sequence[Manifest]) -> bool:
    for deployment in (o for o in objects if o["kind"] == "Deployment"):
        meta = deployment["metadata"]
        (live,) = cluster.get_json("deployment", meta["name"], "-n", meta["namespace"])["items"]
        if live["status"].get("readyReplicas", 0) != live["spec"]["replicas"]:
            return False
    return True


def reserver_on_every_node(cluster: LiveCluster, pools: Sequence[str]) -> bool:
    nodes = {n["metadata"]["name"] for pool in pools for n in pool_nodes(cluster, pool)}
    held = {p["spec"].get("nodeName") for p in running(reservers(cluster))}
    return bool(nodes) and nodes <= held


def launch(
    cluster: LiveCluster, karpenter: Karpenter, objects: Sequence[Manifest], slice_pools: list[str]
) -> float:
    """Applies ``objects``; waits until every Deployment is ready on nodes Karpenter
    launched and a reserver runs on every node of ``slice_pools``. Returns the seconds
    from the apply to every Deployment ready."""
    started = time.monotonic()
    cluster.apply(objects)
    karpenter.wait_for(
        lambda: deployments_running(cluster, objects),
        timeout=180,
        what="every Deployment ready on Karpenter's nodes",
    )
    ready = time.monotonic() - started
    if slice_pools:
        karpenter.wait_for(
            lambda: reserver_on_every_node(cluster, slice_pools),
            what=f"a reserver Running on every node of {', '.join(slice_pools)}",
        )
    return ready


def buffers(cluster: LiveCluster) -> dict[str, Manifest]:
    items = cluster.get_json("capacitybuffers.autoscaling.x-k8s.io", "-A")["items"]
    return {b["metadata"]["name"]: b for b in items}


def condition(manifest: Manifest, kind: str) -> Manifest | None:
    found = [c for c in manifest.get("status", {}).get("conditions", []) if c["type"] == kind]
    return found[0] if found else None


def buffers_resolved(cluster: LiveCluster, expected: dict[str, int]) -> dict[str, Manifest] | None:
    """Every buffer of ``expected`` (name: replicas) once Karpenter has resolved it to
    those replicas and marked it ``ReadyForProvisioning``; ``None`` until then."""
    found = buffers(cluster)
    done = all(
        found.get(name, {}).get("status", {}).get("replicas") == replicas
        and (condition(found[name], "ReadyForProvisioning") or {}).get("status") == "True"
        for name, replicas in expected.items()
    )
    return found if done else None


def four_vcpu_pool(scope: Construct, name: str, **props: Any) -> KarpenterNodePool:
    """A NodePool of Karpenter's KWOK provider launching 4-vCPU nodes only (its
    ``instance-cpu`` label), so a test knows each node's room; ``props`` are the pool's
    other props."""
    pool = KarpenterNodePool(scope, name, node_class=NodeClassRef.kwok(), **props)
    pool.add_requirement(pool.instance_label("instance-cpu"), NodeSelectorOperator.IN, ["4"])
    return pool


def _burst_app() -> list[Manifest]:
    """A KWOK pool of 4-vCPU nodes that hold one 3-CPU ``work`` pod each, and a buffer
    of one such pod (a headroom of buffers alone)."""
    app = cdk8s.App()
    charts = headroom_charts(app, namespace="timing", model=PriorityModel.DEDICATED_POOL)
    pool = four_vcpu_pool(charts.cluster, "timing", consolidate_after="Never")
    headroom = NodeHeadroom(
        charts.workloads,
        "headroom",
        model=PriorityModel.DEDICATED_POOL,
        node_pool=pool,
        namespace="timing",
        priority_classes=charts.priority_classes,
    )
    work = headroom.add_burst_workload(
        "work", image="registry.k8s.io/pause:3.10", cpu="3", memory="1Gi", replicas=1
    )
    headroom.add_capacity_buffer(work, replicas=1)
    return [o for chart in app.charts for o in chart.to_json()]


def _scale_to_running(cluster: LiveCluster, karpenter: Karpenter, replicas: int) -> float:
    started = time.monotonic()
    cluster.kubectl("scale", "deployment", "work", "-n", "timing", f"--replicas={replicas}")
    karpenter.wait_for(
        lambda: (
            len(running(pods(cluster, "-l", "app.kubernetes.io/name=work", namespace="timing")))
            == replicas
        ),
        timeout=120,
        what=f"{replicas} work pods Running",
    )
    return time.monotonic() - started


def burst_seconds(cluster: LiveCluster, karpenter: Karpenter) -> tuple[float, float, int]:
    """Seconds from one more ``work`` pod than the nodes hold to that pod Running:
    first without the buffer (Karpenter launches a node for the pending pod), then with
    it (the buffer's node is there already). Also returns the nodes the buffer had
    Karpenter launch ahead of the burst."""
    objects = _burst_app()
    launch(cluster, karpenter, [o for o in objects if o["kind"] != "CapacityBuffer"], [])
    without = _scale_to_running(cluster, karpenter, 2)
    before = len(pool_nodes(cluster, "timing"))
    cluster.apply([o for o in objects if o["kind"] == "CapacityBuffer"])
    karpenter.wait_for(
        lambda: len(pool_nodes(cluster, "timing")) > before,
        what="a node for the buffer's chunk",
    )
    ahead = len(pool_nodes(cluster, "timing")) - before
    with_buffer = _scale_to_running(cluster, karpenter, 3)
    return without, with_buffer, ahead
