"""A separate team's cdk8s app that consumes cdk8s-headroom as an installed package.

tests/test_packaging.py installs the wheel into a fresh virtualenv and runs this file
from an empty folder, so it sees only what the wheel ships. It is also type-checked with
`mypy --strict`, as a consumer's code would be.
"""

from __future__ import annotations

import cdk8s

from cdk8s_headroom import (
    BurstWorkload,
    HeadroomPriorityClasses,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
    ReserverTask,
    synth,
)


def build(app: cdk8s.App) -> BurstWorkload:
    chart = cdk8s.Chart(app, "payments", labels={"team": "payments", "cost-center": "cc-42"})
    classes = HeadroomPriorityClasses(chart, "classes", model=PriorityModel.GUARDED)
    headroom = NodeHeadroom(
        chart,
        "checkout-headroom",
        cpu="1",
        memory="2Gi",
        node_pool=NodePoolRef.karpenter("checkout-pool"),
        namespace="payments",
        priority_classes=classes,
        task=ReserverTask.pause(),
        prepull_burst_images=True,
    )
    return headroom.add_burst_workload(
        "checkout", image="ghcr.io/acme/checkout:7", cpu="750m", memory="1536Mi", replicas=3
    )


if __name__ == "__main__":
    app = cdk8s.App()
    build(app)
    synth(app)
