"""The Pod Security checker: one deliberately bad pod spec per control, and what passes."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from cdk8s_headroom import HeadroomConfigError, PodSecurityControl
from cdk8s_headroom.vocabulary.pod_security import (
    EXCEPTIONS_ANNOTATION,
    check_documents,
    check_object,
    check_pod_template,
    pod_templates,
)

C = PodSecurityControl
Spec = dict[str, Any]


def restricted_pod() -> dict[str, Any]:
    """A pod template that meets every control."""
    return {
        "metadata": {"labels": {"app": "x"}},
        "spec": {
            "securityContext": {
                "runAsNonRoot": True,
                "runAsUser": 1000,
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "initContainers": [{"name": "init", "image": "busybox", "securityContext": _safe()}],
            "containers": [{"name": "main", "image": "nginx", "securityContext": _safe()}],
            "volumes": [{"name": "scratch", "emptyDir": {}}],
        },
    }


def _safe() -> dict[str, Any]:
    return {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "readOnlyRootFilesystem": True,
    }


def pod(change: Callable[[Spec], object]) -> dict[str, Any]:
    template = restricted_pod()
    change(template)
    return template


def main(template: Spec) -> Spec:
    container: Spec = template["spec"]["containers"][0]["securityContext"]
    return container


def init(template: Spec) -> Spec:
    container: Spec = template["spec"]["initContainers"][0]["securityContext"]
    return container


def pod_context(template: Spec) -> Spec:
    context: Spec = template["spec"]["securityContext"]
    return context


def add_ephemeral(template: Spec, **context: Any) -> None:
    template["spec"]["ephemeralContainers"] = [
        {"name": "debug", "image": "busybox", "securityContext": {**_safe(), **context}}
    ]


def controls(template: Spec) -> set[PodSecurityControl]:
    return {v.control for v in check_pod_template(template)}


# Each bad spec breaks exactly the controls listed: the checker neither misses the
# control nor blames another.
BAD_SPECS: list[tuple[str, Callable[[Spec], object], set[PodSecurityControl]]] = [
    (
        "host-process-pod",
        lambda t: pod_context(t).update(windowsOptions={"hostProcess": True}),
        {C.HOST_PROCESS},
    ),
    (
        "host-process-container",
        lambda t: main(t).update(windowsOptions={"hostProcess": True}),
        {C.HOST_PROCESS},
    ),
    ("host-network", lambda t: t["spec"].update(hostNetwork=True), {C.HOST_NAMESPACES}),
    ("host-pid", lambda t: t["spec"].update(hostPID=True), {C.HOST_NAMESPACES}),
    ("host-ipc", lambda t: t["spec"].update(hostIPC=True), {C.HOST_NAMESPACES}),
    ("privileged", lambda t: main(t).update(privileged=True), {C.PRIVILEGED}),
    ("privileged-init", lambda t: init(t).update(privileged=True), {C.PRIVILEGED}),
    (
        "privileged-ephemeral",
        lambda t: add_ephemeral(t, privileged=True),
        {C.PRIVILEGED},
    ),
    (
        "capability-sys-admin",
        lambda t: main(t)["capabilities"].update(add=["SYS_ADMIN"]),
        {C.CAPABILITIES},
    ),
    (
        "capability-baseline-only",  # CHOWN passes Baseline, not Restricted
        lambda t: main(t)["capabilities"].update(add=["CHOWN"]),
        {C.CAPABILITIES},
    ),
    (
        "capabilities-not-dropped",
        lambda t: main(t)["capabilities"].update(drop=["NET_RAW"]),
        {C.CAPABILITIES},
    ),
    ("no-capabilities-field", lambda t: main(t).pop("capabilities"), {C.CAPABILITIES}),
    (
        "host-path",
        lambda t: t["spec"]["volumes"].append({"name": "h", "hostPath": {"path": "/"}}),
        {C.HOST_PATH_VOLUMES, C.VOLUME_TYPES},
    ),
    (
        "nfs",
        lambda t: t["spec"]["volumes"].append({"name": "n", "nfs": {"server": "s", "path": "/"}}),
        {C.VOLUME_TYPES},
    ),
    (
        "git-repo",
        lambda t: t["spec"]["volumes"].append({"name": "g", "gitRepo": {"repository": "r"}}),
        {C.VOLUME_TYPES},
    ),
    (
        "aws-ebs",
        lambda t: t["spec"]["volumes"].append(
            {"name": "e", "awsElasticBlockStore": {"volumeID": "v"}}
        ),
        {C.VOLUME_TYPES},
    ),
    (
        "host-port",
        lambda t: t["spec"]["containers"][0].update(
            ports=[{"containerPort": 80, "hostPort": 8080}]
        ),
        {C.HOST_PORTS},
    ),
    (
        "apparmor-annotation-unconfined",
        lambda t: t["metadata"].update(
            annotations={"container.apparmor.security.beta.kubernetes.io/main": "unconfined"}
        ),
        {C.APPARMOR},
    ),
    (
        "apparmor-pod-unconfined",
        lambda t: pod_context(t).update(appArmorProfile={"type": "Unconfined"}),
        {C.APPARMOR},
    ),
    (
        "apparmor-container-unconfined",
        lambda t: main(t).update(appArmorProfile={"type": "Unconfined"}),
        {C.APPARMOR},
    ),
    (
        "selinux-type",
        lambda t: main(t).update(seLinuxOptions={"type": "spc_t"}),
        {C.SELINUX},
    ),
    (
        "selinux-user",
        lambda t: pod_context(t).update(seLinuxOptions={"user": "system_u"}),
        {C.SELINUX},
    ),
    (
        "selinux-role",
        lambda t: main(t).update(seLinuxOptions={"role": "sysadm_r"}),
        {C.SELINUX},
    ),
    ("proc-mount-unmasked", lambda t: main(t).update(procMount="Unmasked"), {C.PROC_MOUNT}),
    (
        "seccomp-pod-unconfined",
        lambda t: pod_context(t).update(seccompProfile={"type": "Unconfined"}),
        {C.SECCOMP},
    ),
    (
        "seccomp-container-unconfined",
        lambda t: main(t).update(seccompProfile={"type": "Unconfined"}),
        {C.SECCOMP},
    ),
    ("seccomp-unset", lambda t: pod_context(t).pop("seccompProfile"), {C.SECCOMP}),
    (
        "seccomp-annotation-unconfined",
        lambda t: t["metadata"].update(
            annotations={"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}
        ),
        {C.SECCOMP},
    ),
    (
        "sysctl-unsafe",
        lambda t: pod_context(t).update(sysctls=[{"name": "kernel.msgmax", "value": "1"}]),
        {C.SYSCTLS},
    ),
    (
        "sysctl-unsafe-net",
        lambda t: pod_context(t).update(sysctls=[{"name": "net.core.somaxconn", "value": "1"}]),
        {C.SYSCTLS},
    ),
    (
        "privilege-escalation-true",
        lambda t: main(t).update(allowPrivilegeEscalation=True),
        {C.PRIVILEGE_ESCALATION},
    ),
    (
        "privilege-escalation-unset",
        lambda t: init(t).pop("allowPrivilegeEscalation"),
        {C.PRIVILEGE_ESCALATION},
    ),
    (
        "run-as-non-root-false-pod",
        lambda t: pod_context(t).update(runAsNonRoot=False),
        {C.RUN_AS_NON_ROOT},
    ),
    (
        "run-as-non-root-false-container",
        lambda t: main(t).update(runAsNonRoot=False),
        {C.RUN_AS_NON_ROOT},
    ),
    ("run-as-non-root-unset", lambda t: pod_context(t).pop("runAsNonRoot"), {C.RUN_AS_NON_ROOT}),
    ("run-as-user-root-pod", lambda t: pod_context(t).update(runAsUser=0), {C.RUN_AS_USER}),
    ("run-as-user-root-container", lambda t: init(t).update(runAsUser=0), {C.RUN_AS_USER}),
    (
        "writable-root-filesystem",
        lambda t: main(t).update(readOnlyRootFilesystem=False),
        {C.READ_ONLY_ROOT_FILESYSTEM},
    ),
    (
        "ephemeral-container-unhardened",
        lambda t: add_ephemeral(t, allowPrivilegeEscalation=True, procMount="Unmasked"),
        {C.PRIVILEGE_ESCALATION, C.PROC_MOUNT},
    ),
]


def test_the_restricted_pod_meets_every_control() -> None:
    assert check_pod_template(restricted_pod()) == []


def test_every_control_has_a_bad_spec() -> None:
    covered = set().union(*(expected for _, _, expected in BAD_SPECS))
    assert covered == set(PodSecurityControl)


@pytest.mark.parametrize(
    ("change", "expected"),
    [(change, expected) for _, change, expected in BAD_SPECS],
    ids=[name for name, _, _ in BAD_SPECS],
)
def test_a_bad_pod_spec_breaks_exactly_its_control(
    change: Callable[[Spec], object], expected: set[PodSecurityControl]
) -> None:
    assert controls(pod(change)) == expected


ALLOWED_SPECS: list[tuple[str, Callable[[Spec], object]]] = [
    ("net-bind-service", lambda t: main(t)["capabilities"].update(add=["NET_BIND_SERVICE"])),
    ("seccomp-localhost", lambda t: pod_context(t).update(seccompProfile={"type": "Localhost"})),
    (
        "seccomp-per-container",
        lambda t: (
            pod_context(t).pop("seccompProfile"),
            main(t).update(seccompProfile={"type": "RuntimeDefault"}),
            init(t).update(seccompProfile={"type": "Localhost", "localhostProfile": "p"}),
        ),
    ),
    (
        "run-as-non-root-per-container",
        lambda t: (
            pod_context(t).pop("runAsNonRoot"),
            main(t).update(runAsNonRoot=True),
            init(t).update(runAsNonRoot=True),
        ),
    ),
    (
        "apparmor-runtime-default",
        lambda t: (
            t["metadata"].update(
                annotations={"container.apparmor.security.beta.kubernetes.io/main": "localhost/p"}
            ),
            pod_context(t).update(appArmorProfile={"type": "RuntimeDefault"}),
        ),
    ),
    (
        "selinux-container-init",
        lambda t: main(t).update(seLinuxOptions={"type": "container_init_t", "level": "s0:c1"}),
    ),
    ("proc-mount-default", lambda t: main(t).update(procMount="Default")),
    (
        "host-port-zero",
        lambda t: t["spec"]["containers"][0].update(ports=[{"containerPort": 80, "hostPort": 0}]),
    ),
    (
        "safe-sysctls",
        lambda t: pod_context(t).update(
            sysctls=[{"name": "net.ipv4.ip_unprivileged_port_start", "value": "0"}]
        ),
    ),
    (
        "allowed-volume-types",
        lambda t: t["spec"]["volumes"].extend(
            [
                {"name": "a", "configMap": {"name": "c"}},
                {"name": "b", "secret": {"secretName": "s"}},
                {"name": "c", "projected": {"sources": []}},
                {"name": "d", "downwardAPI": {"items": []}},
                {"name": "e", "persistentVolumeClaim": {"claimName": "p"}},
                {"name": "f", "csi": {"driver": "d"}},
                {"name": "g", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
            ]
        ),
    ),
    (
        "host-namespaces-false",
        lambda t: t["spec"].update(hostNetwork=False, hostPID=False, hostIPC=False),
    ),
]


@pytest.mark.parametrize(
    "change", [c for _, c in ALLOWED_SPECS], ids=[name for name, _ in ALLOWED_SPECS]
)
def test_what_the_profile_allows_passes(change: Callable[[Spec], object]) -> None:
    assert check_pod_template(pod(change)) == []


def test_windows_pods_are_exempt_from_the_linux_only_controls() -> None:
    template = restricted_pod()
    main(template).clear()
    template["spec"]["os"] = {"name": "windows"}
    assert controls(template) == set()
    template["spec"]["hostNetwork"] = True
    assert controls(template) == {C.HOST_NAMESPACES}


def workload(kind: str, template: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any]
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, **template}
    if kind == "PodTemplate":
        body = {"template": template}
    elif kind == "CronJob":
        body = {"spec": {"jobTemplate": {"spec": {"template": template}}}}
    else:
        body = {"spec": {"template": template}}
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": "w"}, **body}


@pytest.mark.parametrize(
    ("kind", "path"),
    [
        ("Pod", "spec"),
        ("Deployment", "spec.template.spec"),
        ("DaemonSet", "spec.template.spec"),
        ("StatefulSet", "spec.template.spec"),
        ("ReplicaSet", "spec.template.spec"),
        ("ReplicationController", "spec.template.spec"),
        ("Job", "spec.template.spec"),
        ("CronJob", "spec.jobTemplate.spec.template.spec"),
        ("PodTemplate", "template.spec"),
    ],
)
def test_every_kind_of_pod_template_is_checked(kind: str, path: str) -> None:
    bad = pod(lambda t: t["spec"].update(hostPID=True))
    report = check_object(workload(kind, bad))
    assert [(v.control, v.path) for v in report.violations] == [
        (C.HOST_NAMESPACES, f"{path}.hostPID")
    ]


def test_objects_without_pod_templates_pass() -> None:
    (template,) = pod_templates(workload("Deployment", restricted_pod()))
    assert template[0] == "spec.template"
    assert check_object({"apiVersion": "v1", "kind": "ConfigMap", "data": {}}).ok


def test_a_declared_exception_is_reported_but_allowed() -> None:
    template = pod(
        lambda t: (
            main(t).update(readOnlyRootFilesystem=False, runAsUser=0),
            t["metadata"].update(annotations={EXCEPTIONS_ANNOTATION: "read-only-root-filesystem"}),
        )
    )
    report = check_object(workload("DaemonSet", template))
    assert [v.control for v in report.excepted] == [C.READ_ONLY_ROOT_FILESYSTEM]
    assert [v.control for v in report.violations] == [C.RUN_AS_USER]
    assert not report.ok


def test_an_unknown_exception_name_is_an_error() -> None:
    template = pod(lambda t: t["metadata"].update(annotations={EXCEPTIONS_ANNOTATION: "all"}))
    with pytest.raises(HeadroomConfigError, match=r"annotation headroom\.cdk8s\.io"):
        check_object(workload("DaemonSet", template))


def test_check_documents_names_each_failing_object_and_its_controls() -> None:
    good = workload("Deployment", restricted_pod())
    bad = workload("Job", pod(lambda t: main(t).update(procMount="Unmasked")))
    check_documents([("a.yaml", good)])
    with pytest.raises(HeadroomConfigError) as raised:
        check_documents([("a.yaml", good), ("b.yaml", copy.deepcopy(bad))])
    assert raised.value.field == "pod security"
    failures: list[str] = raised.value.value  # type: ignore[assignment]
    (failure,) = failures
    assert failure.startswith("b.yaml Job/w: spec.template.spec.containers[0]")
    assert "(proc-mount)" in failure
