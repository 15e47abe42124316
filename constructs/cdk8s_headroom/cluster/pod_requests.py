"""A listed pod's requests, counted as kube-scheduler counts them: ``PodRequests`` of
``k8s.io/component-helpers/resource/helpers.go`` with ``UseStatusResources``, that is
containers, init and sidecar containers, in-place resizes (1.35), pod-level resources
(1.34) and overhead; and whether a resize is still pending, which may preempt from 1.38
(KEP-5836, not modelled)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cdk8s_headroom.cluster.listed_object import ListedObject, Quantities
from cdk8s_headroom.simulate.model import Resources, pod_requests
from cdk8s_headroom.vocabulary.rules import EXTENDED_RESOURCE


def pod_requests_of(
    obj: ListedObject,
    spec: Mapping[str, Any],
    status: Mapping[str, Any],
    quantities: Quantities,
) -> Resources:
    """``PodRequests`` of ``k8s.io/component-helpers/resource/helpers.go`` as the
    scheduler calls it (``UseStatusResources``): containers, init and sidecar
    containers, each container under resize at the larger of spec, allocated and
    actuated requests, pod-level requests, overhead."""
    containers = obj.sequence(spec.get("containers"), "spec.containers")
    init = obj.sequence(spec.get("initContainers"), "spec.initContainers")
    overhead = obj.mapping(spec.get("overhead"), "spec.overhead")
    pod_level = obj.mapping(spec.get("resources"), "spec.resources")
    resized = (
        _status_requests(obj, status, quantities)
        if status.get("containerStatuses") or (status.get("initContainerStatuses"))
        else {}
    )
    cpu = memory = 0
    devices = Resources()
    for index, container in enumerate(containers):
        amounts = _container(obj, container, "spec.containers", index, quantities)
        if resized:
            amounts = _resized(amounts, container, resized)
        cpu += amounts[0]
        memory += amounts[1]
        devices += _devices(obj, container, f"spec.containers[{index}]", quantities)
    if not init and not overhead and not pod_level:
        # pod_requests of containers alone is their sum; most pods are that, and a
        # snapshot holds tens of thousands of them.
        return Resources(cpu, memory, devices.extended)
    quantity = quantities.get
    inits = []
    for index, container in enumerate(init):
        amounts = _container(obj, container, "spec.initContainers", index, quantities)
        if resized and amounts[2]:
            # Only sidecars are resized in place; the others have finished.
            amounts = _resized(amounts, container, resized)
        held = _devices(obj, container, f"spec.initContainers[{index}]", quantities)
        inits.append((Resources(amounts[0], amounts[1], held.extended), amounts[2]))
    level = _pod_level(obj, pod_level, quantities)
    return pod_requests(
        (Resources(cpu, memory, devices.extended),),
        inits,
        Resources(
            quantity(obj, overhead["cpu"], "spec.overhead.cpu", 1000) if "cpu" in overhead else 0,
            quantity(obj, overhead["memory"], "spec.overhead.memory", 1)
            if "memory" in overhead
            else 0,
        ),
        pod_level=level,
    )


def _pod_level(
    obj: ListedObject, resources: Mapping[str, Any], quantities: Quantities
) -> tuple[int | None, int | None]:
    """``spec.resources.requests`` (cpu, memory), a missing request taking the
    limit as the API server defaults it (``defaultPodRequests``); ``None`` when
    neither is set."""
    found: list[int | None] = [None, None]
    for kind in ("limits", "requests"):
        given = obj.mapping(resources.get(kind), f"spec.resources.{kind}")
        for slot, (name, unit) in enumerate((("cpu", 1000), ("memory", 1))):
            if name in given:
                found[slot] = quantities.get(
                    obj, given[name], f"spec.resources.{kind}.{name}", unit
                )
    return found[0], found[1]


def _status_requests(
    obj: ListedObject, status: Mapping[str, Any], quantities: Quantities
) -> dict[str, tuple[int | None, int | None, bool]]:
    """Per container name with status ``resources`` (``cs.Resources != nil``): the
    larger of the actuated requests and ``allocatedResources`` (cpu, memory;
    ``None`` when neither names it), and whether the resize is infeasible
    (``IsPodResizeInfeasible``: then spec is not counted)."""
    infeasible = status.get("resize") == "Infeasible" or any(
        isinstance(condition, Mapping)
        and condition.get("type") == "PodResizePending"
        and condition.get("reason") == "Infeasible"
        for condition in obj.sequence(status.get("conditions"), "status.conditions")
    )
    found: dict[str, tuple[int | None, int | None, bool]] = {}
    for key in ("containerStatuses", "initContainerStatuses"):
        for index, item in enumerate(obj.sequence(status.get(key), f"status.{key}")):
            path = f"status.{key}[{index}]"
            item = obj.mapping(item, path)
            if item.get("resources") is None:
                continue
            actuated = obj.mapping(item["resources"], f"{path}.resources")
            amounts: list[int | None] = [None, None]
            for given, where in (
                (
                    obj.mapping(actuated.get("requests"), f"{path}.resources.requests"),
                    f"{path}.resources.requests",
                ),
                (
                    obj.mapping(item.get("allocatedResources"), f"{path}.allocatedResources"),
                    f"{path}.allocatedResources",
                ),
            ):
                for slot, (name, unit) in enumerate((("cpu", 1000), ("memory", 1))):
                    if name in given:
                        amount = quantities.get(obj, given[name], f"{where}.{name}", unit)
                        amounts[slot] = max(amounts[slot] or 0, amount)
            name = obj.text(item.get("name"), f"{path}.name")
            found[name] = (amounts[0], amounts[1], infeasible)
    return found


def _container(
    obj: ListedObject, data: object, field: str, index: int, quantities: Quantities
) -> tuple[int, int, bool]:
    """A container's cpu and memory requests (a missing request takes the limit),
    and whether it is a sidecar (a restartable init container)."""
    if not isinstance(data, Mapping):
        raise obj.fail(f"{field}[{index}]", data, "a mapping")
    resources = data.get("resources")
    cpu = memory = 0
    if resources:
        if not isinstance(resources, Mapping):
            raise obj.fail(f"{field}[{index}].resources", resources, "a mapping")
        for kind in ("limits", "requests"):
            given = resources.get(kind)
            if not given:
                continue
            if not isinstance(given, Mapping):
                raise obj.fail(f"{field}[{index}].resources.{kind}", given, "a mapping")
            if "cpu" in given:
                text = given["cpu"]
                known = quantities.cpu.get(text) if isinstance(text, str) else None
                cpu = (
                    known
                    if known is not None
                    else quantities.get(obj, text, f"{field}[{index}].resources.{kind}.cpu", 1000)
                )
            if "memory" in given:
                text = given["memory"]
                known = quantities.memory.get(text) if isinstance(text, str) else None
                memory = (
                    known
                    if known is not None
                    else quantities.get(obj, text, f"{field}[{index}].resources.{kind}.memory", 1)
                )
    return cpu, memory, data.get("restartPolicy") == "Always"


def _devices(obj: ListedObject, data: object, field: str, quantities: Quantities) -> Resources:
    """A container's extended resources (``nvidia.com/gpu``...), a missing request taking
    the limit; none for most containers, which name none (a cheap look for a '/')."""
    resources = data.get("resources") if isinstance(data, Mapping) else None
    found: dict[str, int] = {}
    for kind in ("limits", "requests"):
        given = resources.get(kind) if isinstance(resources, Mapping) else None
        if not isinstance(given, Mapping):
            continue
        for name, text in given.items():
            if "/" in name and EXTENDED_RESOURCE.matches(name):
                found[name] = quantities.get(obj, text, f"{field}.resources.{kind}.{name}", 1)
    return Resources(extended=tuple(sorted(found.items())))


def _resized(
    amounts: tuple[int, int, bool],
    container: Mapping[str, Any],
    resized: Mapping[str, tuple[int | None, int | None, bool]],
) -> tuple[int, int, bool]:
    """``determineContainerReqs``: a container with status resources counts the larger
    of its spec, actuated and allocated requests, or, when the resize is infeasible,
    the larger of actuated and allocated only."""
    status = resized.get(container.get("name"))  # type: ignore[arg-type]
    if status is None:
        return amounts
    cpu, memory, infeasible = status
    if infeasible:
        return cpu or 0, memory or 0, amounts[2]
    return max(amounts[0], cpu or 0), max(amounts[1], memory or 0), amounts[2]


def resize_pending(status: Mapping[str, Any]) -> bool:
    """A resize not yet actuated and not infeasible: a ``PodResizePending`` or
    ``PodResizeInProgress`` condition (1.33 on), or ``status.resize`` (1.27 to 1.32)."""
    # An infeasible resize never fits its node, so preemption cannot serve it.
    if status.get("resize") in ("Proposed", "InProgress", "Deferred"):
        return True
    conditions = status.get("conditions")
    return isinstance(conditions, list) and any(
        isinstance(condition, Mapping)
        and condition.get("type") in ("PodResizePending", "PodResizeInProgress")
        and condition.get("status", "True") == "True"
        and condition.get("reason") != "Infeasible"
        for condition in conditions
    )
