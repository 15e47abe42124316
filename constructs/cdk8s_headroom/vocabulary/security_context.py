"""Pod Security "restricted" defaults shared by every pod template the library emits.

The keyword arguments loosen one setting each; only a custom reserver task that opts out
of the matching ``PodSecurityControl`` passes them (see ``ReserverTask.custom``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cdk8s_headroom.vocabulary import object_names
from cdk8s_headroom.vocabulary.recipes import INDEX, ITEM, Each, Item, Take, evaluate, fill_with

Manifest = dict[str, Any]

NOBODY_UID = 65534
"""``nobody``: a non-root user that exists in common base images."""

PAUSE_UID = 65535
"""The user the pause image is built to run as."""

ROOT_UID = 0


CONTAINER_USER = {"runAsUser": Take("uid"), "runAsGroup": Take("uid")}
"""The recipe of the user a container runs as (``recipes``): the user id ``uid`` and its
group. The library's contexts and the chart's (``helm.recipes`` WORKLOAD) take it."""
POD_USER = {**CONTAINER_USER, "fsGroup": Take("uid")}
"""The recipe of the user a pod runs as: ``CONTAINER_USER``, and its volumes' group."""


def pod_security_context(run_as_user: int) -> Manifest:
    """Restricted at pod level: non-root, a fixed non-zero user, seccomp RuntimeDefault."""
    return {
        "runAsNonRoot": run_as_user != ROOT_UID,
        **evaluate(POD_USER, {"uid": run_as_user}),
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def container_security_context(
    run_as_user: int,
    *,
    read_only_root_filesystem: bool = True,
    add_capabilities: Sequence[str] = (),
    privileged: bool = False,
) -> Manifest:
    """Restricted at container level, with a read-only root filesystem."""
    return {
        # The API server rejects privileged containers that forbid privilege escalation.
        "allowPrivilegeEscalation": privileged,
        "capabilities": {"drop": ["ALL"], "add": list(add_capabilities) or None},
        "privileged": privileged,
        "readOnlyRootFilesystem": read_only_root_filesystem,
        "runAsNonRoot": run_as_user != ROOT_UID,
        **evaluate(CONTAINER_USER, {"uid": run_as_user}),
    }


SCRATCH_VOLUME = {"name": fill_with(object_names.SCRATCH_VOLUME, index=INDEX), "emptyDir": {}}
"""The recipe of an emptyDir volume per writable path (an ``Each`` over the paths), since
the root filesystem is read-only."""
SCRATCH_MOUNT = {"name": fill_with(object_names.SCRATCH_VOLUME, index=INDEX), "mountPath": ITEM}
HOST_VOLUME = {
    "name": fill_with("host-{index}", index=INDEX),
    "hostPath": {"path": Item("hostPath")},
}
"""The recipe of a hostPath volume per mount (an ``Each`` over ``host_mounts``' items)."""
HOST_MOUNT = {
    "name": fill_with("host-{index}", index=INDEX),
    "mountPath": Item("mountPath"),
    "readOnly": Item("readOnly"),
}


def host_mounts(mounts: Sequence[tuple[str, str, bool]]) -> list[Manifest]:
    """``(host_path, mount_path, read_only)`` as the items ``HOST_VOLUME`` and
    ``HOST_MOUNT`` read."""
    return [{"hostPath": h, "mountPath": m, "readOnly": r} for h, m, r in mounts]


def scratch_volumes(paths: Sequence[str]) -> tuple[list[Manifest], list[Manifest]]:
    """An emptyDir volume and its mount per writable path (``SCRATCH_VOLUME``)."""
    inputs = {"paths": list(paths)}
    return (
        evaluate(Each("paths", SCRATCH_VOLUME), inputs),
        evaluate(Each("paths", SCRATCH_MOUNT), inputs),
    )
