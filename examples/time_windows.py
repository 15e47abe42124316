"""Headroom held only when it is needed: slices in business hours, a buffer in the
nightly batch window, released outside them (docs/schedules.md).

One dedicated Karpenter pool (PriorityModel.DEDICATED_POOL) in Europe/Berlin time:

- the ``checkout`` slices are held on 3 nodes from 08:00 to 18:00, Monday to Friday;
- the ``reports`` buffer holds room for 4 of its pods from 01:00 to 04:00 every night.

Each window is a CronJob whose Job holds the room for the window's length; the CronJob
and Job controllers of kube-controller-manager do the rest, with no role and no code
running in the cluster.

    python examples/time_windows.py

writes the YAML to ``$CDK8S_OUTDIR``, or to ``examples/time_windows/dist``, and prints
what each headroom holds back.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cdk8s

from cdk8s_headroom import (
    Ec2NodeClass,
    HeadroomSchedule,
    HeadroomWindow,
    KarpenterNodePool,
    NodeClassRef,
    NodeHeadroom,
    NodeSelectorOperator,
    PriorityModel,
    headroom_charts,
    run_app,
)

CLUSTER_NAME = "headroom-demo"
MODEL = PriorityModel.DEDICATED_POOL
NAMESPACE = "burst"
BUSINESS_HOURS = HeadroomSchedule(
    [HeadroomWindow("0 8 * * mon-fri", 10 * 60, "business")], time_zone="Europe/Berlin"
)
BATCH_WINDOW = HeadroomSchedule(
    [HeadroomWindow("0 1 * * *", 3 * 60, "batch")], time_zone="Europe/Berlin"
)


def build(app: cdk8s.App, *, node_class: NodeClassRef | None = None) -> None:
    """Builds the example into ``app``: cluster-scoped objects first, then workloads.

    ``node_class``: the pool's node class. Default: an ``Ec2NodeClass`` the app emits;
    ``NodeClassRef.kwok()`` runs it on Karpenter's KWOK provider.
    """
    charts = headroom_charts(app, namespace=NAMESPACE, model=MODEL)
    if node_class is None:
        node_class = Ec2NodeClass(
            charts.cluster,
            "node-class",
            name="burst",
            role=f"KarpenterNodeRole-{CLUSTER_NAME}",
            discovery_tag_value=CLUSTER_NAME,
        ).ref
    pool = KarpenterNodePool(charts.cluster, "burst", node_class=node_class, limits={"cpu": "64"})
    pool.add_requirement(pool.instance_label("instance-cpu"), NodeSelectorOperator.IN, ["4", "8"])

    headroom = NodeHeadroom(
        charts.workloads,
        "burst",
        cpu="1",
        memory="2Gi",
        model=MODEL,
        node_pool=pool,
        namespace=NAMESPACE,
        priority_classes=charts.priority_classes,
        schedule=BUSINESS_HOURS,
        scheduled_nodes=3,
    )
    headroom.add_burst_workload(
        "checkout", image="public.ecr.aws/nginx/nginx:1.27", cpu="1", memory="2Gi", replicas=2
    )
    reports = headroom.add_burst_workload(
        "reports", image="public.ecr.aws/nginx/nginx:1.27", cpu="500m", memory="1Gi", replicas=1
    )
    headroom.add_capacity_buffer(reports, replicas=4, schedule=BATCH_WINDOW)


def main() -> int:
    return run_app(build, Path(__file__).with_suffix("") / "dist")


if __name__ == "__main__":
    sys.exit(main())
