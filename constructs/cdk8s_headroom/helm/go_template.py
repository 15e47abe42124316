"""The rules of ``cdk8s_headroom.vocabulary.rules``, compiled into Go template helpers.

Each rule's test (``rule_language.Test``) becomes a Go template expression over the
helper's operands (``go_test``, ``go_broken``), and each rule and predicate a one-line
helper (``rule_helpers``) that fails with the library's message, written from the parts
of its template (``message_parts``). ``library.rules_files`` places the helpers in the
chart's files.
"""

from __future__ import annotations

import json
import string
from typing import Any

from cdk8s_headroom.vocabulary import rule_language, rules


def go_literal(item: Any) -> str:
    """A constant as a Go template expression that builds it (ints stay ints)."""
    if isinstance(item, (tuple, list)):
        return f"(list {' '.join(go_literal(element) for element in item)})"
    return json.dumps(item)


def _go_term(term: rule_language.Term) -> str:
    if isinstance(term, rule_language.Const):
        return go_literal(term.value)
    if isinstance(term, rule_language.Length):
        return f"(len (default (list) .{term.of}))"
    if isinstance(term, rule_language.First):
        return f"(first (default (list) .{term.of}))"
    return f".{term}"


def _go_text(term: rule_language.Term) -> str:
    """A term as ``toString`` writes it: a constant's text folded in."""
    if isinstance(term, rule_language.Const) and isinstance(term.value, (str, bool, int)):
        value = term.value
        return json.dumps(str(value).lower() if isinstance(value, bool) else str(value))
    return f"(toString {_go_term(term)})"


def _go_int(term: rule_language.Term) -> str:
    if isinstance(term, rule_language.Const) and isinstance(term.value, int):
        return str(term.value)
    return f"(int64 {_go_term(term)})"


def go_test(test: rule_language.Test) -> str:
    """A rule's test as a Go template expression over the helper's operands (``.x``),
    read for its truth (``if``, ``not``, ``and``, ``or``): ``node-headroom.given`` is
    ``Given``, a flag itself is ``Truthy``."""
    match test:
        case rule_language.Given(term):
            return f'(include "node-headroom.given" {_go_term(term)})'
        case rule_language.Truthy(term):
            return _go_term(term)
        case rule_language.Eq(a, b):
            return f"(eq {_go_text(a)} {_go_text(b)})"
        case rule_language.Less(a, b):
            return f"(lt {_go_int(a)} {_go_int(b)})"
        case rule_language.AtMost():
            return f"(not {go_broken(test)})"
        case rule_language.In(item, items):
            listed = isinstance(items, rule_language.Const)
            found = _go_term(items) if listed else f"(default (list) {_go_term(items)})"
            return f"(has {_go_term(item)} {found})"
        case rule_language.Prefix(term, prefix):
            return f"(hasPrefix {json.dumps(prefix)} (toString {_go_term(term)}))"
        case rule_language.Matches(term, grammar):
            x = _go_term(term)
            clauses = " ".join(
                f"({'not ' if c.forbid else ''}(regexMatch {json.dumps(f'^(?:{c.pattern})$')} {x}))"
                if c.longest is None
                # re.sub("", "", x) is x: an empty cut is the length itself
                else f"(le (len {x}) {c.longest})"
                if not c.pattern
                else f'(le (len (regexReplaceAll {json.dumps(c.pattern)} {x} "")) {c.longest})'
                for c in grammar.clauses
            )
            return f'(and (kindIs "string" {x}) {clauses})'
        case rule_language.Not(rule_language.Not(inner)):
            return go_test(inner)
        case rule_language.Not(inner):
            return f"(not {go_test(inner)})"
        case rule_language.AllOf(tests):
            return f"(and {' '.join(go_test(t) for t in tests)})"
        case rule_language.AnyOf(tests):
            return f"(or {' '.join(go_test(t) for t in tests)})"
    raise TypeError(test)


def go_broken(test: rule_language.Test) -> str:
    """The negation of ``go_test``: when the rule is broken."""
    match test:
        case rule_language.Not(inner):
            return go_test(inner)
        case rule_language.AtMost(a, b, resource):
            operands = " ".join(_go_term(t) for t in (a, b, resource))
            return f'(include "node-headroom.exceeds" (list .lib {operands}))'
    return f"(not {go_test(test)})"


def message_parts(template: str) -> list[list[str]]:
    """A rule's message template as ``node-headroom.refuse`` writes it: ``[text]``, or
    ``[text, operand, helper]``, whose helper shows the operand: ``digits`` (its text, a
    whole number's digits, as Python prints an int) for ``{x}``, ``repr``
    (``errors.shown``) for ``{x!r}``."""
    parts = []
    for literal, name, _, conversion in string.Formatter().parse(template):
        if name is None:
            parts.append([literal])
        else:
            parts.append([literal, name, "repr" if conversion == "r" else "digits"])
    return parts


def rule_helpers() -> dict[str, str]:
    """One helper per rule across values, ``node-headroom.rule.<name>``: given the
    operands, ``lib``, ``field`` and ``value``, it fails as the library does when the test
    does not hold (with ``warn``, it returns the message instead), its message written
    from ``messages`` of the library data; one per predicate, ``node-headroom.test.<name>``,
    which returns true or nothing. By the helper's name; one line each: every token is
    parsed whenever the file it is in is."""
    helpers = {}
    for rule in rules.RULES:
        helpers[f"node-headroom.rule.{rule.name}"] = (
            f'{{{{- define "node-headroom.rule.{rule.name}" }}}}'
            f"{{{{ if {go_broken(rule.test)} }}}}"
            f'{{{{ include "node-headroom.refuse" (list . "{rule.name}") }}}}'
            "{{ end }}{{ end }}"
        )
    for predicate in rules.PREDICATES:
        helpers[f"node-headroom.test.{predicate.name}"] = (
            f'{{{{- define "node-headroom.test.{predicate.name}" }}}}'
            f"{{{{ if {go_test(predicate.test)} }}}}true{{{{ end }}}}{{{{ end }}}}"
        )
    return helpers


def called_by(helper: str, template: str) -> bool:
    """Whether ``template`` calls ``helper``: by its name, or by the rule's name where a
    template builds the helper's name (``print "node-headroom.rule." $rule``); only a
    rule's helper is built so."""
    if f'"{helper}"' in template:
        return True
    rule = helper.removeprefix("node-headroom.rule.")
    return rule != helper and f'"{rule}"' in template
