"""The chart's generated ``node-headroom.props.<construct>`` helpers (``helm.props``) give
a values item's inputs as the construct built from that item reads them from its one
declaration (objects/burst.py ``BURST_INPUTS``, objects/capacity_buffer.py
``BUFFER_INPUTS``): the value where given, else the construct's declared default. Its
``node-headroom.rules.<construct>`` run the construct's rules across those props in the
declaration's order (``BURST_RULES``, ``BUFFER_RULES``), as the construct does."""

from __future__ import annotations

import dataclasses
import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import cdk8s
import helm_python as helm
import pytest

from cdk8s_headroom.helm import Release, synthesize
from cdk8s_headroom.helm.props import (
    PROPS,
    RULES,
    ChartProps,
    compile_class_rules,
    compile_props,
    compile_rules,
)
from cdk8s_headroom.helm.values_to_app import buffer_props, burst_props
from cdk8s_headroom.objects.burst import (
    BURST_DEFAULTS,
    BURST_INPUTS,
    BurstWorkload,
    ImagePullPolicy,
)
from cdk8s_headroom.objects.capacity_buffer import BUFFER_INPUTS, BUFFER_RULES, CapacityBuffer
from cdk8s_headroom.vocabulary import rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, HeadroomWarning
from cdk8s_headroom.vocabulary.priority_models import CLASS_RULES
from cdk8s_headroom.vocabulary.prop_rules import PropRules
from cdk8s_headroom.vocabulary.recipes import PropInputs
from scripts.helm_render import CHART, objects, render

API = {"name": "api", "image": "x", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}


def _out(tmp_path: Path, name: str, item: dict[str, Any]) -> Any:
    """The chart's ``node-headroom.props.<name>``, in a chart of its own, run on ``item``."""
    (tmp_path / "templates").mkdir()
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: props\nversion: 0.1.0\n")
    (tmp_path / "templates" / "_props.tpl").write_text(compile_props(name, PROPS[name]))
    (tmp_path / "templates" / "out.yaml").write_text(
        '{{- $p := dict "item" .Values.item }}'
        f'{{{{ include "node-headroom.props.{name}" $p }}}}{{{{ toJson $p.out }}}}'
    )
    rendered = helm.Chart.load(tmp_path).render(
        {"item": item}, name="r", namespace="r", is_install=True
    )
    return json.loads(rendered["props/templates/out.yaml"])


def _burst(item: dict[str, Any]) -> BurstWorkload:
    """The burst workload the library builds from a ``burstWorkloads`` item."""
    return BurstWorkload(cdk8s.Chart(cdk8s.App(), "props"), "api", **burst_props(item, ""))


@pytest.mark.parametrize(
    "item",
    [
        API,
        {
            **API,
            "imagePullPolicy": "Always",
            "command": ["/bin/serve"],
            "args": ["--port", "80"],
            "runAsUser": 1000,
            "replicas": 2,
            "autoscaling": {"maxReplicas": 6, "targetCPUUtilization": 70},
        },
        # a zero count is given, not the default
        {**API, "replicas": 0, "imagePullPolicy": "Never"},
        # an autoscaler's maximum alone: its target is the default
        {**API, "autoscaling": {"maxReplicas": 3}},
        # null is not given
        {**API, "replicas": None, "runAsUser": None, "command": None},
    ],
    ids=["defaults", "all-given", "zero-replicas-enum", "max-replicas-alone", "nulls"],
)
def test_a_burst_items_props_in_the_chart_are_what_the_burst_workload_reads(
    tmp_path: Path, item: dict[str, Any]
) -> None:
    assert _out(tmp_path, "burst", item) == BURST_INPUTS.of(_burst(item))


@pytest.mark.parametrize(
    "buffer",
    [
        {"replicas": 2},
        {"form": "scalableRef", "apiVersion": "v1alpha1", "percentage": 50},
        # a zero count is given, the enums' defaults apply to a null
        {"form": None, "apiVersion": None, "replicas": 0},
        {"form": "scalableRef", "limits": {"cpu": "8"}},
    ],
    ids=["defaults", "all-given", "zero-replicas-nulls", "limits-alone"],
)
def test_a_buffers_props_in_the_chart_are_what_the_capacity_buffer_reads(
    tmp_path: Path, buffer: dict[str, Any]
) -> None:
    workload = _burst(API)
    with warnings.catch_warnings():
        # On every node: any pod can take the room, which is not what this test judges
        warnings.simplefilter("ignore", HeadroomWarning)
        built = CapacityBuffer(
            workload, "buffer", workload=workload, **buffer_props(buffer, "buffer")
        )

    assert _out(tmp_path, "buffer", buffer) == BUFFER_INPUTS.of(built)


def test_every_construct_props_and_rules_helper_is_compiled_into_the_chart() -> None:
    # library.rules_files places each with the unit that calls it
    text = "".join(p.read_text() for p in CHART.rglob("*.tpl"))
    for name, it in PROPS.items():
        assert compile_props(name, it) in text
    for name, (declared, where) in RULES.items():
        assert compile_rules(name, PROPS[name], declared, where) in text
    # the classes' rules, which the build calls on every render
    assert compile_class_rules(CLASS_RULES) in (CHART / "templates" / "_library.tpl").read_text()


def _refusals(values: dict[str, Any], defaults: dict[str, Any]) -> tuple[str, str]:
    """The library's refusal of ``values`` over the chart's ``defaults``, and the chart's."""
    with pytest.raises(HeadroomConfigError) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)
        synthesize(values, Release("node-headroom", "node-headroom"), chart_defaults=defaults)
    with pytest.raises(helm.HelmError) as failed:
        render(helm.Chart.load(CHART), values)
    return str(raised.value), str(failed.value)


# A buffer in the pod-template form with a percentage and replicas breaks two rules
TWO_BROKEN = {"burstWorkloads": [{**API, "buffer": {"percentage": 10, "replicas": 2}}]}


def test_a_buffer_that_breaks_two_rules_is_refused_for_the_first_declared_by_both(
    chart_defaults: dict[str, Any],
) -> None:
    library, chart = _refusals(TWO_BROKEN, chart_defaults)
    assert "no percentage in the pod-template form" in library
    assert library in chart


def test_a_buffer_with_a_bad_limit_and_a_broken_rule_is_refused_for_the_limit_by_both(
    chart_defaults: dict[str, Any],
) -> None:
    # Each value is judged before any rule across values: the construct parses its limits
    # before its rules, and the chart checks each value before any rule
    item = {**API, "buffer": {"percentage": 10, "limits": {"cpu": "eight"}}}
    library, chart = _refusals({"burstWorkloads": [item]}, chart_defaults)
    assert "burstWorkloads[api].buffer.limits['cpu']" in library
    assert library in chart


def test_the_charts_rules_follow_the_declarations_order(tmp_path: Path) -> None:
    # GIVEN a library whose buffers judge one count before the pod-template form
    declared, where = RULES["buffer"]
    one_count = [r for r in declared.rules if r.rule is rules.BUFFER_ONE_COUNT]
    others = [r for r in declared.rules if r.rule is not rules.BUFFER_ONE_COUNT]
    swapped = PropRules(declared.inputs, (*one_count, *others), declared.more)
    copy = tmp_path / "chart"
    shutil.copytree(CHART, copy)
    helpers = copy / "files" / "lazy" / "buffers-rules.tpl"
    compiled = compile_rules("buffer", PROPS["buffer"], BUFFER_RULES, where)
    assert compiled in helpers.read_text()
    helpers.write_text(
        helpers.read_text().replace(
            compiled, compile_rules("buffer", PROPS["buffer"], swapped, where)
        )
    )

    # WHEN the chart renders a buffer that breaks both
    with pytest.raises(helm.HelmError) as failed:
        render(helm.Chart.load(copy), TWO_BROKEN)

    # THEN it refuses it for the one now declared first
    assert "either replicas or percentage, not both" in str(failed.value)


@pytest.mark.parametrize(
    ("values", "refused"),
    [
        (
            {"model": "seed", "priorityClasses": {"default": {"value": 5}}},
            "priorityClasses.default.value: invalid value 5",
        ),
        (
            {"priorityClasses": {"headroom": {"value": 5}, "burst": {"name": "headroom-reserve"}}},
            "priorityClasses.headroom.value: invalid value 5",
        ),
        (
            {"priorityClasses": {"burst": {"name": "headroom-reserve", "value": -200}}},
            "priorityClasses.default.value: invalid value 0",
        ),
    ],
    ids=["default-only-before-order", "order-before-names", "order-named-by-the-lower"],
)
def test_classes_that_break_two_rules_are_refused_for_the_same_one_by_both(
    chart_defaults: dict[str, Any], values: dict[str, Any], refused: str
) -> None:
    # priority_models.CLASS_RULES, run by ModelClasses.of and compiled for the build
    library, chart = _refusals(values, chart_defaults)
    assert refused in library
    assert library in chart


def test_the_charts_class_rules_follow_the_declaration(tmp_path: Path) -> None:
    # GIVEN a library that judges the default class's name before its other props
    copy = tmp_path / "chart"
    shutil.copytree(CHART, copy)
    helpers = copy / "templates" / "_library.tpl"
    compiled = compile_class_rules(CLASS_RULES)
    assert compiled in helpers.read_text()
    name_first = dataclasses.replace(
        CLASS_RULES,
        default_props=("default_class_name", "create_default_class", "default_value"),
    )
    helpers.write_text(helpers.read_text().replace(compiled, compile_class_rules(name_first)))

    # WHEN the chart renders a model without a default class that is given two of them
    values = {"model": "seed", "priorityClasses": {"default": {"create": True, "name": "x"}}}
    with pytest.raises(helm.HelmError) as failed:
        render(helm.Chart.load(copy), values)

    # THEN it refuses the one now declared first
    assert "priorityClasses.default.name: invalid value 'x'" in str(failed.value)


def test_a_burst_workloads_default_in_its_declaration_is_the_charts_default(
    tmp_path: Path,
) -> None:
    # GIVEN a library whose burst workloads default to three replicas and pull always
    declared = PROPS["burst"]
    defaults = {**BURST_DEFAULTS, "replicas": 3, "image_pull_policy": ImagePullPolicy.ALWAYS}
    changed = ChartProps(
        PropInputs(BURST_INPUTS.props, defaults), declared.values, declared.item, "changed"
    )
    copy = tmp_path / "chart"
    shutil.copytree(CHART, copy)
    helpers = copy / "files" / "lazy" / "bursts-rules.tpl"
    compiled = compile_props("burst", declared)
    assert compiled in helpers.read_text()
    helpers.write_text(helpers.read_text().replace(compiled, compile_props("burst", changed)))

    # WHEN the chart renders a burst workload that gives neither
    rendered = objects(render(helm.Chart.load(copy), {"burstWorkloads": [API]}))

    # THEN its Deployment has the declared defaults
    (deployment,) = [d for d in rendered if d["kind"] == "Deployment"]
    assert deployment["spec"]["replicas"] == 3
    assert deployment["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Always"
