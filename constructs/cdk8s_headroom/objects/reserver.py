"""The headroom reserver: a DaemonSet whose pods hold the slice on every node."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.core.rendered import RenderedApiObject
from cdk8s_headroom.objects.windows import Windowed, check_windows, window_cron_job
from cdk8s_headroom.objects.workload import PLACEMENT_DEFAULTS, HeadroomWorkload, PlacementOptions
from cdk8s_headroom.vocabulary import names, object_names, security_context
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.extended_resources import (
    DEVICES,
    ExtendedResources,
    check_extended_resources,
)
from cdk8s_headroom.vocabulary.labels import RESERVER_COMPONENT
from cdk8s_headroom.vocabulary.node_sizes import ISizedNodePool
from cdk8s_headroom.vocabulary.pod_security import EXCEPTIONS_ANNOTATION, PodSecurityControl
from cdk8s_headroom.vocabulary.priority_models import DEFAULT_HEADROOM_CLASS
from cdk8s_headroom.vocabulary.props import Unpack, check_props, spelled_out
from cdk8s_headroom.vocabulary.quantity import (
    QuantityLike,
    memory_quantity,
    positive_quantity,
    warn_if_cores_look_like_millicores,
)
from cdk8s_headroom.vocabulary.recipes import (
    INDEX,
    ITEM,
    Each,
    IfAny,
    Take,
    evaluate,
    fill_with,
    join,
    merge,
)
from cdk8s_headroom.vocabulary.reserver_task import ReserverTask, check_image
from cdk8s_headroom.vocabulary.rollout import UpdateStrategy
from cdk8s_headroom.vocabulary.schedule import HeadroomSchedule

DEFAULT_RESERVER_NAME = object_names.RESERVER
default_reserver_name = object_names.reserver

_SLICE = merge({"cpu": Take("cpu"), "memory": Take("memory")}, DEVICES)

SLICE_RESOURCES = {"requests": _SLICE, "limits": _SLICE}
"""A reserver container's resources: requests == limits, the slice and its devices
(Guaranteed QoS; the API server refuses an extended resource whose request differs from
its limit)."""

RESERVER_POD = {
    "priorityClassName": Take("priorityClassName"),
    "terminationGracePeriodSeconds": 0,
    "automountServiceAccountToken": False,
    "enableServiceLinks": False,
    "securityContext": Take("podSecurityContext"),
    "initContainers": IfAny(
        Each(
            "prepullImages",
            {
                "name": fill_with(object_names.PREPULL_INIT, index=INDEX),
                "image": ITEM,
                "imagePullPolicy": "IfNotPresent",
                "command": IfAny(Take("prepullCommand")),
                # The slice, like the main container, so the pod's effective request stays
                # the slice and its QoS class Guaranteed.
                "resources": SLICE_RESOURCES,
                "securityContext": Take("initSecurityContext"),
            },
        )
    ),
    "containers": [
        {
            "name": Take("containerName"),
            "image": Take("image"),
            "imagePullPolicy": "IfNotPresent",
            "command": IfAny(Take("command")),
            "args": IfAny(Take("args")),
            "resources": SLICE_RESOURCES,
            "securityContext": Take("containerSecurityContext"),
            "volumeMounts": IfAny(
                join(
                    Each("scratchPaths", security_context.SCRATCH_MOUNT),
                    Each("hostPaths", security_context.HOST_MOUNT),
                )
            ),
        }
    ],
    "volumes": IfAny(
        join(
            Each("scratchPaths", security_context.SCRATCH_VOLUME),
            Each("hostPaths", security_context.HOST_VOLUME),
        )
    ),
    "nodeSelector": IfAny(Take("nodeSelector")),
    "affinity": IfAny(Take("affinity")),
    "tolerations": IfAny(Take("tolerations")),
}
"""The reserver's pod, declared once (``recipes``): ``HeadroomReserver._render``
evaluates it, and ``make chart`` compiles it into the chart's
``node-headroom.recipe.reserverPod`` (``helm.recipes``)."""


class HeadroomReserver(HeadroomWorkload, Windowed):
    """A DaemonSet of low-priority pods that reserve ``cpu`` and ``memory`` on each node.

    Requests equal limits (Guaranteed QoS, so the kubelet never throttles or evicts the
    pod for pressure before others), the grace period is 0 s (a burst pod gets the
    slice the moment the reserver is preempted, P4), and the pod runs under the
    restricted Pod Security profile with no service-account token.

    Args:
        cpu: the CPU slice per node, e.g. ``"500m"``.
        memory: the memory slice per node, e.g. ``"512Mi"``.
        priority_class_name: default: ``headroom-reserve`` (the GUARDED class).
        name: the DaemonSet's name. Default: ``headroom-reserver``.
        task: what the pods do. Default: ``ReserverTask.pause()``.
        extended_resources: whole devices each pod holds besides its slice, e.g.
            ``{"nvidia.com/gpu": "1"}`` (``extended_resources`` module). Default: none.
        update_strategy: how the DaemonSet replaces reservers after a template change.
            Default: ``UpdateStrategy.ON_DELETE`` (its docstring says why; roll by
            deleting reserver pods, docs/gitops.md).
        schedule: hold the slices only in these time windows (``HeadroomSchedule``):
            instead of the DaemonSet, a CronJob per window (``<name>-<window>``) whose
            Job holds ``scheduled_nodes`` reserver pods, at most one per node, and the
            Job controller deletes them when the window closes (docs/schedules.md).
            Default: none, the slices are held all the time.
        scheduled_nodes: with ``schedule``: how many nodes hold a slice in a window,
            the Job's pods. Pods beyond the nodes that fit one wait Pending. Required
            with ``schedule``; default: none.
        placement: ``PlacementOptions``: the namespace, the pool to reserve on,
            node selector, tolerations, node affinity and labels.
    """

    @spelled_out(PlacementOptions, PLACEMENT_DEFAULTS)
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cpu: QuantityLike,
        memory: QuantityLike,
        priority_class_name: str = DEFAULT_HEADROOM_CLASS,
        name: str = DEFAULT_RESERVER_NAME,
        task: ReserverTask | None = None,
        update_strategy: UpdateStrategy = UpdateStrategy.ON_DELETE,
        extended_resources: ExtendedResources | None = None,
        schedule: HeadroomSchedule | None = None,
        scheduled_nodes: int | None = None,
        **placement: Unpack[PlacementOptions],
    ) -> None:
        check_props(placement, of=HeadroomReserver.__init__)
        name = names.dns_label(name, field="name")
        self.schedule, self.scheduled_nodes, self._window_names = check_windows(
            schedule, scheduled_nodes, name=name
        )
        self.cpu, self.cpu_cores = positive_quantity(cpu, field="cpu")
        self.memory, self.memory_bytes = memory_quantity(memory, field="memory")
        self.extended_resources = check_extended_resources(
            extended_resources, field="extended_resources"
        )
        if task is None:
            task = ReserverTask.pause()
        if not isinstance(task, ReserverTask):
            raise HeadroomConfigError(
                "task", task, "a ReserverTask: pause(), maintenance(), prepull(...) or custom(...)"
            )
        self.task = task
        self.update_strategy = names.member(
            update_strategy, UpdateStrategy, field="update_strategy"
        )
        self._prepull: list[str] = list(task.prepull_images)
        super().__init__(
            scope,
            id,
            kind="DaemonSet" if self.schedule is None else "CronJob",
            api_version="apps/v1" if self.schedule is None else "batch/v1",
            name=name,
            component=RESERVER_COMPONENT,
            priority_class_name=priority_class_name,
            placement=placement,
            render=self._render if self.schedule is None else lambda: self._render_window(0),
        )
        self.windows = [self.resource]
        """The objects that hold the slices: the DaemonSet, or a CronJob per window (the
        first is ``resource``)."""
        for index in range(1, len(self._window_names)):
            self.windows.append(
                RenderedApiObject(
                    self,
                    f"Window{index + 1}",
                    api_version="batch/v1",
                    kind="CronJob",
                    metadata=self._window_metadata(index),
                    render=lambda index=index: self._render_window(index),  # type: ignore[misc]
                )
            )
        pool = self.targeting.pool
        if not (isinstance(pool, ISizedNodePool) and pool.smallest_node.cpu is not None):
            warn_if_cores_look_like_millicores(cpu, field="cpu")

    def metadata(self) -> cdk8s.ApiObjectMetadata:
        return super().metadata() if self.schedule is None else self._window_metadata(0)

    def _window_metadata(self, index: int) -> cdk8s.ApiObjectMetadata:
        return cdk8s.ApiObjectMetadata(
            name=self._window_names[index], namespace=self.namespace, labels=self.labels
        )

    def _render_window(self, index: int) -> Any:
        assert self.schedule is not None and self.scheduled_nodes is not None
        return window_cron_job(
            self.schedule,
            self.schedule.windows[index],
            self.schedule.names[index],
            pod_template=self._render()["spec"]["template"],
            pods=self.scheduled_nodes,
            one_per_node=True,
        )

    @property
    def prepull_images(self) -> list[str]:
        """The images each reserver pod pulls onto its node, in order."""
        return list(self._prepull)

    def add_prepull_image(self, image: str) -> None:
        """Pulls ``image`` onto every node of the pool (an init container per image).

        This changes the reserver's pod template, so the DaemonSet replaces every
        reserver, and a replaced ``Never`` reserver cannot win back a slice that another
        pod took in between: ``NodeHeadroom(prepull_burst_images=True)`` pre-pulls with a
        DaemonSet of its own and leaves the reservers alone.
        """
        check_image(image, field="prepull_image")
        if image not in self._prepull:
            self._prepull.append(image)

    def _render(self) -> Any:
        task = self.task
        pod = evaluate(
            RESERVER_POD,
            {
                "priorityClassName": self.priority_class_name,
                "podSecurityContext": security_context.pod_security_context(task.run_as_user),
                "containerSecurityContext": security_context.container_security_context(
                    task.run_as_user,
                    read_only_root_filesystem=task.read_only_root_filesystem,
                    add_capabilities=task.add_capabilities,
                    privileged=task.privileged,
                ),
                "initSecurityContext": security_context.container_security_context(
                    security_context.NOBODY_UID
                ),
                "containerName": task.container_name,
                "image": task.image,
                "command": list(task.command),
                "args": list(task.args),
                "cpu": self.cpu,
                "memory": self.memory,
                "extendedResources": self.extended_resources,
                "prepullImages": self._prepull,
                "prepullCommand": list(task.prepull_command),
                "scratchPaths": list(task.scratch_paths),
                "hostPaths": security_context.host_mounts(
                    [(m.host_path, m.mount_path, m.read_only) for m in task.host_paths]
                ),
                **self.targeting.placement().to_manifest(),
            },
        )
        # The opt-outs a custom task asked for, visible in review and honoured by
        # the Pod Security check of `make synth` and `make validate`.
        annotations = (
            {EXCEPTIONS_ANNOTATION: ",".join(sorted(c.value for c in task.pod_security_exceptions))}
            if task.pod_security_exceptions
            else None
        )
        return self.workload_spec(
            pod, annotations=annotations, updateStrategy={"type": self.update_strategy.value}
        )

    @property
    def slice(self) -> tuple[Fraction, Fraction]:
        """The slice per node: (cores, bytes)."""
        return self.cpu_cores, self.memory_bytes

    def pod_security_exceptions(self) -> tuple[str, frozenset[PodSecurityControl]] | None:
        exceptions = self.task.pod_security_exceptions
        return (self.namespace, frozenset(exceptions)) if exceptions else None
