"""The reader: the ClusterRole that plan and status need to read the cluster, which the
chart renders on request (``reader.create``), with the rules the cluster read declares
(``reader_rules``), and a ClusterRoleBinding for the subjects it is given."""

from __future__ import annotations

import warnings
from typing import Any

import helm_python as helm
import pytest

from cdk8s_headroom.cluster.live_listing import reader_rules
from cdk8s_headroom.helm import Release, synthesize
from cdk8s_headroom.simulate.manifests import manifests_from_objects
from scripts.helm_render import objects, render, without_helm_labels
from scripts.validation import kubernetes_versions, schema_errors

RBAC = "rbac.authorization.k8s.io"
SUBJECTS = [
    {"kind": "Group", "name": "platform-team"},
    {"kind": "User", "name": "jane@example.com"},
    {"kind": "ServiceAccount", "name": "headroom-status"},
    {"kind": "ServiceAccount", "name": "ci-runner", "namespace": "ci"},
]


def rbac_objects(
    chart: helm.Chart, values: dict[str, Any], release: str = "node-headroom"
) -> dict[str, dict[str, Any]]:
    """The rendered ClusterRoles and ClusterRoleBindings by kind, without Helm's labels."""
    rendered = objects(render(chart, values, release=release, namespace=release))
    found = [without_helm_labels(d) for d in rendered if d["kind"].startswith("ClusterRole")]
    by_kind = {document["kind"]: document for document in found}
    assert len(by_kind) == len(found), "two objects of one kind"
    return by_kind


def library_rbac_objects(
    values: dict[str, Any], chart_defaults: dict[str, Any], release: str = "node-headroom"
) -> dict[str, dict[str, Any]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        documents = synthesize(values, Release(release, release), chart_defaults=chart_defaults)
    return {d["kind"]: d for d in documents if d["kind"].startswith("ClusterRole")}


def test_the_default_values_render_no_reader(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # GIVEN the defaults, where the reader is off
    assert chart_defaults["reader"] == {"create": False, "name": None, "subjects": []}
    # THEN no ClusterRole and no binding, and NOTES name none
    assert rbac_objects(chart, {}) == {}
    assert "ClusterRole" not in render(chart, {})["node-headroom/templates/NOTES.txt"]


def test_subjects_without_create_render_nothing(chart: helm.Chart) -> None:
    # reader.create is the switch: subjects alone bind nothing (as alerts.* without
    # alerts.enabled)
    assert rbac_objects(chart, {"reader": {"subjects": SUBJECTS}}) == {}


def test_create_renders_a_clusterrole_with_the_rules_of_the_cluster_read(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # WHEN reader.create is true
    rendered = rbac_objects(chart, {"reader": {"create": True}})
    # THEN a ClusterRole whose rules are those plan and status need, and no binding
    assert set(rendered) == {"ClusterRole"}
    role = rendered["ClusterRole"]
    assert role["apiVersion"] == f"{RBAC}/v1"
    assert role["rules"] == reader_rules()
    # named as docs/plan-status.md names it, for the release named as the chart
    assert role["metadata"]["name"] == "headroom-reader"
    # AND the library builds the same
    assert rendered == library_rbac_objects({"reader": {"create": True}}, chart_defaults)


@pytest.mark.parametrize(
    ("release", "values", "name"),
    [
        ("web", {}, "web-headroom-reader"),
        ("web", {"namePrefix": "team-"}, "team-headroom-reader"),
        ("web", {"reader": {"name": "plan-and-status"}}, "plan-and-status"),
    ],
    ids=["release-prefix", "name-prefix", "given-name"],
)
def test_the_clusterrole_is_named_as_the_charts_other_names(
    chart: helm.Chart, release: str, values: dict[str, Any], name: str
) -> None:
    overrides = {**values, "reader": {"create": True, **values.get("reader", {})}}
    rendered = rbac_objects(chart, overrides, release)
    assert rendered["ClusterRole"]["metadata"]["name"] == name


def test_subjects_render_a_binding_to_the_clusterrole(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # GIVEN a group, a user and two service accounts, one in the workloads' namespace
    values = {"namespace": {"name": "headroom"}, "reader": {"create": True, "subjects": SUBJECTS}}
    # WHEN rendered for the release web
    rendered = rbac_objects(chart, values, "web")
    # THEN a ClusterRoleBinding of the ClusterRole's name grants it to each subject,
    # with the apiGroup of its kind, and a service account's namespace
    binding = rendered["ClusterRoleBinding"]
    assert binding["metadata"]["name"] == "web-headroom-reader"
    assert binding["roleRef"] == {"apiGroup": RBAC, "kind": "ClusterRole",
                                  "name": "web-headroom-reader"}  # fmt: skip
    assert binding["subjects"] == [
        {"apiGroup": RBAC, "kind": "Group", "name": "platform-team"},
        {"apiGroup": RBAC, "kind": "User", "name": "jane@example.com"},
        {"kind": "ServiceAccount", "name": "headroom-status", "namespace": "headroom"},
        {"kind": "ServiceAccount", "name": "ci-runner", "namespace": "ci"},
    ]
    # AND the library builds the same
    assert rendered == library_rbac_objects(values, chart_defaults, "web")
    # AND NOTES say who may read
    notes = render(chart, values, release="web")["node-headroom/templates/NOTES.txt"]
    assert "the ClusterRoleBinding web-headroom-reader grants it to:" in notes
    assert "  - ServiceAccount ci/ci-runner" in notes


def test_the_reader_passes_the_strict_schemas_of_each_release(chart: helm.Chart) -> None:
    rendered = rbac_objects(chart, {"reader": {"create": True, "subjects": SUBJECTS}})
    assert sorted(rendered) == ["ClusterRole", "ClusterRoleBinding"]
    failures = {
        (kind, version): errors
        for kind, document in rendered.items()
        for version in kubernetes_versions()
        if (errors := schema_errors(document, version))
    }
    assert failures == {}


def test_plan_reads_the_charts_output_with_the_reader_as_not_simulated(chart: helm.Chart) -> None:
    # GIVEN `helm template` with the reader, given to plan or simulate as its manifests
    rendered = objects(render(chart, {"reader": {"create": True, "subjects": SUBJECTS}}))
    # WHEN read THEN the role and its binding change no scheduling: reported, not refused,
    # and named as cluster-scoped objects
    manifests = manifests_from_objects([("rendered.yaml", rendered)])
    assert [line for line in manifests.not_simulated if "ClusterRole" in line] == [
        "ClusterRole headroom-reader: no effect on scheduling",
        "ClusterRoleBinding headroom-reader: no effect on scheduling",
    ]
