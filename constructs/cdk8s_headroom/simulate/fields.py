"""Reading input files with error messages that name the file and the path.

Every value read keeps its path (``cluster.yaml: nodes[2].allocatable.cpu``), so a bad
value raises a ``HeadroomConfigError`` that says where it is. Fields the simulator does
not know are collected, not skipped: an unknown field may change a scheduling decision,
so ``Reader.finish`` refuses the whole input and lists them.
"""

from __future__ import annotations

import calendar
import datetime
import math
import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from cdk8s_headroom.simulate.model import Extended, LabelSelector, Resources
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, printable, shown
from cdk8s_headroom.vocabulary.names import INT64_MAX, INT64_MIN, int_text
from cdk8s_headroom.vocabulary.placement import (
    KARPENTER_ONLY_OPERATORS,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy
from cdk8s_headroom.vocabulary.quantity import parse_quantity
from cdk8s_headroom.vocabulary.rules import EXTENDED_RESOURCE


class UnsupportedInputError(HeadroomConfigError):
    """Input that holds fields or objects the simulator does not model."""

    def __init__(self, source: str, items: list[str], models: str) -> None:
        super().__init__(source, items, models)
        # One line, as every input error: the command line prints one message.
        self.args = (
            f"{source}: not supported by the simulator (it would decide without them): "
            f"{'; '.join(items)}. {models}",
        )


class Shown:
    """A value as an error message shows it (``errors.shown``): whole when short,
    summarised when not."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __repr__(self) -> str:
        text = shown(self.value)
        if len(text) <= 80:
            return text
        if isinstance(self.value, Mapping):
            return f"<a mapping with keys {some([str(k) for k in self.value], 5)}>"
        if isinstance(self.value, list):
            return f"<a list of {len(self.value)} items>"
        return text[:77] + "..."


class Reader:
    """One input document, and the unknown fields found in it so far."""

    def __init__(self, source: str, models: str) -> None:
        self.source = source
        self.models = models
        self.unsupported: list[str] = []

    def root(self, value: object) -> Value:
        return Value(self, value, "")

    def finish(self) -> None:
        """Raises ``UnsupportedInputError`` when any unknown field was found."""
        if self.unsupported:
            raise UnsupportedInputError(self.source, self.unsupported, self.models)


class Value:
    """A value from an input document, with its path for error messages."""

    def __init__(self, reader: Reader, value: object, path: str) -> None:
        self.reader = reader
        self.value = value
        self.path = path

    @property
    def where(self) -> str:
        return f"{self.reader.source}: {self.path}" if self.path else self.reader.source

    def fail(self, allowed: str) -> HeadroomConfigError:
        return HeadroomConfigError(self.where, Shown(self.value), allowed)

    def child(self, key: str | int) -> Value:
        if isinstance(key, int):
            return Value(self.reader, self._list()[key], f"{self.path}[{key}]")
        return Value(
            self.reader, self.mapping().get(key), f"{self.path}.{key}" if self.path else key
        )

    def is_null(self) -> bool:
        return self.value is None

    def mapping(self) -> Mapping[str, Any]:
        if self.value is None:
            return {}
        if not isinstance(self.value, Mapping) or not all(isinstance(k, str) for k in self.value):
            raise self.fail("a mapping with string keys")
        return self.value

    def fields(
        self,
        known: Collection[str],
        *,
        required: Collection[str] = (),
        ignored: Collection[str] = (),
    ) -> dict[str, Value]:
        """Every known field (a null ``Value`` when absent); unknown fields are
        recorded as unsupported."""
        data = self.mapping()
        for key in required:
            if data.get(key) is None:
                raise self.child(key).fail("a value: the field is required")
        for key in data:
            if key not in known and key not in ignored:
                self.reader.unsupported.append(self.child(key).path)
        return {key: self.child(key) for key in known}

    def _list(self) -> list[Any]:
        if self.value is None:
            return []
        if not isinstance(self.value, list):
            raise self.fail("a list")
        return self.value

    def items(self) -> list[Value]:
        return [self.child(index) for index in range(len(self._list()))]

    def text(self, *, allow_empty: bool = True) -> str:
        if not isinstance(self.value, str) or (not allow_empty and not self.value):
            raise self.fail("a non-empty string" if not allow_empty else "a string")
        return self.value

    def text_or(self, default: str) -> str:
        return default if self.value is None else self.text()

    def integer(self, *, minimum: int | None = None, maximum: int | None = None) -> int:
        value = self.value
        if isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]+", value.strip()):
            value = int_text(
                value.strip(),
                field=self.where,
                minimum=INT64_MIN if minimum is None else minimum,
                maximum=INT64_MAX if maximum is None else maximum,
            )
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or (minimum is not None and value < minimum)
            or (maximum is not None and value > maximum)
        ):
            low = "" if minimum is None else f" from {minimum}"
            high = "" if maximum is None else f" to {maximum}"
            raise self.fail(f"an integer{low}{high}")
        return value

    def integer_or(self, default: int, **bounds: int) -> int:
        return default if self.value is None else self.integer(**bounds)

    def boolean_or(self, default: bool) -> bool:
        if self.value is None:
            return default
        if not isinstance(self.value, bool):
            raise self.fail("true or false")
        return self.value

    def string_map(self) -> dict[str, str]:
        result = {}
        for key, value in self.mapping().items():
            if not isinstance(value, str):
                raise self.child(key).fail("a string (quote numbers and booleans)")
            result[key] = value
        return result

    def string_list(self) -> list[str]:
        return [item.text() for item in self.items()]

    def quantity_or(self, default: int, unit: int) -> int:
        return default if self.value is None else self.quantity(unit)

    def quantity(self, unit: int) -> int:
        """A Kubernetes quantity, in ``1/unit`` (1000 for millicores), rounded up as
        ``resource.Quantity.MilliValue``/``Value`` do."""
        value = self.value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            raise self.fail('a Kubernetes quantity, e.g. "500m", "2", "512Mi"')
        try:
            amount = parse_quantity(value, field=self.where)
        except HeadroomConfigError as error:
            raise self.fail(error.allowed) from None
        if amount < 0:
            raise self.fail("a quantity of zero or more")
        return math.ceil(amount * unit)

    def time_or_none(self) -> int | None:
        """An RFC 3339 time, in nanoseconds since the epoch (None when absent)."""
        if self.value is None:
            return None
        nanos = rfc3339_nanos(self.value)
        if nanos is None:
            raise self.fail('an RFC 3339 time, e.g. "2024-01-01T00:00:00Z"')
        return nanos


_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$",
    re.ASCII,
)


def rfc3339_nanos(value: object) -> int | None:
    """An RFC 3339 time in nanoseconds since the epoch, or None when ``value`` is not
    one. A ``datetime`` counts too: PyYAML turns unquoted timestamps into them."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return calendar.timegm(value.utctimetuple()) * 10**9 + value.microsecond * 1000
    match = _RFC3339.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    try:
        # datetime checks the ranges (month 13, February 30, hour 25) that timegm
        # would raise on or roll over; Go's time.Parse, which wrote the value, refuses them.
        year, month, day, hour, minute, second = (int(match[i]) for i in range(1, 7))
        moment = datetime.datetime(
            year, month, day, hour, minute, second, tzinfo=datetime.timezone.utc
        )
    except ValueError:
        return None
    seconds = calendar.timegm(moment.utctimetuple())
    zone = match[8]
    if zone not in ("Z", "z"):
        sign = 1 if zone[0] == "+" else -1
        seconds -= sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    fraction = (match[7] or "").ljust(9, "0")
    return seconds * 10**9 + int(fraction)


def some(names: Collection[str], count: int = 10) -> str:
    """A few of ``names`` for an error message, sorted, escaped as ``errors.printable``
    escapes them (a look-alike letter shows), and how many there are."""
    listed = sorted(names)
    more = f", ... ({len(listed)} in all)" if len(listed) > count else ""
    return ", ".join(printable(name) for name in listed[:count]) + more


def _enum_value(value: Value, enum: type[Any], *, allowed: str) -> Any:
    for member in enum:
        if member.value == value.value:
            return member
    raise value.fail(allowed)


def preemption_policy(value: Value) -> PreemptionPolicy:
    """``preemptionPolicy``; absent means ``PreemptLowerPriority``."""
    if value.is_null():
        return PreemptionPolicy.PREEMPT_LOWER_PRIORITY
    result: PreemptionPolicy = _enum_value(
        value, PreemptionPolicy, allowed="PreemptLowerPriority or Never"
    )
    return result


def requirement(value: Value, *, label_operators: bool = False) -> NodeSelectorRequirement:
    """A ``{key, operator, values}`` requirement (node affinity or a label selector)."""
    fields = value.fields(("key", "operator", "values"), required=("key", "operator"))
    operators = (
        "In, NotIn, Exists or DoesNotExist"
        if label_operators
        else "In, NotIn, Exists, DoesNotExist, Gt or Lt"
    )
    operator: NodeSelectorOperator = _enum_value(
        fields["operator"], NodeSelectorOperator, allowed=operators
    )
    if operator in KARPENTER_ONLY_OPERATORS:
        # Karpenter's NodePool operators: the API server refuses them in a pod.
        raise fields["operator"].fail(operators)
    values = fields["values"].string_list()
    return NodeSelectorRequirement.unchecked(
        fields["key"].text(allow_empty=False), operator, tuple(values)
    )


def node_selector_terms(value: Value) -> tuple[NodeSelectorTerm, ...]:
    """Required node affinity terms, ``matchExpressions``/``matchFields`` (or the
    snake_case spelling of the scenario format)."""
    terms = []
    for item in value.items():
        fields = item.fields(
            ("matchExpressions", "matchFields", "match_expressions", "match_fields")
        )
        expressions = [
            requirement(r)
            for key in ("matchExpressions", "match_expressions")
            for r in fields[key].items()
        ]
        on_fields = []
        for key in ("matchFields", "match_fields"):
            for raw in fields[key].items():
                parsed = requirement(raw)
                if parsed.key != "metadata.name" or parsed.operator not in (
                    NodeSelectorOperator.IN,
                    NodeSelectorOperator.NOT_IN,
                ):
                    raise raw.fail("a matchFields requirement on metadata.name with In or NotIn")
                on_fields.append(parsed)
        terms.append(NodeSelectorTerm(tuple(expressions), tuple(on_fields)))
    return tuple(terms)


def taints(value: Value) -> tuple[Taint, ...]:
    result = []
    for item in value.items():
        fields = item.fields(("key", "value", "effect", "timeAdded"), required=("key", "effect"))
        effect: TaintEffect = _enum_value(
            fields["effect"], TaintEffect, allowed="NoSchedule, PreferNoSchedule or NoExecute"
        )
        result.append(
            Taint.unchecked(
                fields["key"].text(allow_empty=False), fields["value"].text_or(""), effect
            )
        )
    return tuple(result)


def tolerations(value: Value) -> tuple[Toleration, ...]:
    result = []
    for item in value.items():
        fields = item.fields(
            ("key", "operator", "value", "effect", "tolerationSeconds", "toleration_seconds")
        )
        operator: TolerationOperator = (
            TolerationOperator.EQUAL
            if fields["operator"].is_null()
            else _enum_value(fields["operator"], TolerationOperator, allowed="Equal or Exists")
        )
        effect: TaintEffect | None = (
            None
            if fields["effect"].value in (None, "")
            else _enum_value(
                fields["effect"],
                TaintEffect,
                allowed="NoSchedule, PreferNoSchedule, NoExecute or empty (every effect)",
            )
        )
        given = fields["value"].text_or("")
        # core/v1 validation (pkg/apis/core/validation ValidateTolerations): "value must
        # be empty when `operator` is 'Exists'"; the chart and the library refuse it too.
        if operator is TolerationOperator.EXISTS and given:
            raise fields["value"].fail("no value with operator Exists (it matches every value)")
        result.append(Toleration.unchecked(fields["key"].text_or(""), operator, given, effect))
    return tuple(result)


def label_selector(value: Value) -> LabelSelector | None:
    """A PDB selector: a ``LabelSelector`` (``matchLabels``/``matchExpressions``) or a
    plain label map, as the scenario format writes ``matchLabels``."""
    if value.is_null():
        return None
    data = value.mapping()
    structured = {"matchLabels", "matchExpressions", "match_labels", "match_expressions"}
    if (
        data
        and all(key in structured for key in data)
        and not all(isinstance(v, str) for v in data.values())
    ):
        fields = value.fields(structured)
        labels: dict[str, str] = {}
        for key in ("matchLabels", "match_labels"):
            labels.update(fields[key].string_map())
        expressions = [
            requirement(item, label_operators=True)
            for key in ("matchExpressions", "match_expressions")
            for item in fields[key].items()
        ]
        return LabelSelector(
            tuple(sorted(labels.items())),
            tuple(expressions),
            valid=all(_valid_label_requirement(r) for r in expressions),
        )
    return LabelSelector(tuple(sorted(value.string_map().items())))


def _valid_label_requirement(req: NodeSelectorRequirement) -> bool:
    """``LabelSelectorAsSelector`` rejects these, and an invalid selector matches nothing."""
    if req.operator in (NodeSelectorOperator.IN, NodeSelectorOperator.NOT_IN):
        return bool(req.values)
    if req.operator in (NodeSelectorOperator.EXISTS, NodeSelectorOperator.DOES_NOT_EXIST):
        return not req.values
    return False


def resources(value: Value) -> Resources:
    """A ``{cpu, memory}`` map of quantities, and any extended resources in it."""
    names = extended_names(value)
    fields = value.fields(("cpu", "memory"), ignored=names)
    return Resources(
        cpu=fields["cpu"].quantity_or(0, 1000),
        memory=fields["memory"].quantity_or(0, 1),
        extended=extended_amounts(value, names),
    )


def extended_names(value: Value) -> tuple[str, ...]:
    """The keys of a resources map that name extended resources
    (``rules.EXTENDED_RESOURCE``, e.g. ``nvidia.com/gpu``): the simulator counts them."""
    return tuple(
        key for key in value.mapping() if isinstance(key, str) and EXTENDED_RESOURCE.matches(key)
    )


def extended_amounts(value: Value, names: Iterable[str]) -> Extended:
    """The whole units of each extended resource ``names`` gives, as the scheduler counts
    them (a fraction is refused: the API server takes only whole units)."""
    found = []
    for name in names:
        child = value.child(name)
        amount = child.quantity(1000)
        if amount % 1000:
            raise child.fail("a whole number: extended resources are counted in whole units")
        if amount:
            found.append((name, amount // 1000))
    return tuple(sorted(found))
