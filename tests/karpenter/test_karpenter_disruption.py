"""NodePools in full: disruption budgets, minValues, Gte/Lte, terminationGracePeriod."""

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import cdk8s
import pytest
from syrupy.assertion import SnapshotAssertion

from cdk8s_headroom import (
    BudgetNodes,
    BudgetSchedule,
    DisruptionBudget,
    DisruptionReason,
    HeadroomConfigError,
    KarpenterNodePool,
    NodeHeadroom,
    NodeSelectorOperator,
    NodeSelectorRequirement,
)
from cdk8s_headroom.vocabulary.node_sizes import smallest_node
from scripts.validation import validate_models
from tests.conftest import Manifest, find

IN = NodeSelectorOperator.IN
GTE = NodeSelectorOperator.GTE
LTE = NodeSelectorOperator.LTE
CPU = "karpenter.k8s.aws/instance-cpu"
FAMILY = "karpenter.k8s.aws/instance-family"


def full_pool(chart: cdk8s.Chart) -> KarpenterNodePool:
    """A spot pool as platform teams write them: flexible, rolled slowly, drained in time."""
    return KarpenterNodePool(
        chart,
        "burst",
        requirements=[
            NodeSelectorRequirement("karpenter.sh/capacity-type", IN, ("spot",)),
            NodeSelectorRequirement(FAMILY, IN, ("m7i", "m6i", "c7i", "c6i", "r7i"), 3),
            NodeSelectorRequirement(CPU, GTE, ("4",)),
            NodeSelectorRequirement(CPU, LTE, ("16",)),
        ],
        budgets=[
            DisruptionBudget(nodes=BudgetNodes.percent(20)),
            DisruptionBudget(
                nodes=BudgetNodes.count(0),
                reasons=[DisruptionReason.UNDERUTILIZED, DisruptionReason.EMPTY],
                schedule=BudgetSchedule("0 9 * * mon-fri", "8h"),
            ),
        ],
        termination_grace_period="24h",
    )


def spec_of(objects: list[Manifest]) -> Manifest:
    spec: Manifest = find(objects, "NodePool")["spec"]
    return spec


def raises_on(field: str, build: Callable[[], object]) -> HeadroomConfigError:
    with pytest.raises(HeadroomConfigError) as raised:
        build()
    assert raised.value.field == field, str(raised.value)
    return raised.value


def test_full_pool(chart: cdk8s.Chart, synth: Any, snapshot: SnapshotAssertion) -> None:
    full_pool(chart)
    objects = synth(chart)
    assert objects == snapshot
    (result,) = validate_models([find(objects, "NodePool")])
    assert result.errors == ()


def test_budgets_render_nodes_reasons_and_schedule(chart: cdk8s.Chart, synth: Any) -> None:
    full_pool(chart)
    assert spec_of(synth(chart))["disruption"]["budgets"] == [
        {"nodes": "20%"},
        {
            "nodes": "0",
            "reasons": ["Underutilized", "Empty"],
            "schedule": "0 9 * * mon-fri",
            "duration": "8h",
        },
    ]


def test_a_pool_without_budgets_leaves_karpenters_default(chart: cdk8s.Chart, synth: Any) -> None:
    KarpenterNodePool(chart, "burst")
    assert "budgets" not in spec_of(synth(chart))["disruption"]


def test_budgets_added_later_reach_the_output(chart: cdk8s.Chart, synth: Any) -> None:
    pool = KarpenterNodePool(chart, "burst")
    pool.add_disruption_budget(
        DisruptionBudget(nodes=BudgetNodes.count(1), reasons=[DisruptionReason.DRIFTED])
    )
    assert spec_of(synth(chart))["disruption"]["budgets"] == [
        {"nodes": "1", "reasons": ["Drifted"]}
    ]


def test_min_values_gte_lte_and_grace_period_render(chart: cdk8s.Chart, synth: Any) -> None:
    full_pool(chart)
    template = spec_of(synth(chart))["template"]["spec"]
    assert template["terminationGracePeriod"] == "24h"
    assert template["requirements"][1:] == [
        {
            "key": FAMILY,
            "operator": "In",
            "values": ["m7i", "m6i", "c7i", "c6i", "r7i"],
            "minValues": 3,
        },
        {"key": CPU, "operator": "Gte", "values": ["4"]},
        {"key": CPU, "operator": "Lte", "values": ["16"]},
    ]


def test_a_budget_duration_from_cdk8s_is_written_in_hours_and_minutes() -> None:
    schedule = BudgetSchedule("@daily", cdk8s.Duration.minutes(90))
    assert schedule.duration == "1h30m"


def test_a_repeated_reason_is_written_once() -> None:
    budget = DisruptionBudget(
        nodes=BudgetNodes.percent(5),
        reasons=[DisruptionReason.DRIFTED, DisruptionReason.DRIFTED],
    )
    assert budget.to_json() == {"nodes": "5%", "reasons": ["Drifted"]}


@pytest.mark.parametrize(
    "cron",
    [
        "0 9 * * 1-5",
        "*/15 * * * *",
        "0 0 1,15 jan-jun ?",
        "30 2 * * SUN",
        "@weekly",
        "5/10 * * * *",
    ],
)
def test_cron_expressions_karpenter_accepts_are_accepted(cron: str) -> None:
    assert BudgetSchedule(cron, "1h").cron == cron


@pytest.mark.parametrize(
    ("build", "field"),
    [
        pytest.param(lambda: BudgetNodes.percent(101), "budgets.nodes", id="percent over 100"),
        pytest.param(lambda: BudgetNodes.count(-1), "budgets.nodes", id="negative count"),
        pytest.param(lambda: BudgetNodes("ten"), "budgets.nodes", id="nodes text"),
        pytest.param(
            lambda: DisruptionBudget(nodes="10%"),  # type: ignore[arg-type]
            "budgets.nodes",
            id="nodes as a string",
        ),
        pytest.param(
            lambda: DisruptionBudget(nodes=BudgetNodes.count(1), reasons=["Drifted"]),  # type: ignore[list-item]
            "budgets.reasons",
            id="reason as a string",
        ),
        pytest.param(
            lambda: BudgetSchedule("0 9 * *", "1h"), "budgets.schedule", id="four cron fields"
        ),
        pytest.param(lambda: BudgetSchedule("0 24 * * *", "1h"), "budgets.schedule", id="hour 24"),
        pytest.param(
            lambda: BudgetSchedule("0 9 * * mon-xyz", "1h"), "budgets.schedule", id="bad day"
        ),
        pytest.param(lambda: BudgetSchedule("@every 1h", "1h"), "budgets.schedule", id="@every"),
        pytest.param(
            lambda: BudgetSchedule("TZ=UTC 0 9 * * *", "1h"), "budgets.schedule", id="time zone"
        ),
        pytest.param(lambda: BudgetSchedule("0 9 * * *", "30s"), "budgets.duration", id="seconds"),
        pytest.param(lambda: BudgetSchedule("0 9 * * *", "0m"), "budgets.duration", id="zero"),
        pytest.param(
            lambda: BudgetSchedule("0 9 * * *", cdk8s.Duration.seconds(90)),
            "budgets.duration",
            id="cdk8s duration of seconds",
        ),
    ],
)
def test_bad_budgets_raise_naming_the_field(build: Callable[[], object], field: str) -> None:
    raises_on(field, build)


def test_a_bad_cron_says_which_field_is_wrong() -> None:
    error = raises_on("budgets.schedule", lambda: BudgetSchedule("0 25 * * *", "1h"))
    assert "the hour field '25' is not" in str(error)


@pytest.mark.parametrize(
    ("build", "field"),
    [
        pytest.param(
            lambda c: KarpenterNodePool(c, "p", budgets=[{"nodes": "10%"}]),
            "budgets",
            id="budget as a dict",
        ),
        pytest.param(
            lambda c: KarpenterNodePool(c, "p", termination_grace_period="Never"),
            "termination_grace_period",
            id="grace period Never",
        ),
        pytest.param(
            lambda c: KarpenterNodePool(c, "p", termination_grace_period="1d"),
            "termination_grace_period",
            id="grace period in days",
        ),
        pytest.param(
            lambda c: KarpenterNodePool(
                c, "p", budgets=[DisruptionBudget(nodes=BudgetNodes.count(1))] * 51
            ),
            "budgets",
            id="51 budgets",
        ),
        pytest.param(
            lambda c: KarpenterNodePool(c, "p").add_requirement(FAMILY, IN, ["m7i"], min_values=2),
            f"requirements[{FAMILY}].min_values",
            id="minValues above the values",
        ),
        pytest.param(
            lambda c: KarpenterNodePool(c, "p").add_requirement(FAMILY, IN, ["m7i"], min_values=0),
            f"requirements[{FAMILY}].min_values",
            id="minValues zero",
        ),
        pytest.param(
            lambda c: KarpenterNodePool(c, "p").add_requirement(
                FAMILY, NodeSelectorOperator.DOES_NOT_EXIST, min_values=1
            ),
            f"requirements[{FAMILY}].min_values",
            id="minValues on DoesNotExist",
        ),
        pytest.param(
            lambda c: KarpenterNodePool(c, "p").add_requirement(CPU, GTE, ["-1"]),
            f"requirements[{CPU}].values",
            id="Gte below zero",
        ),
        pytest.param(
            lambda c: KarpenterNodePool(c, "p").add_requirement(CPU, LTE, ["4", "8"]),
            f"requirements[{CPU}].values",
            id="Lte with two values",
        ),
    ],
)
def test_bad_pool_props_raise_naming_the_field(
    chart: cdk8s.Chart, build: Callable[[cdk8s.Chart], object], field: str
) -> None:
    raises_on(field, lambda: build(chart))


def test_gte_and_lte_bound_the_smallest_node() -> None:
    requirements = [
        NodeSelectorRequirement(CPU, GTE, ("4",)),
        NodeSelectorRequirement(CPU, LTE, ("16",)),
        NodeSelectorRequirement("karpenter.k8s.aws/instance-category", IN, ("m",)),
    ]
    node = smallest_node(requirements, field="requirements")
    assert node.cpu == 4
    assert node.memory == 16 * 2**30


def test_gte_counts_its_own_value_where_gt_does_not() -> None:
    gte = smallest_node([NodeSelectorRequirement(CPU, GTE, ("8",))], field="r")
    gt = smallest_node([NodeSelectorRequirement(CPU, NodeSelectorOperator.GT, ("8",))], field="r")
    assert (gte.cpu, gt.cpu) == (Fraction(8), Fraction(9))


def test_lte_excludes_the_in_values_above_it() -> None:
    node = smallest_node(
        [
            NodeSelectorRequirement(CPU, IN, ("2", "4", "8")),
            NodeSelectorRequirement(CPU, NodeSelectorOperator.NOT_IN, ("2",)),
            NodeSelectorRequirement(CPU, LTE, ("4",)),
        ],
        field="r",
    )
    assert node.cpu == 4


def test_gte_above_lte_allows_no_instance(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(chart, "p", requirements=[NodeSelectorRequirement(CPU, GTE, ("16",))])
    error = raises_on(f"requirements[{CPU}]", lambda: pool.add_requirement(CPU, LTE, ["8"]))
    assert "allow no instance at all" in str(error)


def test_requirements_that_leave_fewer_values_than_min_values_are_refused(
    chart: cdk8s.Chart,
) -> None:
    pool = KarpenterNodePool(
        chart,
        "p",
        requirements=[NodeSelectorRequirement(FAMILY, IN, ("m7i", "c7i", "r7i"), 3)],
    )
    error = raises_on(
        f"requirements[{FAMILY}].min_values",
        lambda: pool.add_requirement(FAMILY, NodeSelectorOperator.NOT_IN, ["r7i"]),
    )
    assert "leave only ['c7i', 'm7i']" in str(error)
    assert len(pool.requirements) == 1


def test_min_values_on_instance_cpu_counts_what_gte_leaves(chart: cdk8s.Chart) -> None:
    with pytest.raises(HeadroomConfigError, match="min_values"):
        KarpenterNodePool(
            chart,
            "p",
            requirements=[
                NodeSelectorRequirement(CPU, IN, ("2", "4", "8"), 3),
                NodeSelectorRequirement(CPU, GTE, ("4",)),
            ],
        )


def test_min_values_counts_the_integers_that_bounds_on_both_sides_leave(
    chart: cdk8s.Chart,
) -> None:
    # Gte 4 and Lte 4 leave one size: Karpenter could launch nothing for minValues 2.
    with pytest.raises(HeadroomConfigError, match=r"leave only \['4'\]"):
        KarpenterNodePool(
            chart,
            "tight",
            requirements=[
                NodeSelectorRequirement(CPU, NodeSelectorOperator.GTE, ("4",), 2),
                NodeSelectorRequirement(CPU, NodeSelectorOperator.LTE, ("4",)),
            ],
        )
    # Gt 2 and Lt 9 leave 3 to 8, less the NotIn: four values, enough for minValues 4.
    pool = KarpenterNodePool(
        chart,
        "wide",
        requirements=[
            NodeSelectorRequirement(CPU, NodeSelectorOperator.GT, ("2",), 4),
            NodeSelectorRequirement(CPU, NodeSelectorOperator.LT, ("9",)),
            NodeSelectorRequirement(CPU, NodeSelectorOperator.NOT_IN, ("4", "6")),
        ],
    )
    assert len(pool.requirements) == 3
    with pytest.raises(HeadroomConfigError, match=r"leave only \['3', '5', '7'\]"):
        pool.add_requirement(CPU, NodeSelectorOperator.NOT_IN, ["8"])


def test_the_crds_limits_on_requirements_and_labels_are_refused_past_them(
    chart: cdk8s.Chart,
) -> None:
    # Karpenter's CRD takes at most 100 requirements and 100 template labels.
    exists = NodeSelectorOperator.EXISTS
    keys = [f"example.com/k{i}" for i in range(101)]
    full = KarpenterNodePool(
        chart, "full", requirements=[NodeSelectorRequirement(k, exists) for k in keys[:100]]
    )
    assert len(full.requirements) == 100
    with pytest.raises(HeadroomConfigError, match="at most 100 requirements") as raised:
        full.add_requirement(keys[100], exists)
    assert raised.value.field == "requirements"
    with pytest.raises(HeadroomConfigError, match="at most 100 requirements"):
        KarpenterNodePool(
            chart, "over", requirements=[NodeSelectorRequirement(k, exists) for k in keys]
        )
    labels = {f"example.com/l{i}": "x" for i in range(101)}
    with pytest.raises(HeadroomConfigError, match="at most 100 labels") as raised:
        KarpenterNodePool(chart, "labelled", labels=labels)
    assert raised.value.field == "labels"


def test_a_slice_larger_than_the_gte_bound_node_is_refused(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(
        chart,
        "p",
        requirements=[
            NodeSelectorRequirement(CPU, GTE, ("2",)),
            NodeSelectorRequirement("karpenter.k8s.aws/instance-category", IN, ("c",)),
        ],
    )
    with pytest.raises(HeadroomConfigError, match="a slice that fits on the smallest node"):
        NodeHeadroom(chart, "h", cpu="2", memory="1Gi", node_pool=pool)


@pytest.mark.parametrize(
    "requirement",
    [
        NodeSelectorRequirement(CPU, GTE, ("4",)),
        NodeSelectorRequirement(FAMILY, IN, ("m7i", "c7i"), 2),
    ],
    ids=["Gte", "minValues"],
)
def test_pod_node_affinity_refuses_what_only_karpenter_has(
    chart: cdk8s.Chart, requirement: NodeSelectorRequirement
) -> None:
    error = raises_on(
        f"node_affinity[{requirement.key}]",
        lambda: NodeHeadroom(chart, "h", cpu="1", memory="1Gi", node_affinity=[requirement]),
    )
    assert "Karpenter's" in str(error)


@pytest.mark.parametrize(
    ("operator", "value", "label", "matches"),
    [
        (GTE, "4", "4", True),
        (GTE, "4", "3", False),
        (LTE, "4", "4", True),
        (LTE, "4", "5", False),
        (GTE, "0", "x", False),
    ],
)
def test_gte_and_lte_match_labels_as_integers(
    operator: NodeSelectorOperator, value: str, label: str, matches: bool
) -> None:
    assert NodeSelectorRequirement(CPU, operator, (value,)).matches(label) is matches


def test_a_node_label_outside_a_gte_bound_contradicts_the_pool(chart: cdk8s.Chart) -> None:
    with pytest.raises(HeadroomConfigError, match="contradict"):
        KarpenterNodePool(
            chart,
            "p",
            labels={"example.com/tier": "2"},
            requirements=[NodeSelectorRequirement("example.com/tier", GTE, ("3",))],
        )


WRONG_TYPES: dict[str, tuple[Callable[[cdk8s.Chart], object], str]] = {
    "grace period as a number": (
        lambda c: KarpenterNodePool(c, "p", termination_grace_period=5),  # type: ignore[arg-type]
        "termination_grace_period",
    ),
    "grace period in milliseconds": (
        lambda c: KarpenterNodePool(
            c, "p", termination_grace_period=cdk8s.Duration.millis(1500)
        ),
        "termination_grace_period",
    ),
    "budgets None": (
        lambda c: KarpenterNodePool(c, "p", budgets=None),  # type: ignore[arg-type]
        "budgets",
    ),
    "budget added as a dict": (
        lambda c: KarpenterNodePool(c, "p").add_disruption_budget({"nodes": "1"}),  # type: ignore[arg-type]
        "budgets",
    ),
    "duration as a number": (lambda c: BudgetSchedule("@daily", 5), "budgets.duration"),  # type: ignore[arg-type]
    "cron as a number": (lambda c: BudgetSchedule(5, "1h"), "budgets.schedule"),  # type: ignore[arg-type]
    "percent as a string": (lambda c: BudgetNodes.percent("10"), "budgets.nodes"),  # type: ignore[arg-type]
    "count as a bool": (lambda c: BudgetNodes.count(True), "budgets.nodes"),
    "reasons as one string": (
        lambda c: DisruptionBudget(nodes=BudgetNodes.count(1), reasons="Drifted"),  # type: ignore[arg-type]
        "budgets.reasons",
    ),
    "schedule as a string": (
        lambda c: DisruptionBudget(nodes=BudgetNodes.count(1), schedule="@daily"),  # type: ignore[arg-type]
        "budgets.schedule",
    ),
    "minValues as a string": (
        lambda c: KarpenterNodePool(c, "p").add_requirement(FAMILY, IN, ["a", "b"], min_values="2"),  # type: ignore[arg-type]
        f"requirements[{FAMILY}].min_values",
    ),
    "operator as a string": (
        lambda c: KarpenterNodePool(c, "p").add_requirement(CPU, "Gte", ["4"]),  # type: ignore[arg-type]
        f"requirements[{CPU}].operator",
    ),
    "Gte value as a number": (
        lambda c: KarpenterNodePool(c, "p").add_requirement(CPU, GTE, [4]),  # type: ignore[list-item]
        f"requirements[{CPU}].values",
    ),
    "drift as a string": (
        lambda c: NodeHeadroom(
            c, "h", cpu="1", memory="1Gi", node_pool=KarpenterNodePool(c, "p"),
            drift_on_change="yes",  # type: ignore[arg-type]
        ),
        "drift_on_change",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_a_value_of_the_wrong_type_is_a_config_error_not_a_type_error(
    chart: cdk8s.Chart, case: tuple[Callable[[cdk8s.Chart], object], str]
) -> None:
    build, field = case
    error = raises_on(field, lambda: build(chart))
    message = str(error)
    assert message.startswith(f"{field}: invalid value ")
    assert error.allowed and message.endswith(error.allowed)
