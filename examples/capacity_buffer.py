"""Headroom kept by slices, by a CapacityBuffer, or by both, on dedicated Karpenter pools.

Two pools, both tainted for their burst workloads only (PriorityModel.DEDICATED_POOL):

- ``checkout``: slices on every node (preempted at once) **and** a buffer of 3 chunks of
  the checkout pod (a PodTemplate with its shape and a pause container). The slices
  cover the first pods of a burst on the nodes that exist; the buffer keeps whole
  free room for 3 more, which Karpenter refills with new nodes.
- ``search``: a buffer alone, of 50% of the search Deployment's replicas
  (``scalableRef``).

Karpenter needs its ``CapacityBuffer`` feature gate (Helm value
``settings.featureGates.capacityBuffer=true``, Karpenter 1.14+), and serves the API at
``v1beta1`` only: ``api_version=CapacityBufferVersion.V1ALPHA1`` is for Cluster
Autoscaler 1.34, and is refused on these pools. On a shared pool any pod could take a
buffer's room; the taint keeps it for the burst pods.

    python examples/capacity_buffer.py

writes the YAML to ``$CDK8S_OUTDIR``, or to ``examples/capacity_buffer/dist``, and
prints what each headroom holds back.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cdk8s

from cdk8s_headroom import (
    CapacityBufferForm,
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
"""The ``karpenter.sh/discovery`` tag value and node role suffix, as in Karpenter's
getting-started guide."""

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
    pools = {}
    for name in ("checkout", "search"):
        pool = KarpenterNodePool(charts.cluster, name, node_class=node_class, limits={"cpu": "64"})
        # Sizes bound the share of a slice and which buffer pods fit on one node.
        pool.add_requirement(
            pool.instance_label("instance-cpu"), NodeSelectorOperator.IN, ["4", "8"]
        )
        pools[name] = pool

    both = NodeHeadroom(
        charts.workloads,
        "checkout",
        cpu="1",
        memory="2Gi",
        model=MODEL,
        node_pool=pools["checkout"],
        namespace=NAMESPACE,
        priority_classes=charts.priority_classes,
    )
    checkout = both.add_burst_workload(
        "checkout", image="public.ecr.aws/nginx/nginx:1.27", cpu="1", memory="2Gi", replicas=2
    )
    both.add_capacity_buffer(checkout, replicas=3)

    buffer_only = NodeHeadroom(
        charts.workloads,
        "search",
        model=MODEL,
        node_pool=pools["search"],
        namespace=NAMESPACE,
        priority_classes=charts.priority_classes,
    )
    search = buffer_only.add_burst_workload(
        "search", image="public.ecr.aws/nginx/nginx:1.27", cpu="2", memory="4Gi", replicas=4
    )
    buffer_only.add_capacity_buffer(search, form=CapacityBufferForm.SCALABLE, percentage=50)


def main() -> int:
    return run_app(build, Path(__file__).with_suffix("") / "dist")


if __name__ == "__main__":
    sys.exit(main())
