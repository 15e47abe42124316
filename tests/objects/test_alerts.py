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
from tests.objects.alert_series import (
    ALERTS,
    NS,
    PROMTOOL,
    burst_deployment_series,
    burst_pod_series,
    daemonset_series,
    expected_annotations,
    expected_labels,
    headroom_app,
    needs_promtool,
    owner_series,
    phase_series,
    promtool_test,
    rule_document,
    waiting_reservers,
)


def test_the_rule_is_a_prometheus_rule_in_the_headrooms_namespace_with_the_given_labels() -> None:
    document = rule_document()

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
    expressions = " ".join(rule["expr"] for rule in rule_document()["spec"]["groups"][0]["rules"])

    assert "kube_pod_labels" not in expressions
    assert set(__import__("re").findall(r"\b(kube_[a-z_]+)\{", expressions)) == {
        "kube_daemonset_status_desired_number_scheduled",
        "kube_daemonset_status_number_available",
        "kube_deployment_status_replicas_available",
        "kube_pod_owner",
        "kube_pod_status_phase",
    }


def test_the_prometheus_rule_passes_the_prometheus_operator_schema_strictly() -> None:
    document = rule_document()
    bad = {**document, "spec": {**document["spec"], "colour": "red"}}

    good_result, bad_result = validate_models([document, bad])

    assert good_result.errors == ()
    assert any("colour" in error for error in bad_result.errors)


def test_synthesis_emits_the_rule_beside_the_headroom(tmp_path: Path) -> None:
    app, _, _ = headroom_app()
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
    path.write_text(yaml.safe_dump({"groups": rule_document()["spec"]["groups"]}))

    result = subprocess.run(
        [str(PROMTOOL), "check", "rules", str(path)], capture_output=True, text=True, check=False
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 4 rules found" in result.stdout


@needs_promtool
def test_a_healthy_headroom_fires_nothing(tmp_path: Path) -> None:
    # every one of 10 slices held, the burst Deployment scaled to zero
    promtool_test(tmp_path, [*daemonset_series(10, 10), burst_deployment_series(0)], firing={})


@needs_promtool
def test_slices_in_use_by_running_burst_pods_are_low_but_not_eroded(tmp_path: Path) -> None:
    # 4 of 10 reservers wait because 4 burst pods run in their slices: normal operation,
    # but only 6 of 10 slices are left for the next burst
    series = [
        *daemonset_series(10, 6),
        *waiting_reservers(4),
        burst_deployment_series(4),
        *burst_pod_series(4, "Running"),
    ]

    promtool_test(tmp_path, series, firing={"HeadroomSlicesLow": 1}, held="60%")


@needs_promtool
def test_reservers_waiting_with_no_burst_pod_running_are_erosion(tmp_path: Path) -> None:
    # 3 reservers wait and no burst pod runs: ordinary pods took the room
    series = [*daemonset_series(10, 7), *waiting_reservers(3), burst_deployment_series(0)]

    promtool_test(
        tmp_path, series, firing={"HeadroomSlicesLow": 1, "HeadroomSlicesEroded": 1}, held="70%"
    )


@needs_promtool
def test_a_burst_pod_pending_past_its_budget_fires_once_per_pod(tmp_path: Path) -> None:
    # two burst pods wait; a pod of another Deployment whose name starts alike does not count
    other = "api-v2-5c4b3a2d1-zz"
    series = [
        *daemonset_series(10, 10),
        burst_deployment_series(0),
        *burst_pod_series(2, "Pending"),
        *phase_series(other, "Pending", "1x90", "uid-other"),
        owner_series(other, "ReplicaSet", "api-v2-5c4b3a2d1", "uid-other"),
    ]

    promtool_test(tmp_path, series, firing={"HeadroomBurstPodPending": 2})


@needs_promtool
def test_without_burst_workloads_every_waiting_reserver_is_erosion(tmp_path: Path) -> None:
    # No burst Deployment to explain a waiting reserver: the sum over bursts is empty
    # (deployment=~"" selects no kube-state-metrics series), so `or vector(0)` gives 0.
    chart = cdk8s.Chart(cdk8s.App(), "chart")
    headroom = NodeHeadroom(chart, "headroom", cpu="500m", memory="512Mi", namespace=NS)
    document = HeadroomAlerts(chart, "alerts", headroom=headroom).resource.to_json()
    series = [*daemonset_series(10, 9), burst_deployment_series(3), *waiting_reservers(1)]

    promtool_test(tmp_path, series, firing={"HeadroomSlicesEroded": 1}, document=document)


@needs_promtool
def test_a_reserver_that_targets_no_node_fires(tmp_path: Path) -> None:
    promtool_test(
        tmp_path,
        [*daemonset_series(0, 0), burst_deployment_series(0)],
        firing={"HeadroomNoTargetNodes": 1},
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
    series = [
        *daemonset_series(4, 4, SIZES[0]),
        *daemonset_series(0, 0, SIZES[1]),
        burst_deployment_series(0),
    ]

    promtool_test(tmp_path, series, firing={}, document=_share_document())


@needs_promtool
def test_a_share_with_no_node_of_any_size_targets_no_node(tmp_path: Path) -> None:
    series = [
        *daemonset_series(0, 0, SIZES[0]),
        *daemonset_series(0, 0, SIZES[1]),
        burst_deployment_series(0),
    ]

    promtool_test(tmp_path, series, firing={"HeadroomNoTargetNodes": 1}, document=_share_document())


@needs_promtool
def test_a_share_counts_held_slices_and_erosion_over_all_its_sizes(tmp_path: Path) -> None:
    # 4 of 4 large and 1 of 6 xlarge held: 5 of 10 (50 %); the 5 waiting xlarge reservers
    # are erosion, with no burst pod running. On the first size alone it would be 100 %.
    series = [
        *daemonset_series(4, 4, SIZES[0]),
        *daemonset_series(6, 1, SIZES[1]),
        *waiting_reservers(5, SIZES[1]),
        burst_deployment_series(0),
    ]

    promtool_test(
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
    rules.write_text(yaml.safe_dump({"groups": rule_document()["spec"]["groups"]}))
    labels = expected_labels("HeadroomSlicesEroded", 0, "headroom-reserver")
    (tmp_path / "test.yaml").write_text(
        yaml.safe_dump(
            {
                "rule_files": ["rules.yaml"],
                "evaluation_interval": "1m",
                "tests": [
                    {
                        "interval": "1m",
                        "input_series": [
                            *daemonset_series(10, 7),
                            *waiting_reservers(3),
                            burst_deployment_series(0),
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
                                        "exp_annotations": expected_annotations(
                                            rule_document(), "HeadroomSlicesEroded", 0, ""
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
