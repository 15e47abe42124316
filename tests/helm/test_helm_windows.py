"""What matters of time windows through the chart, stated on its own: a CronJob per window
in place of the reserver DaemonSet (``objects/reserver.py``, ``HeadroomReserver`` with
``schedule``) or of the CapacityBuffer (``objects/capacity_buffer.py``), each as
``objects/windows.py`` ``window_cron_job`` builds it; the refusals of
``vocabulary/schedule.py`` (``_check_no_overlap`` on the zone's wall clock) and
``vocabulary/time_zones.py``; NOTES; an app with a schedule read back."""

from __future__ import annotations

import json
import warnings
from typing import Any

import cdk8s
import helm_python as helm
import pytest

from cdk8s_headroom import HeadroomSchedule, HeadroomWindow, NodeHeadroom, NodePoolRef
from cdk8s_headroom.helm import Release, synthesize, values_from_app
from cdk8s_headroom.objects.windows import CRONJOB_NAME_MAX, DISRUPTION_TARGET, HOSTNAME
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.labels import WINDOW_LABEL
from cdk8s_headroom.vocabulary.time_zones import ZONES
from scripts.helm_render import CHART, objects, render, without_helm_labels
from tests.helm.helm_cases import API
from tests.helm.window_error_cases import BUSINESS, scheduled

NIGHT = {"schedule": "30 1 * * *", "minutes": 180}


def _rendered(chart: helm.Chart, values: dict[str, Any]) -> dict[tuple[str, str], Any]:
    return {(o["kind"], o["metadata"]["name"]): o for o in objects(render(chart, values))}


def _library_error(values: dict[str, Any], chart_defaults: dict[str, Any]) -> str:
    with pytest.raises(HeadroomConfigError) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthesize(values, Release(), chart_defaults=chart_defaults)
    return str(raised.value)


def _helm_error(chart: helm.Chart, values: dict[str, Any]) -> str:
    with pytest.raises(helm.HelmError) as raised:
        render(chart, values)
    return str(raised.value)


def test_each_window_is_a_cron_job_in_place_of_the_reserver_daemon_set(
    chart: helm.Chart,
) -> None:
    # GIVEN the slices held in business hours and at night, in Berlin, on 3 nodes
    values = scheduled(BUSINESS, NIGHT, zone="Europe/Berlin", nodes=3)
    # WHEN the chart renders them
    rendered = _rendered(chart, values)
    # THEN no DaemonSet holds them; a CronJob per window does, named <reserver>-<window>
    assert ("DaemonSet", "headroom-reserver") not in rendered
    business = rendered["CronJob", "headroom-reserver-business"]["spec"]
    night = rendered["CronJob", "headroom-reserver-window-2"]["spec"]
    assert (business["schedule"], business["timeZone"]) == ("0 8 * * mon-fri", "Europe/Berlin")
    assert night["schedule"] == "30 1 * * *"
    # its Job ends at the window's close, and holds 3 reserver pods, one per node
    job = business["jobTemplate"]["spec"]
    assert job["activeDeadlineSeconds"] == business["startingDeadlineSeconds"] == 600 * 60
    assert job["parallelism"] == job["completions"] == 3
    pod = job["template"]["spec"]
    (term,) = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["topologyKey"] == HOSTNAME
    assert term["labelSelector"]["matchLabels"][WINDOW_LABEL] == "business"
    assert pod["restartPolicy"] == "Never" and pod["priorityClassName"] == "headroom-reserve"
    # a preempted reserver is no failure, and no finished Job is kept
    (rule,) = job["podFailurePolicy"]["rules"]
    assert rule["onPodConditions"][0]["type"] == DISRUPTION_TARGET
    assert business["failedJobsHistoryLimit"] == business["successfulJobsHistoryLimit"] == 0


def test_a_buffers_window_is_a_cron_job_in_place_of_the_capacity_buffer(
    chart: helm.Chart,
) -> None:
    values = {
        "burstWorkloads": [
            {**API, "buffer": {"replicas": 4, "schedule": {"windows": [NIGHT]}}},
        ]
    }
    rendered = _rendered(chart, values)
    assert not [key for key in rendered if key[0] in ("CapacityBuffer", "PodTemplate")]
    spec = rendered["CronJob", "api-buffer-window-1"]["spec"]
    assert spec["timeZone"] == "Etc/UTC"
    job = spec["jobTemplate"]["spec"]
    assert job["parallelism"] == 4
    pod = job["template"]["spec"]
    # the placeholders are at the headroom class and free their room at once
    assert pod["priorityClassName"] == "headroom-reserve"
    assert pod["terminationGracePeriodSeconds"] == 0
    assert "podAntiAffinity" not in pod.get("affinity", {})


def test_the_chart_renders_what_the_library_synthesizes_for_a_schedule(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    values = {**scheduled(BUSINESS, NIGHT, zone="America/New_York", nodes=2)}
    values["burstWorkloads"] = [
        {**API, "buffer": {"replicas": 1, "schedule": {"windows": [NIGHT]}}}
    ]
    helm_side = {
        k: without_helm_labels(o) for k, o in _rendered(chart, values).items() if k[0] == "CronJob"
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        library = synthesize(values, Release(), chart_defaults=chart_defaults)
    library_side = {
        (o["kind"], o["metadata"]["name"]): o for o in library if o["kind"] == "CronJob"
    }
    assert helm_side == library_side and len(helm_side) == 3


def test_the_alerts_of_windowed_slices_watch_the_windows_jobs_not_a_daemon_set(
    chart: helm.Chart,
) -> None:
    # alert_rules: a window's reservers are its Job's pods, <cronjob>-<minutes>
    # (pkg/controller/cronjob/cronjob_controllerv2.go, getJobName); no DaemonSet exists
    values = {**scheduled(BUSINESS, NIGHT, nodes=2), "alerts": {"enabled": True}}
    (rule,) = [o for o in objects(render(chart, values)) if o["kind"] == "PrometheusRule"]
    rules = rule["spec"]["groups"][0]["rules"]
    assert [r["alert"] for r in rules] == ["HeadroomSlicesEroded"]
    assert (
        'owner_kind="Job",owner_name=~"(?:headroom-reserver-business|'
        'headroom-reserver-window-2)-[0-9]+"' in rules[0]["expr"]
    )
    assert "kube_daemonset" not in rules[0]["expr"]


def test_notes_name_each_cron_job_and_its_window(chart: helm.Chart) -> None:
    values = {**scheduled(BUSINESS, nodes=3), "nodePool": {"name": "burst"}}
    notes = render(chart, values)["node-headroom/templates/NOTES.txt"]
    assert (
        "CronJob headroom-reserver-burst-business: holds 500m CPU, 512Mi memory on 3 nodes of "
        "node pool burst in window business (0 8 * * mon-fri for 600 min, Etc/UTC)"
    ) in notes
    assert "DaemonSet headroom-reserver-burst:" not in notes


@pytest.mark.parametrize(
    ("windows", "says"),
    [
        # schedule._check_no_overlap: two windows, then one over its own next opening
        (
            [BUSINESS, {"schedule": "0 12 * * *", "minutes": 60, "name": "lunch"}],
            "windows: invalid value 'lunch at Mon 2028-01-03 12:00'; windows that are never "
            "open at once: window 'lunch' opens while window 'business' is still open (until "
            "Mon 2028-01-03 18:00)",
        ),
        (
            [{"schedule": "*/5 * * * *", "minutes": 10}],
            "window 'window-1' opens while its own previous opening is still open (until "
            "Sat 2028-01-01 00:10)",
        ),
    ],
    ids=["two-windows", "its-own-next-opening"],
)
def test_overlapping_windows_are_refused_with_the_librarys_message_and_times(
    chart: helm.Chart, chart_defaults: dict[str, Any], windows: list[Any], says: str
) -> None:
    values = scheduled(*windows)
    library = _library_error(values, chart_defaults)
    assert says in library
    assert library in _helm_error(chart, values)


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "Etc/UTC"])
def test_windows_read_the_wall_clock_whatever_the_zones_daylight_saving(
    chart: helm.Chart, chart_defaults: dict[str, Any], zone: str
) -> None:
    # A day's window (1440 minutes from 01:00) closes as the next opens, on the zone's
    # wall clock, as the CronJob controller fires it: a DST change makes no overlap, and
    # one minute more is one in every zone (schedule.py's module docstring)
    day = {"schedule": "0 1 * * *", "minutes": 1440}
    assert _rendered(chart, scheduled(day, zone=zone))
    longer = scheduled({**day, "minutes": 1441}, zone=zone)
    library = _library_error(longer, chart_defaults)
    assert "(until Sun 2028-01-02 01:01)" in library
    assert library in _helm_error(chart, longer)


def test_the_chart_and_the_library_judge_zones_against_the_same_pinned_list() -> None:
    data = json.loads((CHART / "files" / "windows.json").read_text())
    assert data["zones"] == list(ZONES)
    assert "Europe/Kyiv" in ZONES and "localtime" not in ZONES


def test_a_cron_job_name_is_at_most_52_characters_as_the_api_server_allows(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # ValidateCronJobCreate: the controller appends 11 characters to name each Job
    name = "w" * (CRONJOB_NAME_MAX - len("headroom-reserver-"))
    assert _rendered(chart, scheduled({**BUSINESS, "name": name}))
    too_long = scheduled({**BUSINESS, "name": f"{name}w"})
    assert _library_error(too_long, chart_defaults) in _helm_error(chart, too_long)


def test_an_app_with_a_schedule_reads_back_into_values_that_render_it(
    chart: helm.Chart,
) -> None:
    # GIVEN docs/schedules.md's app: slices in business hours, a buffer at night
    app = cdk8s.App()
    chart_ = cdk8s.Chart(app, "headroom")
    business = HeadroomSchedule(
        [HeadroomWindow("0 8 * * mon-fri", 600, "business")], time_zone="Europe/Berlin"
    )
    headroom = NodeHeadroom(
        chart_,
        "burst",
        cpu="1",
        memory="2Gi",
        node_pool=NodePoolRef("burst"),
        schedule=business,
        scheduled_nodes=3,
    )
    reports = headroom.add_burst_workload(
        "reports", image="registry.example/reports:1", cpu="500m", memory="1Gi"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batch = HeadroomSchedule([HeadroomWindow("0 1 * * *", 180, "batch")])
        headroom.add_capacity_buffer(reports, replicas=4, schedule=batch)
    # WHEN it is read back into values
    values = values_from_app(app)
    assert values["reservation"]["schedule"] == {
        "timeZone": "Europe/Berlin",
        "windows": [{"schedule": "0 8 * * mon-fri", "minutes": 600, "name": "business"}],
    }
    assert values["reservation"]["scheduledNodes"] == 3
    # THEN the chart renders the app's CronJobs (in the app's namespace, the README's rule)
    documents = {(d["kind"], d["metadata"]["name"]): d for d in chart_.to_json()}
    rendered = {
        (o["kind"], o["metadata"]["name"]): without_helm_labels(o)
        for o in objects(render(chart, values, namespace="default"))
    }
    for key in (
        ("CronJob", "headroom-reserver-burst-business"),
        ("CronJob", "reports-buffer-batch"),
    ):
        assert rendered[key] == documents[key]
