"""A first pool end to end: the one docs/library.md walks through.

A Namespace with Pod Security ``restricted`` (``headroom_charts``, in the file applied
first), a Karpenter NodePool ``general`` shared with ordinary pods (GUARDED), the
reserver holding a slice on each of its nodes, two burst workloads, and a CapacityBuffer
of two more ``checkout`` pods. On a shared pool any pod can take a buffer's room, and
the library warns so (a ``HeadroomWarning``); DEDICATED_POOL keeps it for burst pods
once the pool's nodes carry the taint.

    python examples/first_pool.py

writes the YAML to ``$CDK8S_OUTDIR``, or to ``examples/first_pool/dist``, and prints
what the headroom costs; ``cdk8s-headroom plan`` then checks it against a snapshot.
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


def build(app: cdk8s.App, *, node_class: NodeClassRef | None = None) -> NodeHeadroom:
    """Builds the example into ``app``: the Namespace and pool first, then workloads.

    ``node_class``: the pools' node class. Default: an ``Ec2NodeClass`` the app emits;
    the live tier passes ``NodeClassRef.kwok()`` to run the example on Karpenter's KWOK
    provider.
    """
    # Namespace "shop" (Pod Security restricted) and the GUARDED classes in
    # 0000-cluster.k8s.yaml; the workload chart (0001-headroom.k8s.yaml) comes after.
    charts = headroom_charts(app, namespace="shop", model=PriorityModel.GUARDED)
    if node_class is None:
        node_class = Ec2NodeClass(
            charts.cluster,
            "node-class",
            name="general",
            role="KarpenterNodeRole-shop",  # Karpenter's getting-started names
            discovery_tag_value="shop",
        ).ref
    pool = KarpenterNodePool(charts.cluster, "general", node_class=node_class, limits={"cpu": "64"})
    pool.add_requirement(pool.instance_label("instance-cpu"), NodeSelectorOperator.IN, ["4"])

    headroom = NodeHeadroom(
        charts.workloads,
        "shop",
        cpu="500m",  # the slice held on every node of the pool
        memory="1Gi",
        model=PriorityModel.GUARDED,
        node_pool=pool,
        namespace=charts.namespace.name,
        priority_classes=charts.priority_classes,
    )
    checkout = headroom.add_burst_workload(
        "checkout",
        image="public.ecr.aws/nginx/nginx:1.27",
        cpu="500m",
        memory="1Gi",
        replicas=2,
        max_replicas=6,  # adds a HorizontalPodAutoscaler
    )
    headroom.add_burst_workload(
        "search", image="public.ecr.aws/nginx/nginx:1.27", cpu="250m", memory="512Mi"
    )
    # Room for two more checkout pods; Karpenter launches nodes to keep it free.
    headroom.add_capacity_buffer(checkout, replicas=2)
    return headroom


def main() -> int:
    return run_app(build, Path(__file__).with_suffix("") / "dist")


if __name__ == "__main__":
    sys.exit(main())
