"""The chart's alerts (``alerts.enabled``): the PrometheusRule of ``HeadroomAlerts``,
filled from the library's rule skeletons (``files/library.json``), off by default.

Checked as the real tools check it: strictly against ``@kubernetes-models/prometheus-operator``
and by ``promtool check rules`` (prometheus/prometheus ``cmd/promtool/main.go``,
``CheckRules``) on the rendered object. Parity with the library is
``test_helm_parity.py``'s (the ``alerts-*`` cases).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import cdk8s
import helm_python as helm
import pytest
import yaml

from cdk8s_headroom import AlertSeverity, HeadroomAlerts, NodeHeadroom
from cdk8s_headroom.helm import values_from_app
from cdk8s_headroom.helm.values_to_app import merge_values
from scripts.helm_render import objects, render, without_helm_labels
from scripts.validation import validate_models
from tests.helm.helm_cases import API, WORKER

PROMTOOL = shutil.which("promtool")


def _rules(chart: helm.Chart, overrides: dict[str, Any]) -> list[dict[str, Any]]:
    rendered = objects(render(chart, overrides))
    return [document for document in rendered if document["kind"] == "PrometheusRule"]


ENABLED = {"alerts": {"enabled": True}, "burstWorkloads": [API, WORKER]}


def test_the_defaults_render_no_prometheus_rule(chart: helm.Chart) -> None:
    # The Operator's CRDs are not on every cluster: a rule would fail the whole install
    assert _rules(chart, {"burstWorkloads": [API]}) == []


def test_enabled_alerts_render_one_rule_in_the_headrooms_namespace(chart: helm.Chart) -> None:
    (rule,) = _rules(chart, ENABLED)

    assert rule["metadata"]["name"] == "headroom-reserver-alerts"
    assert rule["metadata"]["namespace"] == "node-headroom"
    alerts = [r["alert"] for r in rule["spec"]["groups"][0]["rules"]]
    assert alerts == [
        "HeadroomNoTargetNodes",
        "HeadroomSlicesLow",
        "HeadroomSlicesEroded",
        "HeadroomBurstPodPending",
    ]
    pending = rule["spec"]["groups"][0]["rules"][3]["expr"]
    assert 'owner_name=~"(?:api|worker)-[a-z0-9]+"' in pending


def test_a_headroom_without_slices_gets_only_the_burst_alert(chart: helm.Chart) -> None:
    overrides = {
        "reservation": {"cpu": None, "memory": None},
        "prepullBurstImages": False,
        "alerts": {"enabled": True},
        "burstWorkloads": [{**API, "buffer": {"replicas": 1}}],
    }

    (rule,) = _rules(chart, overrides)

    assert [r["alert"] for r in rule["spec"]["groups"][0]["rules"]] == ["HeadroomBurstPodPending"]
    assert rule["metadata"]["name"] == "headroom-alerts"


def test_two_releases_without_slices_name_their_alerts_apart(chart: helm.Chart) -> None:
    # Two such releases in one namespace must not claim one PrometheusRule.
    overrides = {
        "reservation": {"cpu": None, "memory": None},
        "prepullBurstImages": False,
        "alerts": {"enabled": True},
        "burstWorkloads": [{**API, "buffer": {"replicas": 1}}],
    }
    rules = [
        rule
        for release in ("blue", "green")
        for rule in objects(render(chart, overrides, release=release))
        if rule["kind"] == "PrometheusRule"
    ]

    assert [rule["metadata"]["name"] for rule in rules] == [
        "blue-headroom-alerts",
        "green-headroom-alerts",
    ]


def test_the_rendered_rule_passes_the_prometheus_operator_schema_strictly(
    chart: helm.Chart,
) -> None:
    (rule,) = _rules(chart, ENABLED)
    bad = {**rule, "spec": {"groups": [{**rule["spec"]["groups"][0], "interval": 5}]}}

    good_result, bad_result = validate_models([rule, bad])

    assert good_result.errors == ()
    assert bad_result.errors != ()


@pytest.mark.skipif(
    PROMTOOL is None,
    reason="promtool is not installed (Debian package `prometheus`; `make test` installs it)",
)
def test_promtool_accepts_the_rendered_rules(chart: helm.Chart, tmp_path: Path) -> None:
    (rule,) = _rules(chart, ENABLED)
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}))

    result = subprocess.run(
        [str(PROMTOOL), "check", "rules", str(path)], capture_output=True, text=True, check=False
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 4 rules found" in result.stdout


def test_an_apps_alerts_read_back_into_values_that_render_the_same_rule(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    app = cdk8s.App()
    scope = cdk8s.Chart(app, "headroom")
    headroom = NodeHeadroom(
        scope, "headroom", cpu="500m", memory="512Mi", namespace="node-headroom"
    )
    headroom.add_burst_workload("api", image="ghcr.io/acme/api:1.2", cpu="250m", memory="256Mi")
    alerts = HeadroomAlerts(
        scope,
        "alerts",
        headroom=headroom,
        labels={"release": "kps"},
        erosion_for="45m",
        severity=AlertSeverity.CRITICAL,
    )
    values = values_from_app(app)

    assert values["alerts"] == {
        "enabled": True,
        "name": None,
        "labels": {"release": "kps"},
        "minHeldPercent": 90,
        "slicesLowFor": "15m",
        "erosionFor": "45m",
        "burstStartBudget": "2m",
        "severity": "critical",
    }
    (rendered,) = _rules(chart, merge_values(chart_defaults, values))
    assert without_helm_labels(rendered) == alerts.resource.to_json()
