"""The alerts that watch a headroom over time, as Prometheus alerting rules (plain Python).

``status`` judges one snapshot by hand; these rules judge the headroom continuously, from
the monitoring stack a cluster already has: Prometheus scraping kube-state-metrics. They
use kube-state-metrics' standard series only (``kube_daemonset_status_*``,
``kube_deployment_status_*``, ``kube_pod_status_phase``, ``kube_pod_owner``), never
``kube_pod_labels``, which carries pod labels only where kube-state-metrics is told to
allow them (``--metric-labels-allowlist``). So a burst pod is found through its owner:
the ReplicaSet ``<deployment>-<pod-template-hash>`` that the Deployment controller names
(kubernetes/kubernetes ``pkg/controller/deployment/sync.go``, ``getNewReplicaSet``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cdk8s_headroom.vocabulary import names, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.rule_language import Clause, Grammar

PROMETHEUS_DURATION = Grammar(
    "prometheusDuration",
    (
        Clause(
            r"(?:[0-9]+y)?(?:[0-9]+w)?(?:[0-9]+d)?(?:[0-9]+h)?(?:[0-9]+m)?(?:[0-9]+s)?"
            r"(?:[0-9]+ms)?",
            'a Prometheus duration such as "30s", "5m" or "1h30m" (units y, w, d, h, m, '
            "s, ms, largest first, ASCII digits)",
        ),
        Clause(
            r"(?:0+(?:y|w|d|h|m|s|ms))*",
            "a duration longer than zero: an alert that fires at once pages on every blip",
            forbid=True,
        ),
    ),
)
"""Prometheus' duration grammar (prometheus/common ``model/time.go``, ``ParseDuration``),
as the ``for:`` of a rule takes it."""

SEVERITIES = ("info", "warning", "critical")
"""The ``severity`` label values that Alertmanager routes in kube-prometheus' defaults."""


def promql_string(value: str) -> str:
    """``value`` as a PromQL string literal (double-quoted, Go escapes)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _selector(metric: str, **matchers: str) -> str:
    parts = []
    for key, value in matchers.items():
        if key.endswith("_regex"):
            parts.append(f"{key.removesuffix('_regex')}=~{promql_string(value)}")
        else:
            parts.append(f"{key}={promql_string(value)}")
    return f"{metric}{{{','.join(parts)}}}"


@dataclass(frozen=True)
class HeadroomAlertRules:
    """The alerting rules of one headroom: what to watch and how long to wait.

    Attributes:
        headroom: the headroom's name in the alerts' text and labels (its reserver's
            DaemonSet name, or the name of its first burst workload when it has no
            slices).
        namespace: the namespace of the reserver and the burst workloads.
        reserver: the reserver DaemonSet's name, or ``None`` for a headroom without
            slices (buffers only): then the slice alerts are left out.
        bursts: the burst Deployments' names.
        min_held_percent: the share of target nodes whose slice must be held (a
            reserver available), below which ``HeadroomSlicesLow`` fires.
        slices_low_for: how long the share must stay low first.
        erosion_for: how long more reservers must wait than burst pods run before
            ``HeadroomSlicesEroded`` fires.
        burst_start_budget: how long a burst pod may stay Pending before
            ``HeadroomBurstPodPending`` fires (promises P2 and P4: it should start at once).
        severity: the ``severity`` label of every alert.
    """

    headroom: str
    namespace: str
    reserver: str | None
    bursts: Sequence[str]
    min_held_percent: int = 90
    slices_low_for: str = "15m"
    erosion_for: str = "30m"
    burst_start_budget: str = "2m"
    severity: str = "warning"

    def __post_init__(self) -> None:
        names.dns_label(self.namespace, field="namespace")
        if self.reserver is not None:
            names.dns_label(self.reserver, field="reserver")
        for index, burst in enumerate(self.bursts):
            names.dns_label(burst, field=f"bursts[{index}]")
        rules.PERCENT.check(self.min_held_percent, field="min_held_percent")
        for field in ("slices_low_for", "erosion_for", "burst_start_budget"):
            PROMETHEUS_DURATION.check(getattr(self, field), field=field)
        if self.severity not in SEVERITIES:
            raise HeadroomConfigError("severity", self.severity, f"one of {list(SEVERITIES)}")

    def _labels(self) -> dict[str, str]:
        return {"severity": self.severity, "headroom": self.headroom, "namespace": self.namespace}

    def _rule(self, alert: str, expr: str, wait: str, summary: str, description: str) -> Any:
        return {
            "alert": alert,
            "expr": expr,
            "for": wait,
            "labels": self._labels(),
            "annotations": {"summary": summary, "description": description},
        }

    def rules(self) -> list[dict[str, Any]]:
        """The alerting rules, in the order a reader checks them."""
        found: list[dict[str, Any]] = []
        ns = self.namespace
        where = f"headroom {self.headroom} in namespace {ns}"
        if self.reserver is not None:
            ds = {"namespace": ns, "daemonset": self.reserver}
            desired = _selector("kube_daemonset_status_desired_number_scheduled", **ds)
            available = _selector("kube_daemonset_status_number_available", **ds)
            share = self.min_held_percent / 100
            found.append(
                self._rule(
                    "HeadroomNoTargetNodes",
                    f"{desired} == 0",
                    self.slices_low_for,
                    f"The {where} reserves room on no node.",
                    f"DaemonSet {self.reserver} targets no node: its node selector, node "
                    "affinity or tolerations match none of the pool's nodes (or the pool "
                    "has no nodes). Check the pool's name and taints with "
                    "`cdk8s-headroom plan`.",
                )
            )
            found.append(
                self._rule(
                    "HeadroomSlicesLow",
                    f"{available} / {desired} < {share:g}",
                    self.slices_low_for,
                    f"The {where} holds its slice on {{{{ $value | humanizePercentage }}}} "
                    f"of its nodes (goal: {self.min_held_percent}%).",
                    f"Fewer of DaemonSet {self.reserver}'s reservers are available than "
                    f"{self.min_held_percent}% of its target nodes: burst pods use the "
                    "slices, or ordinary pods took freed room (erosion), or nodes were full "
                    "at install. Burst pods that arrive now may wait for a new node. Run "
                    "`cdk8s-headroom status` on a snapshot to see which nodes wait and why.",
                )
            )
            waiting = (
                "count("
                + _selector("kube_pod_status_phase", namespace=ns, phase="Pending")
                + " == 1 and on (namespace, pod) "
                + _selector(
                    "kube_pod_owner", namespace=ns, owner_kind="DaemonSet", owner_name=self.reserver
                )
                + ")"
            )
            running = (
                "(sum("
                + _selector(
                    "kube_deployment_status_replicas_available",
                    namespace=ns,
                    deployment_regex="|".join(re.escape(b) for b in self.bursts),
                )
                + ") or vector(0))"
                if self.bursts
                else "vector(0)"
            )
            found.append(
                self._rule(
                    "HeadroomSlicesEroded",
                    f"{waiting} > {running}",
                    self.erosion_for,
                    f"The {where} lost slices to ordinary pods.",
                    f"More of DaemonSet {self.reserver}'s reservers wait (Pending) than "
                    "burst pods run: the room a reserver waits for is taken by other pods, "
                    "and the waiting reserver cannot evict them (preemptionPolicy Never). "
                    "Under GUARDED this is the free-capacity race; a DEDICATED_POOL (a "
                    "tainted pool) closes it. The slices come back as nodes are replaced, "
                    "or after you drain the nodes whose reserver waits.",
                )
            )
        if self.bursts:
            owners = "|".join(re.escape(b) for b in self.bursts)
            found.append(
                self._rule(
                    "HeadroomBurstPodPending",
                    _selector("kube_pod_status_phase", namespace=ns, phase="Pending")
                    + " == 1 and on (namespace, pod) "
                    + _selector(
                        "kube_pod_owner",
                        namespace=ns,
                        owner_kind="ReplicaSet",
                        owner_name_regex=f"(?:{owners})-[a-z0-9]+",
                    ),
                    self.burst_start_budget,
                    f"Burst pod {{{{ $labels.pod }}}} of the {where} has waited longer "
                    f"than {self.burst_start_budget}.",
                    "A burst-critical pod is Pending: no slice was free to preempt, or it "
                    "does not fit the slice, or it does not tolerate the pool's taint. The "
                    "promise that burst pods start at once (P2, P4) is broken for it. Check "
                    "`kubectl describe pod` for the scheduler's reason, and "
                    "`cdk8s-headroom status` for the slices held.",
                )
            )
        return found

    def group(self) -> dict[str, Any]:
        """The rule group, as ``PrometheusRule.spec.groups[]`` and promtool take it."""
        return {"name": f"node-headroom.{self.namespace}.{self.headroom}", "rules": self.rules()}


def rule_file(groups: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A Prometheus rule file (``groups:``), as ``promtool check rules`` reads it."""
    return {"groups": [dict(group) for group in groups]}
