"""An app read back into chart values: the chart's defaults are main.py's app.

``values_from_app`` gives the values that make the chart render what an app
synthesizes, or says what in the app the values cannot express.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.helm import values_to_app
from cdk8s_headroom.helm.value_checks import ValuesError
from cdk8s_headroom.helm.values import (
    ALERTS,
    BURST_BUFFER,
    BURST_WORKLOAD,
    CUSTOM_TASK,
    Values,
    read_back,
)
from cdk8s_headroom.helm.values_to_app import HEADROOM_ID
from cdk8s_headroom.karpenter.pool_ref import KarpenterNodePoolRef
from cdk8s_headroom.objects.alerts import DEFAULT_NAME, HeadroomAlerts
from cdk8s_headroom.objects.burst import BurstWorkload
from cdk8s_headroom.objects.capacity_buffer import buffer_name
from cdk8s_headroom.objects.headroom import NodeHeadroom
from cdk8s_headroom.objects.namespace import HeadroomNamespace
from cdk8s_headroom.objects.reserver import default_reserver_name
from cdk8s_headroom.vocabulary.alert_rules import HeadroomAlertRules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.labels import BURST_COMPONENT, workload_labels
from cdk8s_headroom.vocabulary.node_pools import NodePoolRef
from cdk8s_headroom.vocabulary.node_share import is_share, pool_node_types
from cdk8s_headroom.vocabulary.placement import DEFAULT_DEDICATED_TAINT, Taint, Toleration
from cdk8s_headroom.vocabulary.places import fill
from cdk8s_headroom.vocabulary.priority_models import ModelClasses
from cdk8s_headroom.vocabulary.quantity import Quantity, format_cpu, format_memory
from cdk8s_headroom.vocabulary.reserver_task import PAUSE_IMAGE, SEED_IMAGE, ReserverTask, TaskKind
from cdk8s_headroom.vocabulary.schedule import HeadroomSchedule


def _unsupported(what: str, value: object) -> HeadroomConfigError:
    return ValuesError("app", value, f"what the chart's values can express: {what}")


def _size(written: Callable[[Fraction], str], amount: Fraction | None) -> str | None:
    """A declared node size as a quantity's text, or None when not declared."""
    return None if amount is None else written(amount)


def _slice_value(held: Quantity) -> str:
    """A reserver's cpu or memory as the values give it: the share it holds, as written
    (``"10%"``), or its quantity."""
    given = held.given
    return given.strip() if isinstance(given, str) and is_share(given) else held.text


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
    watching = [node for node in nodes if isinstance(node, HeadroomAlerts)]
    owned |= {id(child) for alerts in watching[:1] for child in alerts.node.find_all()}
    strays = [n.node.path for n in nodes if isinstance(n, cdk8s.ApiObject) and id(n) not in owned]
    if strays or any(ns.name != headroom.namespace for ns in namespaces):
        raise _unsupported(
            "objects of the NodeHeadroom, its namespace and one HeadroomAlerts only", strays
        )

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
    sizes = [node_type for node_type, _ in headroom.sized_slices]
    if sizes and tuple(sizes) == pool_node_types(getattr(pool, "requirements", ())):
        raise _unsupported(
            "a share of node sizes declared as NodeType s: the chart reads no pool's instance "
            "types",
            [node_type.name for node_type in sizes],
        )
    # A share's judged slice keeps the share as given (node_share.share_of)
    first = headroom.sized_slices[0][1] if sizes else None
    if pool is not None and not isinstance(pool, NodePoolRef):
        raise _unsupported("a node pool given as NodePoolRef", pool.pool_name)
    declared = None
    if isinstance(pool, KarpenterNodePoolRef):
        if pool.requirements or pool.limits is not None:
            raise _unsupported("a pool sized by its smallest node alone", pool.pool_name)
        declared = pool.declared_node
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
            "cpu": _slice_value(first.cpu) if first else reserver.cpu if reserver else None,
            "memory": _slice_value(first.memory)
            if first
            else reserver.memory
            if reserver
            else None,
            "extendedResources": dict(headroom.extended_resources),
            "nodeTypes": [
                {"name": t.name, "cpu": t.cpu.text, "memory": t.memory.text} for t in sizes
            ],
            "schedule": schedule_values(reserver.schedule if reserver else None),
            "scheduledNodes": reserver.scheduled_nodes if reserver else None,
        },
        "reserverName": None
        if not reserver or headroom.reserver_name == default_name
        else headroom.reserver_name,
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
            "nodeCpu": _size(format_cpu, declared.cpu if declared else None),
            "nodeMemory": _size(format_memory, declared.memory if declared else None),
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
        "alerts": _alerts_values(watching[0] if watching else None, headroom),
        # The chart's own, for plan and status: an app holds no reader
        "reader": {"create": False, "name": None, "subjects": []},
    }
    return values


def _alerts_values(alerts: HeadroomAlerts | None, headroom: NodeHeadroom) -> dict[str, Any]:
    """The ``alerts`` values: the app's ``HeadroomAlerts``, or off with the rules' defaults."""
    if alerts is None:
        rules = HeadroomAlertRules(
            headroom=HEADROOM_ID, namespace=HEADROOM_ID, reservers=(), bursts=()
        )
        return {"enabled": False, **read_back(rules, ALERTS, name=None, labels={})}
    if alerts.headroom is not headroom:
        raise _unsupported("alerts on the NodeHeadroom", alerts.node.path)
    rules = alerts.alert_rules()
    if headroom.reserver is None and rules.headroom != HEADROOM_ID:
        raise _unsupported(
            f"alerts of a headroom without slices with id {HEADROOM_ID}", rules.headroom
        )
    default_name = fill(DEFAULT_NAME, {"headroom": rules.headroom})
    name = None if alerts.name == default_name else alerts.name
    return {"enabled": True, **read_back(rules, ALERTS, name=name, labels=alerts.labels)}


def _burst_values(
    workload: BurstWorkload,
    headroom: NodeHeadroom,
    implied: list[Toleration],
    headroom_labels: Mapping[str, str],
) -> dict[str, Any]:
    if workload.namespace != headroom.namespace:
        raise _unsupported("burst workloads in the headroom's namespace", workload.name)
    labels = _own_labels(workload.labels, workload.name, BURST_COMPONENT)
    # What the item leaves null or empty: the library's own defaults
    item = read_back(
        workload,
        BURST_WORKLOAD,
        cpu_limit=None if workload.cpu_limit == workload.cpu else workload.cpu_limit,
        memory_limit=None if workload.memory_limit == workload.memory else workload.memory_limit,
        container_name=None
        if workload.container_name == values_to_app.default_container_name(workload.name)
        else workload.container_name,
        tolerations=[_toleration(t) for t in workload.targeting.tolerations if t not in implied],
        labels=None if labels == dict(headroom_labels) else labels,
        extended_resources=workload.extended_resources or None,
    )
    return {"name": workload.name, **item, **_buffer_values(workload, headroom)}


def _buffer_values(workload: BurstWorkload, headroom: NodeHeadroom) -> dict[str, Any]:
    """The ``buffer`` of a burst workload's item, if the headroom keeps one for it."""
    for buffer in headroom.capacity_buffers:
        if buffer.workload is workload:
            if buffer.name != buffer_name(workload.name, buffer.zone):
                raise _unsupported("capacity buffers named <workload>-buffer", buffer.name)
            limits = {resource: text for resource, (text, _) in buffer.limits.items()}
            schedule = schedule_values(buffer.schedule)
            return {
                "buffer": read_back(buffer, BURST_BUFFER, limits=limits or None, schedule=schedule)
            }
    return {}


def schedule_values(schedule: HeadroomSchedule | None) -> dict[str, Any] | None:
    """A ``schedule`` value: the zone, and each window as ``HeadroomWindow`` holds it."""
    if schedule is None:
        return None
    return {
        "timeZone": schedule.time_zone,
        "windows": [
            {key: getattr(window, key) for key in values_to_app.WINDOW_KEYS}
            for window in schedule.windows
        ],
    }
