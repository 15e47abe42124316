"""Room held in time windows, as the manifests declare it: a CronJob per window whose
Job holds pods while the window is open (``HeadroomSchedule``, docs/schedules.md).

The simulator does not place these pods: whether they exist depends on the clock.
``plan`` says which window is in force at a given time and what it holds; ``status``
reads the pods the windows' Jobs made.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from cdk8s_headroom.simulate.fields import Value
from cdk8s_headroom.simulate.model import Resources
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.labels import COMPONENT_LABEL, WINDOW_LABEL
from cdk8s_headroom.vocabulary.schedule import (
    DEFAULT_TIME_ZONE,
    HeadroomSchedule,
    HeadroomWindow,
    OpenWindow,
)

WINDOW_NOT_PLACED = (
    "holds room only while its window is open (plan says which is in force); not placed"
)


@dataclass(frozen=True)
class ScheduledHold:
    """One window's CronJob: whose room it holds (``owner``, the pods' ``app`` label,
    and their component), when, and how many pods of which requests."""

    cron_job: str
    namespace: str
    owner: str
    component: str
    schedule: HeadroomSchedule
    pods: int
    requests: Resources

    @property
    def window(self) -> str:
        return self.schedule.names[0]

    def in_force(self, at: datetime) -> OpenWindow | None:
        return self.schedule.in_force(at)


def is_window(document: object) -> bool:
    """Whether a manifest is the CronJob of a window (its pods carry ``WINDOW_LABEL``)."""
    if not isinstance(document, dict) or document.get("kind") != "CronJob":
        return False
    template = ((document.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}
    labels = ((template.get("template") or {}).get("metadata") or {}).get("labels") or {}
    return isinstance(labels, dict) and WINDOW_LABEL in labels


def read_hold(value: Value, name: str, namespace: str) -> ScheduledHold:
    """A window's CronJob, as ``HeadroomSchedule`` renders it."""
    spec = value.child("spec")
    job = spec.child("jobTemplate").child("spec")
    template = job.child("template")
    labels = template.child("metadata").child("labels").string_map()
    deadline = job.child("activeDeadlineSeconds")
    seconds = deadline.integer(minimum=60)
    try:
        schedule = HeadroomSchedule(
            [HeadroomWindow(spec.child("schedule").text(), seconds // 60, labels[WINDOW_LABEL])],
            time_zone=spec.child("timeZone").text_or(DEFAULT_TIME_ZONE),
        )
    except HeadroomConfigError as error:
        raise spec.fail(str(error)) from None
    cpu = memory = 0
    for container in template.child("spec").child("containers").items():
        requests = container.child("resources").child("requests")
        cpu += requests.child("cpu").quantity_or(0, 1000)
        memory += requests.child("memory").quantity_or(0, 1)
    return ScheduledHold(
        cron_job=name,
        namespace=namespace,
        owner=labels.get("app", name),
        component=labels.get(COMPONENT_LABEL, ""),
        schedule=schedule,
        pods=job.child("parallelism").integer_or(1, minimum=0),
        requests=Resources(cpu, memory),
    )
