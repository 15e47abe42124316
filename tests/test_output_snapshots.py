"""The whole synthesized output per model, locked down. Refresh only on purpose:
`pytest tests/test_output_snapshots.py --snapshot-update`, with the reason in the commit."""

import warnings
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from cdk8s_headroom import (
    DEFAULT_DEDICATED_TAINT,
    NodeHeadroom,
    NodePoolRef,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    PriorityModel,
    ReserverTask,
    Taint,
    Toleration,
    TolerationOperator,
)

POOL = NodePoolRef.karpenter("burst-pool", taints=[DEFAULT_DEDICATED_TAINT])


def build(chart: Any, model: PriorityModel, *, custom: bool) -> None:
    pool = POOL if model is PriorityModel.DEDICATED_POOL or custom else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not custom:
            headroom = NodeHeadroom(
                chart, "headroom", cpu="500m", memory="512Mi", model=model, node_pool=pool
            )
            headroom.add_burst_workload(
                "demo-burst", image="nginx:1.27", cpu="500m", memory="512Mi"
            )
            return
        headroom = NodeHeadroom(
            chart,
            "headroom",
            cpu="2",
            memory="4Gi",
            model=model,
            node_pool=pool,
            namespace="payments",
            task=ReserverTask.custom(image="ghcr.io/acme/log-shipper:2", args=["--ship"]),
            prepull_burst_images=True,
            reserver_name="payments-headroom",
            node_selector={"kubernetes.io/arch": "amd64"},
            tolerations=[Toleration(key="spot", operator=TolerationOperator.EXISTS)],
            node_affinity=[
                NodeSelectorRequirement(
                    "topology.kubernetes.io/zone",
                    NodeSelectorOperator.IN,
                    ("eu-west-1a", "eu-west-1b"),
                )
            ],
            labels={"team": "payments"},
        )
        headroom.add_burst_workload(
            "checkout",
            image="ghcr.io/acme/checkout:7",
            cpu="1",
            memory="2Gi",
            memory_limit="3Gi",
            replicas=2,
            max_replicas=8,
            tolerations=[Toleration(key="batch", value="yes")],
        )
        headroom.add_burst_workload(
            "fraud", image="ghcr.io/acme/fraud:3", cpu="500m", memory="1Gi", replicas=0
        )


@pytest.mark.parametrize("model", list(PriorityModel), ids=lambda m: m.value)
@pytest.mark.parametrize("variant", ["defaults", "custom"])
def test_synthesized_output(
    chart: Any, synth: Any, snapshot: SnapshotAssertion, model: PriorityModel, variant: str
) -> None:
    build(chart, model, custom=variant == "custom")
    assert synth(chart) == snapshot


def test_taint_is_rendered_as_key_value_effect() -> None:
    assert str(Taint("a", "b")) == "a=b:NoSchedule"
