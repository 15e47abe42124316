"""HeadroomAlerts: a PrometheusRule on kube-state-metrics' series that stays quiet while the
headroom works and fires on erosion, low slices, no targets and a waiting burst pod.

The rules are checked by Prometheus itself: ``promtool check rules`` (syntax and PromQL)
and ``promtool test rules`` (prometheus/prometheus ``cmd/promtool/unittest.go``), on
input series in kube-state-metrics' exact names and labels (kubernetes/kube-state-metrics
``internal/store/pod.go``: ``kube_pod_status_phase``, ``kube_pod_owner``;
``daemonset.go``: ``kube_daemonset_status_desired_number_scheduled``,
``kube_daemonset_status_number_available``; ``deployment.go``:
``kube_deployment_status_replicas_available``). promtool comes from Debian's
``prometheus`` package, which ``make test`` installs.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import cdk8s
import pytest
import yaml

from cdk8s_headroom import (
    HeadroomAlerts,
    HeadroomConfigError,
    NodeHeadroom,
    synth,
)
from cdk8s_headroom.vocabulary.alert_rules import HeadroomAlertRules, rule_file
from cdk8s_headroom.vocabulary.node_share import NodeType
from scripts.validation import validate_models

PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None,
    reason="promtool is not installed (Debian package `prometheus`; `make test` installs it)",
)
NS = "node-headroom"
KSM = 'job="kube-state-metrics",instance="10.0.0.7:8080"'


def _app() -> tuple[cdk8s.App, NodeHeadroom, HeadroomAlerts]:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "chart")
    headroom = NodeHeadroom(chart, "headroom", cpu="500m", memory="512Mi", namespace=NS)
    alerts = HeadroomAlerts(chart, "alerts", headroom=headroom, labels={"release": "kps"})
    # added after the alerts: still watched, since the rules render at synthesis
    headroom.add_burst_workload("api", image="nginx:1.27", cpu="250m", memory="256Mi")
    return app, headroom, alerts


def _rule_document() -> Any:
    _, _, alerts = _app()
    return alerts.resource.to_json()


def _phase_series(pod: str, phase: str, values: str, uid: str) -> list[dict[str, str]]:
    """kube_pod_status_phase as kube-state-metrics exports it: one series per phase."""
    return [
        {
            "series": f'kube_pod_status_phase{{{KSM},namespace="{NS}",pod="{pod}",'
            f'uid="{uid}",phase="{each}"}}',
            "values": values if each == phase else "0x90",
        }
        for each in ("Pending", "Running", "Succeeded", "Failed", "Unknown")
    ]


def _owner(pod: str, kind: str, owner: str, uid: str) -> dict[str, str]:
    return {
        "series": f'kube_pod_owner{{{KSM},namespace="{NS}",pod="{pod}",uid="{uid}",'
        f'owner_kind="{kind}",owner_name="{owner}",owner_is_controller="true"}}',
        "values": "1x90",
    }


def _daemonset(
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


def _burst_deployment(available: int) -> dict[str, str]:
    return {
        "series": f'kube_deployment_status_replicas_available{{{KSM},namespace="{NS}",'
        f'deployment="api"}}',
        "values": f"{available}x90",
    }


def _waiting_reservers(
    count: int, owner: str = "headroom-reserver", kind: str = "DaemonSet", pending: str = "1x90"
) -> list[dict[str, str]]:
    """``count`` pods of ``owner``, Pending while ``pending`` (a series' values) is 1."""
    series: list[dict[str, str]] = []
    for index in range(count):
        pod, uid = f"{owner}-w{index}", f"uid-{owner}-w{index}"
        series += _phase_series(pod, "Pending", pending, uid)
        series.append(_owner(pod, kind, owner, uid))
    return series


def _burst_pods(count: int, phase: str) -> list[dict[str, str]]:
    series: list[dict[str, str]] = []
    for index in range(count):
        pod, uid = f"api-7d9f8c6b5-{index}x", f"uid-b{index}"
        series += _phase_series(pod, phase, "1x90", uid)
        series.append(_owner(pod, "ReplicaSet", "api-7d9f8c6b5", uid))
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


def _promtool_test(
    tmp_path: Path,
    series: list[dict[str, str]],
    firing: dict[str, int],
    held: str = "",
    document: Any = None,
) -> None:
    """Runs promtool's unit test: at minute 60, the alerts in ``firing`` fire that many
    times and every other alert of the headroom fires not at all. ``held`` is how
    Prometheus' ``humanizePercentage`` shows the share of slices held."""
    document = _rule_document() if document is None else document
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
                "exp_labels": _expected_labels(case["alertname"], index, headroom),
                "exp_annotations": _expected_annotations(document, case["alertname"], index, held),
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


def _expected_labels(alert: str, index: int, headroom: str) -> dict[str, str]:
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
alert, as ``_burst_pods`` and ``_waiting_reservers`` name them."""


def _expected_annotations(document: Any, alert: str, index: int, held: str) -> dict[str, str]:
    """The rule's annotations as Prometheus expands their templates."""
    (rule,) = [r for r in document["spec"]["groups"][0]["rules"] if r["alert"] == alert]
    pod = PER_POD[alert](index)[0] if alert in PER_POD else ""
    return {
        key: text.replace("{{ $value | humanizePercentage }}", held).replace(
            "{{ $labels.pod }}", pod
        )
        for key, text in rule["annotations"].items()
    }


def test_the_rule_is_a_prometheus_rule_in_the_headrooms_namespace_with_the_given_labels() -> None:
    document = _rule_document()

    assert document["apiVersion"] == "monitoring.coreos.com/v1"
    assert document["kind"] == "PrometheusRule"
    assert document["metadata"]["namespace"] == NS
    assert document["metadata"]["labels"]["release"] == "kps"
    (group,) = document["spec"]["groups"]
    assert [rule["alert"] for rule in group["rules"]] == list(ALERTS)
    assert all(
        rule["annotations"]["summary"] and rule["annotations"]["description"]
        for rule in group["rules"]
    )
    assert all("headroom-reserver" in rule["annotations"]["summary"] for rule in group["rules"])


def test_the_rules_use_kube_state_metrics_standard_series_only() -> None:
    expressions = " ".join(rule["expr"] for rule in _rule_document()["spec"]["groups"][0]["rules"])

    assert "kube_pod_labels" not in expressions
    assert set(__import__("re").findall(r"\b(kube_[a-z_]+)\{", expressions)) == {
        "kube_daemonset_status_desired_number_scheduled",
        "kube_daemonset_status_number_available",
        "kube_deployment_status_replicas_available",
        "kube_pod_owner",
        "kube_pod_status_phase",
    }


def test_the_prometheus_rule_passes_the_prometheus_operator_schema_strictly() -> None:
    document = _rule_document()
    bad = {**document, "spec": {**document["spec"], "colour": "red"}}

    good_result, bad_result = validate_models([document, bad])

    assert good_result.errors == ()
    assert any("colour" in error for error in bad_result.errors)


def test_synthesis_emits_the_rule_beside_the_headroom(tmp_path: Path) -> None:
    app, _, _ = _app()
    app = cdk8s.App(outdir=str(tmp_path))
    chart = cdk8s.Chart(app, "chart")
    headroom = NodeHeadroom(chart, "headroom", cpu="500m", memory="512Mi", namespace=NS)
    HeadroomAlerts(chart, "alerts", headroom=headroom)

    synth(app)

    kinds = [
        d["kind"] for f in tmp_path.glob("*.k8s.yaml") for d in yaml.safe_load_all(f.read_text())
    ]
    assert "PrometheusRule" in kinds and "DaemonSet" in kinds


@needs_promtool
def test_promtool_check_rules_accepts_the_rules(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump({"groups": _rule_document()["spec"]["groups"]}))

    result = subprocess.run(
        [str(PROMTOOL), "check", "rules", str(path)], capture_output=True, text=True, check=False
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 4 rules found" in result.stdout


@needs_promtool
def test_a_healthy_headroom_fires_nothing(tmp_path: Path) -> None:
    # every one of 10 slices held, the burst Deployment scaled to zero
    _promtool_test(tmp_path, [*_daemonset(10, 10), _burst_deployment(0)], firing={})


@needs_promtool
def test_slices_in_use_by_running_burst_pods_are_low_but_not_eroded(tmp_path: Path) -> None:
    # 4 of 10 reservers wait because 4 burst pods run in their slices: normal operation,
    # but only 6 of 10 slices are left for the next burst
    series = [
        *_daemonset(10, 6),
        *_waiting_reservers(4),
        _burst_deployment(4),
        *_burst_pods(4, "Running"),
    ]

    _promtool_test(tmp_path, series, firing={"HeadroomSlicesLow": 1}, held="60%")


@needs_promtool
def test_reservers_waiting_with_no_burst_pod_running_are_erosion(tmp_path: Path) -> None:
    # 3 reservers wait and no burst pod runs: ordinary pods took the room
    series = [*_daemonset(10, 7), *_waiting_reservers(3), _burst_deployment(0)]

    _promtool_test(
        tmp_path, series, firing={"HeadroomSlicesLow": 1, "HeadroomSlicesEroded": 1}, held="70%"
    )


@needs_promtool
def test_a_burst_pod_pending_past_its_budget_fires_once_per_pod(tmp_path: Path) -> None:
    # two burst pods wait; a pod of another Deployment whose name starts alike does not count
    other = "api-v2-5c4b3a2d1-zz"
    series = [
        *_daemonset(10, 10),
        _burst_deployment(0),
        *_burst_pods(2, "Pending"),
        *_phase_series(other, "Pending", "1x90", "uid-other"),
        _owner(other, "ReplicaSet", "api-v2-5c4b3a2d1", "uid-other"),
    ]

    _promtool_test(tmp_path, series, firing={"HeadroomBurstPodPending": 2})


@needs_promtool
def test_without_burst_workloads_every_waiting_reserver_is_erosion(tmp_path: Path) -> None:
    # No burst Deployment to explain a waiting reserver: the sum over bursts is empty
    # (deployment=~"" selects no kube-state-metrics series), so `or vector(0)` gives 0.
    chart = cdk8s.Chart(cdk8s.App(), "chart")
    headroom = NodeHeadroom(chart, "headroom", cpu="500m", memory="512Mi", namespace=NS)
    document = HeadroomAlerts(chart, "alerts", headroom=headroom).resource.to_json()
    series = [*_daemonset(10, 9), _burst_deployment(3), *_waiting_reservers(1)]

    _promtool_test(tmp_path, series, firing={"HeadroomSlicesEroded": 1}, document=document)


@needs_promtool
def test_a_reserver_that_targets_no_node_fires(tmp_path: Path) -> None:
    _promtool_test(
        tmp_path, [*_daemonset(0, 0), _burst_deployment(0)], firing={"HeadroomNoTargetNodes": 1}
    )


SIZES = ("share-m5-large", "share-m5-xlarge")
"""The reserver DaemonSets of a share of each node of two sizes."""


def _share_document() -> Any:
    chart = cdk8s.Chart(cdk8s.App(), "chart")
    headroom = NodeHeadroom(
        chart,
        "headroom",
        cpu="10%",
        memory="10%",
        namespace=NS,
        reserver_name="share",
        node_types=[
            NodeType("m5.large", cpu="1930m", memory="7Gi"),
            NodeType("m5.xlarge", cpu="3920m", memory="14Gi"),
        ],
    )
    headroom.add_burst_workload("api", image="nginx:1.27", cpu="100m", memory="128Mi")
    return HeadroomAlerts(chart, "alerts", headroom=headroom).resource.to_json()


def test_a_share_of_each_node_is_watched_through_every_size_s_daemonset() -> None:
    rules = {r["alert"]: r for r in _share_document()["spec"]["groups"][0]["rules"]}

    assert list(rules) == list(ALERTS)
    for alert in ("HeadroomNoTargetNodes", "HeadroomSlicesLow", "HeadroomSlicesEroded"):
        assert "|".join(SIZES) in rules[alert]["expr"]
        assert ", ".join(SIZES) in rules[alert]["annotations"]["description"]


@needs_promtool
def test_a_share_whose_other_size_has_no_node_now_is_no_alarm(tmp_path: Path) -> None:
    # No m5.xlarge in the pool today: its DaemonSet targets no node, which a share expects
    series = [*_daemonset(4, 4, SIZES[0]), *_daemonset(0, 0, SIZES[1]), _burst_deployment(0)]

    _promtool_test(tmp_path, series, firing={}, document=_share_document())


@needs_promtool
def test_a_share_with_no_node_of_any_size_targets_no_node(tmp_path: Path) -> None:
    series = [*_daemonset(0, 0, SIZES[0]), *_daemonset(0, 0, SIZES[1]), _burst_deployment(0)]

    _promtool_test(
        tmp_path, series, firing={"HeadroomNoTargetNodes": 1}, document=_share_document()
    )


@needs_promtool
def test_a_share_counts_held_slices_and_erosion_over_all_its_sizes(tmp_path: Path) -> None:
    # 4 of 4 large and 1 of 6 xlarge held: 5 of 10 (50 %); the 5 waiting xlarge reservers
    # are erosion, with no burst pod running. On the first size alone it would be 100 %.
    series = [
        *_daemonset(4, 4, SIZES[0]),
        *_daemonset(6, 1, SIZES[1]),
        *_waiting_reservers(5, SIZES[1]),
        _burst_deployment(0),
    ]

    _promtool_test(
        tmp_path,
        series,
        firing={"HeadroomSlicesLow": 1, "HeadroomSlicesEroded": 1},
        held="50%",
        document=_share_document(),
    )


@needs_promtool
def test_each_alert_waits_for_its_for_window(tmp_path: Path) -> None:
    # erosion (for: 30m) that began at minute 0 has not fired at minute 29, and has at 31
    rules = tmp_path / "rules.yaml"
    rules.write_text(yaml.safe_dump({"groups": _rule_document()["spec"]["groups"]}))
    labels = _expected_labels("HeadroomSlicesEroded", 0, "headroom-reserver")
    (tmp_path / "test.yaml").write_text(
        yaml.safe_dump(
            {
                "rule_files": ["rules.yaml"],
                "evaluation_interval": "1m",
                "tests": [
                    {
                        "interval": "1m",
                        "input_series": [
                            *_daemonset(10, 7),
                            *_waiting_reservers(3),
                            _burst_deployment(0),
                        ],
                        "alert_rule_test": [
                            {
                                "eval_time": "29m",
                                "alertname": "HeadroomSlicesEroded",
                                "exp_alerts": [],
                            },
                            {
                                "eval_time": "31m",
                                "alertname": "HeadroomSlicesEroded",
                                "exp_alerts": [
                                    {
                                        "exp_labels": labels,
                                        "exp_annotations": _expected_annotations(
                                            _rule_document(), "HeadroomSlicesEroded", 0, ""
                                        ),
                                    }
                                ],
                            },
                        ],
                    }
                ],
            }
        )
    )

    result = subprocess.run(
        [str(PROMTOOL), "test", "rules", "test.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [
        ("slices_low_for", "15 minutes", "a Prometheus duration"),
        ("erosion_for", "0m", "longer than zero"),
        ("burst_start_budget", "٢m", "ASCII digits"),
        ("min_held_percent", 0, "from 1 to 100"),
        (
            "severity",
            "warning",
            "one of AlertSeverity.INFO, AlertSeverity.WARNING, AlertSeverity.CRITICAL",
        ),
    ],
)
def test_bad_alert_options_name_the_field_and_what_is_allowed(
    field: str, value: object, allowed: str
) -> None:
    options: dict[str, Any] = {"headroom": "h", "namespace": NS, "reservers": ("h",), "bursts": ()}

    with pytest.raises(HeadroomConfigError) as raised:
        HeadroomAlertRules(**{**options, field: value})

    assert str(raised.value).startswith(f"{field}: invalid value")
    assert allowed in str(raised.value)


def test_the_rule_file_holds_the_groups_as_promtool_reads_them() -> None:
    group = HeadroomAlertRules(
        headroom="h", namespace=NS, reservers=("h",), bursts=("api",)
    ).group()

    assert rule_file([group]) == {"groups": [group]}
    assert group["name"] == f"node-headroom.{NS}.h"
