"""The rule language: how a configuration rule is written, and how it is judged.

The rules themselves are declared in ``rules`` (the catalogue), in this language, so
that both engines read them: the library evaluates them here, and the Helm chart's
schema and template helpers are generated from the same declarations
(``cdk8s_headroom.helm``), so the two refuse the same values with the same message.
Plain Python: no cdk8s here.

- A ``Grammar`` is a single-value rule: regular expressions in the syntax that both
  Python's ``re`` and Go's RE2 read alike, each with what is allowed when it fails.
- An ``IntRange`` bounds an integer.
- A ``Rule`` spans values: its ``Test``, an expression over named operands (``Less``,
  ``AtMost`` for quantities, ``In``, ``AnyOf``...), and its message template, which
  names the parts it shows (``{high}``). The library evaluates the test here; the chart
  runs the same test compiled to a Go template helper. Each engine only says which of
  its values are the operands.
- A ``Predicate`` is a named test that the library and the chart ask elsewhere too.

``AtMost`` compares quantities as the scheduler counts them (``quantity_arithmetic``).
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, NoReturn

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.quantity_arithmetic import Resource, amount


@dataclass(frozen=True)
class Clause:
    """One regular expression a value must match in full (or, ``forbid``, must not); or,
    with ``longest``, a length bound.

    A bound is no regular expression because RE2 compiles a repeat of n as n copies,
    and Go's templates compile every pattern on every check: a 1000-character bound cost
    the chart 0.2 ms per quantity. With ``longest``, the text with every match of
    ``pattern`` removed (``re.sub``, Go's ``regexReplaceAll``; an empty pattern removes
    nothing) has at most ``longest`` characters. Bounds follow a clause that admits
    ASCII only, so both engines count characters alike (Go's ``len`` counts bytes).
    """

    pattern: str
    allowed: str
    forbid: bool = False
    longest: int | None = None

    @staticmethod
    def at_most(longest: int, allowed: str, *, cut: str = "") -> Clause:
        """At most ``longest`` characters, once the matches of ``cut`` are removed."""
        return Clause(cut, allowed, longest=longest)

    def holds(self, text: str) -> bool:
        if self.longest is not None:
            return len(re.sub(self.pattern, "", text)) <= self.longest
        return bool(re.fullmatch(self.pattern, text)) is not self.forbid


@dataclass(frozen=True)
class Grammar:
    """A single-value rule: its clauses, checked in order; the first that fails says
    what is allowed."""

    name: str
    clauses: tuple[Clause, ...]

    def check(self, value: object, *, field: str, text: object = None) -> str:
        """Returns ``text`` (default: ``value``) when it matches, else raises an error
        that shows ``value``, as given."""
        text = value if text is None else text
        if not isinstance(text, str):
            raise HeadroomConfigError(field, value, self.clauses[0].allowed)
        for clause in self.clauses:
            if not clause.holds(text):
                raise HeadroomConfigError(field, value, clause.allowed)
        return text

    def matches(self, value: object) -> bool:
        return isinstance(value, str) and all(c.holds(value) for c in self.clauses)


@dataclass(frozen=True)
class IntRange:
    """An integer from ``minimum`` to ``maximum`` (a boolean is not an integer)."""

    name: str
    minimum: int
    maximum: int

    @property
    def allowed(self) -> str:
        return f"an integer from {self.minimum} to {self.maximum}"

    def check(self, value: object, *, field: str) -> int:
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not self.minimum <= value <= self.maximum
        ):
            raise HeadroomConfigError(field, value, self.allowed)
        return value


# --- the tests of rules across values ------------------------------------------------
#
# A rule across values carries its test: a small expression over named operands, which
# each engine evaluates with the operands it has at hand. Here each node's ``holds``
# evaluates it (the library's checks); the chart's generated helper
# ``node-headroom.rule.<name>`` is the same expression compiled to Go
# (``cdk8s_headroom.helm.library``). An operand is named by a string; ``Const`` holds a
# constant. The nodes are named tuples, not dataclasses: a dozen dataclasses cost the
# simulator's start-up some 10 ms of generated methods. They compare as tuples, so
# nothing compares tests.


class Const(NamedTuple):
    """A constant in a test."""

    value: object


class Length(NamedTuple):
    """The length of an operand (a string or a list)."""

    of: str


class First(NamedTuple):
    """The first item of a list operand (null for an empty list)."""

    of: str


Term = str | Const | Length | First


def _term(term: Term, operands: Mapping[str, object]) -> Any:
    """A term's value; an operand not passed is null, as in Go templates."""
    if isinstance(term, Const):
        return term.value
    if isinstance(term, Length):
        return len(operands.get(term.of) or ())  # type: ignore[arg-type]
    if isinstance(term, First):
        return (list(operands.get(term.of) or ()) or [None])[0]  # type: ignore[call-overload]
    return operands.get(term)


class Given(NamedTuple):
    """The operand is given: not null, and not an empty text, list or map."""

    term: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        value = _term(self.term, operands)
        return value is not None and not (isinstance(value, (str, list, tuple, dict)) and not value)


class Truthy(NamedTuple):
    """The operand is true (a flag, or anything given that is not false)."""

    term: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        return bool(_term(self.term, operands))


class Eq(NamedTuple):
    """Two texts (or flags) are the same."""

    a: Term
    b: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        a, b = _term(self.a, operands), _term(self.b, operands)
        return type(a) is type(b) and a == b


class Less(NamedTuple):
    """An integer below another (an integer's text is the integer)."""

    a: Term
    b: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        return int(_term(self.a, operands)) < int(_term(self.b, operands))


class AtMost(NamedTuple):
    """Quantity ``a`` is at most quantity ``b`` of the resource named by ``resource``
    (``cpu`` or ``memory``), as the scheduler counts them (``amount``)."""

    a: Term
    b: Term
    resource: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        resource = Resource[str(_term(self.resource, operands)).upper()]
        a, b = (str(_term(t, operands)).strip() for t in (self.a, self.b))
        return amount(a, resource) <= amount(b, resource)


class In(NamedTuple):
    """An item is in a list."""

    item: Term
    items: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        return _term(self.item, operands) in (_term(self.items, operands) or ())


class Prefix(NamedTuple):
    """A text starts with a constant prefix."""

    term: Term
    prefix: str

    def holds(self, operands: Mapping[str, object]) -> bool:
        value = _term(self.term, operands)
        return isinstance(value, str) and value.startswith(self.prefix)


class Matches(NamedTuple):
    """A text matches a grammar."""

    term: Term
    grammar: Grammar

    def holds(self, operands: Mapping[str, object]) -> bool:
        return self.grammar.matches(_term(self.term, operands))


class Not(NamedTuple):
    test: Test

    def holds(self, operands: Mapping[str, object]) -> bool:
        return not self.test.holds(operands)


class _Several(NamedTuple):
    tests: tuple[Test, ...]


class AllOf(_Several):
    def __new__(cls, *tests: Test) -> AllOf:
        return super().__new__(cls, tests)

    def holds(self, operands: Mapping[str, object]) -> bool:
        return all(test.holds(operands) for test in self.tests)


class AnyOf(_Several):
    def __new__(cls, *tests: Test) -> AnyOf:
        return super().__new__(cls, tests)

    def holds(self, operands: Mapping[str, object]) -> bool:
        return any(test.holds(operands) for test in self.tests)


Test = Given | Truthy | Eq | Less | AtMost | In | Prefix | Matches | Not | AllOf | AnyOf
"""An expression over operands that is true when the rule holds (``holds``)."""


@dataclass(frozen=True)
class Predicate:
    """A named test that more than one rule, or the library elsewhere, asks."""

    name: str
    test: Test

    def holds(self, **operands: object) -> bool:
        return self.test.holds(operands)


class _Operand:
    """An operand in a rule's message: ``{part!r}`` shows it as ``errors.shown`` does
    (a plain ``str.format``, which the simulator's start-up can afford)."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __repr__(self) -> str:
        return shown(self.value)

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


def _message(template: str, operands: Mapping[str, object]) -> str:
    return template.format(**{name: _Operand(value) for name, value in operands.items()})


@dataclass(frozen=True)
class Rule:
    """A rule across values: its test, and a template of its message (``{part}``, or
    ``{part!r}`` for the operand as a message shows a value, ``errors.shown``)."""

    name: str
    allowed: str
    test: Test

    def fail(self, field: str, value: object, /, **parts: object) -> NoReturn:
        raise HeadroomConfigError(field, value, _message(self.allowed, parts))

    def broken(self, **operands: object) -> str | None:
        """The message when the test fails on ``operands``, else ``None``."""
        return None if self.test.holds(operands) else _message(self.allowed, operands)

    @property
    def operands(self) -> tuple[str, ...]:
        """The names of the operands its test and its message read, in their order, once
        each (a construct that declares where it takes them, ``prop_rules``, passes these)."""
        parts = [name for _, name, _, _ in string.Formatter().parse(self.allowed) if name]
        return tuple(dict.fromkeys([*_operand_names(self.test), *parts]))

    def check(self, field: str, value: object, /, **operands: object) -> None:
        """Raises the error of ``field``, showing ``value``, when the test fails; the
        test sees ``value`` as the operand ``value`` (whatever else is passed under that
        name), as the chart's helper does.
        An ``advice`` operand is the error's advice (see ``HeadroomConfigError``)."""
        advice = str(operands.pop("advice", ""))
        message = self.broken(**{**operands, "value": value})
        if message is not None:
            raise HeadroomConfigError(field, value, message, advice)


def _operand_names(node: Test | Term) -> list[str]:
    """The operands ``node`` reads: its terms that are names, not constants."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, (Length, First)):
        return [node.of]
    if isinstance(node, (Const, Grammar)):
        return []
    if isinstance(node, (Prefix, Matches)):
        return _operand_names(node.term)
    if isinstance(node, Not):
        return _operand_names(node.test)
    if isinstance(node, _Several):
        return [name for test in node.tests for name in _operand_names(test)]
    return [name for part in node for name in _operand_names(part)]


def check_ordered(rule: Rule, ladder: list[tuple[str, str, int]]) -> None:
    """``rule`` on each step of ``(field, role, value)``, lowest first."""
    for (field, _, low), (_, role, high) in itertools.pairwise(ladder):
        rule.check(field, low, low=low, high=high, above=role)
