"""A checker for the Pod Security Standards, Baseline and Restricted, over manifest dicts.

It judges every pod template an object carries (Pod, Deployment, DaemonSet,
StatefulSet, ReplicaSet, ReplicationController, Job, CronJob, PodTemplate) control by
control, as the upstream "Pod Security Standards" page defines them, plus one hardening
rule of this library (a read-only root filesystem). It reads plain dicts, so it judges
any YAML, not only what the constructs emit.

A pod template may opt out of named controls with the annotation
``headroom.cdk8s.io/pod-security-exceptions`` (comma-separated ``PodSecurityControl``
values). The library writes it only when a user asks for an exception
(``ReserverTask.custom(..., pod_security_exceptions=...)``), so an opt-out is always
visible in the output and in review.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown

EXCEPTIONS_ANNOTATION = "headroom.cdk8s.io/pod-security-exceptions"
"""The pod template annotation that lists the controls a template opts out of."""


class PodSecurityControl(Enum):
    """The controls of the Pod Security Standards (Baseline, then Restricted), and the
    library's own read-only root filesystem rule. Values are the names used in the
    exceptions annotation."""

    HOST_PROCESS = "host-process"
    """Baseline: no Windows HostProcess containers."""
    HOST_NAMESPACES = "host-namespaces"
    """Baseline: hostNetwork, hostPID and hostIPC unset or false."""
    PRIVILEGED = "privileged"
    """Baseline: no privileged containers."""
    CAPABILITIES = "capabilities"
    """Baseline and Restricted: drop ALL, add nothing but NET_BIND_SERVICE."""
    HOST_PATH_VOLUMES = "host-path-volumes"
    """Baseline: no hostPath volumes."""
    HOST_PORTS = "host-ports"
    """Baseline: no hostPort."""
    APPARMOR = "apparmor"
    """Baseline: AppArmor RuntimeDefault or Localhost, never Unconfined."""
    SELINUX = "selinux"
    """Baseline: only the container SELinux types, no custom user or role."""
    PROC_MOUNT = "proc-mount"
    """Baseline: the Default /proc mount."""
    SECCOMP = "seccomp"
    """Restricted: seccomp RuntimeDefault or Localhost for every container."""
    SYSCTLS = "sysctls"
    """Baseline: only the namespaced, safe sysctls."""
    VOLUME_TYPES = "volume-types"
    """Restricted: only configMap, csi, downwardAPI, emptyDir, ephemeral,
    persistentVolumeClaim, projected and secret volumes."""
    PRIVILEGE_ESCALATION = "privilege-escalation"
    """Restricted: allowPrivilegeEscalation set to false."""
    RUN_AS_NON_ROOT = "run-as-non-root"
    """Restricted: runAsNonRoot true."""
    RUN_AS_USER = "run-as-user"
    """Restricted: runAsUser never 0."""
    READ_ONLY_ROOT_FILESYSTEM = "read-only-root-filesystem"
    """This library's hardening on top of Restricted: readOnlyRootFilesystem true."""


RESTRICTED_CAPABILITIES = frozenset({"NET_BIND_SERVICE"})
SAFE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
    }
)
ALLOWED_VOLUME_TYPES = frozenset(
    {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "persistentVolumeClaim",
        "projected",
        "secret",
    }
)
ALLOWED_SELINUX_TYPES = frozenset(
    {"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}
)
CONFINED_PROFILES = frozenset({"RuntimeDefault", "Localhost"})
APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_ANNOTATION_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"

_TEMPLATED_KINDS = frozenset(
    {"Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "ReplicationController", "Job"}
)
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
# Controls that the standards waive for Windows pods (spec.os.name: windows).
_LINUX_ONLY = frozenset(
    {
        PodSecurityControl.CAPABILITIES,
        PodSecurityControl.SECCOMP,
        PodSecurityControl.PRIVILEGE_ESCALATION,
        PodSecurityControl.RUN_AS_NON_ROOT,
        PodSecurityControl.RUN_AS_USER,
        PodSecurityControl.READ_ONLY_ROOT_FILESYSTEM,
    }
)


@dataclass(frozen=True)
class Violation:
    """One control a pod template breaks, where, and why."""

    control: PodSecurityControl
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message} ({self.control.value})"


@dataclass(frozen=True)
class PodSecurityReport:
    """The verdict on one object: ``violations`` fail it; ``excepted`` are violations
    of controls its templates opt out of, reported but allowed."""

    violations: tuple[Violation, ...]
    excepted: tuple[Violation, ...]

    @property
    def ok(self) -> bool:
        return not self.violations


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _items(value: object) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def pod_templates(document: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Yields ``(path, template)`` for each pod template of an object, where a
    template has ``metadata`` and ``spec`` (a Pod is its own template)."""
    kind = document.get("kind")
    spec = _mapping(document.get("spec"))
    if kind == "Pod":
        yield "", document
    elif kind == "PodTemplate":
        yield "template", _mapping(document.get("template"))
    elif kind in _TEMPLATED_KINDS:
        yield "spec.template", _mapping(spec.get("template"))
    elif kind == "CronJob":
        job = _mapping(_mapping(spec.get("jobTemplate")).get("spec"))
        yield "spec.jobTemplate.spec.template", _mapping(job.get("template"))


def declared_exceptions(template: Mapping[str, Any]) -> frozenset[PodSecurityControl]:
    """The controls a template opts out of through ``EXCEPTIONS_ANNOTATION``.

    Raises:
        HeadroomConfigError: when the annotation names something that is not a control.
    """
    annotations = _mapping(_mapping(template.get("metadata")).get("annotations"))
    text = annotations.get(EXCEPTIONS_ANNOTATION)
    if text is None:
        return frozenset()
    known = {control.value: control for control in PodSecurityControl}
    names = [name.strip() for name in str(text).split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise HeadroomConfigError(
            f"annotation {EXCEPTIONS_ANNOTATION}", unknown, f"control names: {sorted(known)}"
        )
    return frozenset(known[name] for name in names)


def check_pod_template(template: Mapping[str, Any], *, path: str = "") -> list[Violation]:
    """Every violation of the template's pod spec, exceptions not applied."""
    return list(_PodTemplateCheck(template, path).run())


def check_object(document: Mapping[str, Any]) -> PodSecurityReport:
    """Checks every pod template of an object; objects without one pass."""
    violations: list[Violation] = []
    excepted: list[Violation] = []
    for path, template in pod_templates(document):
        allowed = declared_exceptions(template)
        for violation in check_pod_template(template, path=path):
            (excepted if violation.control in allowed else violations).append(violation)
    return PodSecurityReport(violations=tuple(violations), excepted=tuple(excepted))


def check_documents(documents: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
    """Raises ``HeadroomConfigError`` naming every object that breaks a control.

    ``documents`` are ``(source, object)`` pairs; the source (a file name) goes into
    the message.
    """
    failures = []
    for source, document in documents:
        report = check_object(document)
        if report.violations:
            name = _mapping(document.get("metadata")).get("name")
            failures.append(
                f"{source} {document.get('kind')}/{name}: "
                + "; ".join(str(v) for v in report.violations)
            )
    if failures:
        raise HeadroomConfigError(
            "pod security",
            failures,
            "pod templates that meet Pod Security 'restricted' with a read-only root "
            f"filesystem, or that opt out of a control with the {EXCEPTIONS_ANNOTATION} "
            "annotation",
        )


class _PodTemplateCheck:
    """The controls, one method each, over one pod template."""

    def __init__(self, template: Mapping[str, Any], path: str) -> None:
        self.metadata = _mapping(template.get("metadata"))
        self.spec = _mapping(template.get("spec"))
        self.prefix = f"{path}.spec" if path else "spec"
        self.pod_context = _mapping(self.spec.get("securityContext"))
        self.containers = [
            (f"{self.prefix}.{field}[{index}]", _mapping(container))
            for field in _CONTAINER_LISTS
            for index, container in enumerate(_items(self.spec.get(field)))
        ]
        self.windows = _mapping(self.spec.get("os")).get("name") == "windows"
        self.found: list[Violation] = []

    def run(self) -> Iterator[Violation]:
        for check in (
            self.host_process,
            self.host_namespaces,
            self.privileged,
            self.capabilities,
            self.volumes,
            self.host_ports,
            self.apparmor,
            self.selinux,
            self.proc_mount,
            self.seccomp,
            self.sysctls,
            self.privilege_escalation,
            self.run_as_non_root,
            self.run_as_user,
            self.read_only_root_filesystem,
        ):
            check()
        yield from (v for v in self.found if not (self.windows and v.control in _LINUX_ONLY))

    def fail(self, control: PodSecurityControl, path: str, message: str) -> None:
        self.found.append(Violation(control, path, message))

    def contexts(self) -> Iterator[tuple[str, Mapping[str, Any]]]:
        """Each container's securityContext, with its path."""
        for path, container in self.containers:
            yield f"{path}.securityContext", _mapping(container.get("securityContext"))

    def host_process(self) -> None:
        pod_path = f"{self.prefix}.securityContext"
        for path, context in [(pod_path, self.pod_context), *self.contexts()]:
            if _mapping(context.get("windowsOptions")).get("hostProcess") is True:
                self.fail(
                    PodSecurityControl.HOST_PROCESS,
                    f"{path}.windowsOptions.hostProcess",
                    "must be unset or false",
                )

    def host_namespaces(self) -> None:
        for field in ("hostNetwork", "hostPID", "hostIPC"):
            if self.spec.get(field) is True:
                self.fail(
                    PodSecurityControl.HOST_NAMESPACES,
                    f"{self.prefix}.{field}",
                    "must be unset or false",
                )

    def privileged(self) -> None:
        for path, context in self.contexts():
            if context.get("privileged") is True:
                self.fail(
                    PodSecurityControl.PRIVILEGED, f"{path}.privileged", "must be unset or false"
                )

    def capabilities(self) -> None:
        for path, context in self.contexts():
            capabilities = _mapping(context.get("capabilities"))
            if "ALL" not in _items(capabilities.get("drop")):
                self.fail(
                    PodSecurityControl.CAPABILITIES,
                    f"{path}.capabilities.drop",
                    "must include ALL",
                )
            added = [str(c) for c in _items(capabilities.get("add"))]
            extra = sorted(set(added) - RESTRICTED_CAPABILITIES)
            if extra:
                self.fail(
                    PodSecurityControl.CAPABILITIES,
                    f"{path}.capabilities.add",
                    f"adds {extra}; only NET_BIND_SERVICE is allowed",
                )

    def volumes(self) -> None:
        for index, volume in enumerate(_items(self.spec.get("volumes"))):
            path = f"{self.prefix}.volumes[{index}]"
            sources = sorted(key for key in _mapping(volume) if key != "name")
            if "hostPath" in sources:
                self.fail(PodSecurityControl.HOST_PATH_VOLUMES, path, "hostPath is not allowed")
            for source in sources:
                if source not in ALLOWED_VOLUME_TYPES:
                    self.fail(
                        PodSecurityControl.VOLUME_TYPES,
                        f"{path}.{source}",
                        f"volume type {source} is not allowed; allowed: "
                        f"{sorted(ALLOWED_VOLUME_TYPES)}",
                    )

    def host_ports(self) -> None:
        for path, container in self.containers:
            for index, port in enumerate(_items(container.get("ports"))):
                if _mapping(port).get("hostPort") not in (None, 0):
                    self.fail(
                        PodSecurityControl.HOST_PORTS,
                        f"{path}.ports[{index}].hostPort",
                        "must be unset or 0",
                    )

    def apparmor(self) -> None:
        annotations = _mapping(self.metadata.get("annotations"))
        for key, value in sorted(annotations.items()):
            if not str(key).startswith(APPARMOR_ANNOTATION_PREFIX):
                continue
            if value != "runtime/default" and not str(value).startswith("localhost/"):
                self.fail(
                    PodSecurityControl.APPARMOR,
                    f"metadata.annotations[{key}]",
                    f"{shown(value)}; allowed: runtime/default or localhost/<profile>",
                )
        pod_path = f"{self.prefix}.securityContext"
        for path, context in [(pod_path, self.pod_context), *self.contexts()]:
            profile = context.get("appArmorProfile")
            if profile is None:
                continue
            kind = _mapping(profile).get("type")
            if kind not in CONFINED_PROFILES:
                self.fail(
                    PodSecurityControl.APPARMOR,
                    f"{path}.appArmorProfile.type",
                    f"{shown(kind)}; allowed: RuntimeDefault or Localhost",
                )

    def selinux(self) -> None:
        pod_path = f"{self.prefix}.securityContext"
        for path, context in [(pod_path, self.pod_context), *self.contexts()]:
            options = _mapping(context.get("seLinuxOptions"))
            kind = options.get("type")
            if kind is not None and kind not in ALLOWED_SELINUX_TYPES:
                self.fail(
                    PodSecurityControl.SELINUX,
                    f"{path}.seLinuxOptions.type",
                    f"{shown(kind)}; allowed: {sorted(t for t in ALLOWED_SELINUX_TYPES if t)}",
                )
            for field in ("user", "role"):
                if options.get(field):
                    self.fail(
                        PodSecurityControl.SELINUX,
                        f"{path}.seLinuxOptions.{field}",
                        "must be unset or empty",
                    )

    def proc_mount(self) -> None:
        for path, context in self.contexts():
            if context.get("procMount") not in (None, "Default"):
                self.fail(
                    PodSecurityControl.PROC_MOUNT,
                    f"{path}.procMount",
                    f"{shown(context.get('procMount'))}; allowed: Default",
                )

    def seccomp(self) -> None:
        annotations = _mapping(self.metadata.get("annotations"))
        for key, value in sorted(annotations.items()):
            key = str(key)
            if (
                key == SECCOMP_POD_ANNOTATION or key.startswith(SECCOMP_CONTAINER_ANNOTATION_PREFIX)
            ) and value == "unconfined":
                self.fail(PodSecurityControl.SECCOMP, f"metadata.annotations[{key}]", "unconfined")
        pod_path = f"{self.prefix}.securityContext.seccompProfile.type"
        pod_type = _mapping(self.pod_context.get("seccompProfile")).get("type")
        if pod_type is not None and pod_type not in CONFINED_PROFILES:
            self.fail(
                PodSecurityControl.SECCOMP,
                pod_path,
                f"{shown(pod_type)}; allowed: RuntimeDefault or Localhost",
            )
        for path, context in self.contexts():
            kind = _mapping(context.get("seccompProfile")).get("type")
            if kind is None and pod_type in CONFINED_PROFILES:
                continue
            if kind not in CONFINED_PROFILES:
                self.fail(
                    PodSecurityControl.SECCOMP,
                    f"{path}.seccompProfile.type",
                    f"{shown(kind)}; allowed: RuntimeDefault or Localhost, here or at pod level",
                )

    def sysctls(self) -> None:
        for index, sysctl in enumerate(_items(self.pod_context.get("sysctls"))):
            name = _mapping(sysctl).get("name")
            if name not in SAFE_SYSCTLS:
                self.fail(
                    PodSecurityControl.SYSCTLS,
                    f"{self.prefix}.securityContext.sysctls[{index}]",
                    f"{shown(name)} is not a safe sysctl; allowed: {sorted(SAFE_SYSCTLS)}",
                )

    def privilege_escalation(self) -> None:
        for path, context in self.contexts():
            if context.get("allowPrivilegeEscalation") is not False:
                self.fail(
                    PodSecurityControl.PRIVILEGE_ESCALATION,
                    f"{path}.allowPrivilegeEscalation",
                    "must be false",
                )

    def run_as_non_root(self) -> None:
        pod_value = self.pod_context.get("runAsNonRoot")
        if pod_value is False:
            self.fail(
                PodSecurityControl.RUN_AS_NON_ROOT,
                f"{self.prefix}.securityContext.runAsNonRoot",
                "must be true",
            )
        for path, context in self.contexts():
            value = context.get("runAsNonRoot")
            if value is False or (value is None and pod_value is not True):
                self.fail(
                    PodSecurityControl.RUN_AS_NON_ROOT,
                    f"{path}.runAsNonRoot",
                    "must be true, here or at pod level",
                )

    def run_as_user(self) -> None:
        pod_path = f"{self.prefix}.securityContext"
        for path, context in [(pod_path, self.pod_context), *self.contexts()]:
            if context.get("runAsUser") == 0:
                self.fail(PodSecurityControl.RUN_AS_USER, f"{path}.runAsUser", "must not be 0")

    def read_only_root_filesystem(self) -> None:
        for path, context in self.contexts():
            if context.get("readOnlyRootFilesystem") is not True:
                self.fail(
                    PodSecurityControl.READ_ONLY_ROOT_FILESYSTEM,
                    f"{path}.readOnlyRootFilesystem",
                    "must be true (use an emptyDir for scratch space)",
                )
