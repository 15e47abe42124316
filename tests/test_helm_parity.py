"""The chart renders, through the Helm library, what the library synthesizes.

Objects are compared whole, field by field, after one normalization: the chart adds
Helm's labels (helm.sh/chart, app.kubernetes.io/managed-by, app.kubernetes.io/instance)
to every object's metadata, and those three keys are removed before comparing.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import helm_python as helm
import pytest
import yaml

from cdk8s_headroom.helm import Release, merge_values, synthesize
from cdk8s_headroom.output import load_manifests
from scripts.helm_render import CHART, HELM_LABELS, load, objects, render, without_helm_labels
from tests.conftest import ROOT, find, pod_spec
from tests.helm_cases import API, PARITY_CASES

Key = tuple[str, str, str]


def key(document: dict[str, Any]) -> Key:
    metadata = document["metadata"]
    return (document["kind"], metadata.get("namespace", ""), metadata["name"])


def by_key(documents: list[dict[str, Any]]) -> dict[Key, dict[str, Any]]:
    keyed = {key(document): document for document in documents}
    assert len(keyed) == len(documents), "two objects share a kind, namespace and name"
    return keyed


@pytest.fixture(scope="module")
def chart() -> helm.Chart:
    return load()


@pytest.fixture(scope="module")
def chart_defaults() -> dict[str, Any]:
    defaults: dict[str, Any] = yaml.safe_load((CHART / "values.yaml").read_text())
    return defaults


def helm_objects(
    chart: helm.Chart, overrides: dict[str, Any], release: str = "node-headroom"
) -> dict[Key, dict[str, Any]]:
    rendered = objects(render(chart, overrides, release=release))
    for document in rendered:
        labels = document["metadata"]["labels"]
        assert labels["app.kubernetes.io/instance"] == release
        assert labels["app.kubernetes.io/managed-by"] == "Helm"
    return by_key([without_helm_labels(document) for document in rendered])


def library_objects(
    overrides: dict[str, Any], chart_defaults: dict[str, Any], release: str = "node-headroom"
) -> dict[Key, dict[str, Any]]:
    with warnings.catch_warnings():
        # SEED warns that it breaks P2 and P3; the chart says so in NOTES.txt.
        warnings.simplefilter("ignore")
        return by_key(synthesize(overrides, Release(release), chart_defaults=chart_defaults))


def test_default_values_render_exactly_the_objects_of_dist(chart: helm.Chart) -> None:
    dist = by_key([document for _, document in load_manifests(ROOT / "dist")])
    assert helm_objects(chart, {}) == dist


@pytest.mark.parametrize(
    ("release", "overrides"),
    [(release, overrides) for _, release, overrides in PARITY_CASES],
    ids=[case_id for case_id, _, _ in PARITY_CASES],
)
def test_values_render_what_the_library_synthesizes_with_the_same_props(
    chart: helm.Chart, chart_defaults: dict[str, Any], release: str, overrides: dict[str, Any]
) -> None:
    rendered = helm_objects(chart, overrides, release)
    synthesized = library_objects(overrides, chart_defaults, release)
    assert sorted(rendered) == sorted(synthesized)
    for object_key, document in synthesized.items():
        assert rendered[object_key] == document, object_key


def test_the_value_sets_exercise_what_they_claim(chart: helm.Chart) -> None:
    # GIVEN the prepull case WHEN rendered THEN the reserver pulls its task's images once
    # each, the pre-puller the bursts' images (never the reserver), and both bursts with
    # their HPA and replicas exist.
    cases = {case_id: overrides for case_id, _, overrides in PARITY_CASES}
    overrides = cases["prepull-with-burst-images-and-mirror"]
    documents = list(helm_objects(chart, overrides).values())
    reserver = pod_spec(find(documents, "DaemonSet", "headroom-reserver"))
    assert [c["image"] for c in reserver["initContainers"]] == [
        "busybox:1.36",
        "ghcr.io/acme/api:1.2",
    ]
    assert reserver["containers"][0]["image"] == "mirror.example.com/pause:3.10"
    prepuller = pod_spec(find(documents, "DaemonSet", "headroom-reserver-prepull"))
    assert [c["image"] for c in prepuller["initContainers"][1:]] == [
        "ghcr.io/acme/api:1.2",
        "ghcr.io/acme/worker:3",
    ]
    assert find(documents, "HorizontalPodAutoscaler", "api")["spec"]["maxReplicas"] == 6
    assert "replicas" not in find(documents, "Deployment", "api")["spec"]
    assert find(documents, "Deployment", "worker")["spec"]["replicas"] == 0


def without_nulls(item: Any) -> Any:
    if isinstance(item, dict):
        return {k: without_nulls(v) for k, v in item.items() if v is not None}
    if isinstance(item, list):
        return [without_nulls(v) for v in item]
    return item


def test_helm_merges_values_as_the_mapping_does(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # Helm drops null defaults where the mapping keeps them; both read them as unset.
    overrides = {
        "reservation": {"cpu": "1"},
        "namespace": {"name": None},
        "burstWorkloads": [API],
        "priorityClasses": {"headroom": {"value": -5}},
    }
    assert without_nulls(chart.merge_values(overrides)) == without_nulls(
        merge_values(chart_defaults, overrides)
    )


def names(chart: helm.Chart, release: str, overrides: dict[str, Any]) -> set[Key]:
    return set(helm_objects(chart, overrides, release))


def test_two_releases_collide_on_nothing_but_the_priority_classes(chart: helm.Chart) -> None:
    # GIVEN two releases of the default values WHEN both are rendered
    first = names(chart, "web", {})
    second = names(chart, "batch", {})
    # THEN only the cluster-scoped PriorityClasses share names
    assert {kind for kind, _, _ in first & second} == {"PriorityClass"}
    assert ("DaemonSet", "web-node-headroom", "web-headroom-reserver") in first
    assert ("Namespace", "", "batch-node-headroom") in second
    # AND the second release can leave them to the first one
    third = names(chart, "batch", {"priorityClasses": {"create": False}})
    assert first.isdisjoint(third)
    assert not any(kind == "PriorityClass" for kind, _, _ in third)


def test_the_release_named_node_headroom_keeps_the_library_names(chart: helm.Chart) -> None:
    assert ("DaemonSet", "node-headroom", "headroom-reserver") in names(chart, "node-headroom", {})
    assert ("Deployment", "node-headroom", "demo-burst") in names(chart, "node-headroom", {})


def test_the_prefix_leaves_container_names_alone(chart: helm.Chart) -> None:
    documents = list(helm_objects(chart, {"burstWorkloads": [API]}, "web").values())
    deployment = find(documents, "Deployment", "web-api")
    assert pod_spec(deployment)["containers"][0]["name"] == "api"
    assert deployment["spec"]["selector"]["matchLabels"] == {"app": "web-api"}


def test_only_helm_labels_are_normalized() -> None:
    assert HELM_LABELS == (
        "helm.sh/chart",
        "app.kubernetes.io/managed-by",
        "app.kubernetes.io/instance",
    )


def test_notes_summarize_the_slice_and_the_pending_reservers(chart: helm.Chart) -> None:
    notes = render(chart, {})["node-headroom/templates/NOTES.txt"]
    assert "holds 500m CPU, 512Mi memory" in notes
    assert "--field-selector=status.phase=Pending" in notes
    assert "WARNING" not in notes


def test_notes_warn_that_seed_breaks_p2_and_p3(chart: helm.Chart) -> None:
    notes = render(chart, {"model": "seed"})["node-headroom/templates/NOTES.txt"]
    assert "WARNING: PriorityModel.SEED breaks P2 and P3" in notes


def test_the_packaged_chart_renders_like_the_folder(tmp_path: Path, chart: helm.Chart) -> None:
    from cdk8s_headroom.helm import package_chart

    archive = package_chart(CHART, tmp_path)
    with helm.Chart.load(archive) as packed:
        assert render(packed, {}) == render(chart, {})
