"""Headroom held in time windows: a CronJob per window, whose Job holds the room.

The CronJob controller (kube-controller-manager) creates a Job when the window opens;
the Job's pods hold the room, and its ``activeDeadlineSeconds`` (the window's length)
makes the Job controller delete them when the window closes
(``pkg/controller/job/job_controller.go``, ``pastActiveDeadline``). Nothing runs in
the cluster but those controllers and the reserver's pause container: no role, no
token, no object that a GitOps tool owns is changed (docs/schedules.md has the choice
and the alternatives).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cdk8s_headroom.vocabulary import names, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.labels import WINDOW_LABEL
from cdk8s_headroom.vocabulary.places import fill
from cdk8s_headroom.vocabulary.recipes import Take, evaluate, merge
from cdk8s_headroom.vocabulary.schedule import HeadroomSchedule, HeadroomWindow

CRONJOB_NAME_MAX = 52
"""The longest CronJob name: the controller appends 11 characters to name its Jobs
(kubernetes ``pkg/apis/batch/validation/validation.go``, ``ValidateCronJobCreate``)."""
HOSTNAME = "kubernetes.io/hostname"
DISRUPTION_TARGET = "DisruptionTarget"
"""The condition the scheduler (preemption) and the eviction API set on a pod they
remove (kubernetes ``pkg/apis/core/types.go``, ``DisruptionTarget``)."""

# The refusals of a schedule's count and of its CronJobs' names, which the chart's
# windows unit says too (helm/windows.py).
NODES_WITHOUT_SCHEDULE = "no value without a schedule: the DaemonSet holds a slice on every node"
COUNT_NEEDED = "the number of {what} in a window, 1 or more, with a schedule"
COUNTED = {"scheduled_nodes": "nodes that hold a slice", "replicas": "placeholder pods"}
"""What a schedule's count counts: a reserver's nodes, a buffer's pods."""
NOT_WITH_SHARE = (
    "no schedule with a share of each node (cpu or memory as a percentage): a schedule "
    "holds a fixed slice on scheduled_nodes nodes"
)
NAME_TOO_LONG = (
    "a CronJob name of at most {limit} characters (<name>-<window>): "
    "shorten the name or the window's name"
)
WINDOW_OBJECT = "{name}-{window}"

_LABELS = merge(Take("podLabels"), {WINDOW_LABEL: Take("window")})
WINDOW_CRON_JOB: dict[str, Any] = {
    "spec": {
        "schedule": Take("schedule"),
        "timeZone": Take("timeZone"),
        # One Job per window: a window never overlaps itself (HeadroomSchedule).
        "concurrencyPolicy": "Forbid",
        # A start the controller missed (it was down) still holds the rest of the
        # window; later than the window's length it is skipped.
        "startingDeadlineSeconds": Take("seconds"),
        # A Job that ends at its deadline is Failed (DeadlineExceeded); kept, it
        # would fire job-failure alerts after every window.
        "successfulJobsHistoryLimit": 0,
        "failedJobsHistoryLimit": 0,
        "jobTemplate": {
            "metadata": {"labels": _LABELS},
            "spec": {
                "parallelism": Take("pods"),
                "completions": Take("pods"),
                "activeDeadlineSeconds": Take("seconds"),
                # A reserver that a burst pod preempts is replaced, and waits for
                # the room as the DaemonSet's does; it is no failure.
                "podFailurePolicy": {
                    "rules": [
                        {
                            "action": "Ignore",
                            "onPodConditions": [{"type": DISRUPTION_TARGET, "status": "True"}],
                        }
                    ]
                },
                "template": {
                    "metadata": merge(Take("podMetadata"), {"labels": _LABELS}),
                    "spec": merge(Take("podSpec"), {"restartPolicy": "Never"}, Take("perNode")),
                },
            },
        },
    }
}
"""The CronJob of a window (its body; the metadata is its holder's), declared once
(``recipes``): ``window_cron_job`` evaluates it, and ``make chart`` compiles it into the
chart's ``node-headroom.recipe.windowCronJob``. ``perNode`` is ``ONE_PER_NODE``'s
value for the slices, none for a buffer's pods."""
ONE_PER_NODE: dict[str, Any] = {
    "affinity": merge(
        Take("affinity"),
        {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {
                            "matchLabels": {"app": Take("app"), WINDOW_LABEL: Take("window")}
                        },
                        "topologyKey": HOSTNAME,
                    }
                ]
            }
        },
    )
}
"""A slice's pods, at most one on each node: the pod's own affinity and a required
anti-affinity to the window's other pods on the node (``node-headroom.recipe.onePerNode``)."""


class Windowed:
    """What may hold its room in time windows (a reserver's slices, a buffer's pods): the
    names of the CronJobs it holds them with, which the alerts watch the Jobs of."""

    _window_names: Sequence[str]

    @property
    def window_names(self) -> tuple[str, ...]:
        """The names of the CronJobs of its time windows, in order; none without a
        schedule."""
        return tuple(self._window_names)


def check_windows(
    schedule: object, scheduled_nodes: object, *, name: str, count: str = "scheduled_nodes"
) -> tuple[HeadroomSchedule | None, int | None, list[str]]:
    """A reserver's ``schedule`` and ``scheduled_nodes`` (a buffer's ``schedule`` and
    ``replicas``: ``count`` names it), and the names of its CronJobs (none without a
    schedule)."""
    if schedule is None:
        if scheduled_nodes is not None and count == "scheduled_nodes":
            raise HeadroomConfigError("scheduled_nodes", scheduled_nodes, NODES_WITHOUT_SCHEDULE)
        return None, None, []
    if not isinstance(schedule, HeadroomSchedule):
        raise HeadroomConfigError(
            "schedule",
            schedule,
            "None or a HeadroomSchedule, e.g. HeadroomSchedule("
            "[HeadroomWindow(schedule='0 8 * * mon-fri', minutes=600)], time_zone='Europe/Berlin')",
        )
    if scheduled_nodes is None:
        raise HeadroomConfigError(
            count, scheduled_nodes, fill(COUNT_NEEDED, {"what": COUNTED[count]})
        )
    nodes = rules.POSITIVE.check(scheduled_nodes, field=count)
    objects = [window_object_name(name, window, field="schedule") for window in schedule.names]
    return schedule, nodes, objects


def window_props(
    schedule: object, scheduled_nodes: object, name: str, per_size: Sequence[object]
) -> dict[str, Any]:
    """``NodeHeadroom``'s ``schedule`` and ``scheduled_nodes``, checked before it joins
    the tree, as its reserver takes them. A share's reservers (one per node size,
    ``per_size``) are not scheduled: how many nodes of each size hold one in a window
    is a count no one gives."""
    checked, nodes, _ = check_windows(schedule, scheduled_nodes, name=name)
    if checked is not None and per_size:
        raise HeadroomConfigError("schedule", checked.describe(), NOT_WITH_SHARE)
    return {"schedule": checked, "scheduled_nodes": nodes}


def described(schedule: object) -> object:
    """A schedule as a refusal shows it: its windows (``describe``), which the chart
    writes alike (a dataclass's repr it could not)."""
    return schedule.describe() if isinstance(schedule, HeadroomSchedule) else schedule


def window_summary(reserver: Any) -> dict[str, Any]:
    """The summary's (``HeadroomSummary``) ``scheduled_nodes`` and ``windows`` of a
    reserver, or of none."""
    schedule = getattr(reserver, "schedule", None)
    return {
        "scheduled_nodes": getattr(reserver, "scheduled_nodes", None),
        "windows": None if schedule is None else schedule.describe(),
    }


def window_object_name(name: str, window: str, *, field: str) -> str:
    """The CronJob of ``window`` for the object ``name``: ``<name>-<window>``."""
    joined = fill(WINDOW_OBJECT, {"name": name, "window": window})
    if len(joined) > CRONJOB_NAME_MAX:
        raise HeadroomConfigError(field, joined, fill(NAME_TOO_LONG, {"limit": CRONJOB_NAME_MAX}))
    return names.dns_label(joined, field=field)


def window_cron_job(
    schedule: HeadroomSchedule,
    window: HeadroomWindow,
    window_name: str,
    *,
    pod_template: dict[str, Any],
    pods: int,
    one_per_node: bool,
) -> dict[str, Any]:
    """The body of the CronJob that holds ``pods`` copies of ``pod_template`` while
    ``window`` is open; with ``one_per_node``, at most one on each node (the slices)."""
    spec = pod_template["spec"]
    inputs = {
        "podLabels": pod_template["metadata"]["labels"],
        "window": window_name,
        "app": pod_template["metadata"]["labels"]["app"],
    }
    per_node = evaluate(ONE_PER_NODE, {**inputs, "affinity": spec.get("affinity")})
    return evaluate(  # type: ignore[no-any-return]
        WINDOW_CRON_JOB,
        {
            **inputs,
            "schedule": window.schedule,
            "timeZone": schedule.time_zone,
            "seconds": window.minutes * 60,
            "pods": pods,
            "podMetadata": pod_template.get("metadata", {}),
            "podSpec": spec,
            "perNode": per_node if one_per_node else None,
        },
    )
