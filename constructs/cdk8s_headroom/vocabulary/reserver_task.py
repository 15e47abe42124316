"""What the headroom reserver's pods do while they hold the slice."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import Enum

from cdk8s_headroom.vocabulary import names, object_names, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.pod_security import RESTRICTED_CAPABILITIES, PodSecurityControl
from cdk8s_headroom.vocabulary.security_context import NOBODY_UID, PAUSE_UID, ROOT_UID

PAUSE_IMAGE = "registry.k8s.io/pause:3.10"
SEED_IMAGE = "public.ecr.aws/amazonlinux/amazonlinux:2"
SEED_MAINTENANCE_SCRIPT = """\
echo "Starting background processing job..."
while true; do
  echo "$(date): Processing background tasks..."
  find /tmp -name "*.tmp" -delete 2>/dev/null || true
  sleep 30
  echo "Performing maintenance tasks..."
  for i in $(seq 1 10); do
    echo "Task $i completed" > /dev/null
  done
  sleep 60
done
"""
DEFAULT_PREPULL_COMMAND = ("/bin/sh", "-c", "true")


class TaskKind(Enum):
    """The kinds of reserver task."""

    PAUSE = "pause"
    MAINTENANCE = "maintenance"
    PREPULL = "prepull"
    CUSTOM = "custom"


_RESERVED_CONTAINER_PREFIX = object_names.PREPULL_INIT_PREFIX


def check_image(value: object, *, field: str) -> str:
    """A container image reference: ``[registry[:port]/]name[:tag][@digest]``."""
    return rules.IMAGE.check(value, field=field)


def check_mount_path(value: object, *, field: str) -> str:
    """An absolute, normalized path other than ``/``, e.g. ``/var/cache``."""
    if (
        not isinstance(value, str)
        or not value.startswith("/")
        or value == "/"
        or posixpath.normpath(value) != value
        or ".." in value.split("/")
        or any(not c.isprintable() for c in value)
    ):
        raise HeadroomConfigError(
            field, value, "an absolute, normalized path other than '/', e.g. '/var/cache'"
        )
    return value


def _flag(value: object, *, field: str) -> bool:
    if not isinstance(value, bool):
        raise HeadroomConfigError(field, value, "True or False")
    return value


@dataclass(frozen=True)
class HostPathMount:
    """A folder of the node mounted into a custom reserver task.

    It breaks Pod Security (``HOST_PATH_VOLUMES`` and ``VOLUME_TYPES``), so the task
    must opt out of both.

    Args:
        host_path: the node's folder, an absolute path.
        mount_path: where the container sees it, an absolute path.
        read_only: default: ``True``.
    """

    host_path: str
    mount_path: str
    read_only: bool = True

    def __post_init__(self) -> None:
        check_mount_path(self.host_path, field="task.host_paths.host_path")
        check_mount_path(self.mount_path, field="task.host_paths.mount_path")
        _flag(self.read_only, field="task.host_paths.read_only")


def _strings(value: Sequence[str], *, field: str) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise HeadroomConfigError(field, value, "a list of strings")
    return tuple(names.text(item, field=field) for item in value)


@dataclass(frozen=True)
class ReserverTask:
    """The container that runs in each headroom pod. Build one with a factory:
    ``pause()``, ``maintenance()``, ``prepull(images)`` or ``custom(...)``.

    Whatever the task, the reserver sets the container's requests and limits to the
    slice, and runs it under the restricted Pod Security profile, unless a custom task
    opts out of named controls (``pod_security_exceptions``).
    """

    kind: TaskKind
    container_name: str
    image: str
    command: tuple[str, ...]
    args: tuple[str, ...]
    run_as_user: int
    scratch_paths: tuple[str, ...]
    prepull_images: tuple[str, ...] = ()
    prepull_command: tuple[str, ...] = DEFAULT_PREPULL_COMMAND
    read_only_root_filesystem: bool = True
    add_capabilities: tuple[str, ...] = ()
    privileged: bool = False
    host_paths: tuple[HostPathMount, ...] = ()
    pod_security_exceptions: frozenset[PodSecurityControl] = frozenset()

    @staticmethod
    def pause(*, image: str = PAUSE_IMAGE) -> ReserverTask:
        """Holds the slice and does nothing: the smallest footprint (the default).

        Args:
            image: default: ``registry.k8s.io/pause:3.10``, which runs as user 65535.
        """
        return ReserverTask(
            kind=TaskKind.PAUSE,
            container_name="pause",
            image=check_image(image, field="task.image"),
            command=(),
            args=(),
            run_as_user=PAUSE_UID,
            scratch_paths=(),
        )

    @staticmethod
    def maintenance(*, image: str = SEED_IMAGE) -> ReserverTask:
        """The seed blueprint's background loop, for parity.

        It only deletes ``*.tmp`` files in its own container's ``/tmp`` (an emptyDir
        here), which does nothing for the node. Prefer ``pause()`` or ``prepull()``.

        Args:
            image: default: ``public.ecr.aws/amazonlinux/amazonlinux:2``, as in the seed.
        """
        return ReserverTask(
            kind=TaskKind.MAINTENANCE,
            container_name="background-job",
            image=check_image(image, field="task.image"),
            command=("/bin/sh", "-c"),
            args=(SEED_MAINTENANCE_SCRIPT,),
            run_as_user=NOBODY_UID,
            scratch_paths=("/tmp",),
        )

    @staticmethod
    def prepull(
        images: Sequence[str],
        *,
        command: Sequence[str] = DEFAULT_PREPULL_COMMAND,
        pause_image: str = PAUSE_IMAGE,
    ) -> ReserverTask:
        """Pulls ``images`` onto every node of the pool, then holds the slice.

        Each image runs once as an init container, so the kubelet pulls it, and burst
        pods using ``imagePullPolicy: IfNotPresent`` start without a pull (P4).

        The second choice: ``NodeHeadroom(prepull_burst_images=True)`` pulls the burst
        images with a pre-puller DaemonSet that requests nothing and runs any image. Here
        the images are the reserver's own init containers, so changing one (every image
        release) replaces every reserver, and a replaced ``Never`` reserver cannot win
        back a slice that another pod took in between; and the default ``command`` fails
        in an image without a shell (distroless, scratch), where the reserver crash-loops.

        Args:
            images: the images to pull, e.g. the burst workloads' images.
            command: what each image runs to exit at once. Default:
                ``["/bin/sh", "-c", "true"]``; give another for images without a shell.
            pause_image: the container that then holds the slice.
                Default: ``registry.k8s.io/pause:3.10``.
        """
        pulled = _strings(images, field="task.images")
        for image in pulled:
            check_image(image, field="task.images")
        run = _strings(command, field="task.command")
        if not run:
            raise HeadroomConfigError("task.command", list(command), "a non-empty command")
        return ReserverTask(
            kind=TaskKind.PREPULL,
            container_name="pause",
            image=check_image(pause_image, field="task.pause_image"),
            command=(),
            args=(),
            run_as_user=PAUSE_UID,
            scratch_paths=(),
            prepull_images=tuple(dict.fromkeys(pulled)),
            prepull_command=run,
        )

    @staticmethod
    def custom(
        *,
        image: str,
        command: Sequence[str] = (),
        args: Sequence[str] = (),
        container_name: str = "background-job",
        run_as_user: int = NOBODY_UID,
        scratch_paths: Sequence[str] = ("/tmp",),
        read_only_root_filesystem: bool = True,
        add_capabilities: Sequence[str] = (),
        privileged: bool = False,
        host_paths: Sequence[HostPathMount] = (),
        pod_security_exceptions: Collection[PodSecurityControl] = (),
    ) -> ReserverTask:
        """Your own background work (log shipping, cache warming, ...).

        It runs under the restricted profile like every other task: as a non-root user
        with a read-only root filesystem. A task that needs more must ask for it, and
        name each Pod Security control it breaks in ``pod_security_exceptions``;
        anything else is an error. The reserver then writes the exceptions into the
        pod template's ``headroom.cdk8s.io/pod-security-exceptions`` annotation. Such a
        reserver cannot run in a namespace that enforces ``restricted``, such as a
        ``HeadroomNamespace``.

        Args:
            image: the container image.
            command: the entrypoint. Default: the image's.
            args: the arguments. Default: the image's.
            container_name: a DNS-1123 label that does not start with ``prepull-``
                (the pre-pull init containers' prefix). Default: ``background-job``.
            run_as_user: the user id. Default: 65534 (``nobody``). 0 (root) needs
                ``RUN_AS_NON_ROOT`` and ``RUN_AS_USER``.
            scratch_paths: writable emptyDir mounts. Default: ``["/tmp"]``.
            read_only_root_filesystem: default: ``True``. ``False`` needs
                ``READ_ONLY_ROOT_FILESYSTEM``.
            add_capabilities: Linux capabilities to add, without the ``CAP_`` prefix,
                e.g. ``["NET_ADMIN"]``. Default: none. Any but ``NET_BIND_SERVICE``
                needs ``CAPABILITIES``.
            privileged: run the container privileged. Default: ``False``. ``True``
                needs ``PRIVILEGED`` and ``PRIVILEGE_ESCALATION``.
            host_paths: node folders to mount (``HostPathMount``). Default: none.
                Any needs ``HOST_PATH_VOLUMES`` and ``VOLUME_TYPES``.
            pod_security_exceptions: the ``PodSecurityControl`` s this task breaks,
                exactly. Default: none.
        """
        name = names.dns_label(container_name, field="task.container_name")
        if name.startswith(_RESERVED_CONTAINER_PREFIX):
            raise HeadroomConfigError(
                "task.container_name",
                container_name,
                f"a name that does not start with {shown(_RESERVED_CONTAINER_PREFIX)}, the "
                "prefix of the reserver's pre-pull init containers",
            )
        paths = _strings(scratch_paths, field="task.scratch_paths")
        for path in paths:
            check_mount_path(path, field="task.scratch_paths")
        mounts = _host_paths(host_paths)
        _unique_mount_paths([*paths, *(m.mount_path for m in mounts)])
        capabilities = _capabilities(add_capabilities)
        task = ReserverTask(
            kind=TaskKind.CUSTOM,
            container_name=name,
            image=check_image(image, field="task.image"),
            command=_strings(command, field="task.command"),
            args=_strings(args, field="task.args"),
            run_as_user=names.int32(run_as_user, field="task.run_as_user", minimum=ROOT_UID),
            scratch_paths=paths,
            read_only_root_filesystem=_flag(
                read_only_root_filesystem, field="task.read_only_root_filesystem"
            ),
            add_capabilities=capabilities,
            privileged=_flag(privileged, field="task.privileged"),
            host_paths=mounts,
            pod_security_exceptions=_controls(pod_security_exceptions),
        )
        task._check_exceptions()
        return task

    def _requested_exceptions(self) -> list[tuple[str, object, frozenset[PodSecurityControl]]]:
        """Each setting that breaks the profile: (field, value, the controls it breaks)."""
        control = PodSecurityControl
        requests: list[tuple[str, object, frozenset[PodSecurityControl]]] = []
        if self.run_as_user == ROOT_UID:
            requests.append(
                (
                    "task.run_as_user",
                    self.run_as_user,
                    frozenset({control.RUN_AS_NON_ROOT, control.RUN_AS_USER}),
                )
            )
        if not self.read_only_root_filesystem:
            requests.append(
                (
                    "task.read_only_root_filesystem",
                    False,
                    frozenset({control.READ_ONLY_ROOT_FILESYSTEM}),
                )
            )
        if set(self.add_capabilities) - RESTRICTED_CAPABILITIES:
            requests.append(
                (
                    "task.add_capabilities",
                    list(self.add_capabilities),
                    frozenset({control.CAPABILITIES}),
                )
            )
        if self.privileged:
            requests.append(
                (
                    "task.privileged",
                    True,
                    frozenset({control.PRIVILEGED, control.PRIVILEGE_ESCALATION}),
                )
            )
        if self.host_paths:
            requests.append(
                (
                    "task.host_paths",
                    [m.host_path for m in self.host_paths],
                    frozenset({control.HOST_PATH_VOLUMES, control.VOLUME_TYPES}),
                )
            )
        return requests

    def _check_exceptions(self) -> None:
        given = self.pod_security_exceptions
        needed: set[PodSecurityControl] = set()
        for field, value, controls in self._requested_exceptions():
            missing = controls - given
            if missing:
                listed = ", ".join(f"PodSecurityControl.{c.name}" for c in _ordered(controls))
                raise HeadroomConfigError(
                    field,
                    value,
                    "a value the restricted Pod Security profile allows, or an explicit "
                    f"opt-out: pod_security_exceptions=[{listed}]",
                )
            needed |= controls
        unneeded = given - needed
        if unneeded:
            raise HeadroomConfigError(
                "task.pod_security_exceptions",
                [f"PodSecurityControl.{c.name}" for c in _ordered(unneeded)],
                "only the controls this task's settings break: "
                + str([f"PodSecurityControl.{c.name}" for c in _ordered(needed)]),
            )


def _ordered(controls: Collection[PodSecurityControl]) -> list[PodSecurityControl]:
    return [c for c in PodSecurityControl if c in controls]


_CAPABILITY = re.compile(r"[A-Z][A-Z0-9_]*")


def _capabilities(value: Sequence[str]) -> tuple[str, ...]:
    names_ = _strings(value, field="task.add_capabilities")
    for name in names_:
        if not _CAPABILITY.fullmatch(name) or name.startswith("CAP_"):
            raise HeadroomConfigError(
                "task.add_capabilities",
                name,
                "a Linux capability name in capitals without the CAP_ prefix, e.g. 'NET_ADMIN'",
            )
    return tuple(dict.fromkeys(names_))


def _host_paths(value: Sequence[HostPathMount]) -> tuple[HostPathMount, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise HeadroomConfigError("task.host_paths", value, "a list of HostPathMount objects")
    for item in value:
        if not isinstance(item, HostPathMount):
            raise HeadroomConfigError("task.host_paths", item, "a HostPathMount object")
    return tuple(value)


def _unique_mount_paths(paths: Sequence[str]) -> None:
    repeated = sorted({p for p in paths if paths.count(p) > 1})
    if repeated:
        raise HeadroomConfigError(
            "task.scratch_paths",
            repeated,
            "each mount path once, across scratch_paths and host_paths (the API server "
            "rejects two volumes at one path)",
        )


def _controls(value: Collection[PodSecurityControl]) -> frozenset[PodSecurityControl]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Collection):
        raise HeadroomConfigError(
            "task.pod_security_exceptions", value, "a list of PodSecurityControl members"
        )
    for item in value:
        if not isinstance(item, PodSecurityControl):
            raise HeadroomConfigError(
                "task.pod_security_exceptions", item, "PodSecurityControl members"
            )
    return frozenset(value)
