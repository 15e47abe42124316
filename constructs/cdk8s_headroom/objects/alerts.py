"""``HeadroomAlerts``: a PrometheusRule that pages when a headroom erodes or a burst waits."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.core.construct import HeadroomConstruct
from cdk8s_headroom.core.rendered import RenderedApiObject
from cdk8s_headroom.objects.headroom import NodeHeadroom
from cdk8s_headroom.vocabulary import names, object_names
from cdk8s_headroom.vocabulary.alert_rules import AlertSeverity, HeadroomAlertRules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.labels import PART_OF
from cdk8s_headroom.vocabulary.places import fill
from cdk8s_headroom.vocabulary.recipes import Take, evaluate, merge

PROMETHEUS_RULE_API_VERSION = "monitoring.coreos.com/v1"
DEFAULT_NAME = object_names.ALERTS
RULE_LABELS = merge(Take("labels"), {"app.kubernetes.io/part-of": PART_OF})
"""The recipe (``recipes``) of the PrometheusRule's labels: the extra ``labels`` given,
then the library's, which win. ``HeadroomAlerts`` evaluates it; the chart compiles it
(``helm.recipes`` PROMETHEUS_RULE)."""


class HeadroomAlerts(HeadroomConstruct):
    """A ``PrometheusRule`` (Prometheus Operator) with the alerts of one headroom.

    The rules (``alert_rules.HeadroomAlertRules``) read kube-state-metrics' standard
    series, so a cluster with kube-prometheus-stack (or any Prometheus scraping
    kube-state-metrics, with the Operator's CRDs) needs nothing else:

    - ``HeadroomNoTargetNodes``: the reservers target no node;
    - ``HeadroomSlicesLow``: fewer slices held than ``min_held_percent`` of the nodes;
    - ``HeadroomSlicesEroded``: more reservers wait than burst pods run (room taken by
      ordinary pods);
    - ``HeadroomBufferPodPending``: a placeholder pod of a buffer held in time windows
      waits longer than ``erosion_for`` (the autoscaler added no node for it);
    - ``HeadroomBurstPodPending``: a burst pod waits longer than ``burst_start_budget``.

    A share of each node (a reserver DaemonSet per node size) is watched as one: the
    first two sum over its DaemonSets. Slices held in time windows have no DaemonSet:
    ``HeadroomSlicesEroded`` watches the reservers of the windows' Jobs, and the first
    two are left out (a window's count of nodes is no target the series carry).

    Burst workloads and capacity buffers added to the headroom after this construct are
    watched too: the rules are rendered at synthesis.

    Args:
        headroom: the headroom to watch.
        name: the PrometheusRule's name. Default: ``<reserver name>-alerts`` (for a
            headroom without slices, the ``NodeHeadroom``'s id instead of the reserver's
            name).
        labels: extra labels on the PrometheusRule, e.g. the ``release`` label that the
            Prometheus' ``ruleSelector`` matches (kube-prometheus-stack selects
            ``release: <its release name>`` by default). Default: none.
        min_held_percent: the share of target nodes whose slice must be held. Default: 90.
        slices_low_for: how long the share may stay lower. Default: ``"15m"``.
        erosion_for: how long more reservers may wait than burst pods run, and a
            buffer's placeholder pod may wait for its node. Default: ``"30m"``.
        burst_start_budget: how long a burst pod may stay Pending. Default: ``"2m"``.
        severity: the alerts' ``severity`` label. Default: ``AlertSeverity.WARNING``.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        headroom: NodeHeadroom,
        name: str | None = None,
        labels: Mapping[str, str] | None = None,
        # The rules' own defaults, declared once (a dataclass keeps them as class attributes)
        min_held_percent: int = HeadroomAlertRules.min_held_percent,
        slices_low_for: str = HeadroomAlertRules.slices_low_for,
        erosion_for: str = HeadroomAlertRules.erosion_for,
        burst_start_budget: str = HeadroomAlertRules.burst_start_budget,
        severity: AlertSeverity = HeadroomAlertRules.severity,
    ) -> None:
        if not isinstance(headroom, NodeHeadroom):
            raise HeadroomConfigError("headroom", headroom, "a NodeHeadroom")
        self.headroom = headroom
        reserver = headroom.reserver.name if headroom.reserver is not None else None
        held = [r for r in headroom.reservers if r.schedule is None]
        # Checked now; the burst workloads and buffers are read again at synthesis, so
        # that those added after this construct are watched too.
        self._rules = HeadroomAlertRules(
            headroom=reserver or names.dns_label(headroom.node.id, field="headroom"),
            namespace=headroom.namespace,
            reservers=tuple(r.name for r in held),
            bursts=(),
            windows=tuple(n for r in headroom.reservers for n in r.window_names),
            min_held_percent=min_held_percent,
            slices_low_for=slices_low_for,
            erosion_for=erosion_for,
            burst_start_budget=burst_start_budget,
            severity=severity,
        )
        self.name = names.dns_subdomain(
            fill(DEFAULT_NAME, {"headroom": self._rules.headroom}) if name is None else name,
            field="name",
        )
        self.labels = names.labels(labels, field="labels")
        """The extra labels given."""
        extra = self.labels
        super().__init__(scope, id)
        self.resource = RenderedApiObject(
            self,
            "Resource",
            api_version=PROMETHEUS_RULE_API_VERSION,
            kind="PrometheusRule",
            metadata=cdk8s.ApiObjectMetadata(
                name=self.name,
                namespace=headroom.namespace,
                labels=evaluate(RULE_LABELS, {"labels": extra}),
            ),
            render=self._render,
        )

    def alert_rules(self) -> HeadroomAlertRules:
        """The rules for the headroom as it is now (its reserver, burst workloads and
        capacity buffers)."""
        headroom = self.headroom
        return dataclasses.replace(
            self._rules,
            bursts=tuple(workload.name for workload in headroom.burst_workloads),
            buffer_windows=tuple(n for b in headroom.capacity_buffers for n in b.window_names),
        )

    def _render(self) -> dict[str, Any]:
        rules = self.alert_rules()
        if not rules.rules():
            raise HeadroomConfigError(
                f"{self.node.path}.headroom",
                self.headroom.node.path,
                "a headroom with slices or burst workloads: there is nothing to watch",
            )
        return {"spec": {"groups": [rules.group()]}}
