"""What a snapshot's pods use that changes scheduling and that the simulator does not
model: counted per field and shown by plan and status, never dropped silently."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any

from cdk8s_headroom.cluster.pod_requests import resize_pending
from cdk8s_headroom.simulate.report import render_warnings


class NotModelled(Enum):
    """Pod fields that change where pods may go, and that the simulator ignores."""

    INTER_POD_AFFINITY = "inter-pod affinity"
    TOPOLOGY_SPREAD = "topology spread"
    NODE_BOUND_VOLUMES = "volumes bound to nodes"
    HOST_PORTS = "host ports"
    OTHER_RESOURCES = "resources other than cpu and memory"
    OTHER_SCHEDULER = "another scheduler"
    RESIZE_PREEMPTION = (
        "in-place resizes pending (from 1.38, KEP-5836, beta; alpha in 1.37: a resize "
        "may preempt lower-priority pods, taking a slice)"
    )


def not_modelled_fields(spec: Mapping[str, Any], status: Mapping[str, Any]) -> list[NotModelled]:
    """The fields of a pod's ``spec`` and ``status`` that change where it may go and
    that the simulator ignores."""
    found: list[NotModelled] = []
    affinity = spec.get("affinity")
    if isinstance(affinity, Mapping) and any(
        isinstance(affinity.get(key), Mapping)
        and affinity[key].get("requiredDuringSchedulingIgnoredDuringExecution")
        for key in ("podAffinity", "podAntiAffinity")
    ):
        found.append(NotModelled.INTER_POD_AFFINITY)
    spread = spec.get("topologySpreadConstraints")
    if isinstance(spread, list) and any(
        isinstance(c, Mapping) and c.get("whenUnsatisfiable") in (None, "DoNotSchedule")
        for c in spread
    ):
        found.append(NotModelled.TOPOLOGY_SPREAD)
    volumes = spec.get("volumes")
    if isinstance(volumes, list) and any(
        isinstance(v, Mapping) and ("persistentVolumeClaim" in v or "ephemeral" in v)
        for v in volumes
    ):
        found.append(NotModelled.NODE_BOUND_VOLUMES)
    host_ports = other_resources = False
    for key in ("containers", "initContainers"):
        for container in spec.get(key) or ():
            if not isinstance(container, Mapping):
                continue
            for port in container.get("ports") or ():
                if isinstance(port, Mapping) and port.get("hostPort"):
                    host_ports = True
            resources = container.get("resources")
            if isinstance(resources, Mapping):
                for amounts in (resources.get("requests"), resources.get("limits")):
                    if isinstance(amounts, Mapping) and any(
                        name not in ("cpu", "memory") for name in amounts
                    ):
                        other_resources = True
    if host_ports:
        found.append(NotModelled.HOST_PORTS)
    if other_resources:
        found.append(NotModelled.OTHER_RESOURCES)
    if spec.get("schedulerName", "default-scheduler") != "default-scheduler":
        found.append(NotModelled.OTHER_SCHEDULER)
    if resize_pending(status):
        found.append(NotModelled.RESIZE_PREEMPTION)
    return found


def not_modelled_json(not_modelled: Mapping[NotModelled, list[str]]) -> dict[str, object]:
    """``not_modelled`` as plan and status print it: per field, a count and the pods."""
    return {what.value: {"count": len(pods), "pods": pods} for what, pods in not_modelled.items()}


def render_notes(
    not_modelled: Mapping[NotModelled, list[str]], warnings: Iterable[str]
) -> list[str]:
    """The "not modelled" and warnings sections of plan's and status's tables."""
    lines = []
    if not_modelled:
        lines.append("Not modelled (fields that change scheduling; decisions ignore them)")
        for what, pods in not_modelled.items():
            shown = ", ".join(pods[:5]) + (", ..." if len(pods) > 5 else "")
            lines.append(f"  {what.value}: {len(pods)} pod(s): {shown}")
    return lines + render_warnings(warnings)
