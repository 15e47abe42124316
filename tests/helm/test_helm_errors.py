"""Bad values fail at render time, through the Helm library, with the library's message.

Each value's own rule and every rule across values is a declaration of
``cdk8s_headroom.vocabulary.rules``; the templates check them and fail with the library's message
for the same props (`<value path>: invalid value <value>; <what is allowed>`), as
``cdk8s_headroom.helm.synthesize`` raises it. values.schema.json checks the structure.
"""

from __future__ import annotations

import itertools
import math
import random
import warnings
from fractions import Fraction
from typing import Any

import helm_python as helm
import pytest
import yaml

from cdk8s_headroom.helm import CHART_NAME, Release, synthesize
from cdk8s_headroom.karpenter.node_pool import KarpenterNodePool
from cdk8s_headroom.vocabulary import quantity_arithmetic, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from scripts.helm_render import render
from tests.helm.helm_error_cases import CASES, NO_SLICES, burst, requests


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
        "burstFitsSlice", "burstDevicesWithinSlice", "limitNotBelowRequest",
        "maxReplicasNotBelowReplicas",
        "replicasWithAutoscaler", "dedicatedPoolNeedsPool", "dedicatedPoolNeedsTaint",
        "selectorKeepsPool", "customTaskNeedsImage", "uniqueBurstNames", "slicesNeedBoth",
        "noTaskWithoutSlices", "needsRoom", "prepullerName", "bufferPercentageNeedsScalable",
        "bufferZoneNeedsPodTemplate",
        "bufferOneCount", "bufferNeedsCount", "bufferNotOnAutoMode", "bufferAlphaNotOnKarpenter",
        "quantityCap", "ownNamespace", "serviceAccountName", "subjectNamespace",
        "sliceFitsNode", "poolValueNeedsName", "nodeTypesNeedShare", "shareNeedsNodeTypes",
        "distinctNodeTypes", "shareHoldsSomething", "sliceFitsNodeType",
    }  # fmt: skip
    checked |= {
        "tolerationNeedsKey", "tolerationExistsWithoutValue", "tolerationSecondsNoExecute",
        "requirementNeedsValues", "requirementNoValues", "requirementOneInteger",
    }  # fmt: skip
    # prefixedName has a test of its own; Gte and Lte are not a pod's operators, so the
    # schema refuses them before requirementNotNegative could; bareCores is a warning,
    # test_a_slice_of_bare_cores_warns_in_notes_as_the_library_does's
    assert {rule.name for rule in rules.RULES} == checked | {
        "prefixedName",
        "requirementNotNegative",
        "bareCores",
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
    # named by the value that gives the request, as the refusal of other models names it
    # (burstWorkloads[api].cpu named no value)
    notes = " ".join(notes.split())
    assert "burstWorkloads[api].resources.requests.cpu: '2' exceeds the slice" in notes


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


NODE_CPUS = ["500m", "1", "1500m", "2", "3", "4", "4001m", "4500m", "96", 8, "1e3", "1.0005"]
"""Declared nodes on each step of kube-reserved's formula (node_sizes.kube_reserved_cpu)
and between them, as text and as the number --set passes; and a fraction of a
milli-core, which both count rounded up, as the kubelet reports a node's capacity."""
NODE_MEMORIES = ["1Gi", "1565Mi", "1566Mi", "2G", "16Gi", "1536Gi", "2147483648.5"]


@pytest.mark.parametrize("node", NODE_CPUS + NODE_MEMORIES, ids=str)
def test_a_slice_on_the_declared_node_fits_exactly_where_the_library_says(
    chart: helm.Chart, chart_defaults: dict[str, Any], node: Any
) -> None:
    # node_sizes.check_slice_fits: the slice against the node's allocatable estimate; the
    # chart's generated nodeFit helper judges it in whole 10^-7 cores and bytes
    resource = "cpu" if node in NODE_CPUS else "memory"
    pool = KarpenterNodePool.from_name("aks-pool", **{f"node_{resource}": str(node)})
    allocatable = getattr(pool.smallest_node.allocatable(), resource)
    unit = Fraction(1, 1000) if resource == "cpu" else Fraction(1)
    least = unit if resource == "cpu" else Fraction(rules.MIN_CONTAINER_MEMORY)
    floor = math.floor(allocatable / unit) * unit
    judged = []
    for amount in sorted({least, allocatable - unit, floor, allocatable + unit}):
        if amount < least:
            continue
        text = f"{math.ceil(amount * 1000)}m" if resource == "cpu" else str(math.ceil(amount))
        node_key = "nodeCpu" if resource == "cpu" else "nodeMemory"
        overrides = {
            "reservation": {resource: text},
            "nodePool": {"name": "aks-pool", node_key: node},
        }
        fits = quantity_arithmetic.exact_amount(text) <= allocatable
        judged.append(fits)
        if fits:
            assert render(chart, overrides), (node, text)
            continue
        assert str(library_error(overrides, chart_defaults)) in helm_error(chart, overrides)
    assert False in judged  # a slice just over the room is refused, on every node


def _both(first: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    """The overrides of ``first`` with ``then``'s over them, a null kept (it removes the
    chart's default, as each case means it)."""
    merged = dict(first)
    for key, given in then.items():
        earlier = merged.get(key)
        both = isinstance(given, dict) and isinstance(earlier, dict)
        merged[key] = _both(earlier, given) if both else given
    return merged


def index(case: str) -> int:
    return next(n for n, c in enumerate(CASES) if c[0] == case)


# A fixed sample of the ordered pairs of CASES (a local sweep of all 19,460 found no
# other disagreement), and the pairs that once disagreed
PAIRS = [
    *random.Random(37).sample(list(itertools.permutations(range(len(CASES)), 2)), 300),
    *(
        (index(first), index(then))
        for first, then in (
            ("node-cpu-without-a-pool", "pre-pulled-images-without-slices"),
            ("node-cpu-without-a-pool", "memory-slice-without-cpu"),
        )
    ),
]


@pytest.mark.parametrize(
    ("first", "then"), PAIRS, ids=[f"{CASES[a][0]}+{CASES[b][0]}" for a, b in PAIRS]
)
def test_two_bad_values_are_refused_for_the_one_the_library_refuses_first(
    chart: helm.Chart, chart_defaults: dict[str, Any], first: int, then: int
) -> None:
    # The build calls the rules in the order values_to_app.build calls the library, so
    # of two bad values the chart names the same one (or both accept a pair whose second
    # value makes the first one good)
    overrides = _both(CASES[first][1], CASES[then][1])
    try:
        expected: str | None = str(library_error(overrides, chart_defaults))
    except pytest.fail.Exception:
        expected = None
    if expected is None:
        render(chart, overrides)
    else:
        assert expected in helm_error(chart, overrides)
