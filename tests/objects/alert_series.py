"""The series and the runner of the alert rules' promtool unit tests
(``test_alerts.py``, ``test_scheduled_alerts.py``): kube-state-metrics' series in its
exact names and labels (kubernetes/kube-state-metrics ``internal/store/pod.go``,
``daemonset.go``, ``deployment.go``), and ``promtool test rules`` (prometheus/prometheus
``cmd/promtool/unittest.go``) on a headroom's rules.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import cdk8s
import pytest
import yaml

from cdk8s_headroom import HeadroomAlerts, NodeHeadroom

PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None,
    reason="promtool is not installed (Debian package `prometheus`; `make test` installs it)",
)
NS = "node-headroom"
KSM = 'job="kube-state-metrics",instance="10.0.0.7:8080"'


def headroom_app() -> tuple[cdk8s.App, NodeHeadroom, HeadroomAlerts]:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "chart")
    headroom = NodeHeadroom(chart, "headroom", cpu="500m", memory="512Mi", namespace=NS)
    alerts = HeadroomAlerts(chart, "alerts", headroom=headroom, labels={"release": "kps"})
    # added after the alerts: still watched, since the rules render at synthesis
    headroom.add_burst_workload("api", image="nginx:1.27", cpu="250m", memory="256Mi")
    return app, headroom, alerts


def rule_document() -> Any:
    _, _, alerts = headroom_app()
    return alerts.resource.to_json()


def phase_series(pod: str, phase: str, values: str, uid: str) -> list[dict[str, str]]:
    """kube_pod_status_phase as kube-state-metrics exports it: one series per phase."""
    return [
        {
            "series": f'kube_pod_status_phase{{{KSM},namespace="{NS}",pod="{pod}",'
            f'uid="{uid}",phase="{each}"}}',
            "values": values if each == phase else "0x90",
        }
        for each in ("Pending", "Running", "Succeeded", "Failed", "Unknown")
    ]


def owner_series(pod: str, kind: str, owner: str, uid: str) -> dict[str, str]:
    return {
        "series": f'kube_pod_owner{{{KSM},namespace="{NS}",pod="{pod}",uid="{uid}",'
        f'owner_kind="{kind}",owner_name="{owner}",owner_is_controller="true"}}',
        "values": "1x90",
    }


def daemonset_series(
    desired: int, available: int, name: str = "headroom-reserver"
) -> list[dict[str, str]]:
    labels = f'{KSM},namespace="{NS}",daemonset="{name}"'
    return [
        {
            "series": f"kube_daemonset_status_desired_number_scheduled{{{labels}}}",
            "values": f"{desired}x90",
        },
        {
            "series": f"kube_daemonset_status_number_available{{{labels}}}",
            "values": f"{available}x90",
        },
    ]


def burst_deployment_series(available: int) -> dict[str, str]:
    return {
        "series": f'kube_deployment_status_replicas_available{{{KSM},namespace="{NS}",'
        f'deployment="api"}}',
        "values": f"{available}x90",
    }


def waiting_reservers(
    count: int, owner: str = "headroom-reserver", kind: str = "DaemonSet", pending: str = "1x90"
) -> list[dict[str, str]]:
    """``count`` pods of ``owner``, Pending while ``pending`` (a series' values) is 1."""
    series: list[dict[str, str]] = []
    for index in range(count):
        pod, uid = f"{owner}-w{index}", f"uid-{owner}-w{index}"
        series += phase_series(pod, "Pending", pending, uid)
        series.append(owner_series(pod, kind, owner, uid))
    return series


def burst_pod_series(count: int, phase: str) -> list[dict[str, str]]:
    series: list[dict[str, str]] = []
    for index in range(count):
        pod, uid = f"api-7d9f8c6b5-{index}x", f"uid-b{index}"
        series += phase_series(pod, phase, "1x90", uid)
        series.append(owner_series(pod, "ReplicaSet", "api-7d9f8c6b5", uid))
    return series


ALERTS = (
    "HeadroomNoTargetNodes",
    "HeadroomSlicesLow",
    "HeadroomSlicesEroded",
    "HeadroomBurstPodPending",
)
PLACEHOLDERS = "api-buffer-batch-29412000"
"""The Job that the CronJob of a buffer's window ``batch`` (``api-buffer-batch``) starts
at a midnight, whose placeholder pods wait in ``test_scheduled_alerts.py``."""


def promtool_test(
    tmp_path: Path,
    series: list[dict[str, str]],
    firing: dict[str, int],
    held: str = "",
    document: Any = None,
) -> None:
    """Runs promtool's unit test: at minute 60, the alerts in ``firing`` fire that many
    times and every other alert of the headroom fires not at all. ``held`` is how
    Prometheus' ``humanizePercentage`` shows the share of slices held."""
    document = rule_document() if document is None else document
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": document["spec"]["groups"]}))
    present = [rule["alert"] for rule in document["spec"]["groups"][0]["rules"]]
    headroom = document["spec"]["groups"][0]["rules"][0]["labels"]["headroom"]
    assert set(firing) <= set(present), "an alert expected to fire is not in the rules"
    cases = [
        {"eval_time": "60m", "alertname": alert, "exp_alerts": [{}] * firing.get(alert, 0)}
        for alert in present
    ]
    # exp_alerts must name each alert's labels exactly: filled from the rule's labels
    # (and the pod, for the per-pod alert) so that a wrong label fails the test too.
    for case in cases:
        case["exp_alerts"] = [
            {
                "exp_labels": expected_labels(case["alertname"], index, headroom),
                "exp_annotations": expected_annotations(document, case["alertname"], index, held),
            }
            for index in range(len(case["exp_alerts"]))
        ]
    (tmp_path / "test.yaml").write_text(
        yaml.safe_dump(
            {
                "rule_files": ["rules.yaml"],
                "evaluation_interval": "1m",
                "tests": [{"interval": "1m", "input_series": series, "alert_rule_test": cases}],
            }
        )
    )
    assert PROMTOOL is not None
    result = subprocess.run(
        [PROMTOOL, "test", "rules", "test.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def expected_labels(alert: str, index: int, headroom: str) -> dict[str, str]:
    # The DaemonSets' alerts are sums over the reservers (a share has one per node size):
    # the rule's own labels only, none of a series'
    labels = {"alertname": alert, "severity": "warning", "headroom": headroom, "namespace": NS}
    if alert in PER_POD:
        pod, uid = PER_POD[alert](index)
        labels.update(
            job="kube-state-metrics", instance="10.0.0.7:8080", pod=pod, uid=uid, phase="Pending"
        )
    return labels


PER_POD = {
    "HeadroomBurstPodPending": lambda index: (f"api-7d9f8c6b5-{index}x", f"uid-b{index}"),
    "HeadroomBufferPodPending": lambda index: (
        f"{PLACEHOLDERS}-w{index}",
        f"uid-{PLACEHOLDERS}-w{index}",
    ),
}
"""The alerts that fire once per waiting pod: the pod (and uid) of their ``index``-th
alert, as ``burst_pod_series`` and ``waiting_reservers`` name them."""


def expected_annotations(document: Any, alert: str, index: int, held: str) -> dict[str, str]:
    """The rule's annotations as Prometheus expands their templates."""
    (rule,) = [r for r in document["spec"]["groups"][0]["rules"] if r["alert"] == alert]
    pod = PER_POD[alert](index)[0] if alert in PER_POD else ""
    return {
        key: text.replace("{{ $value | humanizePercentage }}", held).replace(
            "{{ $labels.pod }}", pod
        )
        for key, text in rule["annotations"].items()
    }
