"""A construct's rules across its props, declared once as data (plain Python).

A construct that judges some of its props against each other declares which rules, in
which order, on which of its inputs (``recipes.PropInputs``) as ``PropRules``: it runs
them with ``check``, and ``make chart`` compiles the same declaration into the chart's
``node-headroom.rules.<construct>`` (``helm.props``), each error named by the value that
gives its prop. The order is the construct's and the chart's alike, so both refuse a
values item that breaks two rules for the same one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cdk8s_headroom.vocabulary.recipes import PropInputs
from cdk8s_headroom.vocabulary.rule_language import Rule


@dataclass(frozen=True)
class PropRule:
    """``rule`` on a construct's inputs.

    Args:
        rule: the rule; each of its operands (``Rule.operands``) is the input of that name.
        field: the input whose prop the error names, and whose value it shows.
        shows: default ``True``; ``False`` shows null, for an error no one value makes
            (a count that none of several values gives).
        when: default ``None`` (always judged); an input: judged only when it is given
            (not ``None``), for a rule of a part only that input makes (an autoscaler's).
    """

    rule: Rule
    field: str
    shows: bool = True
    when: str | None = None


@dataclass(frozen=True)
class PropRules:
    """A construct's rules across its props, in the order it judges them.

    Args:
        inputs: the construct's props as its recipes and rules take them.
        rules: the rules, in order: the first broken one is the error.
        more: default none; inputs that are not props as given, which the construct
            passes to ``check`` (a buffer's limits' resources, parsed).
    """

    inputs: PropInputs
    rules: tuple[PropRule, ...]
    more: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        known = {*self.inputs.props, *self.more}
        for one in self.rules:
            unknown = [
                name
                for name in (*one.rule.operands, one.field, one.when)
                if name not in known and name not in (None, "value")
            ]
            if unknown or one.field not in self.inputs.props:
                raise ValueError(f"rule {one.rule.name}: no input {unknown or one.field}")

    def check(self, construct: object, **more: Any) -> None:
        """Raises the first broken rule's error, named by its prop, on ``construct``'s
        inputs (``PropInputs.of``) and ``more``."""
        inputs: Mapping[str, Any] = {**self.inputs.of(construct), **more}
        for one in self.rules:
            if one.when is not None and inputs[one.when] is None:
                continue
            value = inputs[one.field] if one.shows else None
            operands = {name: inputs[name] for name in one.rule.operands if name != "value"}
            one.rule.check(self.inputs.props[one.field], value, **operands)
