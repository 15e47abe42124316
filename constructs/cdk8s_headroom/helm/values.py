"""The chart's values: one typed description, derived from the construct props.

Each value names the prop it maps to; its description comes from that prop's
docstring, its library default from the prop's signature, and its JSON Schema from the
rule the library enforces for the prop. values.yaml, values.schema.json and the chart
README are all written from ``VALUES``.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..burst import BurstWorkload, ImagePullPolicy
from ..headroom import NodeHeadroom
from ..names import INT32_MAX, INT32_MIN
from ..namespace import HeadroomNamespace
from ..priority import MAX_USER_PRIORITY, PriorityModel
from ..priorityclasses import HeadroomPriorityClasses
from ..scheduling import (
    DEFAULT_DEDICATED_TAINT,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from ..targeting import NodePoolRef
from ..task import ReserverTask, TaskKind
from .docs import PropDoc, enum_values, prop, summary, without_default
from .paths import BURST_FIELDS, translate_text

_PYTHON_LITERALS = {"`True`": "`true`", "`False`": "`false`", "`None`": "`null`"}


def _in_values_words(doc: PropDoc) -> str:
    """A prop's description in the words of values: value paths for prop names, YAML
    for Python literals."""
    text = translate_text(doc.description, BURST_FIELDS if doc.owner == "BurstWorkload" else None)
    for python, yaml_literal in _PYTHON_LITERALS.items():
        text = text.replace(python, yaml_literal)
    return text


Schema = dict[str, Any]

CHART_NAME = "node-headroom"
"""The chart's name, and the release name whose objects keep the library's names."""

# The grammars of names.py and quantity.py, in the RE2 syntax JSON Schema gets in Helm
# (no look-ahead: a positive quantity is spelled out as "a non-zero digit somewhere").
DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
_LABEL_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
LABEL_KEY = rf"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?{_LABEL_NAME}$"
LABEL_VALUE = rf"^({_LABEL_NAME})?$"
POSITIVE_QUANTITY = (
    r"^\+?([0-9]*[1-9][0-9]*(\.[0-9]*)?|[0-9]*\.[0-9]*[1-9][0-9]*)"
    r"(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?0*([0-9]|[1-5][0-9]|6[0-4]))?$"
)
IMAGE = r"^\S+$"


def _nullable(schema: Schema) -> Schema:
    kind = schema["type"]
    return {**schema, "type": [kind, "null"]}


def quantity_schema() -> Schema:
    return {"type": "string", "pattern": POSITIVE_QUANTITY}


def dns_label_schema() -> Schema:
    return {"type": "string", "maxLength": 63, "pattern": DNS_LABEL}


def class_name_schema() -> Schema:
    return {
        "type": "string",
        "maxLength": 253,
        "pattern": DNS_SUBDOMAIN,
        # Only a string can start with system-; a bare pattern would also reject null.
        "not": {"type": "string", "pattern": "^system-"},
    }


def int_schema(minimum: int = INT32_MIN, maximum: int = INT32_MAX) -> Schema:
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def image_schema() -> Schema:
    return {"type": "string", "minLength": 1, "pattern": IMAGE}


def strings_schema(item: Schema | None = None, min_items: int = 0) -> Schema:
    schema: Schema = {"type": "array", "items": item or {"type": "string"}}
    if min_items:
        schema["minItems"] = min_items
    return schema


def labels_schema() -> Schema:
    return {
        "type": "object",
        "propertyNames": {"maxLength": 317, "pattern": LABEL_KEY},
        "additionalProperties": {"type": "string", "maxLength": 63, "pattern": LABEL_VALUE},
    }


def enum_schema(enum: type[Enum]) -> Schema:
    return {"type": "string", "enum": enum_values(enum)}


@dataclass(frozen=True)
class Value:
    """One leaf value.

    Attributes:
        key: its key in values.yaml (camelCase, as Helm users expect).
        schema: its JSON Schema, without description and default.
        kind: its type for a human, e.g. ``quantity`` or ``DNS-1123 label``.
        description: what it means; the prop's docstring, with chart notes.
        default: the library's default for the prop, in values form.
        source: the prop it maps to, e.g. ``NodeHeadroom.cpu``, or ``chart``.
        note: what the chart adds to the prop's description (the end of it).
    """

    key: str
    schema: Schema
    kind: str
    description: str
    default: Any
    source: str
    note: str = ""


@dataclass(frozen=True)
class Group:
    """A map of values.

    ``required``: the keys a user may not remove (by setting them to null). Default:
    every key that is not nullable; the groups of a list item name theirs.
    """

    key: str
    description: str
    children: tuple[Node, ...]
    required: tuple[str, ...] | None = None

    def required_keys(self) -> list[str]:
        if self.required is not None:
            return list(self.required)
        return [
            child.key
            for child in self.children
            if not (isinstance(child, Value) and "null" in child.schema["type"])
        ]


@dataclass(frozen=True)
class ListOf:
    """A list of objects, each with the values of ``item``.

    ``default`` is the library's (an empty list); list items get no defaults from
    Helm, so the templates apply each item value's default when it is left out.
    """

    key: str
    description: str
    item: tuple[Node, ...]
    required: tuple[str, ...]
    source: str
    rules: tuple[Schema, ...] = ()
    default: tuple[Any, ...] = field(default_factory=tuple)


Node = Value | Group | ListOf


def _values_form(default: Any) -> Any:
    """A prop default as it is spelled in values: enums by value, tuples as lists."""
    if isinstance(default, Enum):
        return default.value
    if isinstance(default, Taint):
        return {"key": default.key, "value": default.value, "effect": default.effect.value}
    if isinstance(default, tuple):
        return [_values_form(item) for item in default]
    return default


def value(
    key: str,
    schema: Schema,
    kind: str,
    doc: PropDoc | str,
    *,
    default: Any = None,
    nullable: bool = False,
    note: str = "",
) -> Value:
    """A value that maps to the prop ``doc`` (or, given a string, a chart-only value).

    The default is the prop's, unless ``default`` is given (a required prop has none).
    """
    if isinstance(doc, PropDoc):
        text, source = _in_values_words(doc), f"{doc.owner}.{doc.name}"
        if "Null:" in note or "Required here" in note:
            # The note says what null means here (or that there is no default); the
            # library's default would mislead.
            text = without_default(text)
        if default is None and doc.has_default:
            default = _values_form(doc.default)
    else:
        text, source = doc, "chart"
    description = f"{text} {note}".strip()
    if kind == "enum":
        kind = "one of " + ", ".join(f"`{choice}`" for choice in schema["enum"])
    return Value(
        key=key,
        schema=_nullable(schema) if nullable else schema,
        kind=f"{kind} or null" if nullable else kind,
        description=description,
        default=default,
        source=source,
        note=note,
    )


def _taint_fields() -> tuple[Node, ...]:
    return (
        value("key", {"type": "string", "pattern": LABEL_KEY}, "label key", prop(Taint, "key")),
        value(
            "value",
            {"type": "string", "maxLength": 63, "pattern": LABEL_VALUE},
            "label value",
            prop(Taint, "value"),
        ),
        value("effect", enum_schema(TaintEffect), "enum", prop(Taint, "effect")),
    )


def _tolerations(key: str, doc: PropDoc) -> ListOf:
    key_schema = {"type": "string", "anyOf": [{"maxLength": 0}, {"pattern": LABEL_KEY}]}
    return ListOf(
        key=key,
        description=doc.description,
        source=f"{doc.owner}.{doc.name}",
        required=(),
        item=(
            value("key", key_schema, "label key", prop(Toleration, "key"), default=""),
            value(
                "operator", enum_schema(TolerationOperator), "enum", prop(Toleration, "operator")
            ),
            value(
                "value",
                {"type": "string", "maxLength": 63, "pattern": LABEL_VALUE},
                "label value",
                prop(Toleration, "value"),
            ),
            value(
                "effect",
                enum_schema(TaintEffect),
                "enum",
                prop(Toleration, "effect"),
                nullable=True,
            ),
            value(
                "tolerationSeconds",
                int_schema(),
                "integer",
                prop(Toleration, "toleration_seconds"),
                nullable=True,
            ),
        ),
        # Toleration.__post_init__'s rules, as far as JSON Schema can say them.
        rules=(
            {
                "if": {"properties": {"operator": {"const": "Exists"}}, "required": ["operator"]},
                "then": {"properties": {"value": {"maxLength": 0}}},
                "else": {"properties": {"key": {"minLength": 1}}, "required": ["key"]},
            },
            {
                "if": {
                    "properties": {"tolerationSeconds": {"type": "integer"}},
                    "required": ["tolerationSeconds"],
                },
                "then": {"properties": {"effect": {"const": "NoExecute"}}, "required": ["effect"]},
            },
        ),
    )


def _affinity() -> ListOf:
    doc = prop(NodeHeadroom, "node_affinity")

    def when(operators: list[str], then: Schema) -> Schema:
        return {"if": {"properties": {"operator": {"enum": operators}}}, "then": then}

    return ListOf(
        key="nodeAffinity",
        description=doc.description,
        source=f"{doc.owner}.{doc.name}",
        required=("key", "operator"),
        item=(
            value(
                "key",
                {"type": "string", "pattern": LABEL_KEY},
                "label key",
                prop(NodeSelectorRequirement, "key"),
            ),
            value(
                "operator",
                enum_schema(NodeSelectorOperator),
                "enum",
                prop(NodeSelectorRequirement, "operator"),
            ),
            value(
                "values",
                strings_schema({"type": "string", "maxLength": 63, "pattern": LABEL_VALUE}),
                "list of label values",
                prop(NodeSelectorRequirement, "values"),
            ),
        ),
        # NodeSelectorRequirement.__post_init__'s rules.
        rules=(
            when(
                ["In", "NotIn"], {"properties": {"values": {"minItems": 1}}, "required": ["values"]}
            ),
            when(["Exists", "DoesNotExist"], {"properties": {"values": {"maxItems": 0}}}),
            when(
                ["Gt", "Lt"],
                {
                    "properties": {
                        "values": {
                            "minItems": 1,
                            "maxItems": 1,
                            "items": {"pattern": "^-?[0-9]+$"},
                        }
                    },
                    "required": ["values"],
                },
            ),
        ),
    )


def _priority_class(role: str, name_prop: str, value_prop: str, note: str = "") -> Group:
    return Group(
        key=role,
        description=f"The {role} PriorityClass.",
        children=(
            value(
                "name",
                class_name_schema(),
                "PriorityClass name",
                prop(HeadroomPriorityClasses, name_prop),
                nullable=True,
                note=note,
            ),
            value(
                "value",
                int_schema(maximum=MAX_USER_PRIORITY),
                "integer",
                prop(HeadroomPriorityClasses, value_prop),
                nullable=True,
            ),
        ),
    )


def _burst_workloads() -> ListOf:
    def burst(key: str, name: str, schema: Schema, kind: str, **extra: Any) -> Value:
        return value(key, schema, kind, prop(BurstWorkload, name), **extra)

    add = NodeHeadroom.add_burst_workload
    return ListOf(
        key="burstWorkloads",
        description=(
            f"{summary(add)} Each item takes the props of `BurstWorkload`; the workload "
            "gets the burst class and this headroom's targeting."
        ),
        source="NodeHeadroom.add_burst_workload",
        required=("name", "image", "resources"),
        item=(
            burst(
                "name",
                "name",
                dns_label_schema(),
                "DNS-1123 label",
                note="Required here; prefixed with the name prefix (see `namePrefix`).",
            ),
            burst("image", "image", image_schema(), "image"),
            burst("replicas", "replicas", int_schema(minimum=0), "integer"),
            Group(
                key="resources",
                description="Requests and limits of the workload's container.",
                required=("requests",),
                children=(
                    Group(
                        key="requests",
                        description="What the scheduler reserves for each pod.",
                        required=("cpu", "memory"),
                        children=(
                            burst("cpu", "cpu", quantity_schema(), "quantity"),
                            burst("memory", "memory", quantity_schema(), "quantity"),
                        ),
                    ),
                    Group(
                        key="limits",
                        description="What each pod may use at most.",
                        required=(),
                        children=(
                            burst("cpu", "cpu_limit", quantity_schema(), "quantity", nullable=True),
                            burst(
                                "memory",
                                "memory_limit",
                                quantity_schema(),
                                "quantity",
                                nullable=True,
                            ),
                        ),
                    ),
                ),
            ),
            burst("command", "command", strings_schema(), "list of strings"),
            burst("args", "args", strings_schema(), "list of strings"),
            burst(
                "containerName",
                "container_name",
                dns_label_schema(),
                "DNS-1123 label",
                nullable=True,
                note="Not prefixed.",
            ),
            burst("imagePullPolicy", "image_pull_policy", enum_schema(ImagePullPolicy), "enum"),
            burst("runAsUser", "run_as_user", int_schema(minimum=1), "integer"),
            _tolerations("tolerations", prop(BurstWorkload, "tolerations")),
            burst(
                "labels",
                "labels",
                labels_schema(),
                "map of label values",
                nullable=True,
                note="Null: the headroom's `labels`.",
            ),
            Group(
                key="autoscaling",
                description="A HorizontalPodAutoscaler for the workload.",
                required=(),
                children=(
                    burst(
                        "maxReplicas",
                        "max_replicas",
                        int_schema(minimum=1),
                        "integer",
                        nullable=True,
                    ),
                    burst(
                        "targetCPUUtilization",
                        "target_cpu_utilization",
                        int_schema(minimum=1, maximum=100),
                        "integer",
                    ),
                ),
            ),
        ),
    )


def _describe_values() -> Group:
    head = NodeHeadroom
    task_kinds = ", ".join(f"`{kind}`" for kind in enum_values(TaskKind))
    models = ", ".join(f"`{model}`" for model in enum_values(PriorityModel))
    return Group(
        key="",
        description="",
        children=(
            value(
                "namePrefix",
                {"type": "string", "maxLength": 62, "pattern": "^[a-z0-9-]*$"},
                "string",
                "Prepended to the name of every workload (reserver DaemonSet, burst "
                "Deployments and their autoscalers) and to the default namespace name, so "
                f"that two releases do not collide. Null: none for the release named "
                f"`{CHART_NAME}` (the library's names, as in `dist/`), `<release>-` for "
                "any other release.",
                nullable=True,
            ),
            value(
                "model",
                enum_schema(PriorityModel),
                "enum",
                prop(head, "model"),
                note=f"One of {models}. {summary(PriorityModel)} "
                "The project README explains each model.",
            ),
            Group(
                key="priorityClasses",
                description=summary(HeadroomPriorityClasses),
                children=(
                    value(
                        "create",
                        {"type": "boolean"},
                        "boolean",
                        "Emit the PriorityClasses. They are cluster-scoped: emit them from "
                        "one release per cluster, and set this to false in the others "
                        "(with the same class values); the pods reference them by name.",
                        default=True,
                    ),
                    _priority_class("headroom", "headroom_class_name", "headroom_value"),
                    _priority_class("burst", "burst_class_name", "burst_value"),
                    Group(
                        key="default",
                        description="The default PriorityClass (model `guarded` only).",
                        children=(
                            value(
                                "create",
                                {"type": "boolean"},
                                "boolean",
                                prop(HeadroomPriorityClasses, "create_default_class"),
                                nullable=True,
                            ),
                            value(
                                "name",
                                class_name_schema(),
                                "PriorityClass name",
                                prop(HeadroomPriorityClasses, "default_class_name"),
                                nullable=True,
                            ),
                            value(
                                "value",
                                int_schema(maximum=MAX_USER_PRIORITY),
                                "integer",
                                prop(HeadroomPriorityClasses, "default_value"),
                                nullable=True,
                            ),
                        ),
                    ),
                ),
            ),
            Group(
                key="namespace",
                description="Where the reserver and the burst workloads run.",
                children=(
                    value(
                        "create",
                        {"type": "boolean"},
                        "boolean",
                        "Emit the namespace as a HeadroomNamespace. "
                        f"{summary(HeadroomNamespace)} False: it exists already.",
                        default=True,
                    ),
                    value(
                        "name",
                        dns_label_schema(),
                        "DNS-1123 label",
                        prop(head, "namespace"),
                        nullable=True,
                        note=f"Null: `<namePrefix>{CHART_NAME}`.",
                    ),
                ),
            ),
            Group(
                key="reservation",
                description="The slice that the reserver holds on every node of the pool.",
                children=(
                    value("cpu", quantity_schema(), "quantity", prop(head, "cpu")),
                    value("memory", quantity_schema(), "quantity", prop(head, "memory")),
                ),
            ),
            value(
                "reserverName",
                dns_label_schema(),
                "DNS-1123 label",
                prop(head, "reserver_name"),
                nullable=True,
                note="Prefixed with the name prefix.",
            ),
            Group(
                key="task",
                description=f"{prop(head, 'task').description} {summary(ReserverTask)}",
                children=(
                    value(
                        "kind",
                        enum_schema(TaskKind),
                        "enum",
                        f"One of {task_kinds}: `ReserverTask.pause()`, `.maintenance()`, "
                        "`.prepull(...)` or `.custom(...)`.",
                        default=TaskKind.PAUSE.value,
                    ),
                    value(
                        "prepullImages",
                        strings_schema(image_schema()),
                        "list of images",
                        prop(ReserverTask.prepull, "images"),
                        default=[],
                        note="Kind `prepull`.",
                    ),
                    value(
                        "prepullCommand",
                        strings_schema(min_items=1),
                        "list of strings",
                        prop(ReserverTask.prepull, "command"),
                        note="Kind `prepull`, and the burst images of `prepullBurstImages`.",
                    ),
                    value(
                        "image",
                        image_schema(),
                        "image",
                        prop(ReserverTask.custom, "image"),
                        nullable=True,
                        note="Kind `custom` (required there).",
                    ),
                    value(
                        "command",
                        strings_schema(),
                        "list of strings",
                        prop(ReserverTask.custom, "command"),
                        note="Kind `custom`.",
                    ),
                    value(
                        "args",
                        strings_schema(),
                        "list of strings",
                        prop(ReserverTask.custom, "args"),
                        note="Kind `custom`.",
                    ),
                    value(
                        "containerName",
                        dns_label_schema(),
                        "DNS-1123 label",
                        prop(ReserverTask.custom, "container_name"),
                        note="Kind `custom`.",
                    ),
                    value(
                        "runAsUser",
                        int_schema(minimum=1),
                        "integer",
                        prop(ReserverTask.custom, "run_as_user"),
                        note="Kind `custom`.",
                    ),
                    value(
                        "scratchPaths",
                        strings_schema({"type": "string", "pattern": "^/"}),
                        "list of absolute paths",
                        prop(ReserverTask.custom, "scratch_paths"),
                        note="Kind `custom`.",
                    ),
                ),
            ),
            value(
                "prepullBurstImages",
                {"type": "boolean"},
                "boolean",
                prop(head, "prepull_burst_images"),
            ),
            Group(
                key="images",
                description="Images of the built-in tasks, e.g. to pull them from a mirror.",
                children=(
                    value(
                        "pause",
                        image_schema(),
                        "image",
                        prop(ReserverTask.pause, "image"),
                        note="Kinds `pause` and `prepull`.",
                    ),
                    value(
                        "maintenance",
                        image_schema(),
                        "image",
                        prop(ReserverTask.maintenance, "image"),
                        note="Kind `maintenance`.",
                    ),
                ),
            ),
            Group(
                key="nodePool",
                description=prop(head, "node_pool").description,
                children=(
                    value(
                        "name",
                        dns_label_schema(),
                        "DNS-1123 label",
                        prop(NodePoolRef, "pool_name"),
                        nullable=True,
                        note="Null: every node.",
                    ),
                    value(
                        "labelKey",
                        {"type": "string", "pattern": LABEL_KEY},
                        "label key",
                        prop(NodePoolRef, "label_key"),
                    ),
                    ListOf(
                        key="taints",
                        description=prop(NodePoolRef, "taints").description,
                        source="NodePoolRef.taints",
                        required=("key",),
                        item=_taint_fields(),
                    ),
                ),
            ),
            value(
                "nodeSelector",
                labels_schema(),
                "map of label values",
                prop(head, "node_selector"),
                default={},
            ),
            _tolerations("tolerations", prop(head, "tolerations")),
            _affinity(),
            Group(
                key="dedicatedTaint",
                description=prop(head, "dedicated_taint").description,
                children=tuple(
                    _with_default(node, _values_form(DEFAULT_DEDICATED_TAINT))
                    for node in _taint_fields()
                ),
            ),
            value(
                "labels", labels_schema(), "map of label values", prop(head, "labels"), default={}
            ),
            _burst_workloads(),
        ),
    )


def _with_default(node: Node, defaults: Mapping[str, Any]) -> Node:
    if isinstance(node, Value) and node.key in defaults:
        return Value(**{**node.__dict__, "default": defaults[node.key]})
    return node


VALUES = _describe_values()
"""Every value of the chart."""


def defaults(group: Group = VALUES) -> dict[str, Any]:
    """The library's default for every value (a required prop's default is null)."""
    found: dict[str, Any] = {}
    for node in group.children:
        if isinstance(node, Group):
            found[node.key] = defaults(node)
        elif isinstance(node, ListOf):
            found[node.key] = list(node.default)
        else:
            found[node.key] = node.default
    return found


def walk(group: Group = VALUES, prefix: str = "") -> Iterator[tuple[str, Node]]:
    """Every node with its dotted path; list items appear as ``key[].child``."""
    for node in group.children:
        path = f"{prefix}{node.key}"
        yield path, node
        if isinstance(node, Group):
            yield from walk(node, f"{path}.")
        elif isinstance(node, ListOf):
            yield from walk(Group(key="", description="", children=node.item), f"{path}[].")


# --- values.schema.json ---------------------------------------------------------------


def _schema(node: Node, default: Any) -> Schema:
    if isinstance(node, Value):
        return {**node.schema, "description": node.description, "default": default}
    if isinstance(node, Group):
        return _object_schema(
            node.children, node.description, default or {}, required=tuple(node.required_keys())
        )
    item = _object_schema(node.item, "", {}, required=node.required)
    if node.rules:
        item["allOf"] = list(node.rules)
    return {
        "type": "array",
        "description": node.description,
        "default": default,
        "items": item,
    }


def _object_schema(
    children: tuple[Node, ...],
    description: str,
    default: Mapping[str, Any],
    *,
    required: tuple[str, ...],
) -> Schema:
    schema: Schema = {"type": "object"}
    if description:
        schema["description"] = description
    schema["additionalProperties"] = False
    schema["properties"] = {
        child.key: _schema(child, default.get(child.key, _item_default(child)))
        for child in children
    }
    if required:
        schema["required"] = list(required)
    return schema


def _item_default(node: Node) -> Any:
    if isinstance(node, Value):
        return node.default
    if isinstance(node, Group):
        return defaults(node)
    return list(node.default)


def values_schema(chart_defaults: Mapping[str, Any]) -> Schema:
    """values.schema.json: every value, its rule, description and the chart's default."""
    schema = _object_schema(
        VALUES.children, "", chart_defaults, required=tuple(VALUES.required_keys())
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{CHART_NAME} values",
        **schema,
    }


def schema_json(chart_defaults: Mapping[str, Any]) -> str:
    return json.dumps(values_schema(chart_defaults), indent=2, sort_keys=False) + "\n"


# --- values.yaml ----------------------------------------------------------------------


def _scalar(item: Any) -> str:
    # JSON scalars are YAML scalars that no YAML 1.1 reader turns into booleans or
    # numbers by surprise (Helm reads "y" as true).
    return json.dumps(item)


def _yaml_lines(item: Any, indent: int) -> list[str]:
    """A value as block YAML under a key; lists of scalars and empty maps stay inline."""
    pad = " " * indent
    if isinstance(item, Mapping) and item:
        lines = []
        for key, sub in item.items():
            lines.extend(_keyed(pad, str(key), sub, indent))
        return lines
    if isinstance(item, list) and item and all(isinstance(sub, Mapping) for sub in item):
        lines = []
        for sub in item:
            inner = _yaml_lines(sub, indent + 2)
            lines.append(f"{pad}- {inner[0].lstrip()}")
            lines.extend(inner[1:])
        return lines
    raise ValueError(f"not a block value: {item!r}")


def _keyed(pad: str, key: str, item: Any, indent: int) -> list[str]:
    if (isinstance(item, Mapping) and item) or (
        isinstance(item, list) and item and all(isinstance(sub, Mapping) for sub in item)
    ):
        return [f"{pad}{key}:", *_yaml_lines(item, indent + 2)]
    inline = json.dumps(item) if isinstance(item, (list, Mapping)) else _scalar(item)
    return [f"{pad}{key}: {inline}"]


def _comment(text: str, indent: int) -> list[str]:
    pad = " " * indent
    return [f"{pad}# {line}" for line in textwrap.wrap(text, width=88 - indent - 2)]


def _describe_default(node: Node, default: Any) -> str:
    """The description to show beside a default: a prop's ``Default: ...`` sentence
    is the library's default, so it is dropped where the chart sets its own."""
    text = node.description
    if isinstance(node, Value) and default is not None and node.source != "chart":
        prop_text = text[: len(text) - len(node.note)].strip()
        # A prop documented only by its default keeps it: it is all there is to say.
        text = f"{without_default(prop_text) or prop_text} {node.note}".strip()
    return text[:1].upper() + text[1:]


def values_yaml(chart_defaults: Mapping[str, Any]) -> str:
    """values.yaml: every value with its default and its description as a comment."""
    lines = [
        "# Values of the node-headroom chart. Generated by `make chart` from the",
        "# cdk8s-headroom constructs: edit the constructs' docstrings, not this file.",
        "# The defaults reproduce dist/ for the release named node-headroom. Every value is",
        "# listed in README.md and checked by values.schema.json.",
    ]

    def emit(group: Group, values: Mapping[str, Any], indent: int) -> None:
        for node in group.children:
            item = values[node.key]
            lines.append("")
            lines.extend(_comment(_describe_default(node, item), indent))
            if isinstance(node, Group):
                lines.append(f"{' ' * indent}{node.key}:")
                emit(node, item, indent + 2)
            else:
                lines.extend(_keyed(" " * indent, node.key, item, indent))

    emit(VALUES, chart_defaults, 0)
    return "\n".join(lines) + "\n"


# --- README table ---------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _default_cell(node: Node, default: Any) -> str:
    if isinstance(node, ListOf) and default:
        names = ", ".join(f"`{item.get('name', '...')}`" for item in default)
        return f"{len(default)} item(s): {names}; see values.yaml"
    return f"`{json.dumps(default)}`"


def values_table(chart_defaults: Mapping[str, Any]) -> str:
    """The README's table: every value with its type, default and description."""
    rows = ["| value | type | default | description |", "| --- | --- | --- | --- |"]

    def emit(group: Group, values: Mapping[str, Any] | None, prefix: str) -> None:
        required = set(group.required_keys()) if values is None else set()
        for node in group.children:
            path = f"{prefix}{node.key}"
            item = values[node.key] if values is not None else _item_default(node)
            if isinstance(node, Group):
                emit(node, item, f"{path}.")
                continue
            kind = node.kind if isinstance(node, Value) else "list of objects"
            if node.key in required:
                kind += ", required"
            description = _describe_default(node, item)
            if node.source != "chart":
                description += f" (`{node.source}`)"
            rows.append(
                f"| `{path}` | {_cell(kind)} | {_cell(_default_cell(node, item))} "
                f"| {_cell(description)} |"
            )
            if isinstance(node, ListOf):
                item_group = Group(
                    key="", description="", children=node.item, required=node.required
                )
                emit(item_group, None, f"{path}[].")

    emit(VALUES, chart_defaults, "")
    return "\n".join(rows) + "\n"
