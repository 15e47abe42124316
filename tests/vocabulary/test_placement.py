"""The scheduling vocabulary: one matcher for tolerations and one for node selector
requirements, shared by the constructs and the simulator, and one Placement."""

from __future__ import annotations

import json

import pytest

from cdk8s_headroom import HeadroomConfigError
from cdk8s_headroom.vocabulary.placement import (
    NodeSelectorOperator,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Placement,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)

TAINT = Taint("dedicated", "burst", TaintEffect.NO_SCHEDULE)
EXISTS = TolerationOperator.EXISTS
EQUAL = TolerationOperator.EQUAL


@pytest.mark.parametrize(
    ("toleration", "tolerates"),
    [
        (TAINT.toleration(), True),
        (Toleration("dedicated", EXISTS), True),
        (Toleration("", EXISTS), True),
        (Toleration("dedicated", EQUAL, "other"), False),
        (Toleration("other", EXISTS), False),
        (Toleration("dedicated", EXISTS, effect=TaintEffect.NO_EXECUTE), False),
        # Read from a manifest: an empty key with Equal matches every key, as in
        # v1.Toleration.ToleratesTaint (the API server rejects it; a reader does not).
        (Toleration.unchecked("", EQUAL, "burst", None), True),
    ],
)
def test_a_toleration_matches_a_taint_as_kubernetes_does(
    toleration: Toleration, tolerates: bool
) -> None:
    assert toleration.tolerates(TAINT) is tolerates


@pytest.mark.parametrize(
    ("operator", "values", "label", "matches"),
    [
        (NodeSelectorOperator.IN, ("a", "b"), "b", True),
        (NodeSelectorOperator.IN, ("a",), None, False),
        (NodeSelectorOperator.NOT_IN, ("a",), None, True),
        (NodeSelectorOperator.EXISTS, (), "", True),
        (NodeSelectorOperator.DOES_NOT_EXIST, (), "x", False),
        (NodeSelectorOperator.GT, ("4",), "5", True),
        (NodeSelectorOperator.GT, ("4",), "+5", True),
        (NodeSelectorOperator.LT, ("4",), "-1", True),
        (NodeSelectorOperator.GT, ("4",), "5.0", False),
        (NodeSelectorOperator.LT, ("4",), " 1", False),
        (NodeSelectorOperator.LT, ("4",), None, False),
    ],
)
def test_a_requirement_matches_a_label_value_as_kubernetes_does(
    operator: NodeSelectorOperator, values: tuple[str, ...], label: str | None, matches: bool
) -> None:
    assert NodeSelectorRequirement.unchecked("k", operator, values).matches(label) is matches


def test_unchecked_objects_equal_checked_ones_and_skip_only_the_checks() -> None:
    assert Taint.unchecked("k", "v", TaintEffect.NO_SCHEDULE) == Taint("k", "v")
    assert Toleration.unchecked("k", EXISTS, "", None) == Toleration("k", EXISTS)
    long_node_name = "node-" + "x" * 80  # a node name, not a label value
    requirement = NodeSelectorRequirement.unchecked(
        "metadata.name", NodeSelectorOperator.IN, (long_node_name,)
    )
    assert requirement.matches(long_node_name)
    with pytest.raises(HeadroomConfigError, match=r"node_affinity\[metadata.name\].values"):
        NodeSelectorRequirement("metadata.name", NodeSelectorOperator.IN, (long_node_name,))


def test_a_placement_renders_what_a_pod_spec_holds_and_nothing_when_empty() -> None:
    zone = NodeSelectorRequirement("zone", NodeSelectorOperator.IN, ("a",))
    pinned = NodeSelectorRequirement.unchecked("metadata.name", NodeSelectorOperator.IN, ("n1",))
    placement = Placement(
        node_selector=(("pool", "burst"),),
        affinity=(NodeSelectorTerm((zone,)), NodeSelectorTerm(fields=(pinned,))),
        tolerations=(TAINT.toleration(),),
    )

    assert placement.to_manifest() == {
        "nodeSelector": {"pool": "burst"},
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]},
                        {
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": ["n1"]}
                            ],
                        },
                    ]
                }
            }
        },
        "tolerations": [
            {
                "key": "dedicated",
                "operator": "Equal",
                "value": "burst",
                "effect": "NoSchedule",
            }
        ],
    }
    assert Placement().to_manifest() == {
        "nodeSelector": None,
        "affinity": None,
        "tolerations": None,
    }


def test_a_term_lays_out_its_label_then_its_field_requirements_in_kubernetes_order() -> None:
    # placement.NODE_SELECTOR_TERM, each requirement as REQUIREMENT: the key order is
    # the manifests' (cdk8s keeps it), and a requirement without values shows none
    gpu = NodeSelectorRequirement("gpu", NodeSelectorOperator.EXISTS)
    pinned = NodeSelectorRequirement.unchecked("metadata.name", NodeSelectorOperator.IN, ("n1",))

    term = NodeSelectorTerm((gpu,), (pinned,)).to_manifest()

    assert json.dumps(term) == json.dumps(
        {
            "matchExpressions": [{"key": "gpu", "operator": "Exists"}],
            "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}],
        }
    )
    assert NodeSelectorTerm().to_manifest() == {}
