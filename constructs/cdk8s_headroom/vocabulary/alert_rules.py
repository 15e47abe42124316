"""The alerts that watch a headroom over time, as Prometheus alerting rules (plain Python).

``status`` judges one snapshot by hand; these rules judge the headroom continuously, from
the monitoring stack a cluster already has: Prometheus scraping kube-state-metrics. They
use kube-state-metrics' standard series only (``kube_daemonset_status_*``,
``kube_deployment_status_*``, ``kube_pod_status_phase``, ``kube_pod_owner``), never
``kube_pod_labels``, which carries pod labels only where kube-state-metrics is told to
allow them (``--metric-labels-allowlist``). So a burst pod is found through its owner:
the ReplicaSet ``<deployment>-<pod-template-hash>`` that the Deployment controller names
(kubernetes/kubernetes ``pkg/controller/deployment/sync.go``, ``getNewReplicaSet``), and
a time window's reserver through its Job, ``<cronjob>-<minutes since the epoch>``, which the
CronJob controller names (``pkg/controller/cronjob/cronjob_controllerv2.go``,
``getJobName``).

A headroom with several reserver DaemonSets (a share of each node: one per node size)
is watched as one: the slice alerts sum over its DaemonSets, so a node size with no node
now is no alarm, and a headroom held in time windows is watched through its windows'
Jobs, since it has no DaemonSet. A buffer held in time windows is watched through its
windows' Jobs too: their pods are its placeholders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from cdk8s_headroom.vocabulary import names, rules
from cdk8s_headroom.vocabulary.durations import PROMETHEUS_DURATION
from cdk8s_headroom.vocabulary.places import fill
from cdk8s_headroom.vocabulary.recipes import JoinText, Take, evaluate, join


class AlertSeverity(Enum):
    """The ``severity`` label of the alerts: the values kube-prometheus' Alertmanager
    configuration routes."""

    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"


class Watches(Enum):
    """What an alert needs of the headroom: its reserver DaemonSets (slices), the
    CronJobs of its time windows (windows), burst workloads, or the CronJobs of its
    buffers' time windows (buffer windows). An alert whose part the headroom lacks is
    left out. The value is the field of the part's names (``ALERT_FIELDS``), empty when
    the headroom lacks it, so the library and the chart judge the part by that field."""

    SLICES = "reservers"
    WINDOWS = "windows"
    BURSTS = "bursts"
    BUFFER_WINDOWS = "buffer_windows"


@dataclass(frozen=True)
class AlertTemplate:
    """One alerting rule, as text with ``{field}`` places (``HeadroomAlertRules.fields``).

    The places are filled by plain replacement, which the Helm chart repeats on the same
    text (``files/library.json``), so both write the same rule. The fields are DNS
    labels, durations and digits: none needs quoting inside a PromQL string or JSON, and
    a burst name holds no regular-expression metacharacter (``-`` is one only inside a
    bracket), so ``{bursts}`` is the names joined by ``|``, and so are ``{reservers}``,
    ``{windows}`` and ``{buffer_windows}``.

    Attributes:
        alert: the alert's name.
        watches: what of the headroom it needs.
        wait: its ``for:``: the place of a ``HeadroomAlertRules`` duration.
        expr: its PromQL expression.
        summary: its one-line summary.
        description: what it means and what to do.
    """

    alert: str
    watches: Watches
    wait: str
    expr: str
    summary: str
    description: str


_DS = 'namespace="{namespace}",daemonset=~"{reservers}"'
_PENDING = 'kube_pod_status_phase{namespace="{namespace}",phase="Pending"} == 1'
_WHERE = "headroom {headroom} in namespace {namespace}"
_BURSTS_RUNNING = (
    '(sum(kube_deployment_status_replicas_available{namespace="{namespace}",'
    'deployment=~"{bursts}"}) or vector(0))'
)
_ERODED = (
    "room a reserver waits for is taken by other pods, and the waiting reserver cannot "
    "evict them (preemptionPolicy Never). Under GUARDED this is the free-capacity race; "
    "a DEDICATED_POOL (a tainted pool) closes it."
)


def _pending_in_jobs_of(cronjobs: str) -> str:
    """The Pending pods of the Jobs of the CronJobs at the place ``cronjobs``: a
    window's pods are its Job's, ``<cronjob>-<minutes>`` as ``getJobName`` names it."""
    return (
        f"{_PENDING} and on (namespace, pod) "
        'kube_pod_owner{namespace="{namespace}",owner_kind="Job",'
        f'owner_name=~"(?:{{{cronjobs}}})-[0-9]+"}}'
    )


ALERTS: tuple[AlertTemplate, ...] = (
    AlertTemplate(
        "HeadroomNoTargetNodes",
        Watches.SLICES,
        "{slices_low_for}",
        f"sum(kube_daemonset_status_desired_number_scheduled{{{_DS}}}) == 0",
        f"The {_WHERE} reserves room on no node.",
        "No node is targeted by the reserver DaemonSets ({reserver}): their node selector, "
        "node affinity or tolerations match none of the pool's nodes (or the pool has no "
        "nodes). Check the pool's name and taints with `cdk8s-headroom plan`.",
    ),
    AlertTemplate(
        "HeadroomSlicesLow",
        Watches.SLICES,
        "{slices_low_for}",
        f"sum(kube_daemonset_status_number_available{{{_DS}}})"
        f" / sum(kube_daemonset_status_desired_number_scheduled{{{_DS}}})"
        " < {min_held_percent} / 100",
        f"The {_WHERE} holds its slice on {{{{ $value | humanizePercentage }}}} of its nodes "
        "(goal: {min_held_percent}%).",
        "Fewer reservers of the DaemonSets ({reserver}) are available than "
        "{min_held_percent}% of their target nodes: burst pods use the slices, or ordinary "
        "pods took freed room (erosion), or nodes were full at install. Burst pods that "
        "arrive now may wait for a new node. Run `cdk8s-headroom status` on a snapshot to "
        "see which nodes wait and why.",
    ),
    AlertTemplate(
        "HeadroomSlicesEroded",
        Watches.SLICES,
        "{erosion_for}",
        # With no burst workload, {bursts} is empty and the sum selects nothing: 0
        f"count({_PENDING} and on (namespace, pod) "
        'kube_pod_owner{namespace="{namespace}",owner_kind="DaemonSet",'
        f'owner_name=~"{{reservers}}"}}) > {_BURSTS_RUNNING}',
        f"The {_WHERE} lost slices to ordinary pods.",
        "More reservers of the DaemonSets ({reserver}) wait (Pending) than burst pods run: "
        f"the {_ERODED} The slices come back as nodes are replaced, or after you drain the "
        "nodes whose reserver waits.",
    ),
    AlertTemplate(
        "HeadroomSlicesEroded",
        Watches.WINDOWS,
        "{erosion_for}",
        f"count({_pending_in_jobs_of('windows')}) > {_BURSTS_RUNNING}",
        f"The {_WHERE} lost slices to ordinary pods in a time window.",
        "More reservers of the time windows' Jobs (CronJobs {reserver}) wait (Pending) than "
        f"burst pods run: the window opened on nodes without the room, or the {_ERODED} "
        "The Job holds its reservers until the window closes; they take the room as it "
        "frees.",
    ),
    # A rule of its own, not erosion's: a buffer's placeholder waits (Pending) by design
    # until the autoscaler adds its node, and one that a burst pod preempts is replaced
    # by one that waits for a new node, so no running burst pod excuses it. Per pod, so
    # that `for:` times each placeholder's own wait (a replacement starts afresh);
    # erosion_for bounds it, as it bounds how long room the headroom promises may lack.
    AlertTemplate(
        "HeadroomBufferPodPending",
        Watches.BUFFER_WINDOWS,
        "{erosion_for}",
        _pending_in_jobs_of("buffer_windows"),
        f"Buffer pod {{{{ $labels.pod }}}} of the {_WHERE} has waited longer than {{erosion_for}}.",
        "A buffer held in time windows keeps its room with placeholder pods, which wait "
        "(Pending) only while the autoscaler adds a node for them. This one waited longer: "
        "the room its window promises is not there. With Karpenter, the pool's limits are "
        "reached or no instance type fits the pod; Cluster Autoscaler adds nodes only for a "
        "class at or above its --expendable-pods-priority-cutoff (-10). Check `kubectl "
        "describe pod` and the autoscaler's events.",
    ),
    AlertTemplate(
        "HeadroomBurstPodPending",
        Watches.BURSTS,
        "{burst_start_budget}",
        f"{_PENDING} and on (namespace, pod) "
        'kube_pod_owner{namespace="{namespace}",owner_kind="ReplicaSet",'
        'owner_name=~"(?:{bursts})-[a-z0-9]+"}',
        f"Burst pod {{{{ $labels.pod }}}} of the {_WHERE} has waited longer than "
        "{burst_start_budget}.",
        "A burst-critical pod is Pending: no slice was free to preempt, or it does not fit "
        "the slice, or it does not tolerate the pool's taint. The promise that burst pods "
        "start at once (P2, P4) is broken for it. Check `kubectl describe pod` for the "
        "scheduler's reason, and `cdk8s-headroom status` for the slices held.",
    ),
)
"""The alerts, in the order a reader checks them."""

GROUP_NAME = "node-headroom.{namespace}.{headroom}"
ALTERNATION = "|"
"""Between the names of ``{bursts}``, ``{reservers}``, ``{windows}`` and
``{buffer_windows}``: a regular expression's alternation."""
SHOWN_SEPARATOR = ", "
"""Between the names of ``{reserver}``, in the alerts' text."""
ALERT_LABELS = {"severity": "{severity}", "headroom": "{headroom}", "namespace": "{namespace}"}
"""Every alert's labels: routing, and which headroom it is about."""

ALERT_FIELDS = {
    "headroom": Take("headroom"),
    "namespace": Take("namespace"),
    # The text's: what holds the slices, the DaemonSets or the windows' CronJobs
    "reserver": JoinText(join(Take("reservers"), Take("windows")), SHOWN_SEPARATOR),
    "reservers": JoinText(Take("reservers"), ALTERNATION),
    "windows": JoinText(Take("windows"), ALTERNATION),
    "buffer_windows": JoinText(Take("buffer_windows"), ALTERNATION),
    "bursts": JoinText(Take("bursts"), ALTERNATION),
    "min_held_percent": Take("min_held_percent"),
    "slices_low_for": Take("slices_low_for"),
    "erosion_for": Take("erosion_for"),
    "burst_start_budget": Take("burst_start_budget"),
    "severity": Take("severity"),
}
"""The recipe (``recipes``) of what fills the templates' places: the headroom's name and
namespace, the lists of names (``reservers``, ``windows``, ``buffer_windows``,
``bursts``) joined, and the values' texts, each the input of its field's name.
``HeadroomAlertRules.fields`` evaluates it; the chart compiles it (``helm.recipes``
PROMETHEUS_RULE), so the alerts' unit only gathers the names and the values."""


def skeleton(template: AlertTemplate) -> dict[str, Any]:
    """The alerting rule of ``template``, its places unfilled: what ``fill`` completes."""
    return {
        "alert": template.alert,
        "expr": template.expr,
        "for": template.wait,
        "labels": dict(ALERT_LABELS),
        "annotations": {"summary": template.summary, "description": template.description},
    }


@dataclass(frozen=True)
class HeadroomAlertRules:
    """The alerting rules of one headroom: what to watch and how long to wait.

    Attributes:
        headroom: the headroom's name in the alerts' text and labels (its reserver's
            DaemonSet name, or the id of its ``NodeHeadroom`` when it has no slices).
        namespace: the namespace of the reserver and the burst workloads.
        reservers: the reserver DaemonSets' names (one, or one per node size of a share
            of each node); none for a headroom without them (buffers only, or slices
            held in time windows): then the DaemonSets' slice alerts are left out.
        windows: the CronJobs of the time windows that hold the slices (``schedule``),
            whose Jobs' waiting reservers are erosion; none without windows.
        buffer_windows: the CronJobs of the time windows that hold the buffers' room
            (a buffer's ``schedule``), whose Jobs' placeholder pods must not wait
            longer than ``erosion_for``; none without them.
        bursts: the burst Deployments' names.
        min_held_percent: the share of target nodes whose slice must be held (a
            reserver available), below which ``HeadroomSlicesLow`` fires.
        slices_low_for: how long the share must stay low first.
        erosion_for: how long more reservers must wait than burst pods run before
            ``HeadroomSlicesEroded`` fires, and a buffer's placeholder pod before
            ``HeadroomBufferPodPending`` does.
        burst_start_budget: how long a burst pod may stay Pending before
            ``HeadroomBurstPodPending`` fires (promises P2 and P4: it should start at once).
        severity: the ``severity`` label of every alert.
    """

    headroom: str
    namespace: str
    reservers: Sequence[str]
    bursts: Sequence[str]
    min_held_percent: int = 90
    slices_low_for: str = "15m"
    erosion_for: str = "30m"
    burst_start_budget: str = "2m"
    severity: AlertSeverity = AlertSeverity.WARNING
    windows: Sequence[str] = ()
    buffer_windows: Sequence[str] = ()

    def __post_init__(self) -> None:
        names.dns_label(self.headroom, field="headroom")
        names.dns_label(self.namespace, field="namespace")
        for field in ("reservers", "windows", "buffer_windows"):
            for index, name in enumerate(getattr(self, field)):
                names.dns_label(name, field=f"{field}[{index}]")
        for index, burst in enumerate(self.bursts):
            names.dns_label(burst, field=f"bursts[{index}]")
        rules.PERCENT.check(self.min_held_percent, field="min_held_percent")
        for field in ("slices_low_for", "erosion_for", "burst_start_budget"):
            PROMETHEUS_DURATION.check(getattr(self, field), field=field)
        names.member(self.severity, AlertSeverity, field="severity")

    def fields(self) -> dict[str, str]:
        """What fills the templates' places: ``ALERT_FIELDS`` of the headroom's names
        and the values as text."""
        found: dict[str, str] = evaluate(
            ALERT_FIELDS,
            {
                "headroom": self.headroom,
                "namespace": self.namespace,
                "reservers": self.reservers,
                "windows": self.windows,
                "buffer_windows": self.buffer_windows,
                "bursts": self.bursts,
                "min_held_percent": str(self.min_held_percent),
                "slices_low_for": self.slices_low_for,
                "erosion_for": self.erosion_for,
                "burst_start_budget": self.burst_start_budget,
                "severity": self.severity.value,
            },
        )
        return found

    def rules(self) -> list[dict[str, Any]]:
        """The alerting rules, in the order a reader checks them: those whose part the
        headroom has (``Watches``)."""
        fields = self.fields()
        return [
            fill(skeleton(template), fields)
            for template in ALERTS
            if fields[template.watches.value]
        ]

    def group(self) -> dict[str, Any]:
        """The rule group, as ``PrometheusRule.spec.groups[]`` and promtool take it."""
        return {"name": fill(GROUP_NAME, self.fields()), "rules": self.rules()}


def rule_file(groups: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A Prometheus rule file (``groups:``), as ``promtool check rules`` reads it."""
    return {"groups": [dict(group) for group in groups]}
