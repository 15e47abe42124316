"""The chart's values, declared once as a table: path, type, rule, description, prop.

values.yaml, values.schema.json, the README's table and the table of single-value
checks (``checks``, which the templates walk) are written from ``VALUES``. A value's
rule is a declaration of ``cdk8s_headroom.vocabulary.rules``, so the chart refuses what the library
refuses, with its message. Descriptions speak Helm and Kubernetes, for the chart's users.

To add a value: add its row here, with the library prop it gives (``prop``), and the
template line that places it (``templates/_helpers.tpl``, or the lazy unit of
``templates/lazy/`` that builds its object: a burst workload's, a buffer's, the alerts').
A prop of a burst workload, a buffer, a custom task or the alerts is passed and read
back through the tables below
(``BURST_WORKLOAD``, ``BURST_BUFFER``, ``CUSTOM_TASK``, ``ALERTS``); a prop of the headroom
itself is one keyword in ``values_to_app.build``. What the library decides about it (a
default, a name, a skeleton) the templates read from ``files/library.json``
(``library.library_data``) or a generated helper (``helm.props``: a burst workload's and
a buffer's props), never write themselves (``tests/helm/test_helm_decisions.py``).
A rule across values is declared in ``cdk8s_headroom.vocabulary.rules`` with its test; the
library's check and the templates' ``node-headroom.rule.<name>`` helper (generated)
pass it their operands.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from cdk8s_headroom.objects.burst import ImagePullPolicy
from cdk8s_headroom.objects.capacity_buffer import CapacityBufferForm
from cdk8s_headroom.vocabulary import object_names, rules
from cdk8s_headroom.vocabulary.alert_rules import AlertSeverity
from cdk8s_headroom.vocabulary.capacity_buffer_api import CapacityBufferVersion
from cdk8s_headroom.vocabulary.durations import PROMETHEUS_DURATION
from cdk8s_headroom.vocabulary.placement import (
    KARPENTER_ONLY_OPERATORS,
    NodeSelectorOperator,
    TaintEffect,
    TolerationOperator,
)
from cdk8s_headroom.vocabulary.priority_models import PriorityModel
from cdk8s_headroom.vocabulary.rbac import SubjectKind
from cdk8s_headroom.vocabulary.reserver_task import TaskKind
from cdk8s_headroom.vocabulary.rule_language import Grammar, IntRange, Rule

CHART_NAME = "node-headroom"
"""The chart's name, and the release name whose objects keep the library's names."""

Schema = dict[str, Any]
Values = dict[str, Any]
"""A values map, as values.yaml and ``--set`` give it."""


@dataclass(frozen=True)
class Value:
    """One value. ``path`` is dotted; ``[]`` marks the items of a list (``a[].b``).

    ``kind`` is its JSON type (``quantity``: a string or a whole number; ``strings``:
    a list of strings; ``labels``: a map of label values; ``list``: a list of maps),
    or the enum of its choices; ``rule``: what checks it beyond its type; ``prop``: the
    library prop it gives (``props``), which names the library's errors on it.
    """

    path: str
    kind: str | tuple[str, ...]
    description: str
    rule: Grammar | IntRange | Rule | None = None
    nullable: bool = False
    required: bool = False
    prop: str | None = None
    share: bool = False  # or a share of each node ("10%": share_rules.SHARE)

    @property
    def checked_by(self) -> Grammar | IntRange | Rule | str | None:
        """What checks the value: its rule, or its map kind (``labels``, ``quantities``),
        whose keys and items are checked one by one."""
        return self.kind if self.kind in MAP_KINDS else self.rule


MAP_KINDS = ("labels", "quantities", "devices")
"""The map kinds: each key and item checked by its rule (``value_checks._check``)."""


def _enum(enum: Any) -> tuple[str, ...]:
    return tuple(member.value for member in enum)


def _taint(prefix: str) -> tuple[Value, ...]:
    return (
        Value(f"{prefix}[].key", "string", "The taint key.", rules.LABEL_KEY, required=True),
        Value(f"{prefix}[].value", "string", "The taint value.", rules.LABEL_VALUE),
        Value(f"{prefix}[].effect", _enum(TaintEffect), "The taint effect."),
    )


# fmt: off
def _tolerations(prefix: str) -> tuple[Value, ...]:
    return (
        Value(f"{prefix}[].key", "string", "The taint key to match; empty with `Exists`: every "
              "taint.", rules.TOLERATION_KEY),
        Value(f"{prefix}[].operator", _enum(TolerationOperator), "How the value is matched."),
        Value(f"{prefix}[].value", "string", "The value to match with `Equal`; empty with "
              "`Exists`.", rules.LABEL_VALUE),
        Value(f"{prefix}[].effect", _enum(TaintEffect), "The effect to match. Null: every "
              "effect.", nullable=True),
        Value(f"{prefix}[].tolerationSeconds", "integer", "With `NoExecute`: how long the pod "
              "stays once the taint appears. Null: for ever.", rules.INT32, nullable=True),
    )
# fmt: on


def _schedule(prefix: str, holder: str, count: str) -> tuple[Value, ...]:
    """A schedule's values (``HeadroomSchedule``): windows in a time zone."""
    return (
        Value(
            prefix,
            "object",
            f"Hold {holder} only in time windows: a CronJob per window "
            f"(`<name>-<window>`, at most 52 characters) whose Job holds {count} pods "
            "while the window is open (docs/schedules.md). Null: all the time.",
            nullable=True,
            prop="schedule",
        ),
        Value(
            f"{prefix}.timeZone",
            "string",
            "The zone the windows' clocks read, as a "
            "CronJob's `timeZone`: an IANA name, e.g. `Europe/Berlin`. Default: `Etc/UTC`.",
        ),
        Value(
            f"{prefix}.windows",
            "list",
            "The windows, at least one; no two open at once, "
            "nor a window's next opening before it closes.",
            required=True,
        ),
        Value(
            f"{prefix}.windows[].schedule",
            "string",
            "When the window opens, as a CronJob's `schedule`, e.g. `0 8 * * mon-fri`.",
            required=True,
        ),
        Value(
            f"{prefix}.windows[].minutes",
            "number",
            "How long it stays open, in minutes.",
            rules.WINDOW_MINUTES,
            required=True,
        ),
        Value(
            f"{prefix}.windows[].name",
            "string",
            "Its name, in its CronJob's. Null: `window-<n>`, its position from 1.",
            _DNS,
            nullable=True,
        ),
    )


_POD_OPERATORS = tuple(
    op.value for op in NodeSelectorOperator if op not in KARPENTER_ONLY_OPERATORS
)
"""A pod's node affinity operators (Gte and Lte are Karpenter's NodePools' only)."""
_Q, _DNS, _IMG = rules.QUANTITY, rules.DNS_LABEL, rules.IMAGE
_MEM = rules.CONTAINER_MEMORY  # a quantity, and at least 4Mi

# fmt: off
VALUES: tuple[Value, ...] = (
    Value("namePrefix", "string", "Prepended to the names of the DaemonSet, the Deployments, "
          "their autoscalers and the reader's ClusterRole, so that releases do not collide. "
          "Null: none for the release "
          f"named `{CHART_NAME}`, `<release>-` for any other.", nullable=True),
    Value("model", _enum(PriorityModel), "How headroom, burst and ordinary pods are ranked "
          "(see the project README): `guarded` keeps ordinary pods from preempting, "
          "`dedicated-pool` adds a tainted pool, `seed` is the original blueprint."),
    Value("priorityClasses.create", "boolean", "Render the PriorityClasses. They are "
          "cluster-scoped: let one release per cluster render them, and set false in the others."),
    Value("priorityClasses.headroom.name", "string", "The reservers' PriorityClass. Null: "
          "`headroom-reserve` (`headroom-high` with `seed`).", rules.CLASS_NAME, nullable=True,
          prop="headroom_class_name"),
    Value("priorityClasses.headroom.value", "integer", "Its value. Null: -100, below Cluster "
          "Autoscaler's expendable cutoff (900000000 with `seed`).", rules.PRIORITY, nullable=True,
          prop="headroom_value"),
    Value("priorityClasses.burst.name", "string", "The burst workloads' PriorityClass. Null: "
          "`burst-critical`.", rules.CLASS_NAME, nullable=True, prop="burst_class_name"),
    Value("priorityClasses.burst.value", "integer", "Its value. Null: 1000000000, the highest "
          "a user class may have.", rules.PRIORITY, nullable=True, prop="burst_value"),
    Value("priorityClasses.default.create", "boolean", "Render the global default class "
          "(`guarded` only). Null: true with `guarded`. A cluster has one global default: if "
          "yours has one, set false and name it below.", nullable=True,
          prop="create_default_class"),
    Value("priorityClasses.default.name", "string", "The default class (`guarded` only). Null: "
          "`default-no-preempt`.", rules.CLASS_NAME, nullable=True, prop="default_class_name"),
    Value("priorityClasses.default.value", "integer", "Its value. Null: 0.", rules.PRIORITY,
          nullable=True, prop="default_value"),
    Value("namespace.create", "boolean", "Render a Namespace with Pod Security `restricted` "
          "enforced. Leave false with `--create-namespace` (Helm creates the namespace "
          "itself, and refuses one the chart renders)."),
    Value("namespace.name", "string", "Where the DaemonSet and the Deployments go. Null: the "
          "release namespace (`-n`).", _DNS, nullable=True),
    Value("reservation.cpu", "quantity", "The CPU each node holds for bursts (the slice), e.g. "
          "`500m`, or a share of each node's allocatable, e.g. `\"10%\"` (with "
          "`reservation.nodeTypes`). Null, with `reservation.memory` null: no slices, no "
          "reserver DaemonSet; the burst workloads' `buffer`s keep the room.", _Q, nullable=True,
          prop="cpu", share=True),
    Value("reservation.memory", "quantity", "The memory each node holds, e.g. `512Mi`; at "
          "least 4Mi; or a share, e.g. `\"10%\"`. Null with `reservation.cpu`.", _MEM,
          nullable=True, prop="memory", share=True),
    Value("reservation.nodeTypes", "list", "With a share: the pool's node sizes, one reserver "
          "DaemonSet each, named `<reserverName>-<type>` and selecting its nodes by "
          "`node.kubernetes.io/instance-type`; each holds the share of its size's allocatable, "
          "rounded down to whole millicores and MiB. Required with a share: the chart reads "
          "no Karpenter pool's instance types, as the library can. Empty: none.",
          prop="node_types"),
    Value("reservation.nodeTypes[].name", "string", "The nodes' "
          "`node.kubernetes.io/instance-type`, e.g. `m5.large`.", rules.INSTANCE_TYPE,
          required=True),
    Value("reservation.nodeTypes[].cpu", "quantity", "The allocatable CPU of such a node, e.g. "
          "`1930m` (`kubectl get node -o jsonpath='{.status.allocatable}'`).", _Q,
          required=True),
    Value("reservation.nodeTypes[].memory", "quantity", "Its allocatable memory, e.g. `7Gi`.",
          _Q, required=True),
    *_schedule("reservation.schedule", "the slices", "`reservation.scheduledNodes` reserver"),
    Value("reservation.scheduledNodes", "integer", "With `reservation.schedule` (required "
          "there): how many nodes hold a slice in a window. Null: none.", rules.POSITIVE,
          nullable=True, prop="scheduled_nodes"),
    Value("reservation.extendedResources", "devices", "Whole devices each node holds besides "
          "the slice, e.g. `nvidia.com/gpu: 1`: a burst pod that needs the device preempts the "
          "reserver for it. Empty: none.", prop="extended_resources"),
    Value("reserverName", "string", "The DaemonSet's name, after the prefix. Null: "
          "`headroom-reserver`, or `headroom-reserver-<nodePool.name>`.", _DNS, nullable=True,
          prop="reserver_name"),
    Value("task.kind", _enum(TaskKind), "What the reserver pods run: `pause` (the pause "
          "image), `maintenance` (the blueprint's shell loop), `prepull` (pull images, then "
          "pause) or `custom` (your container)."),
    Value("task.prepullImages", "strings", "With `prepull`: the images to pull onto every "
          "node, as init containers of the reserver itself: changing one replaces every "
          "reserver, and a replaced reserver cannot win back a slice that something took in "
          "between. `prepullBurstImages: true` pulls them without touching the reservers.",
          _IMG),
    Value("task.prepullCommand", "strings", "With `prepull`: what each pulled image runs to "
          "exit at once. Default `/bin/sh -c true`: an image without a shell (distroless, "
          "scratch) fails it, and the reserver crash-loops."),
    Value("task.image", "string", "With `custom` (required there): the container image.", _IMG,
          nullable=True),
    Value("task.command", "strings", "With `custom`: the entrypoint. Empty: the image's.",
          prop="command"),
    Value("task.args", "strings", "With `custom`: the arguments. Empty: the image's.", prop="args"),
    Value("task.containerName", "string", "With `custom`: the container's name.", _DNS,
          prop="container_name"),
    Value("task.runAsUser", "integer", "With `custom`: the non-zero user id.", rules.POSITIVE,
          prop="run_as_user"),
    Value("task.scratchPaths", "strings", "With `custom`: writable emptyDir mounts (the root "
          "filesystem is read-only).", prop="scratch_paths"),
    Value("prepullBurstImages", "boolean", "Pull the burst workloads' images onto every node "
          "with a pre-puller DaemonSet beside the reservers (it requests nothing, and an "
          "image release leaves the reservers untouched), so a burst starts without a pull.",
          prop="prepull_burst_images"),
    Value("images.pause", "string", "The pause image (of the `pause` and `prepull` tasks, and "
          "of the pre-puller), e.g. from a mirror.", _IMG),
    Value("images.maintenance", "string", "The image of the `maintenance` loop.", _IMG),
    Value("images.prepullTools", "string", "With `prepullBurstImages`: the image whose static "
          "busybox the pre-puller copies, as the no-op each burst image runs, e.g. from a "
          "mirror.", _IMG),
    Value("nodePool.name", "string", "The node pool to reserve on; bursts run there too. Null: "
          "every node.", _DNS, nullable=True, prop="node_pool"),
    Value("nodePool.labelKey", "string", "The node label whose value is the pool's name.",
          rules.LABEL_KEY),
    Value("nodePool.taints", "list", "With `nodePool.name`: the taints of the pool's nodes; the "
          "pods tolerate them.",
          prop="node_pool.taints"),
    *_taint("nodePool.taints"),
    Value("nodePool.nodeCpu", "quantity", "With `nodePool.name`: the CPU capacity of the pool's "
          "smallest node, e.g. `\"4\"`, for a pool whose instance sizes the chart cannot "
          "read; a slice that does not fit in its allocatable (capacity less kube-reserved and "
          "eviction, as the library estimates it) is refused. Null: not declared.", _Q,
          nullable=True, prop="node_cpu"),
    Value("nodePool.nodeMemory", "quantity", "With `nodePool.name`: the memory capacity of that "
          "node, e.g. `16Gi`. Null: not declared, not checked.", _Q, nullable=True,
          prop="node_memory"),
    Value("nodeSelector", "labels", "Extra node labels for the reserver and the bursts."),
    Value("tolerations", "list", "Extra tolerations for the reserver."),
    *_tolerations("tolerations"),
    Value("nodeAffinity", "list", "Required node affinity for the reserver and the bursts "
          "(all terms must hold)."),
    Value("nodeAffinity[].key", "string", "A node label key.", rules.LABEL_KEY, required=True),
    Value("nodeAffinity[].operator", _POD_OPERATORS, "How values are matched.", required=True),
    Value("nodeAffinity[].values", "strings", "One or more with `In`/`NotIn`, none with "
          "`Exists`/`DoesNotExist`, one integer with `Gt`/`Lt`.", rules.LABEL_VALUE),
    Value("dedicatedTaint.key", "string", "With `dedicated-pool`: the taint that keeps ordinary "
          "pods off the pool; declare it in `nodePool.taints`.", rules.LABEL_KEY),
    Value("dedicatedTaint.value", "string", "Its value.", rules.LABEL_VALUE),
    Value("dedicatedTaint.effect", _enum(TaintEffect), "Its effect."),
    Value("labels", "labels", "Extra labels on the DaemonSet, the Deployments and their pods."),
    Value("burstWorkloads", "list", "Deployments that preempt the reservers and start at once "
          "on the node; each gets the burst class and the headroom's placement. Empty by "
          "default; `ci/blueprint-values.yaml` adds the blueprint's demo."),
    Value("burstWorkloads[].name", "string", "The Deployment's name, after the prefix.", _DNS,
          required=True),
    Value("burstWorkloads[].image", "string", "The container image.", _IMG, required=True,
          prop="image"),
    Value("burstWorkloads[].replicas", "integer", "Replicas; with an autoscaler, its minimum. "
          "Default: 1.", rules.REPLICAS, prop="replicas"),
    Value("burstWorkloads[].resources.requests.cpu", "quantity", "CPU per pod; at most the "
          "slice.", _Q, required=True, prop="cpu"),
    Value("burstWorkloads[].resources.requests.memory", "quantity", "Memory per pod; at least "
          "4Mi and at most the slice.", _MEM, required=True, prop="memory"),
    Value("burstWorkloads[].resources.limits.cpu", "quantity", "Null: the request.", _Q,
          nullable=True, prop="cpu_limit"),
    Value("burstWorkloads[].resources.limits.memory", "quantity", "Null: the request.", _Q,
          nullable=True, prop="memory_limit"),
    Value("burstWorkloads[].extendedResources", "devices", "Whole devices per pod, e.g. "
          "`nvidia.com/gpu: 1`, at most what `reservation.extendedResources` holds with slices. "
          "Empty: none.", nullable=True, prop="extended_resources"),
    Value("burstWorkloads[].command", "strings", "The entrypoint. Default: the image's.",
          prop="command"),
    Value("burstWorkloads[].args", "strings", "The arguments. Default: the image's.", prop="args"),
    Value("burstWorkloads[].containerName", "string", "The container's name (not prefixed). "
          "Default: `name`.", _DNS, nullable=True, prop="container_name"),
    Value("burstWorkloads[].imagePullPolicy", _enum(ImagePullPolicy), "Default: `IfNotPresent`, "
          "so a pre-pulled image starts at once.", prop="image_pull_policy"),
    Value("burstWorkloads[].runAsUser", "integer", "The non-zero user id. Default: 65534.",
          rules.POSITIVE, prop="run_as_user"),
    Value("burstWorkloads[].tolerations", "list", "Extra tolerations.", prop="tolerations"),
    *_tolerations("burstWorkloads[].tolerations"),
    Value("burstWorkloads[].labels", "labels", "Extra labels. Null: `labels`.", nullable=True,
          prop="labels"),
    Value("burstWorkloads[].autoscaling.maxReplicas", "integer", "Adds a HorizontalPodAutoscaler "
          "up to this many replicas. Null: none.", rules.POSITIVE, nullable=True,
          prop="max_replicas"),
    Value("burstWorkloads[].autoscaling.targetCPUUtilization", "integer", "The autoscaler's "
          "target, in percent of the CPU request. Default: 80.", rules.PERCENT,
          prop="target_cpu_utilization"),
    Value("burstWorkloads[].buffer.form", _enum(CapacityBufferForm), "With `buffer`, a "
          "CapacityBuffer (`autoscaling.x-k8s.io`) makes the autoscaler keep room for copies of "
          "the burst pod, with no preemption. The shape of one copy: `podTemplateRef` (a "
          "PodTemplate with the burst pod's requests and placement) or `scalableRef` (the "
          "Deployment itself). Default: `podTemplateRef`. Without a taint on the pool, any pod "
          "can take the room.", nullable=True, prop="form"),
    Value("burstWorkloads[].buffer.replicas", "integer", "How many copies. Null: "
          "`percentage` or `limits` decide.", rules.REPLICAS, nullable=True, prop="replicas"),
    Value("burstWorkloads[].buffer.percentage", "integer", "With `scalableRef`, instead of "
          "`replicas`: copies as a percentage of the Deployment's replicas, at least 1.",
          rules.REPLICAS, nullable=True, prop="percentage"),
    Value("burstWorkloads[].buffer.limits", "quantities", "The most all copies may request, per "
          "resource, e.g. `cpu: \"8\"`; alone: as many copies as fit.", nullable=True,
          prop="limits"),
    Value("burstWorkloads[].buffer.apiVersion", _enum(CapacityBufferVersion), "`v1beta1` "
          "(Cluster Autoscaler 1.35+, Karpenter 1.14+ with its `CapacityBuffer` feature gate) "
          "or `v1alpha1` (Cluster Autoscaler 1.34; refused on Karpenter's nodes, which serve "
          "only `v1beta1`). Default: `v1beta1`.", nullable=True, prop="api_version"),
    Value("burstWorkloads[].buffer.zone", "string", "With `podTemplateRef`: keep the copies in "
          "this zone (`topology.kubernetes.io/zone`), so the autoscaler adds nodes there; the "
          "buffer is named `<workload>-buffer-<zone>`. Null: any zone.", rules.LABEL_VALUE,
          nullable=True, prop="zone"),
    *_schedule("burstWorkloads[].buffer.schedule", "the buffer's room, in place of the "
               "CapacityBuffer,", "`replicas` placeholder"),
    Value("alerts.enabled", "boolean", "Render a PrometheusRule (Prometheus Operator) whose "
          "alerts page when the slices run low or erode, or a burst pod or a buffer's "
          "placeholder waits; it reads kube-state-metrics' standard series. Needs the "
          "Operator's CRDs, so off by default (see docs/alerts.md)."),
    Value("alerts.name", "string", "The PrometheusRule's name. Null: `<reserver>-alerts` "
          "(without slices: `headroom-alerts` after the workloads' name prefix).",
          rules.DNS_SUBDOMAIN, nullable=True, prop="name"),
    Value("alerts.labels", "labels", "Extra labels on the PrometheusRule: what your "
          "Prometheus' `ruleSelector` matches (kube-prometheus-stack: `release: <its "
          "release>`).", prop="labels"),
    Value("alerts.minHeldPercent", "integer", "The share of target nodes whose slice must be "
          "held; fewer fires `HeadroomSlicesLow`.", rules.PERCENT, prop="min_held_percent"),
    Value("alerts.slicesLowFor", "string", "How long the share may stay lower (and the "
          "reserver target no node) before an alert fires.", PROMETHEUS_DURATION,
          prop="slices_low_for"),
    Value("alerts.erosionFor", "string", "How long more reservers may wait than burst pods "
          "run before `HeadroomSlicesEroded` fires, and a placeholder pod of a buffer held "
          "in time windows before `HeadroomBufferPodPending` does.", PROMETHEUS_DURATION,
          prop="erosion_for"),
    Value("alerts.burstStartBudget", "string", "How long a burst pod may stay Pending before "
          "`HeadroomBurstPodPending` fires.", PROMETHEUS_DURATION,
          prop="burst_start_budget"),
    Value("alerts.severity", _enum(AlertSeverity), "The alerts' `severity` label.",
          prop="severity"),
    Value("reader.create", "boolean", "Render a ClusterRole with the read-only access that "
          "`cdk8s-headroom plan` and `status` need to read the cluster, in every namespace "
          "(see docs/plan-status.md)."),
    Value("reader.name", "string", "The ClusterRole's name, and its binding's. Null: "
          f"`{object_names.READER}` after the workloads' name prefix.", rules.DNS_SUBDOMAIN,
          nullable=True),
    Value("reader.subjects", "list", "Who may read: with any, a ClusterRoleBinding of the "
          "same name grants them the ClusterRole. Empty: bind it yourself."),
    Value("reader.subjects[].kind", _enum(SubjectKind), "What the subject is; its `apiGroup` "
          "follows.", required=True),
    Value("reader.subjects[].name", "string", "A user's or group's name as your authenticator "
          "gives it, or a service account's.", rules.SUBJECT_NAME, required=True),
    Value("reader.subjects[].namespace", "string", "With `ServiceAccount`: its namespace. "
          "Null: the workloads' (`namespace.name`, or the release namespace).",
          rules.DNS_LABEL, nullable=True),
)
# fmt: on

BY_PATH = {value.path: value for value in VALUES}

NAMED_ITEMS = "burstWorkloads"
"""The list whose items an error's field names by their name, not their index
(``burstWorkloads[api].image``)."""


def item_fields(path: str) -> tuple[str, ...]:
    """The fields of the items of the list at ``path``, in the table's order."""
    prefix = f"{path}[]."
    return tuple(
        v.path.removeprefix(prefix)
        for v in VALUES
        if v.path.startswith(prefix) and "." not in v.path.removeprefix(prefix)
    )


def item_lists(*keys: str) -> tuple[str, ...]:
    """The paths of the lists whose items have each of ``keys``, in the table's order:
    ``tolerations`` and ``burstWorkloads[].tolerations`` for a toleration's fields."""
    return tuple(
        value.path
        for value in VALUES
        if value.kind == "list" and all(f"{value.path}[].{key}" in BY_PATH for key in keys)
    )


def props(prefix: str, *, but: tuple[str, ...] = ()) -> dict[str, str]:
    """``{path: prop}`` of the values in ``prefix``'s map (paths after ``prefix``; not in
    its lists, nor in its maps under ``but``) that give a library prop: what ``build``
    passes, the library's errors rename and ``values_from_app`` reads back."""
    found = {v.path.removeprefix(prefix): v.prop for v in VALUES if v.path.startswith(prefix)}
    return {
        path: prop
        for path, prop in found.items()
        if prop is not None and "[]" not in path and not any(map(path.startswith, but))
    }


CUSTOM_TASK = props("task.")
"""The ``task`` values of a custom task and the ``ReserverTask`` fields they set (props
of ``ReserverTask.custom``); each task's own are the templates' defaults."""

HEADROOM_FIELDS = {prop: path for path, prop in props("", but=("task.", "alerts.")).items()}
"""The library's field names (of ``NodeHeadroom`` and its classes) in the words of values."""
BURST_WORKLOAD = props("burstWorkloads[].", but=("buffer.",))
"""A ``burstWorkloads`` item's values (but ``name``) and the ``add_burst_workload`` props
they give, which ``BurstWorkload`` keeps as its attributes (but its tolerations, in
``targeting``): read one way by ``build``, the other by ``values_from_app``."""
BURST_BUFFER = props("burstWorkloads[].buffer.")
"""A burst workload's ``buffer`` values and the ``add_capacity_buffer`` props they give."""
ALERTS = props("alerts.")
"""The ``alerts`` values and the ``HeadroomAlerts`` props they give."""
POOL_VALUES = {"nodeCpu": "CPU capacity", "nodeMemory": "memory capacity", "taints": "taints"}
"""The ``nodePool`` values that describe the named pool's nodes, which the chart refuses
without ``nodePool.name`` (``rules.POOL_VALUE_NEEDS_NAME``), by key in the order the
templates walk a map (sorted), with what each is in the message."""


def read_back(source: object, table: Mapping[str, str], **given: Any) -> dict[str, Any]:
    """The values of ``table`` (``props``) read from the attributes of ``source`` named
    as the props (or from ``given``), as values write them: an enum by its value, a
    tuple as a list."""
    values: dict[str, Any] = {}
    for path, prop in table.items():
        item = given[prop] if prop in given else getattr(source, prop)
        *parents, key = path.split(".")
        holder = values
        for parent in parents:
            holder = holder.setdefault(parent, {})
        item = item.value if isinstance(item, Enum) else item
        holder[key] = list(item) if isinstance(item, tuple) else item
    return values


def value_at(values: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted ``path`` (no ``[]``), or None where a map along it is missing."""
    node: Any = values
    for key in path.split("."):
        node = node.get(key) if isinstance(node, Mapping) else None
    return node


_TYPES: dict[str, Schema] = {
    "string": {"type": "string"},
    "integer": {"type": "integer"},
    "boolean": {"type": "boolean"},
    # A whole number is a quantity too (`--set reservation.cpu=2` passes one); the
    # templates refuse a fraction with the quantity rule's message.
    "quantity": {"type": ["string", "number"]},
    # A fraction passes, so that an integer range refuses it with the library's message
    "number": {"type": "number"},
    "strings": {"type": "array", "items": {"type": "string"}},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "quantities": {"type": "object", "additionalProperties": {"type": ["string", "number"]}},
    # A fraction passes the schema, so that the device count's rule refuses it, with its
    # message (a fraction of a GPU), as the library does.
    "devices": {"type": "object", "additionalProperties": {"type": ["string", "number"]}},
}


_TEXTS = ("string", "strings")
_TEXT = ["string", "number", "boolean"]
"""Text that `--set` may have read as a number or a boolean (`--set labels.team=42`); the
templates take it as its text."""


def _leaf_schema(value: Value) -> Schema:
    if isinstance(value.kind, tuple):
        schema: Schema = {"type": "string", "enum": list(value.kind)}
    elif value.kind == "labels" or (value.kind in _TEXTS and isinstance(value.rule, Grammar)):
        schema = json.loads(json.dumps(_TYPES[value.kind]).replace('"string"', json.dumps(_TEXT)))
    else:
        schema = dict(_TYPES[value.kind])
    if value.nullable:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        schema["type"] = [*kinds, "null"]
        if "enum" in schema:
            schema["enum"] = [*schema["enum"], None]
    return {"description": value.description, **schema}


def _children(prefix: str) -> list[str]:
    """The keys directly under ``prefix`` (``""`` for the top), in table order."""
    found: dict[str, None] = {}
    for value in VALUES:
        if value.path.startswith(prefix) and value.path != prefix.rstrip("."):
            rest = value.path[len(prefix) :]
            found[rest.split(".")[0].removesuffix("[]")] = None
    return list(found)


def _required(value: Value, top: str) -> bool:
    """Whether ``value`` is required, and lies in no nullable map at or under ``top``."""
    parts = value.path.split(".")
    ancestors = (".".join(parts[:n]) for n in range(len(top.split(".")), len(parts)))
    return value.required and not any(BY_PATH[a].nullable for a in ancestors if a in BY_PATH)


def _object_schema(prefix: str, required_all: bool) -> Schema:
    properties: dict[str, Schema] = {}
    required = []
    for key in _children(prefix):
        path = f"{prefix}{key}"
        value = BY_PATH.get(path)
        if value is not None and value.kind == "object":
            inner = _object_schema(f"{path}.", required_all=False)
            kinds = ["object", "null"] if value.nullable else "object"
            properties[key] = {"description": value.description, **inner, "type": kinds}
        elif value is not None and value.kind == "list":
            properties[key] = {
                "description": value.description,
                "type": "array",
                "items": _object_schema(f"{path}[].", required_all=False),
            }
        elif value is not None:
            properties[key] = _leaf_schema(value)
        else:
            properties[key] = _object_schema(f"{path}.", required_all)
        nullable = value is not None and value.nullable
        # A required value makes its maps required, up to a nullable one (a schedule):
        # its required keys are required once it is given
        below = [v for v in VALUES if v.path.startswith(f"{path}.") and _required(v, path)]
        if (required_all and not nullable) or (value is not None and value.required) or below:
            required.append(key)
    schema: Schema = {"type": "object", "additionalProperties": False, "properties": properties}
    if required:
        schema["required"] = required
    return schema


def values_schema() -> Schema:
    """values.schema.json: the values' structure (types, choices, required keys); the
    rules of each value are the templates' checks, which say what is allowed."""
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": f"{CHART_NAME} values",
        **_object_schema("", required_all=True),
    }


def schema_json() -> str:
    return json.dumps(values_schema(), indent=2) + "\n"


def checks(defaults: Mapping[str, Any]) -> list[list[Any]]:
    """The single-value checks, as the templates' ``node-headroom.checks`` walks them: one
    ``[path, rule, default]`` per value with a rule, in the order of ``VALUES`` (as
    ``value_checks.check_values`` checks them). ``default`` is values.yaml's text or integer,
    valid by construction and not checked again; null otherwise."""
    rows = []
    for value in VALUES:
        rule = value.checked_by
        if rule is None:
            continue
        default = None if "[]" in value.path else value_at(defaults, value.path)
        known = default if isinstance(default, (str, int)) else None
        rows.append([value.path, rule if isinstance(rule, str) else rule.name, known])
    return rows
