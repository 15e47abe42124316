"""Generated values: the chart and the library agree on every one of them.

Either both render the same objects and warn of the same (NOTES.txt's warnings), or both
refuse with the same message; and each
CapacityBuffer rendered passes the upstream CRDs, when ``../shared`` holds them.
Quantities have no digit limit and come in every unit of the grammar, near each other
(the same amount in another unit, or a hair above), so the templates' exact quantity
arithmetic is held to the library's on the cases float64 got wrong.
"""

from __future__ import annotations

import warnings
from typing import Any

import helm_python as helm
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdk8s_headroom import HeadroomConfigError
from cdk8s_headroom.helm import Release, synthesize
from cdk8s_headroom.helm.values_to_app import name_prefix
from cdk8s_headroom.vocabulary.capacity_buffer_api import is_capacity_buffer
from scripts.helm_render import CHART, load, render, without_helm_labels
from tests.helm.notes_warnings import library_warnings, notes_warnings
from tests.upstream_crds import HAVE_CRDS, buffer_crd_errors

CHART_DEFAULTS: dict[str, Any] = yaml.safe_load((CHART / "values.yaml").read_text())
HELM_CHART = load()

SUFFIXES = ["", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
# No size limit: Hypothesis draws short numbers mostly, and long ones now and then.
DIGITS = st.text("0123456789", min_size=1)


@st.composite
def quantities(draw: st.DrawFn) -> Any:
    """A quantity of any length: digits, a fraction, a suffix or an exponent; now and
    then a whole number (what `--set` passes), zero or a typo."""
    kind = draw(st.integers(0, 19))
    if kind == 0:
        return draw(st.integers(0, 2**53))
    if kind == 1:
        return draw(st.sampled_from(["0", "-1", "1.5x", "1e65", ".", "+.5Mi", "0.0Ki"]))
    number = draw(st.sampled_from("123456789")) + draw(st.text("0123456789"))
    if draw(st.integers(0, 4)) == 0:
        number = draw(DIGITS)  # leading zeros, and zero itself
    if draw(st.booleans()):
        number += "." + draw(st.text("0123456789"))
    if draw(st.integers(0, 3)) == 0:
        return number + draw(st.sampled_from("eE")) + str(draw(st.integers(-64, 64)))
    return number + draw(st.sampled_from(SUFFIXES))


@st.composite
def near(draw: st.DrawFn, base: Any) -> Any:
    """A quantity near ``base``: itself, the same in another unit, a hair above or below."""
    if not isinstance(base, str) or not base[:1].isdigit():
        return draw(quantities())
    way = draw(st.integers(0, 3))
    if way == 0:
        return base
    if way == 1 and base.isdigit():
        return base + "000m"
    if way == 2 and "e" not in base.lower():
        number = base.rstrip("kMGTPEimKe")
        suffix = base[len(number) :]
        tail = draw(st.text("0123456789", min_size=1))
        return number + ("" if "." in number else ".") + tail + suffix
    return draw(quantities())


@st.composite
def buffers(draw: st.DrawFn) -> dict[str, Any]:
    """A burst workload's buffer: either form, counted by replicas, a percentage of a
    scalable one or limits alone; now and then a count that does not go with the form."""
    form = draw(st.sampled_from([None, "podTemplateRef", "scalableRef"]))
    count = draw(st.sampled_from(["replicas", "percentage", "limits", "both", "none"]))
    buffer: dict[str, Any] = {
        "form": form,
        "apiVersion": draw(st.sampled_from([None, "v1beta1", "v1alpha1"])),
    }
    if count in ("replicas", "both"):
        buffer["replicas"] = draw(st.integers(0, 5))
    if count in ("percentage", "both") and (form == "scalableRef" or draw(st.integers(0, 5)) == 0):
        buffer["percentage"] = draw(st.integers(0, 100))
    if count == "limits" or draw(st.integers(0, 3)) == 0:
        resource = draw(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]))
        buffer["limits"] = {resource: draw(quantities())}
    if draw(st.integers(0, 3)) == 0:
        # a zoned buffer's name has its zone (object_names.BUFFER_NAME); an empty one
        # makes no name
        buffer["zone"] = draw(st.sampled_from(["eu-west-1a", "us-east-1b", ""]))
    return buffer


@st.composite
def tolerations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Tolerations, now and then breaking a rule across their fields (a key but with
    Exists, no value with Exists, seconds only with NoExecute)."""
    items = []
    for _ in range(draw(st.integers(0, 2))):
        exists = draw(st.booleans())
        effect = draw(st.sampled_from([None, "NoSchedule", "NoExecute"]))
        item: dict[str, Any] = {"operator": "Exists" if exists else "Equal", "effect": effect}
        if not exists or draw(st.booleans()):
            item["key"] = draw(st.sampled_from(["k", "example.com/k"]))
        if not exists:
            item["value"] = draw(st.sampled_from(["", "v"]))
        if effect == "NoExecute" and draw(st.booleans()):
            item["tolerationSeconds"] = draw(st.sampled_from([0, 30]))
        if draw(st.integers(0, 7)) == 0:  # breaks a rule, unless the rest makes it fit
            name, value = draw(
                st.sampled_from([("key", ""), ("value", "v"), ("tolerationSeconds", 30)])
            )
            item[name] = value
        items.append(item)
    return items


OPERATOR_VALUES = {"In": [["a"], ["auto"], ["a", "b"]], "NotIn": [["a"]],
                   "Exists": [[]], "DoesNotExist": [[]], "Gt": [["4"]], "Lt": [["1"]]}  # fmt: skip


@st.composite
def affinity(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Node affinity terms, on keys that place a buffer on Karpenter's or Auto Mode's
    nodes and on others; now and then with values that do not fit the operator."""
    keys = ["zone", "karpenter.sh/nodepool", "eks.amazonaws.com/instance-cpu",
            "eks.amazonaws.com/compute-type"]  # fmt: skip
    terms = []
    for _ in range(draw(st.integers(0, 1))):
        operator = draw(st.sampled_from(sorted(OPERATOR_VALUES)))
        values = draw(st.sampled_from(OPERATOR_VALUES[operator]))
        if draw(st.integers(0, 3)) == 0:
            values = draw(st.sampled_from([[], ["a"], ["x"], ["1", "2"]]))
        terms.append({"key": draw(st.sampled_from(keys)), "operator": operator, "values": values})
    return terms


@st.composite
def readers(draw: st.DrawFn) -> dict[str, Any]:
    """The reader, its subjects now and then breaking a rule: an empty name, a service
    account's that is no DNS subdomain, a number (what `--set` passes), a namespace
    for a user or a group, or one that is no DNS label."""
    subjects = []
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["User", "Group", "ServiceAccount"]))
        name = draw(st.sampled_from(["ops"] * 4 + ["ops@example.com", "", 7]))
        item: dict[str, Any] = {"kind": kind, "name": name}
        if draw(st.booleans()):
            item["namespace"] = draw(st.sampled_from([None, "ci", "ci", "Not_A_Label"]))
        subjects.append(item)
    name = draw(st.sampled_from([None, None, "plan-reader", "Bad_Name"]))
    return {"create": draw(st.integers(0, 3)) > 0, "name": name, "subjects": subjects}


@st.composite
def value_sets(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    model = draw(st.sampled_from(["guarded", "dedicated-pool", "seed"]))
    cpu = draw(quantities())
    # Memory near 4Mi, the least a container starts with, as often as anywhere else
    memory = draw(quantities() | near("4194304") | near("4Mi") | st.just("1Gi"))
    slices = draw(st.integers(0, 5)) > 0
    values: dict[str, Any] = {
        "model": model,
        "reservation": {"cpu": cpu, "memory": memory} if slices else {"cpu": None, "memory": None},
        "prepullBurstImages": draw(st.booleans()),
        # text that --set reads as a number or a boolean, or that no label value can be
        "labels": {
            "team": draw(st.sampled_from(["web"] * 6 + [42, True, 1.5, 2**70, 2**53 - 1, "-x"]))
        },
        "priorityClasses": {
            # the defaults mostly: any other ordering is refused, and once is enough
            "headroom": {"value": draw(st.none() | st.none() | st.integers(-1000, 1000))},
            "burst": {"value": draw(st.none() | st.none() | st.integers(-1000, 10**9 + 1))},
        },
    }
    if draw(st.integers(0, 2)) == 0:
        values["tolerations"] = draw(tolerations())
    if draw(st.integers(0, 2)) == 0:
        values["nodeAffinity"] = draw(affinity())
    if model == "dedicated-pool":
        # the dedicated taint of any effect (PreferNoSchedule lets ordinary pods on)
        effect = draw(st.sampled_from([None, None, "NoSchedule", "PreferNoSchedule", "NoExecute"]))
        taint = {"key": "headroom.cdk8s.io/burst", "value": "true"}
        if effect is not None:  # a taint's effect is never null (its default is NoSchedule)
            taint["effect"] = effect
        values["nodePool"] = {"name": "pool", "taints": [taint]}
        values["dedicatedTaint"] = taint
    elif draw(st.integers(0, 2)) == 0:
        # a pool, tainted or not: a taint of some effects keeps ordinary pods off a buffer
        values["nodePool"] = {"name": draw(st.sampled_from(["pool", "p" * 60]))}
        if draw(st.booleans()):
            effect = draw(st.sampled_from([None, "NoSchedule", "PreferNoSchedule", "NoExecute"]))
            taint = {"key": "pool"} if effect is None else {"key": "pool", "effect": effect}
            values["nodePool"]["taints"] = [taint]
    if draw(st.integers(0, 3)) == 0:
        # the pool's own label key too, which the values may not change
        key = draw(st.sampled_from(["disk", "karpenter.sh/nodepool"]))
        values["nodeSelector"] = {key: draw(st.sampled_from(["ssd", "pool", "other"]))}
    if slices and draw(st.integers(0, 3)) == 0:
        kind = draw(st.sampled_from(["pause", "maintenance", "prepull", "custom"]))
        values["task"] = {"kind": kind}
        if kind == "prepull":
            values["task"]["prepullImages"] = draw(st.sampled_from([[], ["a:1", "a:1", "b:2"]]))
        if kind == "custom" and draw(st.integers(0, 3)) > 0:
            values["task"]["image"] = "ghcr.io/acme/keeper:1"
    if draw(st.integers(0, 3)) == 0:
        values["alerts"] = {"enabled": True, "name": draw(st.none() | st.just("rules"))}
    if draw(st.integers(0, 4)) == 0:
        values["namespace"] = {
            "create": draw(st.booleans()),
            "name": draw(st.sampled_from([None, "headroom", "default", "n" * 64])),
        }
    if draw(st.integers(0, 4)) == 0:
        values["reserverName"] = draw(st.sampled_from(["keeper", "k" * 60]))
    if draw(st.integers(0, 4)) == 0:
        values["namePrefix"] = draw(st.sampled_from(["", "team-", "T"]))
    workloads = []
    for index in range(draw(st.integers(0 if slices else 1, 2))):
        request_cpu = draw(near(cpu))
        workload: dict[str, Any] = {
            "name": f"burst-{index}",
            "image": "nginx:1.27",
            "replicas": draw(st.integers(0, 3)),
            "resources": {
                "requests": {"cpu": request_cpu, "memory": draw(near(memory))},
                "limits": {"cpu": draw(st.none() | near(request_cpu))},
            },
        }
        if draw(st.booleans()):
            workload["autoscaling"] = {"maxReplicas": draw(st.integers(1, 4))}
        if draw(st.integers(0, 3)) == 0:
            workload["tolerations"] = draw(tolerations())
        if draw(st.integers(0, 2)) > 0 or not slices:
            workload["buffer"] = draw(buffers())
        workloads.append(workload)
    values["burstWorkloads"] = workloads
    if draw(st.integers(0, 3)) == 0:
        values["reader"] = draw(readers())
    return draw(st.sampled_from(["node-headroom", "web"])), values


def key(document: dict[str, Any]) -> tuple[str, str, str]:
    metadata = document["metadata"]
    return (document["kind"], metadata.get("namespace", ""), metadata["name"])


@settings(
    max_examples=500, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
@given(value_sets())
def test_the_chart_and_the_library_agree_on_generated_values(
    case: tuple[str, dict[str, Any]],
) -> None:
    release, overrides = case
    library_error: HeadroomConfigError | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            synthesized = synthesize(
                overrides, Release(release, release), chart_defaults=CHART_DEFAULTS
            )
        except HeadroomConfigError as error:
            library_error = error
    try:
        files = render(HELM_CHART, overrides, release=release, namespace=release)
    except helm.HelmError as error:
        assert library_error is not None, f"only the chart refused: {error}"
        assert str(library_error) in str(error)
        return
    assert library_error is None, f"only the library refused: {library_error}"
    # libyaml's loader: the same objects as PyYAML's, in a fraction of the time
    text = files["node-headroom/templates/headroom.yaml"]
    rendered = [d for d in yaml.load_all(text, Loader=yaml.CSafeLoader) if d]
    assert {key(d): without_helm_labels(d) for d in rendered} == {key(d): d for d in synthesized}
    # and NOTES.txt warns of what the library warns of (a shared buffer by its name)
    assert notes_warnings(files["node-headroom/templates/NOTES.txt"]) == library_warnings(
        caught, name_prefix(overrides, Release(release, release))
    )
    if HAVE_CRDS:
        for buffer in (d for d in rendered if is_capacity_buffer(d)):
            assert buffer_crd_errors(buffer) == [], buffer["metadata"]["name"]
