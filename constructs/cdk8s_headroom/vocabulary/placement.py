"""Where pods may run, in Kubernetes' own terms: taints, tolerations, node selector
requirements and their operators, and the one matcher of each.

Plain Python: the constructs render these objects, and the simulator reads manifests
into them and matches them as kube-scheduler does. Objects built from props are
validated in ``__post_init__``; a reader of manifests or cluster files uses
``unchecked``, since the API server validated those objects already and the reader's
own errors name the file and the path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from enum import Enum
from typing import Any, TypeVar

from cdk8s_headroom.vocabulary import names, placement_rules, rule_language
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.recipes import (
    Each,
    IfAny,
    IfGiven,
    Item,
    Take,
    Unique,
    evaluate,
    fill_with,
)


class TaintEffect(Enum):
    """What a node taint does to pods that do not tolerate it."""

    NO_SCHEDULE = "NoSchedule"
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    NO_EXECUTE = "NoExecute"


class TolerationOperator(Enum):
    """How a toleration matches a taint's value."""

    EQUAL = "Equal"
    EXISTS = "Exists"


MAX_MIN_VALUES = 50
"""The largest ``minValues`` Karpenter's NodePool schema accepts."""


class NodeSelectorOperator(Enum):
    """Operators of a node selector requirement (node affinity, Karpenter NodePool
    requirements), and of a label selector requirement (``IN``, ``NOT_IN``, ``EXISTS``,
    ``DOES_NOT_EXIST``)."""

    IN = "In"
    NOT_IN = "NotIn"
    EXISTS = "Exists"
    DOES_NOT_EXIST = "DoesNotExist"
    GT = "Gt"
    LT = "Lt"
    GTE = "Gte"
    """Karpenter NodePool requirements only (Karpenter v1.9 and later), with one integer
    of zero or more: Kubernetes node affinity has no ``Gte``, so a pod's requirement
    refuses it."""
    LTE = "Lte"
    """Karpenter NodePool requirements only, like ``GTE``."""


INTEGER_OPERATORS = frozenset(NodeSelectorOperator(op) for op in placement_rules.INTEGER_OPERATORS)
"""``placement_rules.INTEGER_OPERATORS``: compare a label, read as an integer, with one value."""

KARPENTER_ONLY_OPERATORS = frozenset(
    NodeSelectorOperator(op) for op in placement_rules.KARPENTER_ONLY_OPERATORS
)
"""``placement_rules.KARPENTER_ONLY_OPERATORS``: Karpenter's NodePools have them, pods do not."""


_T = TypeVar("_T")


def _unchecked(cls: type[_T], values: dict[str, Any]) -> _T:
    """An instance of the frozen dataclass ``cls`` without ``__post_init__``'s checks."""
    item = object.__new__(cls)
    for spec in fields(cls):  # type: ignore[arg-type]
        if spec.name in values:
            value = values[spec.name]
        elif spec.default is not MISSING:
            value = spec.default
        else:
            value = spec.default_factory()  # type: ignore[operator]
        object.__setattr__(item, spec.name, value)
    return item


@dataclass(frozen=True)
class Taint:
    """A node taint, e.g. ``Taint("headroom.cdk8s.io/burst", "true", TaintEffect.NO_SCHEDULE)``.

    Args:
        key: the taint key, a qualified label key.
        value: the taint value, a label value. Default: empty.
        effect: default: ``TaintEffect.NO_SCHEDULE``.
    """

    key: str
    value: str = ""
    effect: TaintEffect = TaintEffect.NO_SCHEDULE

    def __post_init__(self) -> None:
        names.label_key(self.key, field="taint.key")
        names.label_value(self.value, field="taint.value")
        names.member(self.effect, TaintEffect, field="taint.effect")

    @staticmethod
    def unchecked(key: str, value: str, effect: TaintEffect) -> Taint:
        """A taint read from a node (see the module docstring), not validated again."""
        return _unchecked(Taint, {"key": key, "value": value, "effect": effect})

    def toleration(self) -> Toleration:
        """The toleration that matches exactly this taint (``TAINT_TOLERATION``)."""
        form = evaluate(TAINT_TOLERATION, self._inputs())
        return Toleration(
            key=form["key"],
            operator=TolerationOperator(form["operator"]),
            value=form["value"],
            effect=TaintEffect(form["effect"]),
        )

    def _inputs(self) -> dict[str, str]:
        return {"key": self.key, "value": self.value, "effect": self.effect.value}

    def to_manifest(self) -> dict[str, str]:
        """The taint as it appears in a node (or a Karpenter NodePool) spec."""
        body = {"effect": self.effect.value, "key": self.key}
        if self.value:
            body["value"] = self.value
        return body

    TEXT = "{key}={value}:{effect}"
    """How a taint is written (``kubectl taint``'s form), in messages."""

    def __str__(self) -> str:
        return str(evaluate(TAINT_TEXT, self._inputs()))


TAINT_TEXT = fill_with(Taint.TEXT, key=Take("key"), value=Take("value"), effect=Take("effect"))
"""A taint as messages write it, declared once (``recipes``): ``str(taint)`` evaluates
it, and ``make chart`` compiles it into ``node-headroom.recipe.taintText``."""

TAINT_TOLERATION = {
    "key": Take("key"),
    "operator": TolerationOperator.EQUAL.value,
    "value": Take("value"),
    "effect": Take("effect"),
}
"""The toleration that matches exactly a taint, declared once (``recipes``):
``Taint.toleration`` evaluates it, and ``make chart`` compiles it into
``node-headroom.recipe.taintToleration``, which the chart's dedicated pool tolerates its
taint with."""


TOLERATION_RULES: tuple[tuple[rule_language.Rule, str], ...] = (
    (placement_rules.TOLERATION_NEEDS_KEY, "key"),
    (placement_rules.TOLERATION_EXISTS_WITHOUT_VALUE, "value"),
    (placement_rules.TOLERATION_SECONDS_NO_EXECUTE, "tolerationSeconds"),
)
"""A toleration's rules across its fields, in the order they are judged, each with the
field (Kubernetes' name) whose value a refusal shows. The chart's placement unit is
generated from it (``helm.units``)."""

REQUIREMENT_RULES: tuple[rule_language.Rule, ...] = (
    placement_rules.REQUIREMENT_NEEDS_VALUES,
    placement_rules.REQUIREMENT_NO_VALUES,
    placement_rules.REQUIREMENT_ONE_INTEGER,
    placement_rules.REQUIREMENT_NOT_NEGATIVE,
)
"""A node-selector requirement's rules on its values for its operator, in order (the
chart's placement unit too)."""


def check_toleration(
    key: object,
    operator: str,
    value: object,
    effect: str | None,
    seconds: object,
    *,
    fields: tuple[str, str, str],
) -> None:
    """A toleration's rules across its fields (``TOLERATION_RULES``), each refusal named
    by ``fields`` (of the key, the value and the seconds)."""
    given = {
        "key": key,
        "operator": operator,
        "value": value,
        "effect": effect,
        "tolerationSeconds": seconds,
    }
    for (rule, shown), field_name in zip(TOLERATION_RULES, fields, strict=True):
        rule.check(field_name, given[shown], **given)


def check_requirement_values(operator: str, values: list[object], *, field: str) -> None:
    """A node-selector requirement's values for its operator (``REQUIREMENT_RULES``)."""
    for rule in REQUIREMENT_RULES:
        rule.check(field, values, operator=operator, values=values)


def _toleration(read: Callable[[str], Any]) -> dict[str, Any]:
    """A toleration as a PodSpec holds it, each field read by ``read``: ``Take`` from a
    toleration's own inputs, ``Item`` from an item of a pod's list. An empty key, value
    or effect is left out, and so are seconds not given."""
    return {
        "key": IfAny(read("key")),
        "operator": read("operator"),
        "value": IfAny(read("value")),
        "effect": IfAny(read("effect")),
        "tolerationSeconds": IfGiven(read("tolerationSeconds")),
    }


TOLERATION = _toleration(Take)
"""A toleration as a PodSpec holds it, declared once (``recipes``, ``_toleration``):
``Toleration.to_manifest`` evaluates it, and ``make chart`` compiles it into
``node-headroom.recipe.toleration``."""

TOLERATIONS = Unique(Each("tolerations", _toleration(Item)))
"""A pod's tolerations, declared once (``recipes``): each laid out as ``TOLERATION``,
once each, where it first comes (the pool's taints', then the user's, then the dedicated
taint's: the same toleration twice is one). ``Placement.to_manifest`` evaluates it, and
``make chart`` compiles it into ``node-headroom.recipe.tolerations``, which the chart's
reserver, bursts and pre-puller take their tolerations from."""


@dataclass(frozen=True)
class Toleration:
    """A pod toleration.

    Args:
        key: the taint key to match; empty with ``EXISTS`` matches every taint.
        operator: default: ``TolerationOperator.EQUAL``.
        value: the value to match with ``EQUAL``; must be empty with ``EXISTS``.
        effect: the effect to match. Default: ``None``, every effect.
        toleration_seconds: for ``NO_EXECUTE`` only: how long the pod stays bound
            after the taint appears. Default: ``None``, for ever.
    """

    key: str = ""
    operator: TolerationOperator = TolerationOperator.EQUAL
    value: str = ""
    effect: TaintEffect | None = None
    toleration_seconds: int | None = None

    def __post_init__(self) -> None:
        names.member(self.operator, TolerationOperator, field="toleration.operator")
        if self.effect is not None:
            names.member(self.effect, TaintEffect, field="toleration.effect")
        if not isinstance(self.key, str):
            raise HeadroomConfigError(
                "toleration.key", self.key, "a label key, or '' with EXISTS to match every key"
            )
        if self.key:
            names.label_key(self.key, field="toleration.key")
        names.label_value(self.value, field="toleration.value")
        check_toleration(
            self.key,
            self.operator.value,
            self.value,
            self.effect.value if self.effect else None,
            self.toleration_seconds,
            fields=("toleration.key", "toleration.value", "toleration.toleration_seconds"),
        )
        if self.toleration_seconds is not None:
            names.int32(self.toleration_seconds, field="toleration.toleration_seconds")

    @staticmethod
    def unchecked(
        key: str, operator: TolerationOperator, value: str, effect: TaintEffect | None
    ) -> Toleration:
        """A toleration read from a pod template (see the module docstring), not
        validated again."""
        return _unchecked(
            Toleration, {"key": key, "operator": operator, "value": value, "effect": effect}
        )

    def tolerates(self, taint: Taint) -> bool:
        """``v1.Toleration.ToleratesTaint``: an empty effect matches every effect, an
        empty key every key; ``EXISTS`` matches any value, ``EQUAL`` the same value."""
        if self.effect is not None and self.effect is not taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator is TolerationOperator.EXISTS:
            return True
        return self.value == taint.value

    def to_manifest(self) -> dict[str, Any]:
        """The toleration as it appears in a PodSpec (``TOLERATION``)."""
        return dict(evaluate(TOLERATION, self._inputs()))

    def _inputs(self) -> dict[str, Any]:
        """The inputs of ``TOLERATION``, and an item of ``TOLERATIONS``' list."""
        return {
            "key": self.key,
            "operator": self.operator.value,
            "value": self.value,
            "effect": self.effect.value if self.effect else None,
            "tolerationSeconds": self.toleration_seconds,
        }


def _requirement(read: Callable[[str], Any]) -> dict[str, Any]:
    """A node-selector requirement as a node selector term holds it, each field read by
    ``read``: ``Take`` from a requirement's own inputs, ``Item`` from an item of a term's
    list. No values, none shown."""
    return {"key": read("key"), "operator": read("operator"), "values": IfAny(read("values"))}


REQUIREMENT = _requirement(Take)
"""A node-selector requirement, declared once (``recipes``, ``_requirement``):
``NodeSelectorRequirement.to_manifest`` evaluates it; a term lays out its requirements
alike (``NODE_SELECTOR_TERM``)."""

NODE_SELECTOR_TERM = {
    "matchExpressions": IfAny(Each("expressions", _requirement(Item))),
    "matchFields": IfAny(Each("fields", _requirement(Item))),
}
"""A node selector term, declared once (``recipes``): its label requirements, then its
field requirements, each list left out when it has none, and each requirement laid out as
``REQUIREMENT``. ``NodeSelectorTerm.to_manifest`` evaluates it, and ``make chart``
compiles it, as the one term of ``node_affinity``, into
``node-headroom.recipe.nodeAffinity`` (``helm.recipes``)."""


def node_affinity(terms: Any) -> dict[str, Any]:
    """Required node affinity, as a PodSpec's ``affinity`` holds it, of the terms (ORed)
    that the recipe ``terms`` gives: the layout of the library's ``NODE_AFFINITY`` and of
    the chart's ``helm.recipes.ONE_TERM_AFFINITY``, written once."""
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
        }
    }


NODE_AFFINITY = node_affinity(Take("terms"))
"""A pod's required node affinity of its ``terms`` (their manifests), declared once
(``recipes``): ``Placement.to_manifest`` evaluates it, and ``make chart`` compiles its
layout (``node_affinity``) with one ``NODE_SELECTOR_TERM`` for its terms into
``node-headroom.recipe.nodeAffinity`` (``helm.recipes`` ``ONE_TERM_AFFINITY``)."""


@dataclass(frozen=True)
class NodeSelectorRequirement:
    """A node affinity requirement: ``key operator values``.

    Args:
        key: a node label key.
        operator: a ``NodeSelectorOperator``.
        values: the values; non-empty for ``IN``/``NOT_IN``, empty for ``EXISTS`` and
            ``DOES_NOT_EXIST``, a single integer for ``GT``/``LT``. Default: empty.
        min_values: Karpenter NodePools only (``minValues``): the fewest distinct values
            of the key among the instance types a node claim may launch, 1-50, and no
            more than the values of an ``IN``; not with ``DOES_NOT_EXIST``. A pod's node
            affinity refuses it. Default: ``None``, no minimum.
    """

    key: str
    operator: NodeSelectorOperator
    values: tuple[str, ...] = field(default_factory=tuple)
    min_values: int | None = None

    def __post_init__(self) -> None:
        names.label_key(self.key, field="node_affinity.key")
        op = names.member(self.operator, NodeSelectorOperator, field="node_affinity.operator")
        object.__setattr__(
            self,
            "values",
            names.sequence(
                self.values,
                field=f"node_affinity[{self.key}].values",
                allowed="a list of label values",
            ),
        )
        for value in self.values:
            names.label_value(value, field=f"node_affinity[{self.key}].values")
        check_requirement_values(
            op.value, list(self.values), field=f"node_affinity[{self.key}].values"
        )
        if self.min_values is not None:
            self._check_min_values(op)

    def _check_min_values(self, op: Enum) -> None:
        field = f"node_affinity[{self.key}].min_values"
        wanted = names.int32(self.min_values, field=field, minimum=1, maximum=MAX_MIN_VALUES)
        if op is NodeSelectorOperator.DOES_NOT_EXIST:
            raise HeadroomConfigError(
                field,
                wanted,
                "None with operator DoesNotExist: a key no node has has no values to count",
            )
        if op is NodeSelectorOperator.IN and wanted > len(self.values):
            raise HeadroomConfigError(
                field,
                wanted,
                f"at most {len(self.values)}, the number of values of this In requirement "
                "(Karpenter launches nothing that needs more distinct values than it allows)",
            )

    @staticmethod
    def unchecked(
        key: str, operator: NodeSelectorOperator, values: tuple[str, ...] = ()
    ) -> NodeSelectorRequirement:
        """A requirement read from a pod template or a selector (see the module
        docstring), not validated again: ``matchFields`` keys and values are field
        paths and node names, not labels."""
        return _unchecked(
            NodeSelectorRequirement, {"key": key, "operator": operator, "values": values}
        )

    def matches(self, value: str | None) -> bool:
        """Whether a node (or pod) whose label ``key`` is ``value`` (``None``: no such
        label) satisfies the requirement, as ``nodeaffinity`` and ``labels.Selector``
        decide (and Karpenter, for its ``GTE``/``LTE``): the integer operators compare
        integers, and a value that is not one matches none of them."""
        op = self.operator
        if op is NodeSelectorOperator.IN:
            return value is not None and value in self.values
        if op is NodeSelectorOperator.NOT_IN:
            return value is None or value not in self.values
        if op is NodeSelectorOperator.EXISTS:
            return value is not None
        if op is NodeSelectorOperator.DOES_NOT_EXIST:
            return value is None
        if (
            value is None
            or len(self.values) != 1
            or not placement_rules.INTEGER.matches(value)
            or not placement_rules.INTEGER.matches(self.values[0])
        ):
            return False
        have, bound = int(value), int(self.values[0])
        return {
            NodeSelectorOperator.GT: have > bound,
            NodeSelectorOperator.LT: have < bound,
            NodeSelectorOperator.GTE: have >= bound,
            NodeSelectorOperator.LTE: have <= bound,
        }[op]

    def to_manifest(self) -> dict[str, Any]:
        """The requirement as it appears in a node selector term (``REQUIREMENT``)."""
        return dict(evaluate(REQUIREMENT, self._inputs()))

    def _inputs(self) -> dict[str, Any]:
        """The inputs of ``REQUIREMENT``, and an item of ``NODE_SELECTOR_TERM``'s lists."""
        return {"key": self.key, "operator": self.operator.value, "values": list(self.values)}


@dataclass(frozen=True)
class NodeSelectorTerm:
    """One term of required node affinity: every requirement must hold. ``fields``
    are ``matchFields`` requirements on the node's ``metadata.name``."""

    expressions: tuple[NodeSelectorRequirement, ...] = ()
    fields: tuple[NodeSelectorRequirement, ...] = ()

    def to_manifest(self) -> dict[str, Any]:
        """The term as it appears in ``nodeSelectorTerms`` (``NODE_SELECTOR_TERM``)."""
        inputs = {
            "expressions": [r._inputs() for r in self.expressions],
            "fields": [r._inputs() for r in self.fields],
        }
        return dict(evaluate(NODE_SELECTOR_TERM, inputs))


@dataclass(frozen=True)
class Placement:
    """Where a pod may go: its node selector, required node affinity and tolerations,
    and for a DaemonSet pod the node it is bound to. The constructs render it into pod
    templates (``to_manifest``); the simulator reads it back from manifests and filters
    nodes with it (the filters that give UnschedulableAndUnresolvable).

    Hashable, so that the simulator computes the nodes that pass these filters once per
    distinct placement rather than once per pod.
    """

    node_selector: tuple[tuple[str, str], ...] = ()
    affinity: tuple[NodeSelectorTerm, ...] | None = None
    """Required node affinity terms, ORed; ``None`` when the pod has none."""
    tolerations: tuple[Toleration, ...] = ()
    pinned_node: str | None = None
    """The node a DaemonSet pod is bound to (the controller's ``matchFields`` term)."""

    def to_manifest(self) -> dict[str, Any]:
        """``nodeSelector``, ``affinity`` and ``tolerations`` as a PodSpec holds them
        (``None`` when empty). A pinned node is not rendered: the DaemonSet controller
        pins each pod itself. The affinity is ``NODE_AFFINITY``'s, the tolerations
        ``TOLERATIONS``'."""
        terms = [term.to_manifest() for term in self.affinity or ()]
        return {
            "nodeSelector": dict(self.node_selector) or None,
            "affinity": evaluate(NODE_AFFINITY, {"terms": terms}) if terms else None,
            "tolerations": evaluate(
                TOLERATIONS, {"tolerations": [t._inputs() for t in self.tolerations]}
            )
            or None,
        }


DEFAULT_DEDICATED_TAINT = Taint("headroom.cdk8s.io/burst", "true", TaintEffect.NO_SCHEDULE)
"""The taint that keeps ordinary pods off a DEDICATED_POOL pool."""
