"""The chart decides nothing the library decides: names, defaults, kinds, components,
which model tolerates a dedicated taint and what a task takes are data in
``files/library.json``, which ``helm/library.py`` writes from the library, and the pods'
fields are the constructs' recipes, compiled (test_helm_recipes.py). The templates
place values into the data and call the generated helpers.

Two checks: no hand-written template holds a decision as a literal, and a chart whose
``library.json`` decides otherwise renders otherwise (so the templates read the data,
rather than agreeing with it by accident).
"""

from __future__ import annotations

import json
import re
import shutil
from enum import Enum
from pathlib import Path
from typing import Any

import cdk8s
import helm_python as helm
import pytest

from cdk8s_headroom.cluster.live_listing import reader_rules
from cdk8s_headroom.helm import values_from_app, values_to_app
from cdk8s_headroom.helm.chart import TEMPLATES
from cdk8s_headroom.helm.library import LIBRARY_JSON
from cdk8s_headroom.objects.burst import ImagePullPolicy
from cdk8s_headroom.vocabulary import labels, object_names
from cdk8s_headroom.vocabulary.alert_rules import AlertSeverity
from cdk8s_headroom.vocabulary.placement import TaintEffect, TolerationOperator
from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy, PriorityModel
from cdk8s_headroom.vocabulary.reserver_task import TaskKind
from cdk8s_headroom.vocabulary.rollout import UpdateStrategy
from scripts.helm_render import CHART, objects, render
from tests.helm.helm_cases import API

DECIDING_ENUMS: tuple[type[Enum], ...] = (
    PriorityModel,
    TaskKind,
    TolerationOperator,
    TaintEffect,
    ImagePullPolicy,
    PreemptionPolicy,
    UpdateStrategy,
    AlertSeverity,
)
"""Enums whose members the library chooses between. (``CapacityBufferForm``'s values are
also the CapacityBuffer spec's field names, which the templates place; ``In`` and the
other operators are read from the values.)"""

NAME_PATTERNS = [
    value for key, value in vars(object_names).items() if key.isupper() and isinstance(value, str)
]


def _literals() -> dict[str, set[str]]:
    """Each hand-written template's string literals, comments left out: the templates',
    and the lazy units' (``files/lazy/``)."""
    found = {}
    for path in sorted(p for p in TEMPLATES.rglob("*") if p.is_file()):
        text = re.sub(r"\{\{-?\s*/\*.*?\*/\s*-?\}\}", "", path.read_text(), flags=re.DOTALL)
        literals = set(re.findall(r'"((?:[^"\\]|\\.)*)"', text))
        found[path.relative_to(TEMPLATES).as_posix()] = literals
    return found


def _fixed_parts(pattern: str) -> list[str]:
    """The text of a name pattern around its places: what a template that wrote the name
    itself would hold."""
    return [part for part in re.split(r"\{[a-z]+\}", pattern) if len(part) > 1]


def test_no_template_holds_a_choice_of_the_librarys_enums() -> None:
    choices = {member.value for enum in DECIDING_ENUMS for member in enum}
    for template, literals in _literals().items():
        assert literals & choices == set(), template


def test_no_template_writes_a_name_component_or_kind_itself() -> None:
    components = {
        labels.RESERVER_COMPONENT,
        labels.BURST_COMPONENT,
        labels.BUFFER_COMPONENT,
        labels.PREPULLER_COMPONENT,
    }
    parts = {part for pattern in NAME_PATTERNS for part in _fixed_parts(pattern)}
    kinds = {"DaemonSet", "Deployment"}
    assert {"-buffer", "scratch-", "prepull-", "pull-", "-alerts"} <= parts
    for template, literals in _literals().items():
        for literal in literals:
            assert literal not in components | kinds, (template, literal)
            assert not [p for p in parts if p in literal], (template, literal)


def _chart_deciding(
    tmp_path: Path, change: dict[str, Any], data_file: str = LIBRARY_JSON
) -> helm.Chart:
    """This chart with ``library.json`` (or another file of its library data) changed:
    ``change`` maps a dotted key to its new value."""
    copy = tmp_path / "chart"
    shutil.copytree(CHART, copy)
    data = json.loads((copy / data_file).read_text())
    for dotted, value in change.items():
        *parents, last = dotted.split(".")
        holder = data
        for key in parents:
            holder = holder[key]
        holder[last] = value
    (copy / data_file).write_text(json.dumps(data))
    return helm.Chart.load(copy)


def _rendered(chart: helm.Chart, values: dict[str, Any]) -> dict[tuple[str, str], Any]:
    return {(d["kind"], d["metadata"]["name"]): d for d in objects(render(chart, values))}


BUFFERED = {
    "task": {"kind": "custom", "image": "ghcr.io/acme/shipper:2", "scratchPaths": ["/tmp"]},
    "prepullBurstImages": True,
    "burstWorkloads": [{**API, "resources": {"requests": API["resources"]["requests"]}}],
}
BUFFERED["burstWorkloads"][0]["buffer"] = {"replicas": 1}


def test_names_follow_the_librarys_patterns(tmp_path: Path) -> None:
    # The reserver's and a buffer's names, whose pattern depends on the pool (the zone),
    # are the library's recipes (object_names.RESERVER_NAME, BUFFER_NAME), compiled:
    # test_helm_recipes.py holds them to the library's
    chart = _chart_deciding(tmp_path, {"names.prepuller": "{reserver}-pull"})

    rendered = _rendered(chart, BUFFERED)

    assert ("DaemonSet", "headroom-reserver-pull") in rendered
    assert ("CapacityBuffer", "api-buffer") in rendered


def test_which_model_tolerates_a_dedicated_taint_is_the_librarys(tmp_path: Path) -> None:
    chart = _chart_deciding(tmp_path, {"models.guarded.taintedPool": True})
    values = {
        "nodePool": {
            "name": "burst",
            "taints": [{"key": "headroom.cdk8s.io/burst", "value": "true"}],
        }
    }

    rendered = _rendered(chart, values)

    pod = rendered[("DaemonSet", "headroom-reserver-burst")]["spec"]["template"]["spec"]
    assert {
        "key": "headroom.cdk8s.io/burst",
        "operator": "Equal",
        "value": "true",
        "effect": "NoSchedule",
    } in pod["tolerations"]


@pytest.mark.parametrize(
    ("change", "kind", "name", "where", "expected"),
    [
        (
            {"components.reserver": "keeper"},
            "DaemonSet",
            "headroom-reserver",
            ("metadata", "labels", "app.kubernetes.io/component"),
            "keeper",
        ),
        ({"kinds.burst": "StatefulSet"}, "StatefulSet", "api", ("kind",), "StatefulSet"),
        (
            {"taskValues.custom": ["images.maintenance", []]},
            "DaemonSet",
            "headroom-reserver",
            ("spec", "template", "spec", "containers", 0, "image"),
            "public.ecr.aws/amazonlinux/amazonlinux:2",
        ),
    ],
    ids=["component", "kind", "task-image"],
)
def test_a_choice_in_the_data_is_the_charts_choice(
    tmp_path: Path,
    change: dict[str, Any],
    kind: str,
    name: str,
    where: tuple[Any, ...],
    expected: str,
) -> None:
    chart = _chart_deciding(tmp_path, change)

    found: Any = _rendered(chart, BUFFERED)[(kind, name)]
    for key in where:
        found = found[key]

    assert found == expected


def test_a_burst_containers_default_name_is_decided_once_for_values_and_their_read_back(
    monkeypatch: pytest.MonkeyPatch, chart_defaults: dict[str, Any]
) -> None:
    # GIVEN another default for the container's name
    monkeypatch.setattr(values_to_app, "default_container_name", lambda name: f"{name}-main")
    values = {"burstWorkloads": [API]}
    app = cdk8s.App()

    # WHEN the values build an app, and the app is read back into values
    values_to_app.build(app, values_to_app.merge_values(chart_defaults, values))
    (burst,) = values_from_app(app)["burstWorkloads"]

    # THEN both directions follow it: the container is api-main, read back as the default
    (deployment,) = [d for d in app.charts[-1].to_json() if d["kind"] == "Deployment"]
    assert deployment["spec"]["template"]["spec"]["containers"][0]["name"] == "api-main"
    assert burst["containerName"] is None


def test_the_readers_rules_are_the_cluster_reads_in_the_data(tmp_path: Path) -> None:
    # No template writes a resource of the rules plan and status need...
    resources = {resource for rule in reader_rules() for resource in rule["resources"]}
    for template, literals in _literals().items():
        assert literals & resources == set(), template
    # ...and a library whose reader needs other rules renders those
    other = [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["watch"]}]
    chart = _chart_deciding(tmp_path, {"rules": other}, data_file="files/reader.json")

    rendered = _rendered(chart, {"reader": {"create": True}})

    assert rendered[("ClusterRole", "headroom-reader")]["rules"] == other


def test_a_shares_names_selector_and_rounding_units_are_the_librarys(tmp_path: Path) -> None:
    # files/shares.json (share_rules, object_names.SIZED_RESERVER): a library that named
    # the sized reservers otherwise, selected the sizes by another label and held memory
    # in whole KiB would have the chart follow
    chart = _chart_deciding(
        tmp_path,
        {
            "reserver": "{reserver}-on-{type}",
            "typeLabel": "example.com/size",
            "suffix": ["[^a-z0-9]+", "x"],
            "units.memory": {"words": "memory", "suffix": "Ki", "power": 0, "divisor": 1024},
        },
        data_file="files/shares.json",
    )
    values = {
        "reservation": {
            "cpu": "10%",
            "memory": "10%",
            "nodeTypes": [{"name": "m5.large", "cpu": "1930m", "memory": "7Gi"}],
        }
    }

    pod = _rendered(chart, values)[("DaemonSet", "headroom-reserver-on-m5xlarge")]["spec"][
        "template"
    ]["spec"]

    assert pod["nodeSelector"] == {"example.com/size": "m5.large"}
    # 10% of 7Gi is 734003.2Ki
    assert pod["containers"][0]["resources"]["requests"] == {"cpu": "193m", "memory": "734003Ki"}
