"""Karpenter on EC2, with a dedicated burst pool (PriorityModel.DEDICATED_POOL).

The app emits an EC2NodeClass and a NodePool ``burst`` of 4- and 8-vCPU instances. The
headroom taints the pool, so only its reservers and the ``checkout`` burst workload
land there: ordinary pods never take the slice (P1), and the race GUARDED has with
pending ordinary pods is gone.

    python examples/karpenter_dedicated_pool.py

writes the YAML to ``$CDK8S_OUTDIR``, or to ``examples/karpenter_dedicated_pool/dist``,
and prints what the headroom costs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cdk8s

from cdk8s_headroom import (
    Ec2NodeClass,
    KarpenterNodePool,
    NodeClassRef,
    NodeHeadroom,
    NodeSelectorOperator,
    PriorityModel,
    headroom_charts,
    run_app,
)

CLUSTER_NAME = "headroom-demo"
"""The value of the ``karpenter.sh/discovery`` tag on the cluster's subnets and
security groups, and the suffix of the node role, as in Karpenter's getting-started guide."""

MODEL = PriorityModel.DEDICATED_POOL
NAMESPACE = "burst"


def build(app: cdk8s.App, *, node_class: NodeClassRef | None = None) -> None:
    """Builds the example into ``app``: cluster-scoped objects first, then workloads.

    ``node_class``: the pools' node class. Default: an ``Ec2NodeClass`` the app emits;
    the live tier passes ``NodeClassRef.kwok()`` to run the example on Karpenter's KWOK
    provider.
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
    # Sizes the pool may launch: they bound the share each slice takes, and the
    # limits then bound how many nodes (so slices) the pool can hold.
    pool.add_requirement(pool.instance_label("instance-cpu"), NodeSelectorOperator.IN, ["4", "8"])

    headroom = NodeHeadroom(
        charts.workloads,
        "headroom",
        cpu="1",
        memory="2Gi",
        model=MODEL,
        node_pool=pool,
        namespace=NAMESPACE,
        priority_classes=charts.priority_classes,
        prepull_burst_images=True,
    )
    headroom.add_burst_workload(
        "checkout",
        image="public.ecr.aws/nginx/nginx:1.27",
        cpu="1",
        memory="2Gi",
        replicas=1,
        max_replicas=4,
    )


def main() -> int:
    return run_app(build, Path(__file__).with_suffix("") / "dist")


if __name__ == "__main__":
    sys.exit(main())
