"""Pod Security "restricted" defaults shared by every pod template the library emits.

The keyword arguments loosen one setting each; only a custom reserver task that opts out
of the matching ``PodSecurityControl`` passes them (see ``ReserverTask.custom``).
"""

from __future__ import annotations

from collections.abc import Sequence

from cdk8s_plus_27 import k8s

NOBODY_UID = 65534
"""``nobody``: a non-root user that exists in common base images."""

PAUSE_UID = 65535
"""The user the pause image is built to run as."""

ROOT_UID = 0


def pod_security_context(run_as_user: int) -> k8s.PodSecurityContext:
    """Restricted at pod level: non-root, a fixed non-zero user, seccomp RuntimeDefault."""
    return k8s.PodSecurityContext(
        run_as_non_root=run_as_user != ROOT_UID,
        run_as_user=run_as_user,
        run_as_group=run_as_user,
        fs_group=run_as_user,
        seccomp_profile=k8s.SeccompProfile(type="RuntimeDefault"),
    )


def container_security_context(
    run_as_user: int,
    *,
    read_only_root_filesystem: bool = True,
    add_capabilities: Sequence[str] = (),
    privileged: bool = False,
) -> k8s.SecurityContext:
    """Restricted at container level, with a read-only root filesystem."""
    return k8s.SecurityContext(
        # The API server rejects privileged containers that forbid privilege escalation.
        allow_privilege_escalation=privileged,
        capabilities=k8s.Capabilities(drop=["ALL"], add=list(add_capabilities) or None),
        privileged=privileged,
        read_only_root_filesystem=read_only_root_filesystem,
        run_as_non_root=run_as_user != ROOT_UID,
        run_as_user=run_as_user,
        run_as_group=run_as_user,
    )


def scratch_volumes(paths: Sequence[str]) -> tuple[list[k8s.Volume], list[k8s.VolumeMount]]:
    """An emptyDir per writable path, since the root filesystem is read-only."""
    volumes = []
    mounts = []
    for index, path in enumerate(paths):
        name = f"scratch-{index}"
        volumes.append(k8s.Volume(name=name, empty_dir=k8s.EmptyDirVolumeSource()))
        mounts.append(k8s.VolumeMount(name=name, mount_path=path))
    return volumes, mounts


def host_path_volumes(
    mounts: Sequence[tuple[str, str, bool]],
) -> tuple[list[k8s.Volume], list[k8s.VolumeMount]]:
    """A hostPath volume per ``(host_path, mount_path, read_only)``."""
    volumes = []
    volume_mounts = []
    for index, (host_path, mount_path, read_only) in enumerate(mounts):
        name = f"host-{index}"
        volumes.append(k8s.Volume(name=name, host_path=k8s.HostPathVolumeSource(path=host_path)))
        volume_mounts.append(k8s.VolumeMount(name=name, mount_path=mount_path, read_only=read_only))
    return volumes, volume_mounts
