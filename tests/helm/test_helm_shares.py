"""A slice given as a share of each node size, through the chart: what matters of it.

``reservation.cpu: "10%"`` with ``reservation.nodeTypes`` is ``NodeHeadroom(cpu="10%",
node_types=[...])`` (``vocabulary/node_share.py``). A DaemonSet's pods all ask the same,
so a share is one DaemonSet per node size, each limited to its size's nodes by a node
selector: Kubernetes' DaemonSet controller runs a daemon pod only on the nodes its
``nodeSelector`` and required node affinity match (``pkg/controller/daemon/
daemon_controller.go`` ``NodeShouldRunDaemonPod``, through component-helpers'
``nodeaffinity.GetRequiredNodeAffinity``). The parity tests compare every object with
the library's; these state the behaviour itself.
"""

from __future__ import annotations

import warnings
from typing import Any

import cdk8s
import helm_python as helm
import pytest

import cdk8s_headroom
from cdk8s_headroom.helm import Release, synthesize, values_from_app
from cdk8s_headroom.helm.value_checks import ValuesError
from cdk8s_headroom.vocabulary.node_share import NodeType, Share, share_of
from cdk8s_headroom.vocabulary.node_sizes import INSTANCE_TYPE_LABEL
from cdk8s_headroom.vocabulary.placement import NodeSelectorOperator, NodeSelectorRequirement
from scripts.helm_render import objects, render, without_helm_labels
from tests.helm.helm_error_cases import burst
from tests.helm.share_error_cases import NODE_TYPES, shares


def _daemon_sets(rendered: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects(rendered) if o["kind"] == "DaemonSet"}


def _requests(daemon_set: dict[str, Any]) -> dict[str, str]:
    requests: dict[str, str] = daemon_set["spec"]["template"]["spec"]["containers"][0]["resources"][
        "requests"
    ]
    return requests


def test_each_node_type_gets_a_reserver_that_selects_its_nodes_and_holds_its_share(
    chart: helm.Chart,
) -> None:
    # GIVEN 10% of CPU and memory of two node sizes, on a pool
    values = {**shares("10%", "10%"), "nodePool": {"name": "web"}}
    # WHEN the chart renders
    found = _daemon_sets(render(chart, values))
    # THEN one DaemonSet per size, named after it, on that size's nodes of the pool only
    assert set(found) == {"headroom-reserver-web-m5-large", "headroom-reserver-web-m5-xlarge"}
    small = found["headroom-reserver-web-m5-large"]
    assert small["spec"]["template"]["spec"]["nodeSelector"] == {
        "karpenter.sh/nodepool": "web",
        INSTANCE_TYPE_LABEL: "m5.large",
    }
    # AND each holds 10% of its size's allocatable, rounded down: 193m of 1930m, and
    # 716Mi of 7Gi (716.8Mi), requests equal to limits
    assert _requests(small) == {"cpu": "193m", "memory": "716Mi"}
    resources = small["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert resources["limits"] == resources["requests"]
    assert _requests(found["headroom-reserver-web-m5-xlarge"]) == {
        "cpu": "392m",
        "memory": "1433Mi",
    }


ROOMS = [
    ("1930m", "7Gi"),
    ("1", "1Gi"),
    ("1.0000005", "1e9"),  # a fraction of a millicore; decimal bytes
    (192, 824633720832),  # a whole number as --set passes it
    ("95690m", "7.5Ti"),
    ("3", "3000000001"),
]
SHARES = ["10%", "33.333%", "0.5%", "99.999%", "12.5%", "1%"]


@pytest.mark.parametrize("share", SHARES)
def test_a_share_is_rounded_down_exactly_as_the_library_rounds_it(
    chart: helm.Chart, share: str
) -> None:
    # node_share.share_of: floor(share x allocatable) in whole millicores and MiB, which
    # the chart computes in decimal digits, not in floats
    types = [
        {"name": f"size-{index}", "cpu": cpu, "memory": memory}
        for index, (cpu, memory) in enumerate(ROOMS)
    ]
    found = _daemon_sets(render(chart, shares(share, share, types)))
    judged = Share.parse(share, field="cpu")
    for item in types:
        node_type = NodeType(item["name"], cpu=str(item["cpu"]), memory=str(item["memory"]))
        expected = {
            "cpu": share_of(judged, node_type, field="cpu", memory=False).text,
            "memory": share_of(judged, node_type, field="memory", memory=True).text,
        }
        assert _requests(found[f"headroom-reserver-{item['name']}"]) == expected, item


def test_a_fixed_amount_beside_a_share_is_the_same_on_every_size(chart: helm.Chart) -> None:
    found = _daemon_sets(render(chart, shares("250m", "5%")))
    assert [_requests(d) for d in found.values()] == [
        {"cpu": "250m", "memory": "358Mi"},
        {"cpu": "250m", "memory": "716Mi"},
    ]


def test_the_pre_puller_follows_the_first_reserver_and_the_alerts_watch_every_size(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # NodeHeadroom.reserver is the first size's: the pre-puller is named after it (and
    # selects no size: it runs on every node of the headroom), and so are the alerts;
    # the alerts sum over every size's DaemonSet (alert_rules: a size with no node now is
    # no alarm), as the library writes them
    values = {
        **shares("10%", "10%"),
        "prepullBurstImages": True,
        "alerts": {"enabled": True},
        "burstWorkloads": [burst(resources={"requests": {"cpu": "100m", "memory": "128Mi"}})],
    }
    rendered = objects(render(chart, values))
    prepuller = next(o for o in rendered if o["metadata"]["name"].endswith("-prepull"))
    assert prepuller["metadata"]["name"] == "headroom-reserver-m5-large-prepull"
    assert "nodeSelector" not in prepuller["spec"]["template"]["spec"]
    (alerts,) = [o for o in rendered if o["kind"] == "PrometheusRule"]
    assert alerts["metadata"]["name"] == "headroom-reserver-m5-large-alerts"
    exprs = {r["alert"]: r["expr"] for r in alerts["spec"]["groups"][0]["rules"]}
    sizes = 'daemonset=~"headroom-reserver-m5-large|headroom-reserver-m5-xlarge"'
    assert exprs["HeadroomNoTargetNodes"].startswith(
        f'sum(kube_daemonset_status_desired_number_scheduled{{namespace="node-headroom",{sizes}}})'
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mirrored = synthesize(values, Release(), chart_defaults=chart_defaults)
    (expected,) = [o for o in mirrored if o["kind"] == "PrometheusRule"]
    assert without_helm_labels(alerts)["spec"] == expected["spec"]


def test_a_burst_pod_must_fit_the_smallest_sizes_slice(chart: helm.Chart) -> None:
    # 193m is m5.large's 10%, m5.xlarge holds 392m: the pod may land on either size
    fits = {**shares("10%", "10%"), "burstWorkloads": [burst(resources={"requests": {
        "cpu": "193m", "memory": "716Mi"}})]}  # fmt: skip
    assert render(chart, fits)
    over = {**shares("10%", "10%"), "burstWorkloads": [burst(resources={"requests": {
        "cpu": "194m", "memory": "716Mi"}})]}  # fmt: skip
    with pytest.raises(helm.HelmError, match=r"headroom slice \(193m CPU, 716Mi memory\)"):
        render(chart, over)


def test_notes_name_each_reserver_and_its_node_type(chart: helm.Chart) -> None:
    notes = render(chart, shares("10%", "10%"))["node-headroom/templates/NOTES.txt"]
    assert (
        "  - DaemonSet headroom-reserver-m5-large: holds 193m CPU, 716Mi memory on every "
        "m5.large node (no node pool: every node)" in notes
    )
    assert "-l app=headroom-reserver-m5-xlarge --field-selector=status.phase=Pending" in notes


def _share_app() -> cdk8s.App:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "headroom")
    sizes = [NodeType(t["name"], cpu=t["cpu"], memory=t["memory"]) for t in NODE_TYPES]
    cdk8s_headroom.NodeHeadroom(chart, "headroom", cpu="10%", memory="512Mi", node_types=sizes)
    return app


def test_an_app_with_a_share_of_declared_node_types_reads_back_and_renders_alike(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # GIVEN an app whose slice is a share of declared node types (and a fixed memory)
    app = _share_app()
    # WHEN it is read back into values
    values = values_from_app(app)
    assert values["reservation"] == {
        "cpu": "10%",
        "memory": "512Mi",
        "extendedResources": {},
        "nodeTypes": NODE_TYPES,
        "schedule": None,
        "scheduledNodes": None,
    }
    assert values["reserverName"] is None
    # THEN the chart renders the app's reservers (in the app's namespace, the README's
    # rule), and the mirror agrees
    documents = [d for c in app.charts for d in c.to_json()]
    rendered = [without_helm_labels(o) for o in objects(render(chart, values, namespace="default"))]
    reservers = {o["metadata"]["name"]: o for o in rendered if o["kind"] == "DaemonSet"}
    assert {d["metadata"]["name"]: d for d in documents if d["kind"] == "DaemonSet"} == reservers
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mirrored = synthesize(values, Release(namespace="default"), chart_defaults=chart_defaults)
    assert {o["metadata"]["name"] for o in mirrored if o["kind"] == "DaemonSet"} == set(reservers)


def test_an_app_whose_sizes_are_a_karpenter_pools_instance_types_is_refused() -> None:
    # The chart reads no pool's instance types: the values must declare the sizes
    listed = NodeSelectorRequirement(
        INSTANCE_TYPE_LABEL, NodeSelectorOperator.IN, ["m5.large", "m5.xlarge"]
    )
    pool = cdk8s_headroom.KarpenterNodePool.from_name("web", requirements=[listed])
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "headroom")
    cdk8s_headroom.NodeHeadroom(chart, "headroom", cpu="10%", memory="10%", node_pool=pool)
    with pytest.raises(ValuesError, match="declared as NodeType s: the chart reads no pool's"):
        values_from_app(app)
