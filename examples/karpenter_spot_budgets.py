"""Karpenter on EC2: a dedicated spot pool with disruption budgets and ``minValues``.

The pool ``spot-burst`` runs on spot instances of at least five families (``minValues``,
so Karpenter keeps enough spot offerings to choose from) and of 4 to 16 vCPUs
(``Gte``/``Lte``). Its budgets let consolidation touch at most 10% of the nodes, none in
office hours (UTC), and replace drifted nodes one at a time. The headroom writes its
room into the pool's template (``drift_on_change``): when the slice changes, Karpenter
rolls the nodes under that ``Drifted`` budget, and each new node starts with its slice.
Burst images are pre-pulled by a DaemonSet of their own, so image releases never touch
the reservers. Nodes drain for at most 2 hours (``terminationGracePeriod``).

    python examples/karpenter_spot_budgets.py

writes the YAML to ``$CDK8S_OUTDIR``, or to ``examples/karpenter_spot_budgets/dist``,
and prints what the headroom costs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cdk8s

from cdk8s_headroom import (
    BudgetNodes,
    BudgetSchedule,
    DisruptionBudget,
    DisruptionReason,
    Ec2NodeClass,
    KarpenterNodePool,
    NodeHeadroom,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    PriorityModel,
    headroom_charts,
    run_app,
)

CLUSTER_NAME = "headroom-demo"
"""The value of the ``karpenter.sh/discovery`` tag, and the suffix of the node role."""

MODEL = PriorityModel.DEDICATED_POOL
NAMESPACE = "spot-burst"
FAMILIES = ("m7i", "m6i", "m5", "c7i", "c6i", "c5", "r7i", "r6i")


def build(app: cdk8s.App) -> None:
    """Builds the example into ``app``: cluster-scoped objects first, then workloads."""
    charts = headroom_charts(app, namespace=NAMESPACE, model=MODEL)
    node_class = Ec2NodeClass(
        charts.cluster,
        "node-class",
        name="spot-burst",
        role=f"KarpenterNodeRole-{CLUSTER_NAME}",
        discovery_tag_value=CLUSTER_NAME,
    )
    in_ = NodeSelectorOperator.IN
    pool = KarpenterNodePool(
        charts.cluster,
        "spot-burst",
        node_class=node_class,
        requirements=[
            NodeSelectorRequirement("kubernetes.io/arch", in_, ("amd64",)),
            NodeSelectorRequirement("karpenter.sh/capacity-type", in_, ("spot",)),
            NodeSelectorRequirement("karpenter.k8s.aws/instance-family", in_, FAMILIES, 5),
            NodeSelectorRequirement(
                "karpenter.k8s.aws/instance-cpu", NodeSelectorOperator.GTE, ("4",)
            ),
            NodeSelectorRequirement(
                "karpenter.k8s.aws/instance-cpu", NodeSelectorOperator.LTE, ("16",)
            ),
            NodeSelectorRequirement("karpenter.k8s.aws/instance-category", in_, ("c", "m", "r")),
        ],
        limits={"cpu": "128"},
        budgets=[
            DisruptionBudget(nodes=BudgetNodes.percent(10)),
            DisruptionBudget(
                nodes=BudgetNodes.count(0),
                reasons=[DisruptionReason.UNDERUTILIZED, DisruptionReason.EMPTY],
                schedule=BudgetSchedule("0 8 * * mon-fri", "10h"),
            ),
            DisruptionBudget(nodes=BudgetNodes.count(1), reasons=[DisruptionReason.DRIFTED]),
        ],
        termination_grace_period="2h",
    )

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
        drift_on_change=True,
    )
    headroom.add_burst_workload(
        "search",
        image="public.ecr.aws/nginx/nginx:1.27",
        cpu="1",
        memory="2Gi",
        replicas=1,
        max_replicas=8,
    )


def main() -> int:
    return run_app(build, Path(__file__).with_suffix("") / "dist")


if __name__ == "__main__":
    sys.exit(main())
