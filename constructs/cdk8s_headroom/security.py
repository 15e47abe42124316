"""Pod Security "restricted" defaults shared by every pod template the library emits."""

from __future__ import annotations

from collections.abc import Sequence

from cdk8s_plus_27 import k8s

NOBODY_UID = 65534
"""``nobody``: a non-root user that exists in common base images."""

PAUSE_UID = 65535
"""The user the pause image is built to run as."""


def pod_security_context(run_as_user: int) -> k8s.PodSecurityContext:
    """Restricted at pod level: non-root, a fixed non-zero user, seccomp RuntimeDefault."""
    return k8s.PodSecurityContext(
        run_as_non_root=True,
        run_as_user=run_as_user,
        run_as_group=run_as_user,
        fs_group=run_as_user,
        seccomp_profile=k8s.SeccompProfile(type="RuntimeDefault"),
    )


def container_security_context(run_as_user: int) -> k8s.SecurityContext:
    """Restricted at container level, with a read-only root filesystem."""
    return k8s.SecurityContext(
        allow_privilege_escalation=False,
        capabilities=k8s.Capabilities(drop=["ALL"]),
        privileged=False,
        read_only_root_filesystem=True,
        run_as_non_root=True,
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
