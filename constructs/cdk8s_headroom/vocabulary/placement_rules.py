"""The rules of a pod's tolerations and node-selector requirements: the API server's
rules (``pkg/apis/core/validation/validation.go`` ``validateTolerations`` and
``ValidateNodeSelectorRequirement``), and Karpenter's for a NodePool's requirements.
Declared as data (``rule_language``); ``rules`` gathers them with the others.
"""

from __future__ import annotations

from cdk8s_headroom.vocabulary.rule_language import (
    AllOf,
    AnyOf,
    Clause,
    Const,
    Eq,
    First,
    Given,
    Grammar,
    In,
    Length,
    Less,
    Matches,
    Not,
    Rule,
)

# strconv.ParseInt's grammar: an optional sign and ASCII digits (Python's int() would
# also take spaces, underscores and other scripts' digits).
INTEGER = Grammar("integer", (Clause(r"[+-]?[0-9]+", "an integer"),))

TOLERATION_NEEDS_KEY = Rule(
    "tolerationNeedsKey",
    "a key, unless the operator is Exists (which, with no key, matches every taint)",
    AnyOf(Given("key"), Eq("operator", Const("Exists"))),
)
TOLERATION_EXISTS_WITHOUT_VALUE = Rule(
    "tolerationExistsWithoutValue",
    "an empty value with operator Exists",
    AnyOf(Not(Eq("operator", Const("Exists"))), Not(Given("value"))),
)
TOLERATION_SECONDS_NO_EXECUTE = Rule(
    "tolerationSecondsNoExecute",
    "no value unless the effect is NoExecute",
    AnyOf(Not(Given("value")), Eq("effect", Const("NoExecute"))),
)
INTEGER_OPERATORS = ("Gt", "Lt", "Gte", "Lte")
"""The node-selector operators that compare a label, read as an integer, with one value."""
KARPENTER_ONLY_OPERATORS = ("Gte", "Lte")
"""Operators Karpenter adds to its NodePool requirements; pods' node affinity lacks them."""
REQUIREMENT_NEEDS_VALUES = Rule(
    "requirementNeedsValues",
    "at least one value for operator {operator}",
    AnyOf(Not(In("operator", Const(("In", "NotIn")))), Given("values")),
)
REQUIREMENT_NO_VALUES = Rule(
    "requirementNoValues",
    "no values for operator {operator}",
    AnyOf(Not(In("operator", Const(("Exists", "DoesNotExist")))), Not(Given("values"))),
)
REQUIREMENT_ONE_INTEGER = Rule(
    "requirementOneInteger",
    "exactly one integer for operator {operator}",
    AnyOf(
        Not(In("operator", Const(INTEGER_OPERATORS))),
        AllOf(Eq(Length("values"), Const(1)), Matches(First("values"), INTEGER)),
    ),
)
REQUIREMENT_NOT_NEGATIVE = Rule(
    "requirementNotNegative",
    "one integer of zero or more for operator {operator} (Karpenter's rule)",
    AnyOf(
        Not(In("operator", Const(KARPENTER_ONLY_OPERATORS))), Not(Less(First("values"), Const(0)))
    ),
)
"""Of Karpenter's NodePool requirements only (Gte and Lte are not a pod's)."""
