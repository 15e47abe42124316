"""HeadroomAlerts on room held in time windows: the slices' reservers and a buffer's
placeholders are the pods of each window's Job, which the CronJob controller names
``<cronjob>-<minutes since the epoch>`` (kubernetes
``pkg/controller/cronjob/cronjob_controllerv2.go``, ``getJobName``). Checked by promtool
on kube-state-metrics' series as ``test_alerts.py`` checks the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import (
    HeadroomAlerts,
    HeadroomSchedule,
    HeadroomWarning,
    HeadroomWindow,
    NodeHeadroom,
)
from tests.objects.alert_series import (
    ALERTS,
    NS,
    PLACEHOLDERS,
    burst_deployment_series,
    daemonset_series,
    needs_promtool,
    promtool_test,
    waiting_reservers,
)


def _windows_document() -> Any:
    chart = cdk8s.Chart(cdk8s.App(), "chart")
    schedule = HeadroomSchedule(
        [HeadroomWindow("0 8 * * mon-fri", 600, "business"), HeadroomWindow("0 20 * * *", 60)]
    )
    headroom = NodeHeadroom(
        chart, "headroom", cpu="500m", memory="512Mi", namespace=NS, schedule=schedule,
        scheduled_nodes=4,
    )  # fmt: skip
    headroom.add_burst_workload("api", image="nginx:1.27", cpu="250m", memory="256Mi")
    return HeadroomAlerts(chart, "alerts", headroom=headroom).resource.to_json()


def test_slices_held_in_time_windows_are_watched_through_the_windows_jobs() -> None:
    # A window's reservers are its Job's pods: no DaemonSet's series would ever match
    rules = _windows_document()["spec"]["groups"][0]["rules"]

    assert [r["alert"] for r in rules] == ["HeadroomSlicesEroded", "HeadroomBurstPodPending"]
    assert 'owner_kind="Job"' in rules[0]["expr"]
    assert "(?:headroom-reserver-business|headroom-reserver-window-2)-[0-9]+" in rules[0]["expr"]
    assert "kube_daemonset" not in " ".join(r["expr"] for r in rules)


@needs_promtool
def test_a_window_s_waiting_reservers_with_no_burst_pod_running_are_erosion(
    tmp_path: Path,
) -> None:
    series = [*waiting_reservers(2, "headroom-reserver-business-29412000", "Job")]
    series.append(burst_deployment_series(1))

    promtool_test(
        tmp_path, series, firing={"HeadroomSlicesEroded": 1}, document=_windows_document()
    )


@needs_promtool
def test_a_window_s_reservers_waiting_for_running_burst_pods_are_no_erosion(
    tmp_path: Path,
) -> None:
    # A waiting pod of a Job of another CronJob whose name starts alike does not count
    series = [
        *waiting_reservers(2, "headroom-reserver-window-2-29412060", "Job"),
        *waiting_reservers(3, "headroom-reserver-window-20-29412060", "Job"),
        burst_deployment_series(2),
    ]

    promtool_test(tmp_path, series, firing={}, document=_windows_document())


def _buffer_windows_document() -> Any:
    # Slices on every node, and a buffer held in two windows: CronJobs api-buffer-batch
    # and api-buffer-window-2, whose Jobs' pods are its placeholders
    chart = cdk8s.Chart(cdk8s.App(), "chart")
    headroom = NodeHeadroom(chart, "headroom", cpu="500m", memory="512Mi", namespace=NS)
    alerts = HeadroomAlerts(chart, "alerts", headroom=headroom)
    api = headroom.add_burst_workload("api", image="nginx:1.27", cpu="250m", memory="256Mi")
    schedule = HeadroomSchedule(
        [HeadroomWindow("0 0 * * *", 120, "batch"), HeadroomWindow("0 20 * * *", 60)]
    )
    # added after the alerts: still watched, since the rules render at synthesis
    with pytest.warns(HeadroomWarning):  # a pool without a taint: the room is shared
        headroom.add_capacity_buffer(api, replicas=2, schedule=schedule)
    return alerts.resource.to_json()


def test_a_buffer_held_in_time_windows_is_watched_through_its_windows_jobs() -> None:
    rules = {r["alert"]: r for r in _buffer_windows_document()["spec"]["groups"][0]["rules"]}

    placeholders = rules["HeadroomBufferPodPending"]
    assert list(rules) == [*ALERTS[:3], "HeadroomBufferPodPending", ALERTS[3]]
    assert 'owner_name=~"(?:api-buffer-batch|api-buffer-window-2)-[0-9]+"' in placeholders["expr"]
    assert placeholders["for"] == "30m"
    # the other alerts neither watch nor name the buffer's CronJobs
    assert "api-buffer" not in " ".join(
        r["expr"] + r["annotations"]["description"]
        for alert, r in rules.items()
        if alert != "HeadroomBufferPodPending"
    )


@needs_promtool
def test_a_buffer_window_s_placeholders_waiting_past_erosion_for_fire_once_per_pod(
    tmp_path: Path,
) -> None:
    # The autoscaler added no node for them: running burst pods do not excuse them (a
    # placeholder a burst pod preempts is replaced, and its node is the autoscaler's to
    # add), and a waiting pod of a Job of another CronJob whose name starts alike does
    # not count
    series = [
        *daemonset_series(10, 10),
        *waiting_reservers(2, PLACEHOLDERS, "Job"),
        *waiting_reservers(3, "api-buffer-window-20-29413200", "Job"),
        burst_deployment_series(2),
    ]

    promtool_test(
        tmp_path,
        series,
        firing={"HeadroomBufferPodPending": 2},
        document=_buffer_windows_document(),
    )


@needs_promtool
def test_a_buffer_window_s_placeholder_waiting_for_its_node_is_no_alarm(tmp_path: Path) -> None:
    # Pending is how a placeholder asks the autoscaler for a node: at minute 60, one ran
    # after 10 minutes and the other has waited 20 (a replacement's wait starts afresh),
    # both less than erosion_for (30m)
    series = [
        *daemonset_series(10, 10),
        *waiting_reservers(1, PLACEHOLDERS, "Job", pending="1x9 0x80"),
        *waiting_reservers(1, "api-buffer-window-2-29413200", "Job", pending="0x39 1x50"),
        burst_deployment_series(0),
    ]

    promtool_test(tmp_path, series, firing={}, document=_buffer_windows_document())
