"""A custom reserver task may break Pod Security only field by field, opting out explicitly."""

from __future__ import annotations

from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import (
    HeadroomConfigError,
    HeadroomNamespace,
    HeadroomPriorityClasses,
    HeadroomReserver,
    HostPathMount,
    PodSecurityControl,
    ReserverTask,
    validate_app,
)
from cdk8s_headroom.vocabulary.pod_security import EXCEPTIONS_ANNOTATION, check_object
from scripts.validation import validate_schemas
from tests.conftest import chart_with_classes, find, pod_spec

C = PodSecurityControl


@pytest.fixture
def chart() -> cdk8s.Chart:
    """The workloads here reference the GUARDED classes."""
    return chart_with_classes()


def reserver_of(chart: Any, synth: Any, task: ReserverTask) -> dict[str, Any]:
    HeadroomReserver(chart, "reserver", cpu="500m", memory="512Mi", task=task)
    daemon_set: dict[str, Any] = find(synth(chart), "DaemonSet")
    return daemon_set


def test_root_needs_both_run_as_controls_and_renders_as_root(chart: Any, synth: Any) -> None:
    task = ReserverTask.custom(
        image="ghcr.io/acme/agent:1",
        run_as_user=0,
        pod_security_exceptions=[C.RUN_AS_NON_ROOT, C.RUN_AS_USER],
    )
    daemon_set = reserver_of(chart, synth, task)
    spec = pod_spec(daemon_set)
    context = spec["containers"][0]["securityContext"]
    assert (context["runAsUser"], context["runAsNonRoot"]) == (0, False)
    assert (spec["securityContext"]["runAsUser"], spec["securityContext"]["runAsNonRoot"]) == (
        0,
        False,
    )
    annotations = daemon_set["spec"]["template"]["metadata"]["annotations"]
    assert annotations == {EXCEPTIONS_ANNOTATION: "run-as-non-root,run-as-user"}
    report = check_object(daemon_set)
    assert report.ok
    assert {v.control for v in report.excepted} == {C.RUN_AS_NON_ROOT, C.RUN_AS_USER}


def test_every_opt_out_renders_and_stays_valid_for_the_api_server(chart: Any, synth: Any) -> None:
    task = ReserverTask.custom(
        image="ghcr.io/acme/agent:1",
        run_as_user=0,
        read_only_root_filesystem=False,
        add_capabilities=["NET_ADMIN", "NET_BIND_SERVICE"],
        privileged=True,
        host_paths=[HostPathMount("/var/log", "/host/log")],
        pod_security_exceptions=list(
            {
                C.RUN_AS_NON_ROOT,
                C.RUN_AS_USER,
                C.READ_ONLY_ROOT_FILESYSTEM,
                C.CAPABILITIES,
                C.PRIVILEGED,
                C.PRIVILEGE_ESCALATION,
                C.HOST_PATH_VOLUMES,
                C.VOLUME_TYPES,
            }
        ),
    )
    daemon_set = reserver_of(chart, synth, task)
    spec = pod_spec(daemon_set)
    context = spec["containers"][0]["securityContext"]
    assert context["privileged"] is True
    # The API server rejects privileged: true with allowPrivilegeEscalation: false.
    assert context["allowPrivilegeEscalation"] is True
    assert context["readOnlyRootFilesystem"] is False
    assert context["capabilities"] == {"add": ["NET_ADMIN", "NET_BIND_SERVICE"], "drop": ["ALL"]}
    assert {"hostPath": {"path": "/var/log"}, "name": "host-0"} in spec["volumes"]
    assert {"mountPath": "/host/log", "name": "host-0", "readOnly": True} in spec["containers"][0][
        "volumeMounts"
    ]
    assert check_object(daemon_set).ok
    assert validate_schemas([daemon_set]) == [[]]


def test_net_bind_service_needs_no_opt_out(chart: Any, synth: Any) -> None:
    task = ReserverTask.custom(image="nginx:1.27", add_capabilities=["NET_BIND_SERVICE"])
    daemon_set = reserver_of(chart, synth, task)
    assert "annotations" not in daemon_set["spec"]["template"]["metadata"]
    assert check_object(daemon_set).ok


@pytest.mark.parametrize(
    ("props", "field", "needed"),
    [
        ({"run_as_user": 0}, "task.run_as_user", "RUN_AS_NON_ROOT, PodSecurityControl.RUN_AS_USER"),
        (
            {"run_as_user": 0, "pod_security_exceptions": [C.RUN_AS_USER]},
            "task.run_as_user",
            "RUN_AS_NON_ROOT",
        ),
        (
            {"read_only_root_filesystem": False},
            "task.read_only_root_filesystem",
            "READ_ONLY_ROOT_FILESYSTEM",
        ),
        ({"add_capabilities": ["SYS_TIME"]}, "task.add_capabilities", "CAPABILITIES"),
        ({"privileged": True}, "task.privileged", "PRIVILEGED"),
        (
            {"host_paths": [HostPathMount("/var/lib/data", "/data")]},
            "task.host_paths",
            "HOST_PATH_VOLUMES, PodSecurityControl.VOLUME_TYPES",
        ),
    ],
)
def test_a_setting_that_breaks_the_profile_needs_its_opt_out(
    props: dict[str, Any], field: str, needed: str
) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        ReserverTask.custom(image="ghcr.io/acme/agent:1", **props)
    assert raised.value.field == field
    assert needed in str(raised.value)


def test_an_opt_out_no_setting_needs_is_an_error() -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        ReserverTask.custom(
            image="ghcr.io/acme/agent:1",
            read_only_root_filesystem=False,
            pod_security_exceptions=[C.READ_ONLY_ROOT_FILESYSTEM, C.HOST_NAMESPACES],
        )
    assert raised.value.field == "task.pod_security_exceptions"
    assert raised.value.value == ["PodSecurityControl.HOST_NAMESPACES"]


@pytest.mark.parametrize(
    ("props", "field"),
    [
        ({"pod_security_exceptions": "seccomp"}, "task.pod_security_exceptions"),
        ({"pod_security_exceptions": ["seccomp"]}, "task.pod_security_exceptions"),
        ({"add_capabilities": ["CAP_NET_ADMIN"]}, "task.add_capabilities"),
        ({"add_capabilities": ["net_admin"]}, "task.add_capabilities"),
        ({"add_capabilities": "NET_ADMIN"}, "task.add_capabilities"),
        ({"privileged": "yes"}, "task.privileged"),
        ({"read_only_root_filesystem": 0}, "task.read_only_root_filesystem"),
        ({"host_paths": ["/var"]}, "task.host_paths"),
        ({"scratch_paths": ["/tmp", "/tmp/"]}, "task.scratch_paths"),
        ({"scratch_paths": ["/tmp", "/tmp"]}, "task.scratch_paths"),
        ({"scratch_paths": ["/"]}, "task.scratch_paths"),
        (
            {
                "host_paths": [HostPathMount("/var", "/tmp")],
                "pod_security_exceptions": [C.HOST_PATH_VOLUMES, C.VOLUME_TYPES],
            },
            "task.scratch_paths",
        ),
        ({"container_name": "prepull-0"}, "task.container_name"),
        ({"run_as_user": -1}, "task.run_as_user"),
    ],
)
def test_bad_opt_out_values_raise_naming_the_field(props: dict[str, Any], field: str) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        ReserverTask.custom(image="ghcr.io/acme/agent:1", **props)
    assert raised.value.field == field


@pytest.mark.parametrize(
    ("paths", "field"),
    [
        (("var", "/var"), "task.host_paths.host_path"),
        (("/var", "/a/../b"), "task.host_paths.mount_path"),
        (("/var", "/data\n"), "task.host_paths.mount_path"),
    ],
)
def test_bad_host_paths_raise_naming_the_field(paths: tuple[str, str], field: str) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        HostPathMount(*paths)
    assert raised.value.field == field


def test_a_reserver_that_opts_out_cannot_run_in_a_restricted_headroom_namespace() -> None:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "chart")
    HeadroomNamespace(chart, "namespace", name="agents")
    task = ReserverTask.custom(
        image="ghcr.io/acme/agent:1",
        read_only_root_filesystem=False,
        pod_security_exceptions=[C.READ_ONLY_ROOT_FILESYSTEM],
    )
    HeadroomReserver(
        chart,
        "reserver",
        cpu="500m",
        memory="512Mi",
        namespace="agents",
        task=task,
    )
    HeadroomPriorityClasses(chart, "classes")
    with pytest.raises(HeadroomConfigError) as raised:
        validate_app(app)
    assert raised.value.field == "chart/reserver.namespace"
    assert "read-only-root-filesystem" in str(raised.value)
