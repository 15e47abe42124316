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
from enum import Enum
from typing import Any, TypeVar

import cdk8s
from constructs import Construct

from ..app import validate_app
from ..burst import BurstWorkload, ImagePullPolicy
from ..errors import HeadroomConfigError
from ..headroom import NodeHeadroom
from ..labels import workload_labels
from ..namespace import HeadroomNamespace
from ..priority import ModelClasses, PriorityModel
from ..priorityclasses import HeadroomPriorityClasses
from ..reserver import DEFAULT_RESERVER_NAME
from ..scheduling import (
    NodeSelectorOperator,
    NodeSelectorRequirement,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from ..targeting import NodePoolRef
from ..task import PAUSE_IMAGE, SEED_IMAGE, ReserverTask, TaskKind
from .paths import BURST_FIELDS as _BURST_FIELDS
from .paths import FIELDS as _FIELDS
from .paths import translate_text as _translate_text
from .values import CHART_NAME, defaults

Values = dict[str, Any]
E = TypeVar("E", bound=Enum)


@dataclass(frozen=True)
class Release:
    """The Helm release the chart is rendered for.

    Only its name matters: the chart puts its objects in ``namespace.name``, so the
    release namespace only says where Helm keeps its record.

    Attributes:
        name: the release name. ``node-headroom`` (the chart's name) keeps the library's
            object names, as in dist/.
    """

    name: str = CHART_NAME


_BURST_FIELD = re.compile(r"^burst_workloads\[[^\]]*\]\.")

DEDICATED_POOL_ALLOWED = (
    "a node pool with model 'dedicated-pool': set nodePool.name, and the pool's taints "
    "in nodePool.taints"
)
DEDICATED_TAINT_ALLOWED = (
    "a list that holds dedicatedTaint %s (model 'dedicated-pool' keeps ordinary pods off "
    "the pool with it); taint the pool and declare the taint here"
)
DUPLICATE_BURST_ALLOWED = "a name no other burst workload has"


class ValuesError(HeadroomConfigError):
    """An invalid chart value; ``field`` is its value path, e.g. ``reservation.cpu``."""


def _camel(segment: str) -> str:
    head, *rest = segment.split("_")
    return head + "".join(word.capitalize() for word in rest)


def _path(field: str, table: Mapping[str, str]) -> str:
    """The value path of a library field: the longest prefix the table knows is
    replaced, and the rest is spelled the way values are (camelCase)."""
    for known in sorted(table, key=len, reverse=True):
        if field == known or field.startswith((f"{known}.", f"{known}[")):
            rest = field[len(known) :]
            return table[known] + re.sub(r"(?<=\.)\w+", lambda m: _camel(m[0]), rest)
    return re.sub(r"(?<![\[\w'])\w+", lambda m: _camel(m[0]), field, count=0)


@contextmanager
def _value_paths(table: Mapping[str, str] = _FIELDS, prefix: str = "") -> Iterator[None]:
    """Re-raises a library error with the value path of the field that was wrong.

    The library names props (``headroom_value``); a chart user sets values
    (``priorityClasses.headroom.value``). The message keeps the library's wording.
    """
    try:
        yield
    except ValuesError:
        raise
    except HeadroomConfigError as error:
        field = _BURST_FIELD.sub("", error.field)
        allowed = _translate_text(error.allowed, table)
        raise ValuesError(prefix + _path(field, table), error.value, allowed) from error


def _enum(enum: type[E], given: object, path: str) -> E:
    for member in enum:
        if member.value == given:
            return member
    allowed = ", ".join(repr(member.value) for member in enum)
    raise ValuesError(path, given, f"one of {allowed}")


def name_prefix(values: Mapping[str, Any], release: Release) -> str:
    """The prefix of every workload name (see the ``namePrefix`` value)."""
    given = values.get("namePrefix")
    if isinstance(given, str):
        return given
    return "" if release.name == CHART_NAME else f"{release.name}-"


def merge_values(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> Values:
    """Helm's coalescing of user values over chart defaults.

    Maps merge key by key, anything else (lists included) replaces, and a null
    override removes the default, as ``helm install -f`` does.
    """
    merged: Values = copy.deepcopy(dict(base))
    for key, given in overrides.items():
        if given is None:
            merged.pop(key, None)
        elif isinstance(given, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge_values(merged[key], given)
        else:
            merged[key] = copy.deepcopy(given)
    return merged


def _get(values: Mapping[str, Any], path: str) -> Any:
    """A value by dotted path; a key Helm removed (set to null) reads as None."""
    node: Any = values
    for key in path.split("."):
        node = node.get(key) if isinstance(node, Mapping) else None
    return node


def _taints(items: Sequence[Mapping[str, Any]], path: str) -> list[Taint]:
    taints = []
    for index, item in enumerate(items):
        with _value_paths({"taint": f"{path}[{index}]"}):
            taints.append(
                Taint(
                    item["key"],
                    item.get("value") or "",
                    _enum(TaintEffect, item.get("effect", "NoSchedule"), f"{path}[{index}].effect"),
                )
            )
    return taints


def _tolerations(items: Sequence[Mapping[str, Any]] | None, path: str) -> list[Toleration]:
    tolerations = []
    for index, item in enumerate(items or ()):
        effect = item.get("effect")
        with _value_paths({"toleration": f"{path}[{index}]"}):
            tolerations.append(
                Toleration(
                    key=item.get("key") or "",
                    operator=_enum(
                        TolerationOperator,
                        item.get("operator", "Equal"),
                        f"{path}[{index}].operator",
                    ),
                    value=item.get("value") or "",
                    effect=None
                    if effect is None
                    else _enum(TaintEffect, effect, f"{path}[{index}].effect"),
                    toleration_seconds=item.get("tolerationSeconds"),
                )
            )
    return tolerations


def _requirements(items: Sequence[Mapping[str, Any]] | None) -> list[NodeSelectorRequirement]:
    requirements = []
    for index, item in enumerate(items or ()):
        at = f"nodeAffinity[{index}]"
        with _value_paths({"node_affinity": at, f"node_affinity[{item['key']}]": at}):
            requirements.append(
                NodeSelectorRequirement(
                    item["key"],
                    _enum(
                        NodeSelectorOperator, item["operator"], f"nodeAffinity[{index}].operator"
                    ),
                    tuple(item.get("values") or ()),
                )
            )
    return requirements


def _task(values: Mapping[str, Any]) -> ReserverTask:
    kind = _enum(TaskKind, _get(values, "task.kind") or TaskKind.PAUSE.value, "task.kind")
    pause_image = _get(values, "images.pause") or PAUSE_IMAGE
    if kind is TaskKind.PAUSE:
        with _value_paths({"task.image": "images.pause"}):
            return ReserverTask.pause(image=pause_image)
    if kind is TaskKind.MAINTENANCE:
        with _value_paths({"task.image": "images.maintenance"}):
            return ReserverTask.maintenance(image=_get(values, "images.maintenance") or SEED_IMAGE)
    if kind is TaskKind.PREPULL:
        with _value_paths({**_FIELDS, "task.command": "task.prepullCommand"}):
            return ReserverTask.prepull(
                _get(values, "task.prepullImages") or [],
                command=_get(values, "task.prepullCommand") or [],
                pause_image=pause_image,
            )
    custom: dict[str, Any] = {"image": _get(values, "task.image")}
    for key, prop in (
        ("command", "command"),
        ("args", "args"),
        ("containerName", "container_name"),
        ("runAsUser", "run_as_user"),
        ("scratchPaths", "scratch_paths"),
    ):
        given = _get(values, f"task.{key}")
        if given is not None:
            custom[prop] = given
    with _value_paths():
        return ReserverTask.custom(**custom)


def check_dedicated_pool(values: Mapping[str, Any]) -> None:
    """DEDICATED_POOL's pool rule in values terms (the library's message names props).

    The chart's template fails with the same message.
    """
    if values.get("model") != PriorityModel.DEDICATED_POOL.value:
        return
    if not _get(values, "nodePool.name"):
        raise ValuesError("nodePool.name", None, DEDICATED_POOL_ALLOWED)
    taint = _get(values, "dedicatedTaint") or {}
    wanted = (taint.get("key"), taint.get("value") or "", taint.get("effect") or "NoSchedule")
    declared = [
        (item.get("key"), item.get("value") or "", item.get("effect") or "NoSchedule")
        for item in _get(values, "nodePool.taints") or ()
    ]
    if wanted not in declared:
        raise ValuesError(
            "nodePool.taints",
            [f"{key}={value}:{effect}" for key, value, effect in declared],
            DEDICATED_TAINT_ALLOWED % f"{wanted[0]}={wanted[1]}:{wanted[2]}",
        )


def reserver_name(values: Mapping[str, Any], prefix: str) -> str | None:
    """The reserver's name; None leaves it to the library (no prefix, no name given)."""
    given = values.get("reserverName")
    if not prefix and given is None:
        return None
    pool = _get(values, "nodePool.name")
    default = f"{DEFAULT_RESERVER_NAME}-{pool}" if pool else DEFAULT_RESERVER_NAME
    return f"{prefix}{given or default}"


def build(
    app: Construct, values: Mapping[str, Any], release: Release = Release()
) -> list[cdk8s.Chart]:
    """Builds what the chart renders for ``values`` (the chart's defaults merged with
    the user's) into ``app``, and returns the charts whose objects the chart renders.

    Raises:
        HeadroomConfigError: for an invalid value, named by its value path.
    """
    prefix = name_prefix(values, release)
    model = _enum(PriorityModel, values.get("model"), "model")
    check_dedicated_pool(values)
    namespace = _get(values, "namespace.name") or f"{prefix}{CHART_NAME}"

    cluster = cdk8s.Chart(app, "cluster")
    rendered = [cluster]
    if _get(values, "namespace.create"):
        with _value_paths():
            HeadroomNamespace(cluster, "namespace", name=namespace)
    # Classes the chart does not emit still exist in the cluster: the library checks
    # the pods against them, but their chart stays out of the rendered output.
    classes_scope = cluster
    if not _get(values, "priorityClasses.create"):
        classes_scope = cdk8s.Chart(app, "existing-classes")
    with _value_paths():
        classes = HeadroomPriorityClasses(
            classes_scope,
            "priority-classes",
            model=model,
            headroom_class_name=_get(values, "priorityClasses.headroom.name"),
            headroom_value=_get(values, "priorityClasses.headroom.value"),
            burst_class_name=_get(values, "priorityClasses.burst.name"),
            burst_value=_get(values, "priorityClasses.burst.value"),
            create_default_class=_get(values, "priorityClasses.default.create"),
            default_class_name=_get(values, "priorityClasses.default.name"),
            default_value=_get(values, "priorityClasses.default.value"),
        )

    workloads = cdk8s.Chart(app, "headroom")
    workloads.add_dependency(cluster)
    rendered.append(workloads)
    pool_name = _get(values, "nodePool.name")
    pool = None
    if pool_name:
        with _value_paths():
            pool = NodePoolRef(
                pool_name,
                label_key=_get(values, "nodePool.labelKey"),
                taints=tuple(_taints(_get(values, "nodePool.taints") or (), "nodePool.taints")),
            )
    dedicated = _get(values, "dedicatedTaint")
    with _value_paths({**_FIELDS, "taint": "dedicatedTaint"}):
        dedicated_taint = Taint(
            dedicated["key"],
            dedicated.get("value") or "",
            _enum(TaintEffect, dedicated.get("effect", "NoSchedule"), "dedicatedTaint.effect"),
        )
    task = _task(values)
    with _value_paths():
        headroom = NodeHeadroom(
            workloads,
            "headroom",
            cpu=_get(values, "reservation.cpu"),
            memory=_get(values, "reservation.memory"),
            model=model,
            node_pool=pool,
            namespace=namespace,
            priority_classes=classes,
            task=task,
            prepull_burst_images=bool(values.get("prepullBurstImages")),
            reserver_name=reserver_name(values, prefix),
            node_selector=values.get("nodeSelector") or {},
            tolerations=_tolerations(values.get("tolerations"), "tolerations"),
            node_affinity=_requirements(values.get("nodeAffinity")),
            dedicated_taint=dedicated_taint,
            labels=values.get("labels") or None,
        )
    seen: set[str] = set()
    for index, workload in enumerate(values.get("burstWorkloads") or ()):
        name = workload["name"]
        if name in seen:
            raise ValuesError(f"burstWorkloads[{index}].name", name, DUPLICATE_BURST_ALLOWED)
        seen.add(name)
        with _value_paths(_BURST_FIELDS, prefix=f"burstWorkloads[{name}]."):
            headroom.add_burst_workload(name, **burst_props(workload, prefix))
    with _value_paths():
        validate_app(app)
    return rendered


def burst_props(workload: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The ``add_burst_workload`` props of one ``burstWorkloads`` item."""
    resources = workload.get("resources") or {}
    requests = resources.get("requests") or {}
    limits = resources.get("limits") or {}
    autoscaling = workload.get("autoscaling") or {}
    name = workload["name"]
    props: dict[str, Any] = {
        "image": workload.get("image"),
        "cpu": requests.get("cpu"),
        "memory": requests.get("memory"),
        "cpu_limit": limits.get("cpu"),
        "memory_limit": limits.get("memory"),
        "name": f"{prefix}{name}",
        # The container keeps the workload's own name: a release prefix says which
        # Deployment it is, not what the container is.
        "container_name": workload.get("containerName") or name,
        "max_replicas": autoscaling.get("maxReplicas"),
        "tolerations": _tolerations(
            workload.get("tolerations"), f"burstWorkloads[{name}].tolerations"
        ),
    }
    for key, prop in (
        ("replicas", "replicas"),
        ("command", "command"),
        ("args", "args"),
        ("runAsUser", "run_as_user"),
        ("labels", "labels"),
    ):
        if workload.get(key) is not None:
            props[prop] = workload[key]
    if autoscaling.get("targetCPUUtilization") is not None:
        props["target_cpu_utilization"] = autoscaling["targetCPUUtilization"]
    if workload.get("imagePullPolicy") is not None:
        props["image_pull_policy"] = _enum(
            ImagePullPolicy, workload["imagePullPolicy"], "imagePullPolicy"
        )
    return props


def synthesize(
    values: Mapping[str, Any],
    release: Release = Release(),
    *,
    chart_defaults: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The objects the library synthesizes for ``values`` merged over ``chart_defaults``
    (default: the library's defaults, see ``values.defaults``)."""
    merged = merge_values(chart_defaults if chart_defaults is not None else defaults(), values)
    app = cdk8s.App()
    charts = build(app, merged, release)
    return [document for chart in charts for document in chart.to_json()]


# --- reading an app back into values -----------------------------------------------------


def _unsupported(what: str, value: object) -> HeadroomConfigError:
    return ValuesError("app", value, f"what the chart's values can express: {what}")


def _toleration_values(toleration: Toleration) -> dict[str, Any]:
    return {
        "key": toleration.key,
        "operator": toleration.operator.value,
        "value": toleration.value,
        "effect": toleration.effect.value if toleration.effect else None,
        "tolerationSeconds": toleration.toleration_seconds,
    }


def _taint_values(taint: Taint) -> dict[str, Any]:
    return {"key": taint.key, "value": taint.value, "effect": taint.effect.value}


def _own_labels(labels: Mapping[str, str], name: str, component: str) -> dict[str, str]:
    generated = workload_labels(name, component)
    return {key: value for key, value in labels.items() if generated.get(key) != value}


def values_from_app(app: Construct) -> Values:
    """The values that make the chart render what ``app`` synthesizes.

    ``app`` holds one ``NodeHeadroom`` (with its classes and, optionally, a
    ``HeadroomNamespace`` of its namespace), as main.py builds it.

    Raises:
        HeadroomConfigError: when the app holds what the values cannot express.
    """
    values = defaults()
    nodes = app.node.find_all()
    headrooms = [node for node in nodes if isinstance(node, NodeHeadroom)]
    if len(headrooms) != 1:
        raise _unsupported("exactly one NodeHeadroom", len(headrooms))
    headroom = headrooms[0]
    owned = {
        id(child)
        for parent in (headroom, headroom.priority_classes)
        for child in parent.node.find_all()
    }
    namespaces = [node for node in nodes if isinstance(node, HeadroomNamespace)]
    owned |= {id(child) for ns in namespaces for child in ns.node.find_all()}
    strays = [
        node.node.path
        for node in nodes
        if isinstance(node, cdk8s.ApiObject) and id(node) not in owned
    ]
    if strays or any(ns.name != headroom.namespace for ns in namespaces):
        raise _unsupported("objects of the NodeHeadroom and its namespace only", strays)

    values["model"] = headroom.model.value
    classes = headroom.priority_classes
    reference = ModelClasses.of(headroom.model)
    for role in ("headroom", "burst", "default"):
        spec, base = getattr(classes, role), getattr(reference, role)
        if spec is None:
            continue
        group = values["priorityClasses"][role]
        group["name"] = None if spec.name == base.name else spec.name
        group["value"] = None if spec.value == base.value else spec.value
    if classes.default is not None and not classes.default_class_emitted:
        values["priorityClasses"]["default"]["create"] = False

    values["namespace"]["create"] = bool(namespaces)
    values["namespace"]["name"] = None if headroom.namespace == CHART_NAME else headroom.namespace
    reserver = headroom.reserver
    if reserver is None:
        raise _unsupported("a headroom with slices (cpu and memory)", headroom.node.path)
    if headroom.capacity_buffers:
        raise _unsupported(
            "a headroom without capacity buffers", [b.name for b in headroom.capacity_buffers]
        )
    values["reservation"] = {"cpu": reserver.cpu, "memory": reserver.memory}
    pool = headroom.node_pool
    if pool is not None and not isinstance(pool, NodePoolRef):
        raise _unsupported("a node pool given as NodePoolRef", pool.pool_name)
    default_name = f"{DEFAULT_RESERVER_NAME}-{pool.pool_name}" if pool else DEFAULT_RESERVER_NAME
    values["reserverName"] = None if reserver.name == default_name else reserver.name
    _task_values(values, reserver.task)
    values["prepullBurstImages"] = headroom.prepull_burst_images
    if pool is not None:
        values["nodePool"] = {
            "name": pool.pool_name,
            "labelKey": pool.label_key,
            "taints": [_taint_values(taint) for taint in pool.taints],
        }
    implied = [taint.toleration() for taint in pool.taints] if pool else []
    if headroom.dedicated_taint is not None:
        values["dedicatedTaint"] = _taint_values(headroom.dedicated_taint)
        implied.append(headroom.dedicated_taint.toleration())
    targeting = reserver.targeting
    pool_selector = dict(pool.node_selector) if pool else {}
    values["nodeSelector"] = {
        key: value for key, value in targeting.node_selector.items() if key not in pool_selector
    }
    values["tolerations"] = [
        _toleration_values(t) for t in targeting.tolerations if t not in implied
    ]
    values["nodeAffinity"] = [
        {"key": r.key, "operator": r.operator.value, "values": list(r.values)}
        for r in targeting.node_affinity
    ]
    labels = _own_labels(reserver.labels, reserver.name, "headroom-reserver")
    values["labels"] = labels
    values["burstWorkloads"] = [
        _burst_values(workload, headroom, implied, labels) for workload in headroom.burst_workloads
    ]
    return values


def _task_values(values: Values, task: ReserverTask) -> None:
    values["task"]["kind"] = task.kind.value
    if task.kind in (TaskKind.PAUSE, TaskKind.PREPULL):
        values["images"]["pause"] = task.image
    if task.kind is TaskKind.MAINTENANCE:
        values["images"]["maintenance"] = task.image
    if task.kind is TaskKind.PREPULL:
        values["task"]["prepullImages"] = list(task.prepull_images)
        values["task"]["prepullCommand"] = list(task.prepull_command)
    if task.kind is TaskKind.CUSTOM:
        values["task"].update(
            image=task.image,
            command=list(task.command),
            args=list(task.args),
            containerName=task.container_name,
            runAsUser=task.run_as_user,
            scratchPaths=list(task.scratch_paths),
        )


def _burst_values(
    workload: BurstWorkload,
    headroom: NodeHeadroom,
    implied: list[Toleration],
    headroom_labels: Mapping[str, str],
) -> dict[str, Any]:
    if workload.namespace != headroom.namespace:
        raise _unsupported("burst workloads in the headroom's namespace", workload.name)
    labels = _own_labels(workload.labels, workload.name, "burst-workload")
    return {
        "name": workload.name,
        "image": workload.image,
        "replicas": workload.replicas,
        "resources": {
            "requests": {"cpu": workload.cpu, "memory": workload.memory},
            "limits": {
                "cpu": None if workload.cpu_limit == workload.cpu else workload.cpu_limit,
                "memory": None
                if workload.memory_limit == workload.memory
                else workload.memory_limit,
            },
        },
        "command": list(workload.command),
        "args": list(workload.args),
        "containerName": None
        if workload.container_name == workload.name
        else workload.container_name,
        "imagePullPolicy": workload.image_pull_policy.value,
        "runAsUser": workload.run_as_user,
        "tolerations": [
            _toleration_values(t) for t in workload.targeting.tolerations if t not in implied
        ],
        "labels": None if labels == dict(headroom_labels) else labels,
        "autoscaling": {
            "maxReplicas": workload.max_replicas,
            "targetCPUUtilization": workload.target_cpu_utilization,
        },
    }
