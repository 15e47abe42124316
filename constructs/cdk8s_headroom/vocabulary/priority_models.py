"""Priority models and the PriorityClass specs that implement them (plain Python; the
construct that emits them is ``priorityclasses.HeadroomPriorityClasses``).

kube-scheduler's DefaultPreemption evicts the *lowest-priority* pods that make room,
and reprieves the most important ones first. Where the headroom class sits relative to
ordinary pods therefore decides which promises hold (see ``PriorityModel``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from cdk8s_headroom.vocabulary import names, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.props import (
    TypedDict,
    Unpack,
    check_props,
    spelled_out,
    with_defaults,
)
from cdk8s_headroom.vocabulary.recipes import IfGiven, Take, evaluate, merge
from cdk8s_headroom.vocabulary.rule_language import Rule, check_ordered
from cdk8s_headroom.vocabulary.rules import MAX_USER_PRIORITY as MAX_USER_PRIORITY

CLUSTER_AUTOSCALER_EXPENDABLE_CUTOFF = -10
"""Cluster Autoscaler ignores pending pods below this priority when it scales out."""


class PriorityModel(Enum):
    """How the headroom, burst and ordinary pods are ranked.

    ``GUARDED`` (the default): the headroom class is below every other pod (-100,
    ``Never``), burst pods are at 1000000000 with ``PreemptLowerPriority``, and a
    global default class at 0 with ``Never`` keeps ordinary pods from preempting.
    A burst pod's lowest-priority victims are the headroom pods, so it takes the slice
    and evicts no ordinary pod (P2). A recreated headroom pod cannot preempt (P3).
    Ordinary pods cannot preempt the slice (P1), but a *pending* ordinary pod is
    scheduled before a recreated headroom pod and can take a freed slice: P1 holds
    against preemption, not against that race.

    ``DEDICATED_POOL``: the classes of GUARDED without the default class, on a tainted
    pool that only headroom and burst pods tolerate. Ordinary pods never land on the
    pool, which closes the race (P1, P2, P3).

    ``SEED``: the blueprint as published: ``headroom-high`` 900000000 and
    ``burst-critical`` 1000000000, both ``PreemptLowerPriority``. Headroom pods
    outrank ordinary pods, so a burst pod on a shared node evicts the ordinary pods and
    keeps the headroom (breaks P2), and a recreated headroom pod evicts ordinary pods
    to get its slice back (breaks P3). Kept for parity and migration only: with
    ``task=ReserverTask.maintenance()`` and the seed's names and sizes, NodeHeadroom
    reproduces the blueprint's manifests object for object.

    In every model a pod of another class with ``PreemptLowerPriority`` and a priority
    above the headroom class can still take the slice.
    """

    GUARDED = "guarded"
    DEDICATED_POOL = "dedicated-pool"
    SEED = "seed"

    @property
    def tainted_pool(self) -> bool:
        """Whether the headroom runs on a pool tainted so that only its pods land there
        (its pods tolerate the dedicated taint)."""
        return self is PriorityModel.DEDICATED_POOL

    @property
    def lets_bursts_outgrow_the_slice(self) -> bool:
        """Whether a burst pod larger than the slice is only warned about, as the seed
        blueprint's was, instead of refused: such a pod cannot start in the slice."""
        return self is PriorityModel.SEED


class PreemptionPolicy(Enum):
    """A PriorityClass's ``preemptionPolicy``."""

    PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
    NEVER = "Never"


@dataclass(frozen=True)
class PriorityClassSpec:
    """One PriorityClass: what the library emits or references, what the simulator
    reads from manifests and cluster files, and what the Priority admission plugin
    copies onto pods (``value`` and ``preemption_policy``).

    Args:
        name: the class name.
        value: the priority.
        preemption_policy: default: ``PreemptionPolicy.PREEMPT_LOWER_PRIORITY``, the
            API server's default.
        global_default: default: ``False``.
        description: default: empty.
    """

    name: str
    value: int
    preemption_policy: PreemptionPolicy = PreemptionPolicy.PREEMPT_LOWER_PRIORITY
    global_default: bool = False
    description: str = ""


SYSTEM_PRIORITY_CLASSES = (
    PriorityClassSpec("system-cluster-critical", 2_000_000_000),
    PriorityClassSpec("system-node-critical", 2_000_001_000),
)
"""The classes every cluster has (``scheduling.SystemCriticalPriority`` and +1000)."""


_GUARDED_HEADROOM = PriorityClassSpec(
    name="headroom-reserve",
    value=-100,
    preemption_policy=PreemptionPolicy.NEVER,
    global_default=False,
    description=(
        "Node headroom reservers. Below every other pod, so burst pods preempt them "
        "first; Never, so a recreated reserver evicts nobody."
    ),
)
_BURST = PriorityClassSpec(
    name="burst-critical",
    value=MAX_USER_PRIORITY,
    preemption_policy=PreemptionPolicy.PREEMPT_LOWER_PRIORITY,
    global_default=False,
    description=(
        "Burst-critical workloads. Preempt the headroom reservers to take the reserved "
        "slice at once."
    ),
)
_GUARDED_DEFAULT = PriorityClassSpec(
    name="default-no-preempt",
    value=0,
    preemption_policy=PreemptionPolicy.NEVER,
    global_default=True,
    description=(
        "Default for pods without a priorityClassName. Never preempts, so ordinary pods "
        "cannot evict the headroom reservers to take the reserved slice."
    ),
)
DEFAULT_HEADROOM_CLASS = _GUARDED_HEADROOM.name
"""The class a ``HeadroomReserver``'s pods reference by default: GUARDED's."""
DEFAULT_BURST_CLASS = _BURST.name
"""The class a ``BurstWorkload``'s pods reference by default: GUARDED's."""

_SEED_HEADROOM = PriorityClassSpec(
    name="headroom-high",
    value=900_000_000,
    preemption_policy=PreemptionPolicy.PREEMPT_LOWER_PRIORITY,
    global_default=False,
    description=(
        "High priority for DaemonSet reserving per-node headroom. Preemptible by burst-critical."
    ),
)
_SEED_BURST = PriorityClassSpec(
    name="burst-critical",
    value=MAX_USER_PRIORITY,
    preemption_policy=PreemptionPolicy.PREEMPT_LOWER_PRIORITY,
    global_default=False,
    description=(
        "Workloads with this priority can preempt headroom-high pods to consume reserved "
        "capacity instantly."
    ),
)


def check_model(value: object) -> PriorityModel:
    return names.member(value, PriorityModel, field="model")


def class_name(value: object, *, field: str) -> str:
    """A PriorityClass name: a DNS-1123 subdomain that does not start with ``system-``."""
    return rules.CLASS_NAME.check(value, field=field)


def class_value(value: object, *, field: str) -> int:
    """A PriorityClass value: an int32 no greater than 1000000000."""
    return rules.PRIORITY.check(value, field=field)


def class_fields(spec: PriorityClassSpec) -> dict[str, Any]:
    """``spec`` as a PriorityClass's fields, in its manifest's order: ``name`` (its
    metadata's), ``value``, ``preemptionPolicy``, ``globalDefault`` (only when true) and
    ``description``. ``HeadroomPriorityClasses`` renders them but the name, and the
    chart's data holds each model's class so (``helm/library.py`` ``models``)."""
    return {
        "name": spec.name,
        "value": spec.value,
        "preemptionPolicy": spec.preemption_policy.value,
        # The API server does not store `globalDefault: false` (omitempty), so writing
        # it would make every `kubectl apply` report the class `configured`.
        **({"globalDefault": True} if spec.global_default else {}),
        "description": spec.description,
    }


PRIORITY_CLASS = merge(
    Take("model"),
    {"name": IfGiven(Take("name")), "value": IfGiven(Take("value"))},
)
"""A class of a model as the user names and ranks it: the model's class (``model``, its
``class_fields``) with the ``name`` and ``value`` given over its own; its policy,
default flag and description stay the model's. Declared once (``recipes``):
``ModelClasses.of`` evaluates it for each class (``_customized``), and ``make chart``
compiles it into ``node-headroom.recipe.priorityClass``, which the chart's build runs on
each class of the model."""


def _customized(
    base: PriorityClassSpec, *, name: str | None, value: int | None, prop: str
) -> PriorityClassSpec:
    """``base`` with the user's name and value over its own (``PRIORITY_CLASS``),
    validated as ``<prop>_class_name`` and ``<prop>_value``."""
    fields = evaluate(PRIORITY_CLASS, {"model": class_fields(base), "name": name, "value": value})
    return replace(
        base,
        name=class_name(fields["name"], field=f"{prop}_class_name"),
        value=class_value(fields["value"], field=f"{prop}_value"),
    )


class PriorityClassProps(TypedDict, total=False):
    """The props that name and rank a model's classes: those of ``HeadroomPriorityClasses``
    (see its Args for each one's meaning and default) but ``model``, and of
    ``ModelClasses.of``."""

    headroom_class_name: str | None
    headroom_value: int | None
    burst_class_name: str | None
    burst_value: int | None
    create_default_class: bool | None
    default_class_name: str | None
    default_value: int | None


CLASS_DEFAULTS: PriorityClassProps = {
    "headroom_class_name": None,
    "headroom_value": None,
    "burst_class_name": None,
    "burst_value": None,
    "create_default_class": None,
    "default_class_name": None,
    "default_value": None,
}
"""None for each: the model's own name or value (``HeadroomPriorityClasses`` says which)."""


@dataclass(frozen=True)
class ModelClasses:
    """The PriorityClasses of a priority model, validated: ``headroom`` < ``default`` <
    ``burst``, distinct names. Build it with ``ModelClasses.of``.

    Attributes:
        model: the priority model.
        headroom: the reservers' class.
        burst: the burst workloads' class.
        default: the class of pods without a priorityClassName, when the model has one
            (GUARDED).
        default_class_emitted: whether the app emits ``default`` (False: it exists in
            the cluster).
    """

    model: PriorityModel
    headroom: PriorityClassSpec
    burst: PriorityClassSpec
    default: PriorityClassSpec | None
    default_class_emitted: bool

    @staticmethod
    @spelled_out(PriorityClassProps, CLASS_DEFAULTS)
    def of(
        model: PriorityModel = PriorityModel.GUARDED, **props: Unpack[PriorityClassProps]
    ) -> ModelClasses:
        """The classes of ``model`` with the given names and values; the props and
        their defaults are those of ``HeadroomPriorityClasses``.

        Raises:
            HeadroomConfigError: naming the prop, on a bad name, value or order.
        """
        check_props(props, of=ModelClasses.of)
        props = with_defaults(props, CLASS_DEFAULTS)
        model = check_model(model)
        seed = model is PriorityModel.SEED
        headroom = _customized(
            _SEED_HEADROOM if seed else _GUARDED_HEADROOM,
            name=props["headroom_class_name"],
            value=props["headroom_value"],
            prop="headroom",
        )
        burst = _customized(
            _SEED_BURST if seed else _BURST,
            name=props["burst_class_name"],
            value=props["burst_value"],
            prop="burst",
        )
        guarded = model is PriorityModel.GUARDED
        create_default_class = props["create_default_class"]
        if create_default_class is not None and not isinstance(create_default_class, bool):
            raise HeadroomConfigError(
                "create_default_class", create_default_class, "True, False or None"
            )
        default = None
        if guarded:
            default = _customized(
                _GUARDED_DEFAULT,
                name=props["default_class_name"],
                value=props["default_value"],
                prop="default",
            )
        classes = ModelClasses(
            model=model,
            headroom=headroom,
            burst=burst,
            default=default,
            default_class_emitted=guarded and create_default_class is not False,
        )
        CLASS_RULES.check(model, props, classes.ladder())
        return classes

    def ladder(self) -> list[tuple[str, PriorityClassSpec]]:
        """The classes by role, lowest priority first: the order ``of`` checks them in,
        and the chart's build too (``helm/library.py`` ``models``)."""
        ladder = [("headroom", self.headroom)]
        if self.default is not None:
            ladder.append(("default", self.default))
        return [*ladder, ("burst", self.burst)]

    def emitted_roles(self) -> list[str]:
        """The roles of the classes the app emits, in apply order, the ladder's: the
        default class's only when the app emits it (``default_class_emitted``). The
        chart's data holds them for each ``create_default_class`` (``models``)."""
        return [
            role for role, _ in self.ladder() if role != "default" or self.default_class_emitted
        ]

    def emitted_items(self) -> list[tuple[str, PriorityClassSpec]]:
        """The classes the app emits, with their construct ids (their roles,
        capitalized), in apply order (``emitted_roles``)."""
        by_role = dict(self.ladder())
        return [(role.capitalize(), by_role[role]) for role in self.emitted_roles()]

    @property
    def emitted(self) -> list[PriorityClassSpec]:
        """The classes the app emits."""
        return [spec for _, spec in self.emitted_items()]


@dataclass(frozen=True)
class ClassRules:
    """A model's rules across its classes' props, in the order they are judged, declared
    once: ``ModelClasses.of`` runs them (``check``), and ``make chart`` compiles them
    into the chart's ``node-headroom.rules.classes`` (``helm.props``), each error named by
    the value that gives its prop.

    Attributes:
        default_only: judged first, on each of ``default_props`` as given: a default
            class's prop is for the model that has one.
        default_props: the default class's props, in order.
        ordered: then on each class of the ladder (lowest first) and the next above it,
            named by the lower's ``value_prop``.
        distinct: then on each class's name and the role of a class below it with the
            same name, named by its ``name_prop``.
    """

    default_only: Rule
    default_props: tuple[str, ...]
    ordered: Rule
    distinct: Rule

    @staticmethod
    def value_prop(role: str) -> str:
        """The prop that gives the value of the class of ``role``."""
        return f"{role}_value"

    @staticmethod
    def name_prop(role: str) -> str:
        """The prop that gives the name of the class of ``role``."""
        return f"{role}_class_name"

    def check(
        self,
        model: PriorityModel,
        given: Mapping[str, object],
        ladder: list[tuple[str, PriorityClassSpec]],
    ) -> None:
        """Raises the first broken rule's error, of the props as ``given`` and of the
        classes of ``ladder`` (``ModelClasses.ladder``)."""
        for prop in self.default_props:
            self.default_only.check(prop, given[prop], model=model.value, given=given[prop])
        check_ordered(
            self.ordered, [(self.value_prop(role), role, spec.value) for role, spec in ladder]
        )
        seen: dict[str, str] = {}
        for role, spec in ladder:
            self.distinct.check(self.name_prop(role), spec.name, other=seen.get(spec.name))
            seen[spec.name] = role


CLASS_RULES = ClassRules(
    default_only=rules.DEFAULT_CLASS_GUARDED_ONLY,
    default_props=("create_default_class", "default_class_name", "default_value"),
    ordered=rules.PRIORITY_ORDER,
    distinct=rules.CLASS_NAMES_DIFFER,
)
"""The classes' rules across their props (``ClassRules``)."""
