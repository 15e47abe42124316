"""EKS Auto Mode on its built-in ``general-purpose`` NodePool (PriorityModel.GUARDED).

This is the seed blueprint's Auto Mode variant: no NodePool or NodeClass of its own.
The built-in pools are managed by EKS and cannot be changed (so they cannot carry the
dedicated taint), which is why this example uses the GUARDED model on shared nodes.
The pool is referenced with what the EKS user guide says about it, so the headroom
knows the smallest node it may land on.

    python examples/eks_auto_mode.py

writes the YAML to ``$CDK8S_OUTDIR``, or to ``examples/eks_auto_mode/dist``, and prints
what the headroom costs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cdk8s

from cdk8s_headroom import (
    KarpenterNodePool,
    NodeHeadroom,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    PriorityModel,
    headroom_charts,
    run_app,
)

MODEL = PriorityModel.GUARDED
NAMESPACE = "node-headroom"

GENERAL_PURPOSE = KarpenterNodePool.from_name(
    "general-purpose",
    # "Enable or Disable Built-in NodePools" (EKS user guide): amd64 only, on-demand
    # only, the C, M and R families, generation 5 or newer. Its limits are not
    # documented, so none are declared and the worst case stays unknown.
    requirements=[
        NodeSelectorRequirement("kubernetes.io/arch", NodeSelectorOperator.IN, ("amd64",)),
        NodeSelectorRequirement(
            "karpenter.sh/capacity-type", NodeSelectorOperator.IN, ("on-demand",)
        ),
        NodeSelectorRequirement(
            "eks.amazonaws.com/instance-category", NodeSelectorOperator.IN, ("c", "m", "r")
        ),
        NodeSelectorRequirement(
            "eks.amazonaws.com/instance-generation", NodeSelectorOperator.GT, ("4",)
        ),
    ],
)


def build(app: cdk8s.App) -> None:
    """Builds the example into ``app``: cluster-scoped objects first, then workloads."""
    charts = headroom_charts(app, namespace=NAMESPACE, model=MODEL)

    headroom = NodeHeadroom(
        charts.workloads,
        "headroom",
        cpu="500m",
        memory="512Mi",
        model=MODEL,
        node_pool=GENERAL_PURPOSE,
        namespace=NAMESPACE,
        priority_classes=charts.priority_classes,
    )
    headroom.add_burst_workload(
        "demo-burst",
        image="public.ecr.aws/amazonlinux/amazonlinux:2",
        container_name="cpu-burn",
        cpu="500m",
        memory="512Mi",
        cpu_limit="800m",
        memory_limit="1Gi",
        command=["/bin/sh", "-c"],
        args=["while true; do sha1sum /dev/zero | head -c 1000000 > /dev/null; sleep 0.5; done"],
    )


def main() -> int:
    return run_app(build, Path(__file__).with_suffix("") / "dist")


if __name__ == "__main__":
    sys.exit(main())
