"""A construct's rules across its props, declared once (``prop_rules.PropRules``): run in
their order on the construct's inputs, each error named by its prop."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from cdk8s_headroom.vocabulary import rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.prop_rules import PropRule, PropRules
from cdk8s_headroom.vocabulary.recipes import PropInputs
from cdk8s_headroom.vocabulary.rule_language import AnyOf, Const, Eq, Given, Not, Rule

INPUTS = PropInputs({"replicas": "replicas", "maxReplicas": "max_replicas"}, {})


@dataclass
class Scaled:
    replicas: int
    max_replicas: int | None


def test_a_rules_operands_are_the_names_its_test_and_message_read() -> None:
    rule = Rule("r", "{b!r} or {c}", AnyOf(Given("a"), Eq("b", Const("x"))))
    assert rule.operands == ("a", "b", "c")
    assert rules.BUFFER_NEEDS_COUNT.operands == ("replicas", "percentage", "limits")


def test_the_first_broken_rule_is_the_error_named_by_its_prop() -> None:
    declared = PropRules(
        INPUTS,
        (
            PropRule(rules.MAX_REPLICAS_NOT_BELOW_REPLICAS, "maxReplicas"),
            PropRule(rules.REPLICAS_WITH_AUTOSCALER, "replicas"),
        ),
    )
    with pytest.raises(HeadroomConfigError) as raised:
        declared.check(Scaled(replicas=4, max_replicas=3))
    assert (raised.value.field, raised.value.value) == ("max_replicas", 3)
    assert "at least replicas (4)" in raised.value.allowed


def test_a_rule_when_an_input_is_not_given_is_not_judged() -> None:
    declared = PropRules(
        INPUTS, (PropRule(rules.REPLICAS_WITH_AUTOSCALER, "replicas", when="maxReplicas"),)
    )
    declared.check(Scaled(replicas=0, max_replicas=None))
    with pytest.raises(HeadroomConfigError, match="replicas: invalid value 0"):
        declared.check(Scaled(replicas=0, max_replicas=2))


def test_a_rule_that_shows_no_value_shows_null_and_reads_the_more_inputs() -> None:
    needs = Rule("needs", "no limit", Not(Given("limits")))
    declared = PropRules(INPUTS, (PropRule(needs, "replicas", shows=False),), more=("limits",))
    declared.check(Scaled(replicas=0, max_replicas=None), limits=[])
    with pytest.raises(HeadroomConfigError) as raised:
        declared.check(Scaled(replicas=0, max_replicas=None), limits=["cpu"])
    assert (raised.value.field, raised.value.value) == ("replicas", None)


def test_a_rule_on_an_input_not_declared_is_refused_where_it_is_declared() -> None:
    with pytest.raises(ValueError, match="bufferOneCount: no input"):
        PropRules(INPUTS, (PropRule(rules.BUFFER_ONE_COUNT, "replicas"),))
