"""Bad values fail at render time, through the Helm library, with the library's message.

Each value's own rule and every rule across values is a declaration of
``cdk8s_headroom.vocabulary.rules``; the templates check them and fail with the library's message
for the same props (`<value path>: invalid value <value>; <what is allowed>`), as
``cdk8s_headroom.helm.synthesize`` raises it. values.schema.json checks the structure.
"""

from __future__ import annotations

import warnings
from typing import Any

import helm_python as helm
import pytest
import yaml

from cdk8s_headroom.helm import CHART_NAME, Release, synthesize
from cdk8s_headroom.vocabulary import quantity_arithmetic, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from scripts.helm_render import render
from tests.helm.helm_cases import API, DEDICATED_TAINT


def helm_error(chart: helm.Chart, overrides: dict[str, Any], release: str = "node-headroom") -> str:
    with pytest.raises(helm.HelmError) as raised:
        render(chart, overrides, release=release)
    return str(raised.value)


def library_error(
    overrides: dict[str, Any], chart_defaults: dict[str, Any], release: str = "node-headroom"
) -> HeadroomConfigError:
    with pytest.raises(HeadroomConfigError) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthesize(overrides, Release(release, release), chart_defaults=chart_defaults)
    return raised.value


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
]


@pytest.mark.parametrize(
    ("overrides", "path", "allowed"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_bad_value_fails_with_the_librarys_message(
    chart: helm.Chart,
    chart_defaults: dict[str, Any],
    overrides: dict[str, Any],
    path: str,
    allowed: str,
) -> None:
    expected = library_error(overrides, chart_defaults)
    assert expected.field == path
    assert allowed in expected.allowed
    assert str(expected) in helm_error(chart, overrides)


def test_every_rule_has_a_case() -> None:
    messages = " ".join(c[3] for c in CASES)
    checked = {
        "containerMemory", "priorityOrder", "classNamesDiffer", "defaultClassGuardedOnly",
        "burstFitsSlice", "limitNotBelowRequest", "maxReplicasNotBelowReplicas",
        "replicasWithAutoscaler", "dedicatedPoolNeedsPool", "dedicatedPoolNeedsTaint",
        "selectorKeepsPool", "customTaskNeedsImage", "uniqueBurstNames", "slicesNeedBoth",
        "noTaskWithoutSlices", "needsRoom", "prepullerName", "bufferPercentageNeedsScalable",
        "bufferOneCount", "bufferNeedsCount", "bufferNotOnAutoMode", "bufferAlphaNotOnKarpenter",
        "quantityCap", "ownNamespace", "serviceAccountName", "subjectNamespace",
    }  # fmt: skip
    checked |= {
        "tolerationNeedsKey", "tolerationExistsWithoutValue", "tolerationSecondsNoExecute",
        "requirementNeedsValues", "requirementNoValues", "requirementOneInteger",
    }  # fmt: skip
    # prefixedName has a test of its own; Gte and Lte are not a pod's operators, so the
    # schema refuses them before requirementNotNegative could
    assert {rule.name for rule in rules.RULES} == checked | {
        "prefixedName",
        "requirementNotNegative",
    }
    assert "greater than zero" in messages and "does not start with 'system-'" in messages


def test_a_release_name_that_makes_a_name_too_long_is_named(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    release = "a-release-name-long-enough-to-push-the-names-over-the-limit"
    message = helm_error(chart, {}, release=release)
    assert f"the release name '{release}' prefixes it" in message
    assert str(library_error({}, chart_defaults, release)) in message


def test_quantities_equal_in_other_units_fit(chart: helm.Chart) -> None:
    overrides = {
        "reservation": {"cpu": "0.5", "memory": "0.5Gi"},
        "burstWorkloads": [requests("500m", "536870912", {"cpu": "0.5"})],
    }
    assert render(chart, overrides)


def test_quantities_compare_as_the_scheduler_counts_them(chart: helm.Chart) -> None:
    # 0.1001 and 0.1005 CPU are both 101m to the scheduler; 0.5 byte more is 1 byte more
    overrides = {
        "reservation": {"cpu": "0.1001", "memory": "4194305"},
        "burstWorkloads": [requests("0.1005", "4194304.5")],
    }
    assert render(chart, overrides)
    assert quantity_arithmetic.amount("0.1005", quantity_arithmetic.Resource.CPU) == 101


# Structure: the schema's messages say what is allowed.
SCHEMA_CASES = [
    ({"model": "greedy"}, "at '/model': value must be one of 'guarded', 'dedicated-pool', 'seed'"),
    ({"reservaton": {"cpu": "1"}}, "additional properties 'reservaton' not allowed"),
    (
        {"burstWorkloads": [burst(resources={"requests": {"memory": "1Gi"}})]},
        "at '/burstWorkloads/0/resources/requests': missing property 'cpu'",
    ),
    (
        {"task": {"kind": "sleep"}},
        "value must be one of 'pause', 'maintenance', 'prepull', 'custom'",
    ),
    ({"priorityClasses": {"burst": {"value": "high"}}}, "got string, want null or integer"),
    # Gte and Lte are Karpenter's NodePool operators, not a pod's
    (
        {"nodeAffinity": [{"key": "cpus", "operator": "Gte", "values": ["4"]}]},
        "value must be one of 'In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'",
    ),
    (
        {"reader": {"create": True, "subjects": [{"kind": "Group"}]}},
        "at '/reader/subjects/0': missing property 'name'",
    ),
]


@pytest.mark.parametrize(("overrides", "message"), SCHEMA_CASES)
def test_the_schema_says_what_is_allowed(
    chart: helm.Chart, overrides: dict[str, Any], message: str
) -> None:
    assert message in helm_error(chart, overrides)


def test_seed_lets_a_larger_burst_through_with_a_warning(chart: helm.Chart) -> None:
    overrides = {"model": "seed", "burstWorkloads": [requests("2", "128Mi")]}
    notes = render(chart, overrides)["node-headroom/templates/NOTES.txt"]
    assert "burstWorkloads[api].cpu: '2' exceeds the slice" in notes


def test_a_whole_number_just_below_2_to_the_53_keeps_every_digit(chart: helm.Chart) -> None:
    # Helm reads a values file's numbers as 64-bit floats: below 2^53, each is exact
    memory = 2**53 - 1
    rendered = render(chart, {"reservation": {"memory": memory}})
    reserver = next(
        d
        for d in yaml.safe_load_all(rendered["node-headroom/templates/headroom.yaml"])
        if d and d["kind"] == "DaemonSet"
    )
    container = reserver["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["requests"]["memory"] == str(memory)


@pytest.mark.parametrize(
    ("overrides", "shown"),
    [
        ({"reservation": {"memory": None}}, "reservation.memory: invalid value null;"),
        (NO_SLICES | {"prepullBurstImages": True}, "prepullBurstImages: invalid value true;"),
        (
            {"priorityClasses": {"default": {"create": True}}, "model": "seed"},
            "priorityClasses.default.create: invalid value true;",
        ),
    ],
    ids=["null", "true", "true-of-a-class"],
)
def test_messages_show_null_and_booleans_as_yaml_writes_them(
    chart: helm.Chart, chart_defaults: dict[str, Any], overrides: dict[str, Any], shown: str
) -> None:
    # The chart's users give values in YAML: a message says null, not Python's None
    assert str(library_error(overrides, chart_defaults)).startswith(shown)
    assert shown in helm_error(chart, overrides)
    assert "None" not in helm_error(chart, overrides)


def test_a_message_shows_lists_and_maps_with_their_items_so() -> None:
    from cdk8s_headroom.vocabulary.errors import shown

    assert shown([None, True, False, "a", 1]) == "[null, true, false, 'a', 1]"
    assert shown({"cpu": None}) == "{'cpu': null}"
    assert shown(("x",)) == "['x']"
    assert shown("None") == "'None'"


def test_a_slice_of_bare_cores_warns_in_notes_as_the_library_does(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # GIVEN reservation.cpu "500": 500 cores per node, where 500m was surely meant
    overrides = {"reservation": {"cpu": "500"}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        synthesize(overrides, Release(CHART_NAME, CHART_NAME), chart_defaults=chart_defaults)
    [library] = [str(w.message) for w in caught if "cores per node" in str(w.message)]
    # WHEN the chart renders it THEN NOTES give the library's warning, named by the value
    notes = " ".join(render(chart, overrides)["node-headroom/templates/NOTES.txt"].split())
    assert library.startswith("cpu: '500' is 500 cores per node; did you mean \"500m\"?")
    assert f"WARNING: reservation.{library}" in notes
    # AND the slice it holds is not stated without it
    assert "holds 500 CPU, 512Mi memory on every node" in notes
    assert "that is 500 cores, see the WARNING below" in notes


@pytest.mark.parametrize("cpu", ["63", "500m", "2"])
def test_a_slice_below_the_bare_cores_threshold_gives_no_warning(
    chart: helm.Chart, cpu: str
) -> None:
    notes = render(chart, {"reservation": {"cpu": cpu}})["node-headroom/templates/NOTES.txt"]
    assert "WARNING" not in notes and "cores" not in notes


_PREFIX, _NAME = "a" * 253, "b" * 63
LENGTH_BOUNDS = [
    ("namespace.name", "a" * 63, "a" * 64, lambda v: {"namespace": {"name": v}}),
    ("alerts.name", "a" * 253, "a" * 254, lambda v: {"alerts": {"enabled": True, "name": v}}),
    ("nodePool.labelKey", f"{_PREFIX}/{_NAME}", f"a{_PREFIX}/{_NAME}",
     lambda v: {"nodePool": {"labelKey": v}}),
    ("nodePool.labelKey", f"{_PREFIX}/{_NAME}", f"{_PREFIX}/b{_NAME}",
     lambda v: {"nodePool": {"labelKey": v}}),
    ("labels['team']", "a" * 63, "a" * 64, lambda v: {"labels": {"team": v}}),
    ("images.maintenance", "a" * 255 + ":v1@sha256:" + "0" * 64, "a" * 256 + ":v1",
     lambda v: {"images": {"maintenance": v}}),
    ("reservation.cpu", "0." + "0" * 997 + "1", "0." + "0" * 998 + "1",
     lambda v: {"reservation": {"cpu": v}}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "longest", "too_long", "values"),
    LENGTH_BOUNDS,
    ids=[f"{case[0]}-{index}" for index, case in enumerate(LENGTH_BOUNDS)],
)
def test_length_bounds_hold_alike_at_the_boundary(
    chart: helm.Chart,
    chart_defaults: dict[str, Any],
    path: str,
    longest: str,
    too_long: str,
    values: Any,
) -> None:
    # Lengths are bounds, not RE2 repeats (rule_language.Clause.at_most): the longest
    # value passes both engines, one character more fails both with the same message.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthesize(values(longest), Release(), chart_defaults=chart_defaults)
    render(chart, values(longest))
    expected = library_error(values(too_long), chart_defaults)
    assert expected.field == path
    assert str(expected) in helm_error(chart, values(too_long))
