"""The bad values of ``test_helm_errors.py``: each case's overrides, the value path the
message names and a piece of what it says is allowed."""

from __future__ import annotations

from typing import Any

from tests.helm.helm_cases import API, DEDICATED_TAINT
from tests.helm.share_error_cases import SHARE_CASES
from tests.helm.window_error_cases import WINDOW_CASES


def burst(**changes: Any) -> dict[str, Any]:
    return {**API, **changes}


def requests(cpu: Any, memory: Any, limits: dict[str, Any] | None = None) -> dict[str, Any]:
    return burst(resources={"requests": {"cpu": cpu, "memory": memory}, "limits": limits or {}})


NO_SLICES = {"reservation": {"cpu": None, "memory": None}, "prepullBurstImages": False}
BUFFERED = burst(buffer={"replicas": 2})

# (id, overrides, the value path, a piece of the message that says what is allowed)
CASES = [
    ("bad-quantity", {"reservation": {"cpu": "500mm"}}, "reservation.cpu", 'e.g. "500m"'),
    (
        "zero-quantity",
        {"reservation": {"memory": "0Mi"}},
        "reservation.memory",
        "greater than zero",
    ),
    (
        # YAML's unquoted 0.5 is a number: the message says to quote it
        "fraction-from-yaml",
        {"reservation": {"cpu": 0.5}},
        "reservation.cpu",
        'quote it, e.g. "500m" or "0.5"',
    ),
    (
        "fraction-from-yaml-in-a-burst-request",
        {"burstWorkloads": [requests(0.25, "256Mi")]},
        "burstWorkloads[api].resources.requests.cpu",
        'quote it, e.g. "500m" or "0.5"',
    ),
    (
        "fraction-from-yaml-in-a-buffer-limit",
        {"burstWorkloads": [burst(buffer={"replicas": 2, "limits": {"cpu": 1.5}})]},
        "burstWorkloads[api].buffer.limits['cpu']",
        'quote it, e.g. "500m" or "0.5"',
    ),
    ("huge-exponent", {"reservation": {"cpu": "1e65"}}, "reservation.cpu", "from e-64 to e64"),
    # apimachinery's quantity.go ParseQuantity cuts a quantity above maxAllowed
    # (2^63-1 base units) to it: 1e64 is a valid grammar, and still refused
    ("above-the-cap", {"reservation": {"memory": "1e64"}}, "reservation.memory", "2^63-1"),
    ("8Ei-is-2-to-the-63", {"reservation": {"cpu": "8Ei"}}, "reservation.cpu", "2^63-1"),
    (
        "burst-above-the-cap",
        {"burstWorkloads": [requests("100m", "9223372036854775808")]},
        "burstWorkloads[api].resources.requests.memory",
        "2^63-1",
    ),
    (
        "restricted-on-kube-system",
        {"namespace": {"name": "kube-system", "create": True}},
        "namespace.name",
        "would reject the pods already there",
    ),
    (
        "priority-above-one-billion",
        {"priorityClasses": {"burst": {"value": 2000000000}}},
        "priorityClasses.burst.value",
        "an integer from -2147483648 to 1000000000",
    ),
    (
        "negative-replicas",
        {"burstWorkloads": [burst(replicas=-1)]},
        "burstWorkloads[api].replicas",
        "an integer from 0 to 2147483647",
    ),
    (
        "system-class-name",
        {"priorityClasses": {"headroom": {"name": "system-reserve"}}},
        "priorityClasses.headroom.name",
        "a name that does not start with 'system-'",
    ),
    (
        "not-a-dns-label",
        {"namespace": {"name": "Node_Headroom"}},
        "namespace.name",
        "DNS-1123 label",
    ),
    (
        "burst-quantity",
        {"burstWorkloads": [requests("fast", "1Gi")]},
        "burstWorkloads[api].resources.requests.cpu",
        "a Kubernetes quantity",
    ),
    ("bad-image", {"images": {"pause": "Pause:3"}}, "images.pause", "lowercase name"),
    (
        "bad-label-key",
        {"nodeSelector": {"-bad": "x"}},
        "nodeSelector['-bad']",
        "a label key",
    ),
    (
        "bad-toleration-key",
        {"tolerations": [{"key": "a/b/c", "operator": "Exists"}]},
        "tolerations[0].key",
        "a label key",
    ),
    (
        "priorities-out-of-order",
        {"priorityClasses": {"headroom": {"value": 5}}},
        "priorityClasses.headroom.value",
        "a value below the default class's value 0",
    ),
    (
        "burst-below-default",
        {"priorityClasses": {"burst": {"value": -200}}},
        "priorityClasses.default.value",
        "a value below the burst class's value -200",
    ),
    (
        "same-class-name-twice",
        {"priorityClasses": {"burst": {"name": "headroom-reserve"}}},
        "priorityClasses.burst.name",
        "a name different from the headroom class's",
    ),
    (
        "default-class-under-seed",
        {"model": "seed", "priorityClasses": {"default": {"create": True}}},
        "priorityClasses.default.create",
        "only the guarded model has a default class",
    ),
    (
        "default-class-name-under-dedicated-pool",
        {
            "model": "dedicated-pool",
            "nodePool": {"name": "p", "taints": [DEDICATED_TAINT]},
            "priorityClasses": {"default": {"name": "mine"}},
        },
        "priorityClasses.default.name",
        "no value with model dedicated-pool",
    ),
    (
        "bad-node-size",
        {"nodePool": {"name": "aks-pool", "nodeMemory": "16GB"}},
        "nodePool.nodeMemory",
        'e.g. "500m"',
    ),
    # node_sizes.check_slice_fits: 2 cores keep 70m for kube-reserved (6% of the first,
    # 1% of the second)
    (
        "slice-cpu-over-the-declared-node",
        {"reservation": {"cpu": "1950m"}, "nodePool": {"name": "aks-pool", "nodeCpu": "2"}},
        "reservation.cpu",
        "smallest node of pool 'aks-pool': its 2 leave about 1930m allocatable",
    ),
    (
        # 4500m keep 81.25m: the room is shown rounded, the slice judged exactly
        "slice-cpu-a-fraction-of-a-millicore-over-the-declared-node",
        {"reservation": {"cpu": "4419m"}, "nodePool": {"name": "aks-pool", "nodeCpu": "4500m"}},
        "reservation.cpu",
        "its 4500m leave about 4419m allocatable",
    ),
    (
        # 255Mi + 11Mi per pod (110) + 100Mi eviction: 1565Mi kept
        "slice-memory-over-the-declared-node",
        {
            "reservation": {"memory": "7Gi"},
            "nodePool": {"name": "aks-pool", "nodeCpu": "64", "nodeMemory": "8Gi"},
        },
        "reservation.memory",
        "its 8Gi leave about 6627Mi allocatable after kube-reserved and eviction; lower the slice",
    ),
    (
        # capacity_buffer.CapacityBuffer._check_fits: a buffer's pod must fit the node too
        "buffer-pod-over-the-declared-node",
        {
            **NO_SLICES,
            "nodePool": {"name": "aks-pool", "nodeCpu": "2"},
            "burstWorkloads": [requests("3", "1Gi") | {"buffer": {"replicas": 1}}],
        },
        "burstWorkloads[api].resources.requests.cpu",
        "a buffer pod that fits on the smallest node of pool 'aks-pool': its 2 leave about 1930m",
    ),
    # values_to_app.build: a value of the pool's nodes with no pool would be dropped
    (
        "node-cpu-without-a-pool",
        {"nodePool": {"nodeCpu": "4"}},
        "nodePool.nodeCpu",
        "the CPU capacity of a named pool's nodes",
    ),
    (
        "node-memory-without-a-pool",
        {"nodePool": {"nodeMemory": "16Gi"}},
        "nodePool.nodeMemory",
        "the memory capacity of a named pool's nodes",
    ),
    # ... judged before the slices' rules, as values_to_app.build calls the library
    (
        "node-cpu-without-a-pool-and-one-slice",
        {"reservation": {"memory": None}, "nodePool": {"nodeCpu": "4"}},
        "nodePool.nodeCpu",
        "the CPU capacity of a named pool's nodes",
    ),
    (
        "node-cpu-without-a-pool-and-a-task-without-slices",
        {**NO_SLICES, "prepullBurstImages": True, "nodePool": {"nodeCpu": "4"}},
        "nodePool.nodeCpu",
        "the CPU capacity of a named pool's nodes",
    ),
    (
        "pool-taints-without-a-pool",
        # the keys out of order: both engines show a map's keys sorted
        {"nodePool": {"taints": [{"value": "true", "key": "spot"}]}},
        "nodePool.taints",
        "the taints of a named pool's nodes",
    ),
    ("dedicated-pool-without-a-pool", {"model": "dedicated-pool"}, "nodePool.name", "a node pool"),
    (
        "dedicated-pool-without-its-taint",
        {"model": "dedicated-pool", "nodePool": {"name": "p", "taints": [{"key": "spot"}]}},
        "nodePool.taints",
        "headroom.cdk8s.io/burst=true:NoSchedule",
    ),
    (
        "selector-against-the-pool",
        {"nodePool": {"name": "web"}, "nodeSelector": {"karpenter.sh/nodepool": "batch"}},
        "nodeSelector['karpenter.sh/nodepool']",
        "'web', the value that selects node pool 'web'",
    ),
    ("custom-task-without-image", {"task": {"kind": "custom"}}, "task.image", "image reference"),
    (
        "burst-cpu-beyond-the-slice",
        {"burstWorkloads": [requests("2", "128Mi")]},
        "burstWorkloads[api].resources.requests.cpu",
        "fits in the headroom slice (500m CPU, 512Mi memory)",
    ),
    (
        "burst-memory-beyond-the-slice",
        {"burstWorkloads": [requests("0.1", "0.75Gi")]},
        "burstWorkloads[api].resources.requests.memory",
        "fits in the headroom slice",
    ),
    (
        "limit-below-request",
        {"burstWorkloads": [requests("500m", "512Mi", {"memory": "256Mi"})]},
        "burstWorkloads[api].resources.limits.memory",
        "a limit no smaller than the request '512Mi'",
    ),
    (
        "max-replicas-below-replicas",
        {"burstWorkloads": [burst(replicas=4, autoscaling={"maxReplicas": 3})]},
        "burstWorkloads[api].autoscaling.maxReplicas",
        # names replicas, whose value the lower bound is
        "an integer from 4 to 2147483647: at least replicas (4), the autoscaler's minimum",
    ),
    (
        "no-replicas-with-an-autoscaler",
        {"burstWorkloads": [burst(replicas=0, autoscaling={"maxReplicas": 3})]},
        "burstWorkloads[api].replicas",
        "at least 1 with an autoscaler",
    ),
    ("same-burst-name-twice", {"burstWorkloads": [API, API]}, "burstWorkloads[1].name", "no other"),
    (
        "prefixed-name-too-long",
        {"namePrefix": "x" * 54 + "-", "reserverName": "reserver-x"},
        "reserverName",
        "DNS-1123 label",
    ),
    # Regressions: float64 took these for equal; the scheduler counts them apart.
    (
        "memory-a-fraction-of-a-byte-above-the-slice",
        {
            "reservation": {"memory": "1Gi"},
            "burstWorkloads": [requests("100m", "1073741824.0000001")],
        },
        "burstWorkloads[api].resources.requests.memory",
        "fits in the headroom slice (500m CPU, 1Gi memory)",
    ),
    (
        "cpu-a-fraction-of-a-milli-unit-above-the-slice",
        {"reservation": {"cpu": "0.1"}, "burstWorkloads": [requests("0.10000000000000001", "4Mi")]},
        "burstWorkloads[api].resources.requests.cpu",
        "fits in the headroom slice (0.1 CPU, 512Mi memory)",
    ),
    (
        "memory-without-a-unit",
        {"reservation": {"memory": "512"}},
        "reservation.memory",
        'did you mean "512Mi"? a number without a unit is bytes',
    ),
    (
        "memory-from-set-without-a-unit",
        {"reservation": {"memory": 512}},
        "reservation.memory",
        'did you mean "512Mi"? a number without a unit is bytes',
    ),
    # Slices and buffers
    (
        "memory-slice-without-cpu",
        {"reservation": {"cpu": None}},
        "reservation.cpu",
        "slices need both cpu and memory",
    ),
    ("no-room-at-all", NO_SLICES, "reservation.cpu", "keeps no room at all"),
    (
        "a-task-without-slices",
        {**NO_SLICES, "task": {"kind": "maintenance"}, "burstWorkloads": [BUFFERED]},
        "task.kind",
        "the reserver runs it",
    ),
    (
        "pre-pulled-images-without-slices",
        {**NO_SLICES, "prepullBurstImages": True, "burstWorkloads": [BUFFERED]},
        "prepullBurstImages",
        "the reserver runs it",
    ),
    (
        "a-reserver-name-too-long-for-the-pre-puller",
        {"reserverName": "r" * 60, "prepullBurstImages": True},
        "reserverName",
        "at most 55 characters",
    ),
    (
        "a-percentage-without-the-scalable-form",
        {"burstWorkloads": [burst(buffer={"percentage": 10})]},
        "burstWorkloads[api].buffer.percentage",
        "no percentage in the pod-template form",
    ),
    (
        "devices-without-slices",
        {
            **NO_SLICES,
            "reservation": {"cpu": None, "memory": None, "extendedResources": {"x.io/fpga": 1}},
            "burstWorkloads": [BUFFERED],
        },
        "reservation.extendedResources",
        "no value without slices",
    ),
    (
        "a-burst-pod-that-needs-more-gpus-than-a-slice-holds",
        {
            "reservation": {"extendedResources": {"nvidia.com/gpu": 1}},
            "burstWorkloads": [burst(extendedResources={"nvidia.com/gpu": 2})],
        },
        "burstWorkloads[api].extendedResources['nvidia.com/gpu']",
        "at most 1, the nvidia.com/gpu each reserver holds",
    ),
    (
        "a-fraction-of-a-gpu",
        {"reservation": {"extendedResources": {"nvidia.com/gpu": 0.5}}},
        "reservation.extendedResources['nvidia.com/gpu']",
        "a whole number of devices",
    ),
    (
        "a-resource-name-kubernetes-refuses",
        {"reservation": {"extendedResources": {"kubernetes.io/gpu": 1}}},
        "reservation.extendedResources['kubernetes.io/gpu']",
        "an extended resource name",
    ),
    (
        "a-zone-in-the-scalable-form",
        {"burstWorkloads": [burst(buffer={"form": "scalableRef", "replicas": 1, "zone": "a"})]},
        "burstWorkloads[api].buffer.zone",
        "no zone in the scalable form",
    ),
    (
        "a-zone-that-is-no-label-value",
        {"burstWorkloads": [burst(buffer={"replicas": 1, "zone": "eu west"})]},
        "burstWorkloads[api].buffer.zone",
        "a label value",
    ),
    (
        "replicas-and-percentage",
        {
            "burstWorkloads": [
                burst(buffer={"form": "scalableRef", "percentage": 10, "replicas": 2})
            ]
        },
        "burstWorkloads[api].buffer.percentage",
        "either replicas or percentage",
    ),
    (
        "a-buffer-without-a-count",
        {"burstWorkloads": [burst(buffer={"limits": {"nvidia.com/gpu": "1"}})]},
        "burstWorkloads[api].buffer.replicas",
        "a count of chunks",
    ),
    (
        "a-buffer-on-an-auto-mode-pool",
        {"nodePool": {"name": "general-purpose"}, "burstWorkloads": [BUFFERED]},
        "nodePool.name",
        "Auto Mode exposes no Karpenter feature gates",
    ),
    (
        "a-buffer-on-auto-mode-by-the-node-selector",
        {"nodeSelector": {"eks.amazonaws.com/compute-type": "auto"}, "burstWorkloads": [BUFFERED]},
        "nodeSelector['eks.amazonaws.com/compute-type']",
        "Auto Mode exposes no Karpenter feature gates",
    ),
    (
        "a-buffer-on-auto-mode-by-the-node-affinity",
        {
            "nodeAffinity": [
                {"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": ["c"]}
            ],
            "burstWorkloads": [BUFFERED],
        },
        "nodeAffinity[eks.amazonaws.com/instance-category]",
        "Auto Mode exposes no Karpenter feature gates",
    ),
    (
        "a-v1alpha1-buffer-on-a-karpenter-pool",
        {
            "nodePool": {"name": "burst"},
            "burstWorkloads": [burst(buffer={"replicas": 1, "apiVersion": "v1alpha1"})],
        },
        "burstWorkloads[api].buffer.apiVersion",
        "Karpenter serves the CapacityBuffer API at v1beta1 only",
    ),
    (
        "a-v1alpha1-buffer-on-karpenters-nodes-by-the-node-affinity",
        {
            "nodeAffinity": [{"key": "karpenter.sh/nodepool", "operator": "Exists"}],
            "burstWorkloads": [burst(buffer={"replicas": 1, "apiVersion": "v1alpha1"})],
        },
        "burstWorkloads[api].buffer.apiVersion",
        "v1alpha1 is for Cluster Autoscaler 1.34",
    ),
    (
        "a-buffer-limit-that-is-no-quantity",
        {"burstWorkloads": [burst(buffer={"limits": {"cpu": "eight"}})]},
        "burstWorkloads[api].buffer.limits['cpu']",
        'e.g. "500m"',
    ),
    (
        "a-buffer-name-too-long",
        {"burstWorkloads": [burst(name="b" * 57, buffer={"replicas": 1})]},
        f"burstWorkloads[{'b' * 57}].buffer",
        "DNS-1123 label",
    ),
    (
        "toleration-without-key",
        {"tolerations": [{"operator": "Equal", "value": "x"}]},
        "tolerations[0].key",
        "a key, unless the operator is Exists",
    ),
    (
        "exists-toleration-with-value",
        {"burstWorkloads": [burst(tolerations=[{"key": "k", "operator": "Exists", "value": "v"}])]},
        "burstWorkloads[api].tolerations[0].value",
        "an empty value with operator Exists",
    ),
    (
        "toleration-seconds-without-no-execute",
        {"tolerations": [{"key": "k", "effect": "NoSchedule", "tolerationSeconds": 30}]},
        "tolerations[0].tolerationSeconds",
        "no value unless the effect is NoExecute",
    ),
    (
        "in-without-values",
        {"nodeAffinity": [{"key": "zone", "operator": "In", "values": []}]},
        "nodeAffinity[zone].values",
        "at least one value for operator In",
    ),
    (
        "exists-with-values",
        {"nodeAffinity": [{"key": "zone", "operator": "Exists", "values": ["a"]}]},
        "nodeAffinity[zone].values",
        "no values for operator Exists",
    ),
    (
        "gt-with-a-word",
        {"nodeAffinity": [{"key": "cpus", "operator": "Gt", "values": ["x"]}]},
        "nodeAffinity[cpus].values",
        "exactly one integer for operator Gt",
    ),
    (
        "a-number-too-large-for-yaml",
        {"labels": {"team": 2**60}},
        "labels['team']",
        "a whole number below 2^53",
    ),
    (
        "a-quantity-too-large-for-yaml",
        {"reservation": {"memory": 2**53}},
        "reservation.memory",
        "YAML and JSON numbers beyond it lose digits",
    ),
    (
        "quantity-longer-than-1000-characters",
        {"reservation": {"cpu": "1" * 1001}},
        "reservation.cpu",
        "a quantity of at most 1000 characters",
    ),
    (
        "burst-memory-below-4Mi",
        {"burstWorkloads": [requests("100m", "2Ki")]},
        "burstWorkloads[api].resources.requests.memory",
        "a memory of at least 4Mi, the least a container starts with",
    ),
    (
        "an-alert-that-fires-at-once",
        {"alerts": {"enabled": True, "erosionFor": "0m"}},
        "alerts.erosionFor",
        "a duration longer than zero",
    ),
    (
        "an-alert-duration-in-words",
        {"alerts": {"enabled": True, "burstStartBudget": "2 minutes"}},
        "alerts.burstStartBudget",
        "a Prometheus duration",
    ),
    (
        "an-alert-share-above-100",
        {"alerts": {"enabled": True, "minHeldPercent": 101}},
        "alerts.minHeldPercent",
        "from 1 to 100",
    ),
    (
        "a-reader-name-that-is-no-dns-subdomain",
        {"reader": {"create": True, "name": "Headroom_Reader"}},
        "reader.name",
        "a DNS-1123 subdomain",
    ),
    (
        "a-subject-without-a-name",
        {"reader": {"create": True, "subjects": [{"kind": "Group", "name": ""}]}},
        "reader.subjects[0].name",
        "a name that is not empty",
    ),
    (
        "a-service-account-name-that-is-no-dns-subdomain",
        {"reader": {"create": True, "subjects": [{"kind": "ServiceAccount", "name": "CI_Bot"}]}},
        "reader.subjects[0].name",
        "as the name of a ServiceAccount is",
    ),
    (
        "a-namespace-for-a-user",
        {
            "reader": {
                "create": True,
                "subjects": [{"kind": "User", "name": "jane", "namespace": "ci"}],
            }
        },
        "reader.subjects[0].namespace",
        "no namespace for a User: only a ServiceAccount lives in a namespace",
    ),
    # A slice as a share of each node size (share_error_cases.py)
    *SHARE_CASES,
    # Time windows (window_error_cases.py)
    *WINDOW_CASES,
]
