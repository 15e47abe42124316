"""What each chart value means, as the library calls it makes: values into an app.

``build`` turns a complete values map into the constructs the chart's templates
render; the parity tests hold the two to the same objects. ``synthesize`` gives their
objects for the defaults merged with a user's values, as Helm merges them
(``merge_values``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.core.app_checks import validate_app
from cdk8s_headroom.helm.reader import add_reader, subject
from cdk8s_headroom.helm.value_checks import (
    ValuesError,
    check_placement,
    check_shape,
    check_values,
    in_values,
)
from cdk8s_headroom.helm.values import (
    ALERTS,
    BURST_BUFFER,
    BURST_WORKLOAD,
    CHART_NAME,
    CUSTOM_TASK,
    HEADROOM_FIELDS,
    POOL_VALUES,
    Values,
    value_at,
)
from cdk8s_headroom.karpenter.node_pool import declared_node_size
from cdk8s_headroom.karpenter.pool_ref import KarpenterNodePoolRef
from cdk8s_headroom.objects.alerts import HeadroomAlerts
from cdk8s_headroom.objects.burst import ImagePullPolicy
from cdk8s_headroom.objects.capacity_buffer import CapacityBufferForm, buffer_name
from cdk8s_headroom.objects.headroom import NodeHeadroom
from cdk8s_headroom.objects.namespace import HeadroomNamespace
from cdk8s_headroom.objects.priority_classes import HeadroomPriorityClasses
from cdk8s_headroom.objects.reserver import default_reserver_name
from cdk8s_headroom.vocabulary import object_names, rules
from cdk8s_headroom.vocabulary.alert_rules import AlertSeverity
from cdk8s_headroom.vocabulary.capacity_buffer_api import CapacityBufferVersion
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.node_pools import NodePoolRef
from cdk8s_headroom.vocabulary.node_share import NodeType, Share
from cdk8s_headroom.vocabulary.placement import (
    NodeSelectorOperator,
    NodeSelectorRequirement,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from cdk8s_headroom.vocabulary.places import fill
from cdk8s_headroom.vocabulary.priority_models import PriorityModel
from cdk8s_headroom.vocabulary.reserver_task import ReserverTask, TaskKind
from cdk8s_headroom.vocabulary.schedule import (
    DEFAULT_TIME_ZONE,
    HeadroomSchedule,
    HeadroomWindow,
    window_names,
)


@dataclass(frozen=True)
class Release:
    """The Helm release the chart is rendered for.

    Attributes:
        name: the release name; ``node-headroom`` keeps the library's names, as in dist/.
        namespace: the release namespace (``-n``), where the workloads go by default.
    """

    name: str = CHART_NAME
    namespace: str = CHART_NAME


_BUFFER_INVERSE = {prop: key for key, prop in BURST_BUFFER.items()}
_BUFFER_OUTSIDE = {
    "node_pool": "nodePool.name",
    "workload.node_selector": "nodeSelector",
    "workload.node_affinity": "nodeAffinity",
}
"""A buffer's fields are under ``burstWorkloads[<name>].buffer.``, but its pool's and the
placement its pods share with the headroom (``nodeSelector[<key>]``, ``nodeAffinity[<key>]``)."""


HEADROOM_ID = "headroom"
"""The id of the chart's ``NodeHeadroom``, after the release's name prefix: the headroom
that alerts name when it has no slices, so that two such releases' alerts differ."""


RELEASE_PREFIX = "{release}-"
"""The prefix of a release's workload names, but the release named as the chart's."""


def name_prefix(values: Mapping[str, Any], release: Release) -> str:
    """The prefix of every workload name (see the ``namePrefix`` value)."""
    given = values.get("namePrefix")
    if isinstance(given, str):
        return given
    return "" if release.name == CHART_NAME else fill(RELEASE_PREFIX, {"release": release.name})


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


def _keys_sorted(value: Any) -> Any:
    """``value`` with each map's keys in order, as the templates walk a map (and show
    it in a refusal)."""
    if isinstance(value, Mapping):
        return {key: _keys_sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_keys_sorted(item) for item in value]
    return value


def _pool(values: Mapping[str, Any], name: str, taints: tuple[Taint, ...]) -> NodePoolRef:
    """The pool of ``nodePool``: sized, as ``KarpenterNodePool.from_name`` makes it, when
    the values declare its smallest node (``nodePool.nodeCpu``, ``nodePool.nodeMemory``),
    so the library checks the slice against that node."""
    label_key = value_at(values, "nodePool.labelKey")
    with in_values():
        declared = declared_node_size(
            value_at(values, "nodePool.nodeCpu"), value_at(values, "nodePool.nodeMemory")
        )
    if declared is None:
        return NodePoolRef(name, label_key=label_key, taints=taints)
    return KarpenterNodePoolRef(name, label_key=label_key, taints=taints, declared_node=declared)


def _taint(item: Mapping[str, Any]) -> Taint:
    effect = TaintEffect(item["effect"]) if item.get("effect") else Taint.effect
    return Taint(item["key"], item.get("value") or "", effect)


def _tolerations(items: Sequence[Mapping[str, Any]] | None) -> list[Toleration]:
    return [
        Toleration(
            key=item.get("key") or "",
            operator=TolerationOperator(item["operator"])
            if item.get("operator")
            else Toleration.operator,
            value=item.get("value") or "",
            effect=TaintEffect(item["effect"]) if item.get("effect") else None,
            toleration_seconds=item.get("tolerationSeconds"),
        )
        for item in items or ()
    ]


DEFAULT_TASK = TaskKind.PAUSE
"""The task of a headroom given none: ``task.kind`` with it is no task given."""
TASK_VALUES: dict[TaskKind, tuple[str, tuple[str, ...]]] = {
    TaskKind.PAUSE: ("images.pause", ()),
    TaskKind.MAINTENANCE: ("images.maintenance", ()),
    TaskKind.PREPULL: ("images.pause", ("prepullImages", "prepullCommand")),
    TaskKind.CUSTOM: ("task.image", tuple(CUSTOM_TASK)),
}
"""Per task kind: the value that gives its image, and the ``task`` values it takes."""


def _task(values: Mapping[str, Any]) -> ReserverTask:
    kind = TaskKind(value_at(values, "task.kind"))
    image_at, taken = TASK_VALUES[kind]
    image = value_at(values, image_at)
    rules.CUSTOM_TASK_NEEDS_IMAGE.check(image_at, image, image=image)
    task = values.get("task") or {}
    given = {key: task[key] for key in taken if task.get(key) is not None}
    if kind is TaskKind.PAUSE:
        return ReserverTask.pause(image=image)
    if kind is TaskKind.MAINTENANCE:
        return ReserverTask.maintenance(image=image)
    if kind is TaskKind.PREPULL:
        return ReserverTask.prepull(
            given.get("prepullImages") or [],
            command=given.get("prepullCommand") or [],
            pause_image=image,
        )
    props = {CUSTOM_TASK[key]: item for key, item in given.items()}
    with in_values({f"task.{prop}": f"task.{key}" for key, prop in CUSTOM_TASK.items()}):
        return ReserverTask.custom(image=image, **props)


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


def _node_types(values: Mapping[str, Any]) -> list[NodeType] | None:
    """``reservation.nodeTypes`` as the library's ``NodeType`` s (none when empty); their
    names and quantities were judged with the single values."""
    items = value_at(values, "reservation.nodeTypes") or ()
    types = [NodeType(item["name"], cpu=item["cpu"], memory=item["memory"]) for item in items]
    return types or None


def _schedule(given: Mapping[str, Any] | None, at: str) -> HeadroomSchedule | None:
    """A ``schedule`` value (at ``at``) as the library's ``HeadroomSchedule``, its errors
    named by value path: a window's by its position; a name taken twice by the second
    window that has it; a window that never fires by the first with its schedule."""
    if given is None:
        return None
    windows = []
    for index, item in enumerate(given.get("windows") or ()):
        fields = {f"windows.{key}": f"{at}.windows[{index}].{key}" for key in WINDOW_KEYS}
        with in_values(fields):
            windows.append(HeadroomWindow(item["schedule"], item["minutes"], item.get("name")))
    try:
        return HeadroomSchedule(windows, time_zone=given.get("timeZone", DEFAULT_TIME_ZONE))
    except HeadroomConfigError as error:
        field = {"windows": f"{at}.windows", "time_zone": f"{at}.timeZone"}.get(error.field)
        if error.field == "windows.name":
            taken: list[object] = list(window_names(windows))
            index = taken.index(error.value, taken.index(error.value) + 1)
            field = f"{at}.windows[{index}].name"
        elif error.field == "windows.schedule":
            index = [w.schedule for w in windows].index(str(error.value))
            field = f"{at}.windows[{index}].schedule"
        raise ValuesError(field or error.field, error.value, error.allowed) from None


WINDOW_KEYS = ("schedule", "minutes", "name")
"""A window's values, each the ``HeadroomWindow`` field of its name."""


def build(
    app: Construct, values: Mapping[str, Any], release: Release = Release()
) -> list[cdk8s.Chart]:
    """Builds what the chart renders for ``values`` (the defaults merged with the user's)
    into ``app``, and returns the charts whose objects the chart renders.

    Raises:
        HeadroomConfigError: for an invalid value, named by its value path.
    """
    values = copy.deepcopy(dict(values))
    check_shape(values)
    check_values(values)
    check_placement(values)
    prefix = name_prefix(values, release)
    model = PriorityModel(values["model"])
    namespace = value_at(values, "namespace.name") or release.namespace
    cluster = cdk8s.Chart(app, "cluster")
    if value_at(values, "namespace.create"):
        with in_values({"namespace": "namespace.name"}):
            HeadroomNamespace(cluster, "namespace", name=namespace)
    # Classes the release does not render exist in the cluster: the library checks
    # the pods against them, but their chart stays out of the rendered output.
    classes_scope = cluster if value_at(values, "priorityClasses.create") else cdk8s.Chart(app, "x")
    classes_props = {
        prop: value_at(values, path)
        for prop, path in HEADROOM_FIELDS.items()
        if "_" in prop and path.startswith("priorityClasses")
    }
    with in_values():
        classes = HeadroomPriorityClasses(
            classes_scope, "priority-classes", model=model, **classes_props
        )
    workloads = cdk8s.Chart(app, "headroom")
    workloads.add_dependency(cluster)
    pool_name = value_at(values, "nodePool.name")
    pool = None
    if pool_name:
        taints = tuple(_taint(item) for item in value_at(values, "nodePool.taints") or ())
        pool = _pool(values, pool_name, taints)
    for key, what in POOL_VALUES.items():
        given = value_at(values, f"nodePool.{key}")
        rules.POOL_VALUE_NEEDS_NAME.check(
            f"nodePool.{key}", _keys_sorted(given), given=given, pool=pool_name, what=what
        )
    slices = any(value_at(values, f"reservation.{key}") is not None for key in ("cpu", "memory"))
    kind = value_at(values, "task.kind")
    given = None if kind == DEFAULT_TASK.value else kind
    rules.NO_TASK_WITHOUT_SLICES.check("task.kind", kind, slices=slices, given=given)
    task = _task(values) if slices else None
    reserver_name = f"{prefix}{values.get('reserverName') or default_reserver_name(pool_name)}"
    _prefixed(reserver_name, "reserverName", values, release)
    schedule = _schedule(value_at(values, "reservation.schedule"), "reservation.schedule")
    node_types = _node_types(values)
    amounts = [value_at(values, f"reservation.{key}") for key in ("cpu", "memory")]
    if node_types and None not in amounts and any(isinstance(a, Share) for a in amounts):
        # Each size's reserver is named after the release too: a name it makes too long
        # is named as the cause, as the reserver's own
        for node_type in node_types:
            _prefixed(node_type.reserver_name(reserver_name), "reserverName", values, release)
    with in_values():
        headroom = NodeHeadroom(
            workloads,
            f"{prefix}{HEADROOM_ID}",
            cpu=value_at(values, "reservation.cpu"),
            memory=value_at(values, "reservation.memory"),
            extended_resources=value_at(values, "reservation.extendedResources") or None,
            node_types=node_types,
            schedule=schedule,
            scheduled_nodes=value_at(values, "reservation.scheduledNodes"),
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
        with in_values(_BURST_INVERSE, prefix=f"burstWorkloads[{name}]."):
            burst = headroom.add_burst_workload(name, **burst_props(workload, prefix))
        buffer = workload.get("buffer")
        if buffer is not None:
            at = f"burstWorkloads[{name}].buffer"
            _prefixed(buffer_name(burst.name, buffer.get("zone")), at, values, release)
            props = buffer_props(buffer, at)
            # Its pod's fit on the pool's node is judged on the burst's requests
            requests = {
                f"workload.{prop}": f"burstWorkloads[{name}].{_BURST_INVERSE[prop]}"
                for prop in ("cpu", "memory")
            }
            with in_values(_BUFFER_INVERSE, f"{at}.", {**_BUFFER_OUTSIDE, **requests}):
                headroom.add_capacity_buffer(burst, **props)
    missing = headroom.missing_room()
    if missing is not None:
        raise ValuesError("reservation.cpu", None, missing.allowed)
    if value_at(values, "alerts.enabled"):
        alerts = values["alerts"]
        given = {prop: alerts[key] for key, prop in ALERTS.items() if alerts.get(key) is not None}
        if "severity" in given:
            given["severity"] = AlertSeverity(given["severity"])
        with in_values(_ALERTS_INVERSE, prefix="alerts."):
            HeadroomAlerts(workloads, "alerts", headroom=headroom, **given)
    if value_at(values, "reader.create"):
        subjects = [
            subject(item, namespace, field=f"reader.subjects[{index}]")
            for index, item in enumerate(value_at(values, "reader.subjects") or ())
        ]
        # The prefix passed the reserver's name check, so the prefixed name is valid too
        name = value_at(values, "reader.name") or f"{prefix}{object_names.READER}"
        add_reader(cluster, name=name, subjects=subjects)
    with in_values():
        validate_app(app)
    return [cluster, workloads]


_BURST_INVERSE = {prop: path for path, prop in BURST_WORKLOAD.items()}
_ALERTS_INVERSE = {prop: path for path, prop in ALERTS.items()}


def default_container_name(item_name: str) -> str:
    """The container name of a ``burstWorkloads`` item whose ``containerName`` is null:
    the item's own name, not prefixed (a release prefix says which Deployment it is, not
    what the container is). ``values_from_app`` reads it back as null."""
    return item_name


def burst_props(workload: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The ``add_burst_workload`` props of one ``burstWorkloads`` item."""
    given = {prop: value_at(workload, path) for path, prop in BURST_WORKLOAD.items()}
    props = {prop: item for prop, item in given.items() if item is not None}
    props.setdefault("container_name", default_container_name(workload["name"]))
    props["tolerations"] = _tolerations(props.get("tolerations"))
    if "image_pull_policy" in props:
        props["image_pull_policy"] = ImagePullPolicy(props["image_pull_policy"])
    return {**props, "name": f"{prefix}{workload['name']}"}


def buffer_props(buffer: Mapping[str, Any], at: str) -> dict[str, Any]:
    """The ``add_capacity_buffer`` props of a burst workload's ``buffer`` values (at ``at``)."""
    # Empty limits are none, as the templates read them
    given = {prop: buffer.get(key) for key, prop in BURST_BUFFER.items()}
    props = {prop: item for prop, item in given.items() if item not in (None, {})}
    if "form" in props:
        props["form"] = CapacityBufferForm(props["form"])
    if "api_version" in props:
        props["api_version"] = CapacityBufferVersion(props["api_version"])
    if "schedule" in props:
        props["schedule"] = _schedule(props["schedule"], f"{at}.schedule")
    return props


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
