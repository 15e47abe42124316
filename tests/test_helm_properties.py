"""Generated values: the chart and the library agree on every one of them.

Either both render the same objects, or both refuse, the chart with the library's
message. Quantities are drawn in every unit of the grammar, so the templates' quantity
arithmetic (fit in the slice, limits over requests) is held to quantity.py's exact one.
"""

from __future__ import annotations

import warnings
from decimal import Decimal
from typing import Any

import helm_python as helm
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdk8s_headroom import HeadroomConfigError
from cdk8s_headroom.helm import Release, synthesize
from scripts.helm_render import CHART, load, objects, render, without_helm_labels

CHART_DEFAULTS: dict[str, Any] = yaml.safe_load((CHART / "values.yaml").read_text())
HELM_CHART = load()

SUFFIXES = ["", "m", "k", "M", "G", "Ki", "Mi", "Gi", "e3", "e-3", "E2"]


@st.composite
def quantities(draw: st.DrawFn) -> str:
    # Up to six significant digits: float64, which the templates compute in, is exact
    # there; quantity.py's fractions are exact everywhere.
    number = draw(st.integers(min_value=1, max_value=999_999))
    scale = draw(st.integers(min_value=0, max_value=3))
    text = str(Decimal(number).scaleb(-scale))
    return text + draw(st.sampled_from(SUFFIXES))


@st.composite
def value_sets(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    model = draw(st.sampled_from(["guarded", "dedicated-pool", "seed"]))
    values: dict[str, Any] = {
        "model": model,
        "reservation": {"cpu": draw(quantities()), "memory": draw(quantities())},
        "priorityClasses": {
            "headroom": {"value": draw(st.none() | st.integers(-1000, 1000))},
            "burst": {"value": draw(st.none() | st.integers(-1000, 1_000_000_000))},
        },
    }
    if model == "dedicated-pool":
        values["nodePool"] = {
            "name": "pool",
            "taints": [{"key": "headroom.cdk8s.io/burst", "value": "true"}],
        }
    workloads = []
    for index in range(draw(st.integers(0, 2))):
        workload: dict[str, Any] = {
            "name": f"burst-{index}",
            "image": "nginx:1.27",
            "replicas": draw(st.integers(0, 3)),
            "resources": {
                "requests": {"cpu": draw(quantities()), "memory": draw(quantities())},
                "limits": {"cpu": draw(st.none() | quantities())},
            },
        }
        if draw(st.booleans()):
            workload["autoscaling"] = {"maxReplicas": draw(st.integers(1, 4))}
        workloads.append(workload)
    values["burstWorkloads"] = workloads
    release = draw(st.sampled_from(["node-headroom", "web"]))
    return release, values


def key(document: dict[str, Any]) -> tuple[str, str, str]:
    metadata = document["metadata"]
    return (document["kind"], metadata.get("namespace", ""), metadata["name"])


@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(value_sets())
def test_the_chart_and_the_library_agree_on_generated_values(
    case: tuple[str, dict[str, Any]],
) -> None:
    release, overrides = case
    library_error: HeadroomConfigError | None = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            synthesized = synthesize(overrides, Release(release), chart_defaults=CHART_DEFAULTS)
        except HeadroomConfigError as error:
            library_error = error
    try:
        rendered = objects(render(HELM_CHART, overrides, release=release))
    except helm.HelmError as error:
        assert library_error is not None, f"only the chart refused: {error}"
        message = str(error)
        if "schema" in message:
            assert library_error.field.split("[")[0].split(".")[0] in message
        else:
            assert str(library_error) in message
        return
    assert library_error is None, f"only the library refused: {library_error}"
    assert {key(d): without_helm_labels(d) for d in rendered} == {key(d): d for d in synthesized}


@pytest.mark.parametrize(
    ("slice_cpu", "burst_cpu", "fits"),
    [("0.5", "500m", True), ("1e-1", "100m", True), ("1k", "1000", True), ("0.1", "101m", False)],
)
def test_units_compare_exactly(slice_cpu: str, burst_cpu: str, fits: bool) -> None:
    overrides = {
        "reservation": {"cpu": slice_cpu},
        "burstWorkloads": [
            {
                "name": "b",
                "image": "x",
                "resources": {"requests": {"cpu": burst_cpu, "memory": "4Mi"}},
            }
        ],
    }
    if fits:
        assert render(HELM_CHART, overrides)
    else:
        with pytest.raises(helm.HelmError, match="fits in the headroom slice"):
            render(HELM_CHART, overrides)
