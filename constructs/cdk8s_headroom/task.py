"""What the headroom reserver's pods do while they hold the slice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from . import names
from .errors import HeadroomConfigError
from .security import NOBODY_UID, PAUSE_UID

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


def check_image(value: object, *, field: str) -> str:
    if not isinstance(value, str) or not value or any(c.isspace() for c in value):
        raise HeadroomConfigError(
            field, value, "a container image reference without spaces, e.g. 'nginx:1.27'"
        )
    return value


def _strings(value: Sequence[str], *, field: str) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise HeadroomConfigError(field, value, "a list of strings")
    for item in value:
        if not isinstance(item, str):
            raise HeadroomConfigError(field, item, "a string")
    return tuple(value)


@dataclass(frozen=True)
class ReserverTask:
    """The container that runs in each headroom pod. Build one with a factory:
    ``pause()``, ``maintenance()``, ``prepull(images)`` or ``custom(...)``.

    Whatever the task, the reserver sets the container's requests and limits to the
    slice, and runs it under the restricted Pod Security profile.
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
    ) -> ReserverTask:
        """Your own background work (log shipping, cache warming, ...).

        It runs under the restricted profile like every other task: it must work as
        a non-root user with a read-only root filesystem.

        Args:
            image: the container image.
            command: the entrypoint. Default: the image's.
            args: the arguments. Default: the image's.
            container_name: default: ``background-job``.
            run_as_user: a non-zero user id. Default: 65534 (``nobody``).
            scratch_paths: writable emptyDir mounts. Default: ``["/tmp"]``.
        """
        paths = _strings(scratch_paths, field="task.scratch_paths")
        for path in paths:
            if not path.startswith("/"):
                raise HeadroomConfigError("task.scratch_paths", path, "an absolute path")
        return ReserverTask(
            kind=TaskKind.CUSTOM,
            container_name=names.dns_label(container_name, field="task.container_name"),
            image=check_image(image, field="task.image"),
            command=_strings(command, field="task.command"),
            args=_strings(args, field="task.args"),
            run_as_user=names.int32(run_as_user, field="task.run_as_user", minimum=1),
            scratch_paths=paths,
        )
