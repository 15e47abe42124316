"""Emitted NodePools against Karpenter v1.14.1's own NodePool CRD: schema and CEL rules.

The CRD is read from ``../shared/crds`` (never copied into the repository); without
that folder these tests skip.
"""

from collections.abc import Callable
from typing import Any

import cdk8s
import pytest
from cdk8s import Testing as K8sTesting

from cdk8s_headroom import (
    BudgetNodes,
    BudgetSchedule,
    DisruptionBudget,
    DisruptionReason,
    KarpenterNodePool,
    NodeClassRef,
    NodeHeadroom,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    PriorityModel,
    Taint,
)
from scripts.crd import CustomResourceSchema
from scripts.validation import validate_karpenter
from tests.conftest import SHARED, Manifest, find

NODEPOOL_CRD = SHARED / "crds" / "karpenter-v1.14.1_karpenter.sh_nodepools.yaml"

pytestmark = pytest.mark.skipif(
    not NODEPOOL_CRD.exists(),
    reason=f"Karpenter's NodePool CRD is read from {NODEPOOL_CRD}, which is absent",
)

IN = NodeSelectorOperator.IN
CPU = "karpenter.k8s.aws/instance-cpu"


@pytest.fixture(scope="module")
def crd() -> CustomResourceSchema:
    return CustomResourceSchema.load(NODEPOOL_CRD)


def emitted(build: Callable[[cdk8s.Chart], object]) -> Manifest:
    chart = K8sTesting.chart()
    build(chart)
    return find(list(K8sTesting.synth(chart)), "NodePool")


def _full(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(
        chart,
        "burst",
        labels={"team": "payments"},
        requirements=[
            NodeSelectorRequirement("karpenter.sh/capacity-type", IN, ("spot", "on-demand")),
            NodeSelectorRequirement(
                "karpenter.k8s.aws/instance-family", IN, ("m7i", "c7i", "r7i"), 2
            ),
            NodeSelectorRequirement("karpenter.k8s.aws/instance-category", IN, ("c", "m", "r")),
            NodeSelectorRequirement(CPU, NodeSelectorOperator.GTE, ("4",)),
            NodeSelectorRequirement(CPU, NodeSelectorOperator.LTE, ("32",)),
            NodeSelectorRequirement(
                "karpenter.k8s.aws/instance-hypervisor", NodeSelectorOperator.EXISTS, (), 1
            ),
        ],
        taints=[Taint("dedicated", "payments")],
        budgets=[
            DisruptionBudget(nodes=BudgetNodes.percent(10)),
            DisruptionBudget(
                nodes=BudgetNodes.count(1),
                reasons=[DisruptionReason.DRIFTED],
                schedule=BudgetSchedule("@daily", "1h30m"),
            ),
        ],
        termination_grace_period="48h",
        weight=10,
    )
    NodeHeadroom(
        chart,
        "h",
        cpu="1",
        memory="1Gi",
        model=PriorityModel.DEDICATED_POOL,
        node_pool=pool,
        drift_on_change=True,
    )


POOLS: dict[str, Callable[[cdk8s.Chart], object]] = {
    "defaults": lambda c: KarpenterNodePool(c, "burst"),
    "auto mode": lambda c: KarpenterNodePool(
        c, "burst", node_class=NodeClassRef.eks_auto_mode(), limits={}
    ),
    "budgets, minValues, Gte/Lte, grace period, dedicated taint, drift": _full,
}


@pytest.mark.parametrize("build", POOLS.values(), ids=POOLS.keys())
def test_emitted_pools_pass_the_crd_and_the_npm_validators(
    crd: CustomResourceSchema, build: Callable[[cdk8s.Chart], object]
) -> None:
    pool = emitted(build)
    assert crd.errors(pool) == []
    (older,) = validate_karpenter([pool])
    assert older.errors == ()


def test_the_crd_has_cel_rules_and_they_are_evaluated(crd: CustomResourceSchema) -> None:
    pool = emitted(_full)
    assert len(crd.rules()) > 5
    pool["spec"]["template"]["spec"]["requirements"][1]["minValues"] = 4
    del pool["spec"]["disruption"]["budgets"][1]["duration"]
    assert crd.errors(pool) == [
        "spec.disruption.budgets: 'schedule' must be set with 'duration'",
        "spec.template.spec.requirements: requirements with 'minValues' must have at least "
        "that many values specified in the 'values' field",
    ]


@pytest.mark.parametrize(
    ("path", "value", "error"),
    [
        (("spec", "template", "spec", "bogus"), 1, "'bogus' was unexpected"),
        (("spec", "disruption", "budgets"), [{"nodes": "101%"}], "does not match"),
        (
            ("spec", "disruption", "budgets"),
            [{"nodes": "1", "reasons": ["Expired"]}],
            "is not one of",
        ),
        (("spec", "template", "metadata"), {"labels": {"karpenter.sh/x": "y"}}, "is restricted"),
    ],
    ids=["unknown field", "nodes over 100%", "unknown reason", "restricted label domain"],
)
def test_the_crd_refuses_what_karpenter_refuses(
    crd: CustomResourceSchema, path: tuple[str, ...], value: Any, error: str
) -> None:
    pool = emitted(POOLS["defaults"])
    parent = pool
    for key in path[:-1]:
        parent = parent.setdefault(key, {})
    parent[path[-1]] = value
    assert any(error in e for e in crd.errors(pool)), crd.errors(pool)
