"""Slices held only in time windows: a CronJob per window, whose Job holds the slices
(kubernetes pkg/controller/cronjob and pkg/controller/job; docs/schedules.md)."""

from __future__ import annotations

from typing import Any

import cdk8s
import pytest
from cdk8s import Testing as K8sTesting

from cdk8s_headroom import (
    DEFAULT_DEDICATED_TAINT,
    HeadroomConfigError,
    KarpenterNodePool,
    NodeHeadroom,
    NodePoolRef,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    PriorityModel,
)
from cdk8s_headroom.vocabulary import pod_security
from cdk8s_headroom.vocabulary.labels import WINDOW_LABEL
from cdk8s_headroom.vocabulary.schedule import HeadroomSchedule, HeadroomWindow
from scripts.validation import validate_schemas
from tests.conftest import find_all

SCHEDULE = HeadroomSchedule(
    [HeadroomWindow("0 8 * * mon-fri", 600, "business"), HeadroomWindow("0 20 * * *", 60)],
    time_zone="Europe/Berlin",
)
BUSINESS_ONLY = HeadroomWindow("0 8 * * mon-fri", 600, "business")


def scheduled(chart: cdk8s.Chart, synth: Any, **props: Any) -> list[dict[str, Any]]:
    props.setdefault("cpu", "500m")
    props.setdefault("memory", "512Mi")
    props.setdefault("schedule", SCHEDULE)
    props.setdefault("scheduled_nodes", 3)
    NodeHeadroom(chart, "headroom", **props)
    return synth(chart)  # type: ignore[no-any-return]


def test_a_schedule_replaces_the_daemonset_by_a_cronjob_per_window(
    chart: cdk8s.Chart, synth: Any
) -> None:
    objects = scheduled(chart, synth)
    assert not find_all(objects, "DaemonSet")
    jobs = find_all(objects, "CronJob")
    assert [j["metadata"]["name"] for j in jobs] == [
        "headroom-reserver-business",
        "headroom-reserver-window-2",
    ]
    assert [(j["spec"]["schedule"], j["spec"]["timeZone"]) for j in jobs] == [
        ("0 8 * * mon-fri", "Europe/Berlin"),
        ("0 20 * * *", "Europe/Berlin"),
    ]


def test_the_job_holds_the_slices_for_the_windows_length_one_per_node(
    chart: cdk8s.Chart, synth: Any
) -> None:
    business = find_all(scheduled(chart, synth), "CronJob")[0]
    job = business["spec"]["jobTemplate"]["spec"]
    assert job["activeDeadlineSeconds"] == 600 * 60
    assert (job["parallelism"], job["completions"]) == (3, 3)
    pod = job["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    assert pod["containers"][0]["resources"]["requests"] == {"cpu": "500m", "memory": "512Mi"}
    (term,) = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert term["labelSelector"]["matchLabels"][WINDOW_LABEL] == "business"
    assert job["template"]["metadata"]["labels"][WINDOW_LABEL] == "business"


def test_a_preempted_reserver_is_replaced_and_is_no_failure(chart: cdk8s.Chart, synth: Any) -> None:
    # Job controller: a pod with a DisruptionTarget condition (the scheduler's preemption
    # sets it, pkg/scheduler/framework/preemption) matched by an Ignore rule is not counted
    # against backoffLimit and is recreated (pkg/controller/job/pod_failure_policy.go).
    job = find_all(scheduled(chart, synth), "CronJob")[0]["spec"]
    rules = job["jobTemplate"]["spec"]["podFailurePolicy"]["rules"]
    assert rules == [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}
    ]
    assert (job["concurrencyPolicy"], job["failedJobsHistoryLimit"]) == ("Forbid", 0)


def test_the_slices_class_and_hardening_are_the_daemonsets(chart: cdk8s.Chart, synth: Any) -> None:
    pod = find_all(scheduled(chart, synth), "CronJob")[0]["spec"]["jobTemplate"]["spec"]["template"]
    spec = pod["spec"]
    assert spec["priorityClassName"] == "headroom-reserve"
    assert spec["terminationGracePeriodSeconds"] == 0
    assert spec["automountServiceAccountToken"] is False


@pytest.mark.parametrize(
    ("props", "field"),
    [
        ({"schedule": "0 8 * * *"}, "schedule"),
        ({"scheduled_nodes": None}, "scheduled_nodes"),
        ({"scheduled_nodes": 0}, "scheduled_nodes"),
        ({"scheduled_nodes": True}, "scheduled_nodes"),
        ({"schedule": None, "scheduled_nodes": 2}, "scheduled_nodes"),
        ({"cpu": None, "memory": None}, "schedule"),
        ({"reserver_name": "r" * 45}, "schedule"),
    ],
)
def test_bad_schedule_props_are_refused_before_anything_joins_the_tree(
    chart: cdk8s.Chart, synth: Any, props: dict[str, Any], field: str
) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        scheduled(chart, synth, **props)
    assert raised.value.field == field
    assert not chart.node.try_find_child("headroom")


def scheduled_buffer(chart: cdk8s.Chart, synth: Any, **options: Any) -> list[dict[str, Any]]:
    options.setdefault("replicas", 4)
    options.setdefault("schedule", SCHEDULE)
    pool = NodePoolRef.karpenter("burst", taints=[DEFAULT_DEDICATED_TAINT])
    headroom = NodeHeadroom(chart, "headroom", model=PriorityModel.DEDICATED_POOL, node_pool=pool)
    api = headroom.add_burst_workload("api", image="registry.example/api:1", cpu="1", memory="1Gi")
    headroom.add_capacity_buffer(api, **options)
    return synth(chart)  # type: ignore[no-any-return]


def test_a_scheduled_buffer_is_a_cronjob_per_window_in_place_of_the_capacity_buffer(
    chart: cdk8s.Chart, synth: Any
) -> None:
    objects = scheduled_buffer(chart, synth)
    assert not find_all(objects, "CapacityBuffer")
    assert not find_all(objects, "PodTemplate")
    jobs = find_all(objects, "CronJob")
    assert [j["metadata"]["name"] for j in jobs] == ["api-buffer-business", "api-buffer-window-2"]
    job = jobs[0]["spec"]["jobTemplate"]["spec"]
    assert (job["parallelism"], job["activeDeadlineSeconds"]) == (4, 600 * 60)
    pod = job["template"]["spec"]
    # Placeholders of the burst pod's shape at the headroom class: burst pods preempt them.
    assert pod["priorityClassName"] == "headroom-reserve"
    assert pod["containers"][0]["resources"]["requests"] == {"cpu": "1", "memory": "1Gi"}
    assert pod["tolerations"][0]["key"] == DEFAULT_DEDICATED_TAINT.key
    # Not one per node: a buffer's room may sit on one node.
    assert "podAntiAffinity" not in (pod.get("affinity") or {})


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"replicas": None, "limits": {"cpu": "8"}}, "capacity_buffers[api-buffer].replicas"),
        ({"replicas": 0}, "capacity_buffers[api-buffer].replicas"),
        ({"limits": {"cpu": "8"}}, "capacity_buffers[api-buffer].schedule"),
        ({"schedule": [BUSINESS_ONLY]}, "capacity_buffers[api-buffer].schedule"),
    ],
)
def test_bad_buffer_schedules_are_refused(
    chart: cdk8s.Chart, synth: Any, options: dict[str, Any], field: str
) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        scheduled_buffer(chart, synth, **options)
    assert raised.value.field == field


def test_scheduled_objects_pass_the_strict_schemas_and_pod_security(
    chart: cdk8s.Chart, synth: Any
) -> None:
    jobs = find_all(scheduled(chart, synth), "CronJob")
    other = K8sTesting.chart()
    jobs += find_all(scheduled_buffer(other, synth), "CronJob")
    assert validate_schemas(jobs) == [[] for _ in jobs]
    for job in jobs:
        assert not pod_security.check_object(job).violations


def test_a_share_of_each_node_is_not_scheduled(chart: cdk8s.Chart) -> None:
    # A share's reservers are one per node size: how many nodes of each size hold one
    # in a window is a count no prop gives.
    pool = KarpenterNodePool(
        chart,
        "pool",
        name="web",
        requirements=[
            NodeSelectorRequirement(
                "node.kubernetes.io/instance-type", NodeSelectorOperator.IN, ["m5.large"]
            )
        ],
    )
    with pytest.raises(HeadroomConfigError, match=r"^schedule: .*a share of each node"):
        NodeHeadroom(
            chart,
            "headroom",
            cpu="10%",
            memory="10%",
            node_pool=pool,
            schedule=SCHEDULE,
            scheduled_nodes=2,
        )
    assert chart.node.try_find_child("headroom") is None
