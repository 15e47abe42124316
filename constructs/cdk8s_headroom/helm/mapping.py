"""What each chart value means, as the library calls it makes.

``build`` turns a complete values map into the constructs the chart's templates
render; the parity tests hold the two to the same objects. ``values_from_app`` reads a
built app back into values: the chart's defaults are main.py's app.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.helm.values import CHART_NAME, CUSTOM_TASK, VALUES, props, read_back, value_at
from cdk8s_headroom.objects.app_checks import validate_app
from cdk8s_headroom.objects.burst import BurstWorkload, ImagePullPolicy
from cdk8s_headroom.objects.capacity_buffer import CapacityBufferForm
from cdk8s_headroom.objects.headroom import NodeHeadroom
from cdk8s_headroom.objects.namespace import HeadroomNamespace
from cdk8s_headroom.objects.priority_classes import HeadroomPriorityClasses
from cdk8s_headroom.objects.reserver import default_reserver_name
from cdk8s_headroom.vocabulary import quantity, rule_language, rules
from cdk8s_headroom.vocabulary.capacity_buffer_api import CapacityBufferVersion
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.labels import workload_labels
from cdk8s_headroom.vocabulary.node_pools import NodePoolRef
from cdk8s_headroom.vocabulary.placement import (
    DEFAULT_DEDICATED_TAINT,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
    check_requirement_values,
    check_toleration,
)
from cdk8s_headroom.vocabulary.priority_models import ModelClasses, PriorityModel
from cdk8s_headroom.vocabulary.reserver_task import PAUSE_IMAGE, SEED_IMAGE, ReserverTask, TaskKind

Values = dict[str, Any]


@dataclass(frozen=True)
class Release:
    """The Helm release the chart is rendered for.

    Attributes:
        name: the release name; ``node-headroom`` keeps the library's names, as in dist/.
        namespace: the release namespace (``-n``), where the workloads go by default.
    """

    name: str = CHART_NAME
    namespace: str = CHART_NAME


class ValuesError(HeadroomConfigError):
    """An invalid chart value; ``field`` is its value path, e.g. ``reservation.cpu``."""


_FIELDS = {prop: path for path, prop in props("", but="task.").items()}
"""The library's field names (of ``NodeHeadroom`` and its classes) in the words of values."""
_BURST = props("burstWorkloads[].", but="buffer.")
"""A ``burstWorkloads`` item's values (but ``name``) and the ``add_burst_workload`` props
they give, which ``BurstWorkload`` keeps as its attributes (but its tolerations, in
``targeting``): read one way by ``build``, the other by ``values_from_app``."""
_BUFFER = props("burstWorkloads[].buffer.")
"""A burst workload's ``buffer`` values and the ``add_capacity_buffer`` props they give."""
_BUFFER_INVERSE = {prop: key for key, prop in _BUFFER.items()}
_BUFFER_OUTSIDE = {
    "node_pool": "nodePool.name",
    "workload.node_selector": "nodeSelector",
    "workload.node_affinity": "nodeAffinity",
}
"""A buffer's fields are under ``burstWorkloads[<name>].buffer.``, but its pool's and the
placement its pods share with the headroom (``nodeSelector[<key>]``, ``nodeAffinity[<key>]``)."""


@contextmanager
def _in_values(
    table: Mapping[str, str] = _FIELDS, prefix: str = "", outside: Mapping[str, str] = {}
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
        else:
            path = prefix + table.get(field, field)
        raise ValuesError(path, error.value, error.allowed) from None


def name_prefix(values: Mapping[str, Any], release: Release) -> str:
    """The prefix of every workload name (see the ``namePrefix`` value)."""
    given = values.get("namePrefix")
    if isinstance(given, str):
        return given
    return "" if release.name == CHART_NAME else f"{release.name}-"


def merge_values(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> Values:
    """Helm's coalescing: maps merge key by key, anything else replaces, null removes."""
    merged: Values = copy.deepcopy(dict(base))
    for key, given in overrides.items():
        if given is None:
            merged.pop(key, None)
        elif isinstance(given, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge_values(merged[key], given)
        else:
            merged[key] = copy.deepcopy(given)
    return merged


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


def _check_path(node: Any, parts: list[str], field: str, rule: Any) -> None:
    """``rule`` on every value at ``parts`` (``[]`` marks a list's items)."""
    *inner, leaf = parts
    for index, part in enumerate(inner):
        field = f"{field}.{part}" if field else part
        node = node.get(part.removesuffix("[]")) if isinstance(node, Mapping) else None
        if part.endswith("[]"):
            for position, item in enumerate(node or ()):
                name = item.get("name") if part == "burstWorkloads[]" else position
                _check_path(item, parts[index + 1 :], f"{field[:-2]}[{name}]", rule)
            return
    if isinstance(node, dict) and node.get(leaf) is not None:
        _check(node, leaf, f"{field}.{leaf}" if field else leaf, rule)


def _check(holder: Any, key: Any, field: str, rule: Any) -> None:
    """``rule`` on ``holder[key]``, which becomes what the library is given."""
    value = holder[key] = _as_given(holder[key], rule, field)
    if isinstance(value, list):
        for index in range(len(value)):
            _check(value, index, field, rule)
    elif rule in ("labels", "quantities"):
        for name in sorted(value):
            rules.LABEL_KEY.check(name, field=f"{field}[{name!r}]")
            item = rules.LABEL_VALUE if rule == "labels" else rules.QUANTITY
            _check(value, name, f"{field}[{name!r}]", item)
    elif rule in (rules.QUANTITY, rules.CONTAINER_MEMORY):
        text = quantity.checked_text(value, field=field)
        if rule is rules.CONTAINER_MEMORY:
            quantity.check_container_memory(text, field=field, value=value)
    else:
        rule.check(value, field=field)


def check_values(values: Mapping[str, Any]) -> None:
    """Every value's own rule, in the order of ``VALUES``, as the templates check them;
    each value becomes what the library is given (``_as_given``), in place."""
    for value in VALUES:
        rule = value.checked_by
        if rule is not None:
            with _in_values({}):
                _check_path(values, value.path.split("."), "", rule)


def check_placement(values: Mapping[str, Any]) -> None:
    """Each toleration's and node affinity term's rules across its fields, as the
    templates check them after the single values: the reserver's, then each burst
    workload's tolerations, then the node affinity."""
    lists = [("tolerations", values.get("tolerations"))] + [
        (f"burstWorkloads[{w['name']}].tolerations", w.get("tolerations"))
        for w in values.get("burstWorkloads") or ()
    ]
    for at, items in lists:
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
    for item in values.get("nodeAffinity") or ():
        field = f"nodeAffinity[{item['key']}].values"
        check_requirement_values(item["operator"], list(item.get("values") or ()), field=field)


def _taint(item: Mapping[str, Any]) -> Taint:
    return Taint(
        item["key"], item.get("value") or "", TaintEffect(item.get("effect") or "NoSchedule")
    )


def _tolerations(items: Sequence[Mapping[str, Any]] | None) -> list[Toleration]:
    return [
        Toleration(
            key=item.get("key") or "",
            operator=TolerationOperator(item.get("operator") or "Equal"),
            value=item.get("value") or "",
            effect=TaintEffect(item["effect"]) if item.get("effect") else None,
            toleration_seconds=item.get("tolerationSeconds"),
        )
        for item in items or ()
    ]


def _task(values: Mapping[str, Any]) -> ReserverTask:
    kind = TaskKind(value_at(values, "task.kind"))
    pause_image = value_at(values, "images.pause") or PAUSE_IMAGE
    if kind is TaskKind.PAUSE:
        return ReserverTask.pause(image=pause_image)
    if kind is TaskKind.MAINTENANCE:
        return ReserverTask.maintenance(image=value_at(values, "images.maintenance") or SEED_IMAGE)
    if kind is TaskKind.PREPULL:
        return ReserverTask.prepull(
            value_at(values, "task.prepullImages") or [],
            command=value_at(values, "task.prepullCommand") or [],
            pause_image=pause_image,
        )
    image = value_at(values, "task.image")
    rules.CUSTOM_TASK_NEEDS_IMAGE.check("task.image", image, image=image)
    task = values.get("task") or {}
    given = {prop: task[key] for key, prop in CUSTOM_TASK.items() if task.get(key) is not None}
    with _in_values({f"task.{prop}": f"task.{key}" for key, prop in CUSTOM_TASK.items()}):
        return ReserverTask.custom(image=image, **given)


def _prefixed(name: str, field: str, values: Mapping[str, Any], release: Release) -> str:
    """A prefixed name; a release name that makes it invalid is named as the cause."""
    prefixed = not isinstance(values.get("namePrefix"), str) and name_prefix(values, release)
    rules.PREFIXED_NAME.check(
        field,
        name,
        name=name,
        release=release.name if prefixed else None,
        allowed=rules.DNS_LABEL.clauses[0].allowed,
    )
    return rules.DNS_LABEL.check(name, field=field)


def build(
    app: Construct, values: Mapping[str, Any], release: Release = Release()
) -> list[cdk8s.Chart]:
    """Builds what the chart renders for ``values`` (the defaults merged with the user's)
    into ``app``, and returns the charts whose objects the chart renders.

    Raises:
        HeadroomConfigError: for an invalid value, named by its value path.
    """
    values = copy.deepcopy(dict(values))
    check_values(values)
    check_placement(values)
    prefix = name_prefix(values, release)
    model = PriorityModel(values["model"])
    namespace = value_at(values, "namespace.name") or release.namespace
    cluster = cdk8s.Chart(app, "cluster")
    if value_at(values, "namespace.create"):
        HeadroomNamespace(cluster, "namespace", name=namespace)
    # Classes the release does not render exist in the cluster: the library checks
    # the pods against them, but their chart stays out of the rendered output.
    classes_scope = cluster if value_at(values, "priorityClasses.create") else cdk8s.Chart(app, "x")
    classes_props = {prop: value_at(values, path) for prop, path in _FIELDS.items() if "_" in prop
                     and path.startswith("priorityClasses")}  # fmt: skip
    with _in_values():
        classes = HeadroomPriorityClasses(
            classes_scope, "priority-classes", model=model, **classes_props
        )
    workloads = cdk8s.Chart(app, "headroom")
    workloads.add_dependency(cluster)
    pool_name = value_at(values, "nodePool.name")
    pool = None
    if pool_name:
        taints = tuple(_taint(item) for item in value_at(values, "nodePool.taints") or ())
        pool = NodePoolRef(
            pool_name, label_key=value_at(values, "nodePool.labelKey"), taints=taints
        )
    slices = any(value_at(values, f"reservation.{key}") is not None for key in ("cpu", "memory"))
    kind = value_at(values, "task.kind")
    # task.kind pause is the library's default task: no task given
    given = None if kind == TaskKind.PAUSE.value else kind
    rules.NO_TASK_WITHOUT_SLICES.check("task.kind", kind, slices=slices, given=given)
    task = _task(values) if slices else None
    reserver_name = f"{prefix}{values.get('reserverName') or default_reserver_name(pool_name)}"
    _prefixed(reserver_name, "reserverName", values, release)
    with _in_values():
        headroom = NodeHeadroom(
            workloads,
            "headroom",
            cpu=value_at(values, "reservation.cpu"),
            memory=value_at(values, "reservation.memory"),
            model=model,
            node_pool=pool,
            namespace=namespace,
            priority_classes=classes,
            task=task,
            prepull_burst_images=bool(values.get("prepullBurstImages")),
            prepull_tools_image=value_at(values, "images.prepullTools"),
            prepull_pause_image=value_at(values, "images.pause"),
            reserver_name=reserver_name,
            node_selector=values.get("nodeSelector") or {},
            tolerations=_tolerations(values.get("tolerations")),
            node_affinity=[
                NodeSelectorRequirement(
                    item["key"],
                    NodeSelectorOperator(item["operator"]),
                    tuple(item.get("values") or ()),
                )
                for item in values.get("nodeAffinity") or ()
            ],
            dedicated_taint=_taint(value_at(values, "dedicatedTaint")),
            labels=values.get("labels") or None,
        )
    seen: set[str] = set()
    for index, workload in enumerate(values.get("burstWorkloads") or ()):
        name = workload["name"]
        rules.UNIQUE_BURST_NAMES.check(f"burstWorkloads[{index}].name", name, name=name, seen=seen)
        seen.add(name)
        with _in_values(_BURST_INVERSE, prefix=f"burstWorkloads[{name}]."):
            burst = headroom.add_burst_workload(name, **burst_props(workload, prefix))
        buffer = workload.get("buffer")
        if buffer is not None:
            at = f"burstWorkloads[{name}].buffer"
            _prefixed(f"{burst.name}-buffer", at, values, release)
            # Empty limits are none, as the templates read them
            given = {prop: buffer.get(key) for key, prop in _BUFFER.items()}
            props = {prop: item for prop, item in given.items() if item not in (None, {})}
            if "form" in props:
                props["form"] = CapacityBufferForm(props["form"])
            if "api_version" in props:
                props["api_version"] = CapacityBufferVersion(props["api_version"])
            with _in_values(_BUFFER_INVERSE, f"{at}.", _BUFFER_OUTSIDE):
                headroom.add_capacity_buffer(burst, **props)
    missing = headroom.missing_room()
    if missing is not None:
        raise ValuesError("reservation.cpu", None, missing.allowed)
    with _in_values():
        validate_app(app)
    return [cluster, workloads]


_BURST_INVERSE = {prop: path for path, prop in _BURST.items()}


def burst_props(workload: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The ``add_burst_workload`` props of one ``burstWorkloads`` item."""
    given = {prop: value_at(workload, path) for path, prop in _BURST.items()}
    props = {prop: item for prop, item in given.items() if item is not None}
    # The container keeps the workload's own name: a release prefix says which
    # Deployment it is, not what the container is.
    props.setdefault("container_name", workload["name"])
    props["tolerations"] = _tolerations(props.get("tolerations"))
    if "image_pull_policy" in props:
        props["image_pull_policy"] = ImagePullPolicy(props["image_pull_policy"])
    return {**props, "name": f"{prefix}{workload['name']}"}


def synthesize(
    values: Mapping[str, Any],
    release: Release = Release(),
    *,
    chart_defaults: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """The objects the library synthesizes for ``values`` merged over ``chart_defaults``."""
    app = cdk8s.App()
    charts = build(app, merge_values(chart_defaults, values), release)
    return [document for chart in charts for document in chart.to_json()]


# --- reading an app back into values -----------------------------------------------------


def _unsupported(what: str, value: object) -> HeadroomConfigError:
    return ValuesError("app", value, f"what the chart's values can express: {what}")


def _toleration(toleration: Toleration) -> dict[str, Any]:
    """Its Kubernetes form, which is its values' form, without the fields it leaves out."""
    return {key: item for key, item in toleration.to_manifest().items() if item is not None}


def _taint_values(taint: Taint) -> dict[str, Any]:
    return {"key": taint.key, "value": taint.value, "effect": taint.effect.value}


def _own_labels(labels: Mapping[str, str], name: str, component: str) -> dict[str, str]:
    generated = workload_labels(name, component)
    return {key: value for key, value in labels.items() if generated.get(key) != value}


def values_from_app(app: Construct) -> Values:
    """The values that make the chart render what ``app`` synthesizes, for the release
    named ``node-headroom`` in the app's namespace, with ``namespace.create=true`` when
    the app has a ``HeadroomNamespace`` (the chart README's rule).

    Raises:
        HeadroomConfigError: when the app holds what the values cannot express.
    """
    nodes = app.node.find_all()
    headrooms = [node for node in nodes if isinstance(node, NodeHeadroom)]
    if len(headrooms) != 1:
        raise _unsupported("exactly one NodeHeadroom", len(headrooms))
    headroom = headrooms[0]
    owned = {id(c) for p in (headroom, headroom.priority_classes) for c in p.node.find_all()}
    namespaces = [node for node in nodes if isinstance(node, HeadroomNamespace)]
    owned |= {id(child) for ns in namespaces for child in ns.node.find_all()}
    strays = [n.node.path for n in nodes if isinstance(n, cdk8s.ApiObject) and id(n) not in owned]
    if strays or any(ns.name != headroom.namespace for ns in namespaces):
        raise _unsupported("objects of the NodeHeadroom and its namespace only", strays)

    classes = headroom.priority_classes
    reference = ModelClasses.of(headroom.model)
    class_values: dict[str, Any] = {"create": True}
    for role in ("headroom", "burst", "default"):
        spec, base = getattr(classes, role), getattr(reference, role)
        class_values[role] = {
            "name": None if spec is None or spec.name == base.name else spec.name,
            "value": None if spec is None or spec.value == base.value else spec.value,
        }
    class_values["default"] = {
        "create": False if classes.default and not classes.default_class_emitted else None,
        **class_values["default"],
    }
    reserver = headroom.reserver
    pool = headroom.node_pool
    if pool is not None and not isinstance(pool, NodePoolRef):
        raise _unsupported("a node pool given as NodePoolRef", pool.pool_name)
    task = reserver.task if reserver else ReserverTask.pause()
    # A task other than custom: the task values keep custom's defaults
    shown = task if task.kind is TaskKind.CUSTOM else ReserverTask.custom(image=PAUSE_IMAGE)
    default_name = default_reserver_name(pool.pool_name if pool else None)
    implied = [taint.toleration() for taint in pool.taints] if pool else []
    dedicated = headroom.dedicated_taint
    if dedicated is not None:
        implied.append(dedicated.toleration())
    placement = headroom.targeting
    labels = headroom.labels
    pause_image = task.image if task.kind in (TaskKind.PAUSE, TaskKind.PREPULL) else PAUSE_IMAGE
    if headroom.prepull_pause_image != pause_image:
        # images.pause is both the reserver's and the pre-puller's
        raise _unsupported(
            "the pre-puller's pause image as the reserver's", headroom.prepull_pause_image
        )
    values: Values = {
        "namePrefix": None,
        "model": headroom.model.value,
        "priorityClasses": class_values,
        # Helm's habit: the release namespace, which Helm creates; the Namespace object
        # is opt-in (the README's rule for dist/ sets namespace.create=true).
        "namespace": {"create": False, "name": None},
        "reservation": {
            "cpu": reserver.cpu if reserver else None,
            "memory": reserver.memory if reserver else None,
        },
        "reserverName": None if not reserver or reserver.name == default_name else reserver.name,
        "task": {
            "kind": task.kind.value,
            "prepullImages": list(task.prepull_images),
            "prepullCommand": list(task.prepull_command),
            "image": task.image if shown is task else None,
            **read_back(shown, CUSTOM_TASK),
        },
        "prepullBurstImages": headroom.prepull_burst_images,
        "images": {
            "pause": pause_image,
            "maintenance": task.image if task.kind is TaskKind.MAINTENANCE else SEED_IMAGE,
            "prepullTools": headroom.prepull_tools_image,
        },
        "nodePool": {
            "name": pool.pool_name if pool else None,
            "labelKey": pool.label_key if pool else NodePoolRef("x").label_key,
            "taints": [_taint_values(taint) for taint in pool.taints] if pool else [],
        },
        "nodeSelector": {
            key: value
            for key, value in placement.node_selector.items()
            if not pool or key not in pool.node_selector
        },
        "tolerations": [_toleration(t) for t in placement.tolerations if t not in implied],
        "nodeAffinity": [
            {**r.to_manifest(), "values": list(r.values)} for r in placement.node_affinity
        ],
        "dedicatedTaint": _taint_values(dedicated or DEFAULT_DEDICATED_TAINT),
        "labels": labels,
        "burstWorkloads": [
            _burst_values(w, headroom, implied, labels) for w in headroom.burst_workloads
        ],
    }
    return values


def _burst_values(
    workload: BurstWorkload,
    headroom: NodeHeadroom,
    implied: list[Toleration],
    headroom_labels: Mapping[str, str],
) -> dict[str, Any]:
    if workload.namespace != headroom.namespace:
        raise _unsupported("burst workloads in the headroom's namespace", workload.name)
    labels = _own_labels(workload.labels, workload.name, "burst-workload")
    # What the item leaves null or empty: the library's own defaults
    item = read_back(
        workload,
        _BURST,
        cpu_limit=None if workload.cpu_limit == workload.cpu else workload.cpu_limit,
        memory_limit=None if workload.memory_limit == workload.memory else workload.memory_limit,
        container_name=None
        if workload.container_name == workload.name
        else workload.container_name,
        tolerations=[_toleration(t) for t in workload.targeting.tolerations if t not in implied],
        labels=None if labels == dict(headroom_labels) else labels,
    )
    return {"name": workload.name, **item, **_buffer_values(workload, headroom)}


def _buffer_values(workload: BurstWorkload, headroom: NodeHeadroom) -> dict[str, Any]:
    """The ``buffer`` of a burst workload's item, if the headroom keeps one for it."""
    for buffer in headroom.capacity_buffers:
        if buffer.workload is workload:
            if buffer.name != f"{workload.name}-buffer":
                raise _unsupported("capacity buffers named <workload>-buffer", buffer.name)
            limits = {resource: text for resource, (text, _) in buffer.limits.items()}
            return {"buffer": read_back(buffer, _BUFFER, limits=limits or None)}
    return {}
