"""What the cluster's components report, read from a listing: the scheduler's
``Preempted`` events, the DaemonSet controller's counts and a CapacityBuffer's status.
status shows them beside its own verdicts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cdk8s_headroom.cluster.listed_object import ListedObject

_INT32 = 2**31 - 1


@dataclass(frozen=True)
class PreemptionEvent:
    """A ``Preempted`` event: the scheduler evicted ``pod`` to make room."""

    namespace: str
    pod: str
    message: str
    time: str
    """When it last happened, as the event says it (RFC 3339), or ``""``."""
    count: int = 1


@dataclass(frozen=True)
class DaemonSetCounts:
    """What the DaemonSet controller itself says of a DaemonSet (its ``status``), shown
    beside status's own verdicts: kubernetes ``pkg/controller/daemon/daemon_controller.go``
    ``updateDaemonSetStatus`` counts the nodes that should run a pod, run one, run a
    ready one, and run one that should not."""

    desired: int
    current: int
    ready: int
    misscheduled: int

    def to_json(self) -> dict[str, int]:
        return {
            "desired": self.desired,
            "current": self.current,
            "ready": self.ready,
            "misscheduled": self.misscheduled,
        }


@dataclass(frozen=True)
class BufferStatus:
    """A CapacityBuffer as the cluster reports it (``autoscaling.x-k8s.io``): how many
    chunks the autoscaler provisioned, and its conditions (``Ready``, ...)."""

    name: str
    """``namespace/name``."""
    replicas: int | None
    """``status.replicas``; ``None`` before the autoscaler reported any."""
    conditions: tuple[tuple[str, str, str], ...]
    """(type, status, message) of each condition."""

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "replicas": self.replicas,
            "conditions": [
                {"type": kind, "status": state, "message": message}
                for kind, state, message in self.conditions
            ],
        }


def daemonset_counts(obj: ListedObject, data: Mapping[str, Any]) -> DaemonSetCounts:
    """A listed DaemonSet's ``status`` counts (0 where the controller wrote none yet)."""
    status = obj.mapping(data.get("status"), "status")

    def count(name: str) -> int:
        return obj.integer(status.get(name, 0), f"status.{name}", minimum=0, maximum=_INT32)

    return DaemonSetCounts(
        desired=count("desiredNumberScheduled"),
        current=count("currentNumberScheduled"),
        ready=count("numberReady"),
        misscheduled=count("numberMisscheduled"),
    )


def buffer_status(obj: ListedObject, data: Mapping[str, Any]) -> BufferStatus:
    """A listed CapacityBuffer's ``status``: its replicas and conditions."""
    status = obj.mapping(data.get("status"), "status")
    replicas = status.get("replicas")
    conditions = []
    for condition in obj.sequence(status.get("conditions"), "status.conditions"):
        condition = obj.mapping(condition, "status.conditions[]")
        conditions.append(
            (
                obj.text(condition.get("type"), "status.conditions[].type"),
                obj.text(condition.get("status"), "status.conditions[].status"),
                obj.text(condition.get("message"), "status.conditions[].message"),
            )
        )
    return BufferStatus(
        name=f"{obj.namespace}/{obj.name}",
        replicas=None
        if replicas is None
        else obj.integer(replicas, "status.replicas", minimum=0, maximum=_INT32),
        conditions=tuple(conditions),
    )


def preemption_event(obj: ListedObject, data: Mapping[str, Any]) -> PreemptionEvent:
    """A listed ``Preempted`` event."""
    # core/v1 names the pod in involvedObject and says what in message;
    # events.k8s.io/v1 uses regarding and note.
    regarding = obj.mapping(data.get("involvedObject", data.get("regarding")), "involvedObject")
    time = next(
        (
            data[key]
            for key in ("lastTimestamp", "deprecatedLastTimestamp", "eventTime")
            if data.get(key)
        ),
        "",
    )
    count = data.get("count", data.get("deprecatedCount"))
    return PreemptionEvent(
        namespace=obj.text(regarding.get("namespace"), "involvedObject.namespace"),
        pod=obj.text(regarding.get("name"), "involvedObject.name"),
        message=obj.text(data.get("message", data.get("note")), "message"),
        time=time if isinstance(time, str) else str(time),
        count=count if isinstance(count, int) and not isinstance(count, bool) else 1,
    )
