"""Emitted NodePools against Karpenter v1.14.1's own NodePool CRD: schema and CEL rules.

The CRD is read from ``../shared/crds`` (never copied into the repository); without
that folder these tests skip.
"""

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cdk8s
import pytest
from cdk8s import Testing as K8sTesting
from hypothesis import HealthCheck, given, settings
from hypothesis import example as also
from hypothesis import strategies as st

from cdk8s_headroom import (
    BudgetNodes,
    BudgetSchedule,
    DisruptionBudget,
    DisruptionReason,
    HeadroomConfigError,
    KarpenterNodePool,
    NodeClassRef,
    NodeHeadroom,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    PriorityModel,
    Taint,
)
from scripts.crd import CustomResourceSchema
from scripts.validation import validate_models
from tests.conftest import SHARED, Manifest, find, find_all
from tests.karpenter.test_karpenter_examples import EXAMPLES, example, synthesize
from tests.upstream_crds import NODEPOOL

NODEPOOL_CRD = SHARED / "crds" / NODEPOOL

# Skipped only without ../shared: with it (as in CI), a missing CRD file fails the tests.
pytestmark = pytest.mark.skipif(
    not SHARED.exists(),
    reason=f"Karpenter's NodePool CRD is read from {NODEPOOL_CRD}; {SHARED} is absent",
)

IN = NodeSelectorOperator.IN
CPU = "karpenter.k8s.aws/instance-cpu"


@pytest.fixture(scope="module")
def crd() -> CustomResourceSchema:
    return CustomResourceSchema.load(NODEPOOL_CRD)


@pytest.fixture(scope="module")
def default_pool() -> Manifest:
    return emitted(lambda c: KarpenterNodePool(c, "burst"))


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
    (older,) = validate_models([pool])
    assert older.errors == ()


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_examples_pools_pass_the_crd(
    crd: CustomResourceSchema, name: str, tmp_path: Path
) -> None:
    pools = find_all(synthesize(example(name), tmp_path), "NodePool")
    # eks_auto_mode targets Auto Mode's built-in pool and emits none; capacity_buffer
    # emits a shared pool and a dedicated one.
    assert len(pools) == {"eks_auto_mode": 0, "capacity_buffer": 2}.get(name, 1)
    assert {pool["metadata"]["name"]: crd.errors(pool) for pool in pools} == {
        pool["metadata"]["name"]: [] for pool in pools
    }


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


GOOD_CRON_PARTS = ["*", "?", "0", "5", "9", "23", "1-5", "mon-fri", "jan", "*/15", "1,3"]
BAD_CRON_PARTS = ["24", "31", "60", "5-1", "*/0", "xyz", "", "TZ=UTC"]
MACROS = ["@daily", "@hourly", "@every 1h", "@reboot"]
GOOD_DURATIONS = ["1m", "30m", "8h", "1h30m"]
BAD_DURATIONS = ["0m", "90s", "1h0s", "1d", "h", "2h61m"]
GOOD_NODES = ["0", "3", "10%", "100%", "0%", "007"]
BAD_NODES = ["101%", "-1", "1.5", "ten", "", "5 %"]
NODES = GOOD_NODES + BAD_NODES


def pick(draw: st.DrawFn, good: list[str], bad: list[str]) -> str:
    """A value from ``bad`` one time in eight, so that many budgets are accepted."""
    return draw(st.sampled_from(bad if draw(st.integers(0, 7)) == 0 else good))


@st.composite
def budget_texts(draw: st.DrawFn) -> tuple[str, str, str]:
    """(nodes, cron, duration) as a user might write them, right or wrong."""
    if draw(st.integers(0, 4)) == 0:
        cron = draw(st.sampled_from(MACROS))
    else:
        fields = draw(st.sampled_from([5, 5, 5, 5, 4, 6]))
        cron = " ".join(pick(draw, GOOD_CRON_PARTS, BAD_CRON_PARTS) for _ in range(fields))
    nodes = pick(draw, GOOD_NODES, BAD_NODES)
    return nodes, cron, pick(draw, GOOD_DURATIONS, BAD_DURATIONS)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=budget_texts())
@also(texts=("10%", "0 9 * * mon-fri", "8h"))
@also(texts=("3", "@daily", "1h30m"))
@also(texts=("101%", "0 9 * * mon-fri", "8h"))
def test_a_budget_the_library_accepts_karpenters_crd_accepts(
    crd: CustomResourceSchema, default_pool: Manifest, texts: tuple[str, str, str]
) -> None:
    nodes, cron, duration = texts
    try:
        budget = DisruptionBudget(
            nodes=BudgetNodes(nodes),
            reasons=[DisruptionReason.DRIFTED],
            schedule=BudgetSchedule(cron, duration),
        )
    except HeadroomConfigError as error:
        # refused by name, with the bad value shown, never a TypeError
        assert error.field in ("budgets.nodes", "budgets.schedule", "budgets.duration")
        assert repr(error.value) in str(error)
        return
    pool = copy.deepcopy(default_pool)
    pool["spec"]["disruption"]["budgets"] = [budget.to_json()]
    assert crd.errors(pool) == []


@pytest.mark.parametrize("nodes", NODES)
def test_budget_nodes_accept_exactly_what_the_crd_accepts(
    crd: CustomResourceSchema, default_pool: Manifest, nodes: str
) -> None:
    pool = copy.deepcopy(default_pool)
    pool["spec"]["disruption"]["budgets"] = [{"nodes": nodes}]
    try:
        BudgetNodes(nodes)
    except HeadroomConfigError:
        assert crd.errors(pool) != []
    else:
        assert crd.errors(pool) == []
