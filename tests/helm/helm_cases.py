"""Value sets shared by the Helm tests and the benchmark: each one a user's overrides,
with the release name and namespace (`helm install <release> -n <namespace>`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

README = Path(__file__).resolve().parents[2] / "README.md"

DEDICATED_TAINT = {"key": "headroom.cdk8s.io/burst", "value": "true", "effect": "NoSchedule"}

API = {
    "name": "api",
    "image": "ghcr.io/acme/api:1.2",
    "replicas": 2,
    "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"cpu": "1"}},
    "autoscaling": {"maxReplicas": 6, "targetCPUUtilization": 70},
    "labels": {"team": "web"},
    "tolerations": [{"key": "batch", "operator": "Exists"}],
}
WORKER = {
    "name": "worker",
    "image": "ghcr.io/acme/worker:3",
    "replicas": 0,
    "resources": {
        "requests": {"cpu": "0.25", "memory": "256Mi"},
        "limits": {"cpu": "250m", "memory": "1Gi"},
    },
    "command": ["/worker"],
    "args": ["--queue", "jobs"],
    "containerName": "main",
    "imagePullPolicy": "Always",
    "runAsUser": 1000,
}

BERLIN_WINDOWS = {
    "timeZone": "Europe/Berlin",
    "windows": [
        {"schedule": "0 8 * * mon-fri", "minutes": 600, "name": "business"},
        {"schedule": "30 1 * * *", "minutes": 180},
    ],
}
"""A ``reservation.schedule``: business hours and a night window (``window-2``) in Berlin."""

# (id, release name, overrides); the namespace is the release's name
PARITY_CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("defaults", "node-headroom", {}),
    ("defaults-with-the-namespace-object", "node-headroom", {"namespace": {"create": True}}),
    (
        "dedicated-pool",
        "node-headroom",
        {
            "model": "dedicated-pool",
            "nodePool": {"name": "burst-pool", "taints": [DEDICATED_TAINT]},
        },
    ),
    (
        # Another provider's pool, its smallest node declared (KarpenterNodePool.from_name's
        # node_cpu and node_memory): the slice fits it, so both render
        "pool-with-declared-node-size",
        "node-headroom",
        {"nodePool": {"name": "aks-pool", "nodeCpu": "2", "nodeMemory": "8Gi"}},
    ),
    (
        "seed-with-maintenance-task",
        "node-headroom",
        {"model": "seed", "task": {"kind": "maintenance"}},
    ),
    (
        "custom-reservation-and-classes",
        "node-headroom",
        {
            "reservation": {"cpu": "2", "memory": "4Gi"},
            "priorityClasses": {
                "headroom": {"name": "reserve-low", "value": -50},
                "burst": {"name": "burst-top", "value": 900000000},
                "default": {"value": 10},
            },
        },
    ),
    (
        "pool-selector-tolerations-affinity",
        "node-headroom",
        {
            "nodePool": {
                "name": "web-pool",
                "labelKey": "example.com/pool",
                "taints": [{"key": "spot", "effect": "NoExecute"}],
            },
            "nodeSelector": {"kubernetes.io/arch": "arm64"},
            "tolerations": [
                {"key": "batch", "operator": "Exists"},
                # an empty key with Exists tolerates every taint
                {"key": "", "operator": "Exists", "effect": "NoExecute"},
                {
                    "key": "maintenance",
                    "value": "yes",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                },
            ],
            "nodeAffinity": [
                {
                    "key": "topology.kubernetes.io/zone",
                    "operator": "In",
                    "values": ["eu-west-1a", "eu-west-1b"],
                },
                {"key": "node.kubernetes.io/instance-type", "operator": "Exists"},
            ],
        },
    ),
    (
        "prepull-with-burst-images-and-mirror",
        "node-headroom",
        {
            "task": {
                "kind": "prepull",
                "prepullImages": ["busybox:1.36", "ghcr.io/acme/api:1.2", "busybox:1.36"],
                "prepullCommand": ["/bin/true"],
            },
            "prepullBurstImages": True,
            # the pre-puller's images from the mirror too
            "images": {
                "pause": "mirror.example.com/pause:3.10",
                "prepullTools": "mirror.example.com/busybox:1.37.0-musl",
            },
            "burstWorkloads": [API, WORKER],
        },
    ),
    (
        "two-burst-workloads-with-hpa",
        "node-headroom",
        {"labels": {"cost-center": "42"}, "burstWorkloads": [API, WORKER]},
    ),
    (
        "custom-task",
        "node-headroom",
        {
            "reserverName": "shipper-reserve",
            "task": {
                "kind": "custom",
                "image": "ghcr.io/acme/log-shipper:2",
                "command": ["/ship"],
                "args": ["--fast"],
                "containerName": "shipper",
                "runAsUser": 1001,
                "scratchPaths": ["/tmp", "/var/cache"],
            },
        },
    ),
    (
        "existing-default-class",
        "node-headroom",
        {"priorityClasses": {"default": {"create": False, "name": "cluster-default", "value": 5}}},
    ),
    (
        "maintenance-task-from-a-mirror",
        "node-headroom",
        {"task": {"kind": "maintenance"}, "images": {"maintenance": "mirror.example.com/al2:2"}},
    ),
    ("no-burst-workloads", "node-headroom", {"burstWorkloads": []}),
    (
        "whole-numbers-as-set-passes-them",
        "node-headroom",
        {
            "reservation": {"cpu": 2, "memory": 4294967296},
            "burstWorkloads": [{**API, "resources": {"requests": {"cpu": 1, "memory": "1Gi"}}}],
        },
    ),
    (
        "second-release-without-classes",
        "web",
        {
            "priorityClasses": {"create": False},
            "nodePool": {"name": "web"},
        },
    ),
    (
        "release-with-explicit-empty-prefix",
        "batch",
        {"namePrefix": "", "namespace": {"name": "jobs", "create": True}},
    ),
    # CapacityBuffers: with slices on a dedicated pool, alone, and under a release prefix
    (
        "buffers-beside-slices-on-a-dedicated-pool",
        "node-headroom",
        {
            "model": "dedicated-pool",
            "nodePool": {"name": "burst-pool", "taints": [DEDICATED_TAINT]},
            "burstWorkloads": [
                {**API, "buffer": {"replicas": 3, "limits": {"cpu": 4, "memory": "8Gi"}}},
                {
                    **WORKER,
                    "buffer": {"form": "scalableRef", "percentage": 50},
                },
            ],
        },
    ),
    (
        # v1alpha1 (Cluster Autoscaler 1.34) on a managed node group that CA scales:
        # Karpenter serves only v1beta1, so the chart refuses v1alpha1 on its pools
        "a-v1alpha1-buffer-on-a-cluster-autoscaler-node-group",
        "node-headroom",
        {
            "model": "dedicated-pool",
            "nodePool": {
                "name": "burst-group",
                "labelKey": "eks.amazonaws.com/nodegroup",
                "taints": [DEDICATED_TAINT],
            },
            "burstWorkloads": [
                {
                    **WORKER,
                    "buffer": {"form": "scalableRef", "replicas": 2, "apiVersion": "v1alpha1"},
                }
            ],
        },
    ),
    (
        "buffers-alone-without-slices",
        "node-headroom",
        {
            "reservation": {"cpu": None, "memory": None},
            "prepullBurstImages": False,
            "burstWorkloads": [{**API, "buffer": {"limits": {"cpu": "2"}}}],
        },
    ),
    (
        "a-gpu-in-each-slice-and-a-burst-pod-that-needs-it",
        "node-headroom",
        {
            "reservation": {"extendedResources": {"nvidia.com/gpu": 1}},
            "task": {"kind": "prepull", "prepullImages": ["ghcr.io/acme/train:3"]},
            "burstWorkloads": [
                {
                    **API,
                    "extendedResources": {"nvidia.com/gpu": "1"},
                    "buffer": {"replicas": 1, "zone": "eu-west-1a"},
                }
            ],
        },
    ),
    (
        "a-buffer-kept-in-one-zone",
        "node-headroom",
        {"burstWorkloads": [{**API, "buffer": {"replicas": 2, "zone": "eu-west-1b"}}]},
    ),
    (
        "buffers-under-a-release-prefix",
        "web",
        {"burstWorkloads": [{**WORKER, "buffer": {"form": "scalableRef", "replicas": 1}}]},
    ),
    # PrometheusRules (alerts.enabled): with slices and bursts, under a release prefix,
    # with slices only, and for buffers alone (no slice alerts)
    (
        "alerts-for-slices-and-two-bursts",
        "node-headroom",
        {
            "alerts": {
                "enabled": True,
                "labels": {"release": "kube-prometheus-stack"},
                "minHeldPercent": 75,
                "burstStartBudget": "90s",
                "severity": "critical",
            },
            "burstWorkloads": [API, WORKER],
        },
    ),
    (
        "alerts-named-under-a-release-prefix",
        "web",
        {"alerts": {"enabled": True, "name": "web.headroom-rules", "erosionFor": "1h"}},
    ),
    (
        "alerts-for-buffers-alone",
        "node-headroom",
        {
            "reservation": {"cpu": None, "memory": None},
            "prepullBurstImages": False,
            "alerts": {"enabled": True, "slicesLowFor": "5m"},
            "burstWorkloads": [{**API, "buffer": {"limits": {"cpu": "2"}}}],
        },
    ),
    # A slice as a share of each node size (NodeHeadroom(cpu="20%", node_types=[...])):
    # one reserver per size, with the pre-puller, a burst workload and the alerts, on a
    # pool; and a fixed CPU beside a share of memory, under a release prefix
    (
        "shares-of-each-node-type-with-bursts-and-alerts",
        "node-headroom",
        {
            "reservation": {
                "cpu": "20%",
                "memory": "12.5%",
                "nodeTypes": [
                    {"name": "m5.large", "cpu": "1930m", "memory": "7Gi"},
                    {"name": "m5.xlarge", "cpu": "3920m", "memory": "14Gi"},
                    # as --set passes a whole number, and a size the share does not divide
                    {"name": "c5.2xlarge", "cpu": 8, "memory": "14.5Gi"},
                ],
            },
            "nodePool": {"name": "general"},
            "prepullBurstImages": True,
            "alerts": {"enabled": True},
            "burstWorkloads": [WORKER],
        },
    ),
    (
        "a-fixed-cpu-and-a-share-of-memory",
        "web",
        {
            "reservation": {
                "cpu": "250m",
                "memory": "5%",
                "nodeTypes": [
                    {"name": "m5.large", "cpu": "1930m", "memory": "7Gi"},
                    {"name": "r5.large", "cpu": "1930m", "memory": "15Gi"},
                ],
            },
        },
    ),
    # Slices held in time windows (NodeHeadroom(schedule=, scheduled_nodes=)): a CronJob
    # per window in the DaemonSet's place, on a pool with the pre-puller and the alerts;
    # and a buffer held in a window (add_capacity_buffer(replicas=, schedule=)) in the
    # CapacityBuffer's place, its pod at the headroom class, under a release prefix
    (
        "reserver-windows-with-bursts-and-alerts",
        "node-headroom",
        {
            "reservation": {"schedule": BERLIN_WINDOWS, "scheduledNodes": 3},
            "nodePool": {"name": "general"},
            "prepullBurstImages": True,
            "alerts": {"enabled": True},
            "burstWorkloads": [WORKER],
        },
    ),
    (
        "buffer-window-in-place-of-the-capacity-buffer",
        "web",
        {
            "burstWorkloads": [
                {
                    **API,
                    "buffer": {
                        "form": "scalableRef",
                        "replicas": 4,
                        "schedule": {
                            "windows": [{"schedule": "@daily", "minutes": 120, "name": "batch"}]
                        },
                    },
                }
            ],
        },
    ),
    # Buffers held in windows beside slices on every node, with the alerts, under a
    # release prefix: their placeholders are watched through the windows' Jobs, in the
    # order the library adds the buffers and their windows
    (
        "buffer-windows-with-slices-and-alerts",
        "web",
        {
            "alerts": {"enabled": True, "erosionFor": "45m"},
            "burstWorkloads": [
                {
                    **API,
                    "buffer": {
                        "replicas": 2,
                        "schedule": {
                            "timeZone": "Europe/Berlin",
                            "windows": [
                                {"schedule": "0 8 * * mon-fri", "minutes": 600, "name": "day"},
                                {"schedule": "0 20 * * *", "minutes": 60},
                            ],
                        },
                    },
                },
                {
                    **WORKER,
                    "buffer": {
                        "replicas": 1,
                        "schedule": {
                            "windows": [{"schedule": "@daily", "minutes": 120, "name": "batch"}]
                        },
                    },
                },
            ],
        },
    ),
    # The reader's ClusterRole (reader.create): alone and named, and bound under a
    # release prefix, a service account in the workloads' namespace
    ("reader-named", "node-headroom", {"reader": {"create": True, "name": "plan-and-status"}}),
    (
        "reader-bound-under-a-release-prefix",
        "web",
        {
            "namespace": {"name": "headroom"},
            "reader": {
                "create": True,
                "subjects": [
                    {"kind": "Group", "name": "platform-team"},
                    {"kind": "ServiceAccount", "name": "ci-runner", "namespace": "ci"},
                    {"kind": "ServiceAccount", "name": "headroom-status"},
                ],
            },
        },
    ),
]

BUFFER_CASES = [
    case
    for case in PARITY_CASES
    if any(
        "buffer" in workload and "schedule" not in workload["buffer"]
        for workload in case[2].get("burstWorkloads", ())
    )
]
"""The value sets that give burst workloads buffers (a CapacityBuffer, not windows)."""


def readme_buffers_values() -> dict[str, Any]:
    """The README's ``buffers.yaml``: the chart values it shows for a buffer alone."""
    block = README.read_text().split("# buffers.yaml:")[1].split("\n", 1)[1].split("```")[0]
    values: dict[str, Any] = yaml.safe_load(block)
    return values
