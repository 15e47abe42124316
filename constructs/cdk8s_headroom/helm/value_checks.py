"""The chart values' own checks, as the templates make them before the build (``values_to_app``).

``check_values`` runs each value's rule (``helm.values``' table names it) on the value as
the library is given it; ``check_placement`` runs the rules across a toleration's or a
node affinity term's fields. An error names the value's path (``ValuesError``), and
``in_values`` renames a library error that way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from cdk8s_headroom.helm.units import TOLERATION_FIELDS
from cdk8s_headroom.helm.values import (
    HEADROOM_FIELDS,
    MAP_KINDS,
    NAMED_ITEMS,
    VALUES,
    Schema,
    item_lists,
    values_schema,
)
from cdk8s_headroom.vocabulary import quantity, rule_language, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.node_share import Share, is_share
from cdk8s_headroom.vocabulary.placement import (
    TolerationOperator,
    check_requirement_values,
    check_toleration,
)


class ValuesError(HeadroomConfigError):
    """An invalid chart value; ``field`` is its value path, e.g. ``reservation.cpu``."""


@contextmanager
def in_values(
    table: Mapping[str, str] = HEADROOM_FIELDS, prefix: str = "", outside: Mapping[str, str] = {}
) -> Iterator[None]:
    """Re-raises a library error with the value path of the field that was wrong."""
    try:
        yield
    except ValuesError:
        raise
    except HeadroomConfigError as error:
        field = re.sub(r"^(burst_workloads|capacity_buffers)\[[^\]]*\]\.", "", error.field)
        field = re.sub(r"^node_selector\[", "nodeSelector[", field)
        head, bracket, rest = field.partition("[")
        if field in outside:
            path = outside[field]
        elif bracket and head in outside:
            path = f"{outside[head]}[{rest}"
        elif bracket and head == "extended_resources":  # a map value: keys as the chart's
            path = f"{prefix}{table.get(head, head)}['{rest.removesuffix(']')}']"
        else:
            path = prefix + table.get(field, field)
        raise ValuesError(path, error.value, error.allowed) from None


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "array": (list, tuple),
    "object": (Mapping,),
}
"""The Python types of values that load as each JSON Schema type (an ``integer`` also
as a whole float, as the schema's validator reads ``2.0``; a boolean is no number)."""


_MAP_RULES: dict[str, tuple[rule_language.Grammar, rule_language.Grammar]] = {
    "labels": (rules.LABEL_KEY, rules.LABEL_VALUE),
    "quantities": (rules.LABEL_KEY, rules.QUANTITY),
    "devices": (rules.EXTENDED_RESOURCE, rules.DEVICE_COUNT),
}
"""Each map kind's rules for its keys and its items (``library.value_rules`` gives the
templates the same pairs)."""

_WORDS = {
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "null": "null",
    "array": "a list",
    "object": "a map",
}


def _is(value: Any, kind: str) -> bool:
    if isinstance(value, bool) and kind in ("number", "integer"):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES[kind])


@functools.cache  # the schema is built from the table of values, the same each time
def _schema() -> Schema:
    return values_schema()


def check_shape(values: Mapping[str, Any]) -> None:
    """The values' structure as the chart's values.schema.json refuses it (the same
    schema, ``values.values_schema``, from the same table of values): an unknown key
    (``additionalProperties: false``), a missing required one, a value of the wrong type
    (a map where a list goes) and a choice that is not one of the allowed. Judged
    before anything reads the values, so each error names its value path."""
    _check_shape(values, _schema(), "")


def _check_shape(value: Any, schema: Schema, field: str) -> None:
    kinds = schema.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if kinds and not any(_is(value, kind) for kind in kinds):
        raise ValuesError(field, value, " or ".join(_WORDS[kind] for kind in kinds))
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(shown(c) for c in schema["enum"])
        raise ValuesError(field, value, f"one of {choices}")
    if isinstance(value, Mapping) and "properties" in schema:
        properties = schema["properties"]
        for key, item in value.items():
            at = f"{field}.{key}" if field else str(key)
            if key not in properties:
                where = f"{field} takes" if field else "the chart's values are"
                raise ValuesError(at, item, f"no such value; {where} {list(properties)}")
            _check_shape(item, properties[key], at)
        for key in schema.get("required", ()):
            if key not in value:
                at = f"{field}.{key}" if field else key
                raise ValuesError(at, None, "a value: it is required (a null removes it)")
    elif isinstance(value, Mapping) and isinstance(schema.get("additionalProperties"), dict):
        for key, item in value.items():
            _check_shape(item, schema["additionalProperties"], f"{field}[{shown(key)}]")
    elif isinstance(value, (list, tuple)) and "items" in schema:
        for index, item in enumerate(value):
            needed = schema["items"].get("required", ())
            if isinstance(item, Mapping) and any(key not in item for key in needed):
                missing = [key for key in needed if key not in item]
                raise ValuesError(
                    f"{field}[{index}]", item, f"an item with {needed}; it has no {missing}"
                )
            name = item.get("name") if isinstance(item, Mapping) else None
            label = name if field == "burstWorkloads" and isinstance(name, str) else index
            _check_shape(item, schema["items"], f"{field}[{label}]")


def _as_given(value: Any, rule: Any, field: str) -> Any:
    """A value as the library is given it, as the templates' ``node-headroom.check``
    does: ``--set`` makes numbers and booleans of text, so a whole number (but an
    integer's) is its digits (below ``rules.EXACT_NUMBER_LIMIT``), and a boolean (text's
    only) ``true`` or ``false``."""
    quantity = rule in (rules.QUANTITY, rules.CONTAINER_MEMORY, "quantities")
    if isinstance(rule, rule_language.IntRange):
        # YAML's 2.0 is the chart's whole number 2 (node-headroom.whole), so the library's too
        whole = isinstance(value, float) and value.is_integer()
        return int(value) if whole else value
    if isinstance(value, bool) and quantity:
        return value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        if abs(value) >= rules.EXACT_NUMBER_LIMIT:
            # shown as the whole number it is, as the chart shows a float's digits
            raise ValuesError(field, int(value), rules.EXACT_NUMBER_ALLOWED)
        return str(int(value))
    return value


def _check_path(node: Any, parts: list[str], field: str, rule: Any, share: bool) -> None:
    """``rule`` on every value at ``parts`` (``[]`` marks a list's items); with ``share``,
    a quantity's value may be a share of each node instead (``Value.share``)."""
    *inner, leaf = parts
    for index, part in enumerate(inner):
        field = f"{field}.{part}" if field else part
        node = node.get(part.removesuffix("[]")) if isinstance(node, Mapping) else None
        if part.endswith("[]"):
            for position, item in enumerate(node or ()):
                name = item.get("name") if part == "burstWorkloads[]" else position
                _check_path(item, parts[index + 1 :], f"{field[:-2]}[{name}]", rule, share)
            return
    if isinstance(node, dict) and node.get(leaf) is not None:
        _check(node, leaf, f"{field}.{leaf}" if field else leaf, rule, share)


def _check(holder: Any, key: Any, field: str, rule: Any, share: bool = False) -> None:
    """``rule`` on ``holder[key]``, which becomes what the library is given."""
    value = holder[key] = _as_given(holder[key], rule, field)
    if isinstance(value, list):
        for index in range(len(value)):
            _check(value, index, field, rule)
    elif rule in MAP_KINDS:
        keys, item = _MAP_RULES[rule]
        for name in sorted(value):
            keys.check(name, field=f"{field}[{shown(name)}]")
            _check(value, name, f"{field}[{shown(name)}]", item)
    elif share and is_share(value):  # judged once, here, as the quantities are
        holder[key] = Share.parse(value, field=field)
    elif rule in (rules.QUANTITY, rules.CONTAINER_MEMORY):
        if isinstance(value, float):  # a whole one is its digits by now (_as_given)
            raise ValuesError(field, value, rules.FRACTION_NUMBER_ALLOWED)
        # Judged once, here: the library takes the Quantity without parsing it again.
        judge = (
            quantity.Quantity.memory
            if rule is rules.CONTAINER_MEMORY
            else quantity.Quantity.positive
        )
        holder[key] = judge(value, field=field)
    else:
        rule.check(value, field=field)


def check_values(values: Mapping[str, Any]) -> None:
    """Every value's own rule, in the order of ``VALUES``, as the templates check them;
    each value becomes what the library is given (``_as_given``), in place, and each
    quantity a judged ``Quantity``."""
    for value in VALUES:
        rule = value.checked_by
        if rule is not None:
            with in_values({}):
                _check_path(values, value.path.split("."), "", rule, value.share)


def check_placement(values: Mapping[str, Any]) -> None:
    """Each toleration's and node affinity term's rules across its fields, as the
    templates check them after the single values (``units.placement_unit``): every list
    of tolerations in the table's order (the reserver's, then each burst workload's),
    then the node affinity."""
    for at, items in _lists(values, item_lists(*TOLERATION_FIELDS)):
        for index, item in enumerate(items or ()):
            item_at = f"{at}[{index}]"
            fields = (f"{item_at}.key", f"{item_at}.value", f"{item_at}.tolerationSeconds")
            check_toleration(
                item.get("key") or "",
                item.get("operator") or TolerationOperator.EQUAL.value,
                item.get("value") or "",
                item.get("effect"),
                item.get("tolerationSeconds"),
                fields=fields,
            )
    for at, items in _lists(values, item_lists("key", "operator", "values")):
        for item in items or ():
            field = f"{at}[{item['key']}].values"
            check_requirement_values(item["operator"], list(item.get("values") or ()), field=field)


def _lists(values: Mapping[str, Any], paths: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    """Each list at ``paths`` (``a`` or ``a[].b``) with its field: an item of ``a`` by its
    name where ``a`` is ``NAMED_ITEMS``, else by its index."""
    for path in paths:
        outer, _, inner = path.partition("[].")
        if not inner:
            yield path, values.get(path)
            continue
        for index, item in enumerate(values.get(outer) or ()):
            label = item.get("name") if outer == NAMED_ITEMS else index
            yield f"{outer}[{label}].{inner}", item.get(inner)
