"""Pod Security "restricted" defaults shared by every pod template the library emits.

The keyword arguments loosen one setting each; only a custom reserver task that opts out
of the matching ``PodSecurityControl`` passes them (see ``ReserverTask.custom``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cdk8s_headroom.vocabulary import object_names
from cdk8s_headroom.vocabulary.places import fill

Manifest = dict[str, Any]

NOBODY_UID = 65534
"""``nobody``: a non-root user that exists in common base images."""

PAUSE_UID = 65535
"""The user the pause image is built to run as."""

ROOT_UID = 0


def pod_security_context(run_as_user: int) -> Manifest:
    """Restricted at pod level: non-root, a fixed non-zero user, seccomp RuntimeDefault."""
    return {
        "runAsNonRoot": run_as_user != ROOT_UID,
        "runAsUser": run_as_user,
        "runAsGroup": run_as_user,
        "fsGroup": run_as_user,
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
        "runAsUser": run_as_user,
        "runAsGroup": run_as_user,
    }


def scratch_volumes(paths: Sequence[str]) -> tuple[list[Manifest], list[Manifest]]:
    """An emptyDir per writable path, since the root filesystem is read-only."""
    volumes = []
    mounts = []
    for index, path in enumerate(paths):
        name = str(fill(object_names.SCRATCH_VOLUME, {"index": index}))
        volumes.append({"name": name, "emptyDir": {}})
        mounts.append({"name": name, "mountPath": path})
    return volumes, mounts


def host_path_volumes(
    mounts: Sequence[tuple[str, str, bool]],
) -> tuple[list[Manifest], list[Manifest]]:
    """A hostPath volume per ``(host_path, mount_path, read_only)``."""
    volumes = []
    volume_mounts = []
    for index, (host_path, mount_path, read_only) in enumerate(mounts):
        name = f"host-{index}"
        volumes.append({"name": name, "hostPath": {"path": host_path}})
        volume_mounts.append({"name": name, "mountPath": mount_path, "readOnly": read_only})
    return volumes, volume_mounts
