"""Reading scenarios, cluster files and manifests: values, defaults and clear errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cdk8s_headroom import HeadroomConfigError
from cdk8s_headroom.simulate import (
    ClassRegistry,
    Resources,
    UnsupportedInputError,
    load_cluster,
    load_scenario,
    manifests_from_objects,
    parse_bursts,
    read_cluster,
)
from cdk8s_headroom.simulate.fields import Reader
from cdk8s_headroom.simulate.manifests import read_manifests
from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy

NODE = {"name": "n", "allocatable": {"cpu": "4", "memory": "16Gi"}}


def _deployment(spec: dict[str, Any], name: str = "burst") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "apps"},
        "spec": {"replicas": 2, "selector": {}, "template": {"metadata": {}, "spec": spec}},
    }


def _container(resources: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": "c", "image": "busybox", "resources": resources, **extra}


def _requests_of(spec: dict[str, Any]) -> Resources:
    manifests = manifests_from_objects([("app.k8s.yaml", [_deployment(spec)])])
    return manifests.deployments[0].template.requests


# Cluster file


def test_a_bad_quantity_names_the_file_and_the_path() -> None:
    data = {
        "nodes": [
            NODE,
            NODE | {"name": "m"},
            {"name": "x", "allocatable": {"cpu": "lots", "memory": "1Gi"}},
        ]
    }

    with pytest.raises(HeadroomConfigError) as error:
        load_cluster(data, source="cluster.yaml")

    assert str(error.value).startswith(
        "cluster.yaml: nodes[2].allocatable.cpu: invalid value 'lots'"
    )
    assert "Kubernetes quantity" in str(error.value)


def test_a_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text("nodes:\n  - name: n\n    allocatable: {cpu: 1\n")

    with pytest.raises(HeadroomConfigError, match=r"cluster\.yaml: line \d+"):
        read_cluster(path)


def test_unknown_cluster_fields_are_listed_not_ignored() -> None:
    data = {
        "nodes": [NODE | {"unschedulable": True}],
        "pods": [{"name": "p", "nodeName": "n", "tolerations": []}],
    }

    with pytest.raises(UnsupportedInputError) as error:
        load_cluster(data, source="cluster.yaml")

    assert "nodes[0].unschedulable" in str(error.value)
    assert "pods[0].tolerations" in str(error.value)


def test_a_pod_on_an_unknown_node_is_an_error_naming_the_path() -> None:
    with pytest.raises(HeadroomConfigError, match=r"pods\[0\]\.nodeName: invalid value 'm'"):
        load_cluster({"nodes": [NODE], "pods": [{"name": "p", "nodeName": "m"}]})


def test_counts_expand_nodes_and_pods_and_nodes_get_their_hostname_label() -> None:
    data = {
        "nodes": [NODE | {"count": 2}],
        "pods": [{"name": "web", "count": 3, "nodeName": "n-2", "requests": {"cpu": "250m"}}],
    }

    cluster = load_cluster(data)

    assert [n.name for n in cluster.nodes] == ["n-1", "n-2"]
    assert cluster.nodes[1].labels["kubernetes.io/hostname"] == "n-2"
    assert cluster.nodes[0].max_pods == 110
    assert [p.name for p in cluster.pods] == ["web-1", "web-2", "web-3"]
    assert cluster.pods[0].requests == Resources(250, 0)


def test_pods_without_start_time_are_older_the_earlier_they_are_listed() -> None:
    data = {
        "nodes": [NODE],
        "pods": [{"name": "a", "nodeName": "n"}, {"name": "b", "nodeName": "n"}],
    }

    first, second = load_cluster(data).pods

    assert first.start_time < second.start_time


def test_an_unknown_priority_class_names_the_path_and_the_known_classes() -> None:
    cluster = load_cluster(
        {"nodes": [NODE], "pods": [{"name": "p", "nodeName": "n", "priorityClassName": "gold"}]},
        source="c.yaml",
    )

    with pytest.raises(HeadroomConfigError) as error:
        cluster.pods[0].to_pod(ClassRegistry())

    assert "c.yaml: pods[0].priorityClassName: invalid value 'gold'" in str(error.value)
    assert "system-node-critical" in str(error.value)


def test_a_pod_priority_can_be_given_without_a_class() -> None:
    cluster = load_cluster(
        {
            "nodes": [NODE],
            "pods": [{"name": "p", "nodeName": "n", "priority": 7, "preemptionPolicy": "Never"}],
        }
    )

    pod = cluster.pods[0].to_pod(ClassRegistry())

    assert (pod.priority, pod.preemption_policy) == (7, PreemptionPolicy.NEVER)


# Manifests


def test_pod_requests_take_the_larger_of_the_containers_sum_and_each_init_container() -> None:
    spec = {
        "containers": [_container({"requests": {"cpu": "100m", "memory": "1Mi"}})] * 2,
        "initContainers": [_container({"requests": {"cpu": "300m"}})],
    }

    assert _requests_of(spec) == Resources(300, 2 * 2**20)


def test_restartable_init_containers_add_to_the_containers_and_to_later_init_containers() -> None:
    sidecar = _container({"requests": {"cpu": "100m"}}, restartPolicy="Always")
    spec = {
        "containers": [_container({"requests": {"cpu": "100m"}})],
        "initContainers": [sidecar, _container({"requests": {"cpu": "250m"}})],
    }

    assert _requests_of(spec).cpu == 350


def test_limits_stand_in_for_missing_requests_and_overhead_is_added() -> None:
    spec = {
        "containers": [
            _container({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}})
        ],
        "overhead": {"cpu": "10m"},
    }

    assert _requests_of(spec) == Resources(510, 2**30)


def test_pod_level_resources_replace_the_containers_sum_for_what_they_name() -> None:
    """``PodRequests`` of ``k8s.io/component-helpers/resource/helpers.go`` (pod-level
    resources, beta and on from 1.34): a pod-level request replaces that resource's
    aggregate, a pod-level limit stands in for a missing request, overhead is added."""
    spec = {
        "containers": [_container({"requests": {"cpu": "100m", "memory": "1Mi"}})],
        "resources": {"requests": {"cpu": "400m"}, "limits": {"memory": "8Mi"}},
        "overhead": {"cpu": "10m"},
    }

    assert _requests_of(spec) == Resources(410, 8 * 2**20)


def test_template_fields_that_change_scheduling_are_all_listed_as_unsupported() -> None:
    spec = {
        "containers": [
            _container(
                {"requests": {"cpu": "1", "hugepages-2Mi": "2Mi"}},
                ports=[{"containerPort": 80, "hostPort": 80}],
            )
        ],
        "affinity": {"podAntiAffinity": {}},
        "topologySpreadConstraints": [],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}],
        "schedulerName": "other",
    }

    with pytest.raises(UnsupportedInputError) as error:
        manifests_from_objects([("app.k8s.yaml", [_deployment(spec)])], source="dist")

    message = str(error.value)
    for path in (
        "spec.template.spec.affinity.podAntiAffinity",
        "spec.template.spec.topologySpreadConstraints",
        "containers[0].resources.requests.hugepages-2Mi",
        "containers[0].ports[0].hostPort",
        "volumes[0].persistentVolumeClaim",
        "schedulerName: another scheduler",
    ):
        assert path in message
    assert message.startswith("dist: not supported by the simulator")


def test_kinds_without_scheduling_effect_are_reported_and_other_kinds_refused() -> None:
    hpa = {"kind": "HorizontalPodAutoscaler", "metadata": {"name": "burst", "namespace": "apps"}}
    namespace = {"kind": "Namespace", "metadata": {"name": "apps"}}

    manifests = manifests_from_objects([("a.k8s.yaml", [hpa, namespace])])

    assert manifests.not_simulated == [
        "HorizontalPodAutoscaler apps/burst: scaling not simulated: its Deployment's pods "
        "arrive as many times as it keeps (minReplicas, when above the replicas); --burst "
        "sets how many arrive",
        "Namespace apps: no effect on scheduling",
    ]
    with pytest.raises(UnsupportedInputError, match="StatefulSet apps/db: a kind"):
        manifests_from_objects(
            [
                (
                    "a.k8s.yaml",
                    [{"kind": "StatefulSet", "metadata": {"name": "db", "namespace": "apps"}}],
                )
            ]
        )


def test_a_global_default_class_applies_to_pods_without_a_class() -> None:
    default = {
        "kind": "PriorityClass",
        "metadata": {"name": "quiet"},
        "value": 5,
        "preemptionPolicy": "Never",
        "globalDefault": True,
    }
    manifests = manifests_from_objects([("a.k8s.yaml", [default])])
    registry = ClassRegistry()

    assert (registry.default.value, registry.default.preemption_policy.value) == (
        0,
        "PreemptLowerPriority",
    )
    registry.update(manifests.classes)
    assert (registry.default.name, registry.default.value) == ("quiet", 5)


def test_burst_counts_must_name_a_deployment_of_the_manifests() -> None:
    deployment = _deployment({"containers": [_container({})]})
    manifests = manifests_from_objects([("a.k8s.yaml", [deployment])])

    assert parse_bursts(["burst=6"], manifests) == {"burst": 6}
    with pytest.raises(HeadroomConfigError, match=r"--burst: invalid value 'other=2'.*\(burst\)"):
        parse_bursts(["other=2"], manifests)


# Scenario format


def test_a_scenario_refuses_fields_it_does_not_model() -> None:
    scenario = {
        "nodes": [{"name": "n"}],
        "pods": [{"name": "a", "node": "n", "nominated_node_name": "n"}],
        "preemptor": {"name": "p", "topology_spread_constraints": []},
    }

    with pytest.raises(UnsupportedInputError) as error:
        load_scenario(scenario, source="s.json")

    assert "preemptor.topology_spread_constraints" in str(error.value)
    assert "pods[0].nominated_node_name" in str(error.value)


def test_a_bad_start_time_names_its_path() -> None:
    scenario = {
        "nodes": [{"name": "n", "allocatable": {"cpu": "1"}}],
        "pods": [{"name": "a", "node": "n", "start_time": "yesterday"}],
        "preemptor": {"name": "p"},
    }

    with pytest.raises(
        HeadroomConfigError, match=r"s\.json: pods\[0\]\.start_time: invalid value 'yesterday'"
    ):
        load_scenario(scenario, source="s.json")


def test_start_times_keep_nanoseconds_and_offsets() -> None:
    reader = Reader("t", "")

    assert reader.root("1970-01-01T00:00:00.000000002Z").time_or_none() == 2
    assert reader.root("1970-01-01T01:00:00+01:00").time_or_none() == 0


def test_scenario_nodes_default_to_the_kubelets_pod_limit_and_zero_resources() -> None:
    scenario = load_scenario({"nodes": [{"name": "n"}], "preemptor": {"name": "p"}})

    node = scenario.state.nodes[0].node
    assert (node.max_pods, node.allocatable) == (110, Resources())


def test_pods_that_overfill_their_node_are_an_error() -> None:
    data = {
        "nodes": [NODE],
        "pods": [{"name": "p", "count": 9, "nodeName": "n", "requests": {"cpu": "500m"}}],
    }

    with pytest.raises(
        HeadroomConfigError,
        match=r"c\.yaml: pods: invalid value 'n'; .*9 pods on n request 4500m cpu",
    ):
        load_cluster(data, source="c.yaml")


def test_a_list_of_scenarios_is_refused_with_a_short_value_and_a_hint() -> None:
    vectors = [{"name": f"vector {i}", "nodes": [], "preemptor": {"name": "p"}} for i in range(5)]

    with pytest.raises(HeadroomConfigError) as error:
        load_scenario(vectors, source="vectors.json")

    assert str(error.value).startswith(
        "vectors.json: invalid value <a list of 5 items>; one scenario object"
    )


def test_counts_beyond_the_largest_cluster_kubernetes_supports_are_refused() -> None:
    # Expanding them would only exhaust memory: a billion nodes is a typo, not a cluster.
    nodes = [{**NODE, "count": 10**9}]
    with pytest.raises(HeadroomConfigError, match=r"nodes\[0\]\.count: .* within 5000 nodes"):
        load_cluster({"nodes": nodes}, source="c.yaml")
    pods = [{"name": "p", "nodeName": "n", "count": 100_000}] * 2
    with pytest.raises(HeadroomConfigError, match=r"pods\[1\]\.count: .* within 150000 pods"):
        load_cluster({"nodes": [NODE], "pods": pods}, source="c.yaml")


# Objects read twice (docs/plan-status.md, "Objects read twice")


def test_a_cluster_file_naming_one_pod_twice_is_refused_naming_both_entries() -> None:
    pod = {"name": "web", "namespace": "shop", "nodeName": "n", "requests": {"cpu": "1"}}

    with pytest.raises(HeadroomConfigError) as raised:
        load_cluster({"nodes": [NODE], "pods": [pod, dict(pod)]}, source="cluster.yaml")

    assert raised.value.field == "cluster.yaml: pods[1].name"
    assert raised.value.allowed == "a pod name used once per namespace: pods[0] names shop/web too"


def test_a_cluster_file_pod_named_like_another_entrys_count_suffix_is_refused() -> None:
    pods = [
        {"name": "web", "count": 2, "nodeName": "n", "requests": {"cpu": "1"}},
        {"name": "web-2", "nodeName": "n", "requests": {"cpu": "1"}},
    ]

    with pytest.raises(HeadroomConfigError, match=r"pods\[0\] names default/web-2 too"):
        load_cluster({"nodes": [NODE], "pods": pods}, source="cluster.yaml")


_SCENARIO_NODE = {"name": "n1", "allocatable": {"cpu": "1", "memory": "1Gi"}}
_PREEMPTOR = {"name": "p", "priority": 10, "requests": {"cpu": "500m"}}


def test_a_scenario_naming_one_node_twice_is_refused_naming_both_entries() -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        load_scenario(
            {"nodes": [_SCENARIO_NODE, dict(_SCENARIO_NODE)], "preemptor": _PREEMPTOR},
            source="s.json",
        )

    assert raised.value.field == "s.json: nodes[1].name"
    assert raised.value.allowed == "a node name: nodes[0] names 'n1' too"


def test_a_scenario_naming_one_pod_twice_is_refused_instead_of_evicting_it_twice() -> None:
    pod = {"name": "p1", "namespace": "a", "node": "n1", "requests": {"cpu": "500m"}}

    with pytest.raises(HeadroomConfigError) as raised:
        load_scenario(
            {"nodes": [_SCENARIO_NODE], "pods": [pod, dict(pod)], "preemptor": _PREEMPTOR},
            source="s.json",
        )

    assert raised.value.field == "s.json: pods[1].name"
    assert raised.value.allowed == "a pod name used once per namespace: pods[0] names 'a/p1' too"


def test_the_same_manifest_in_two_files_is_counted_once_with_a_warning_naming_both() -> None:
    deployment = _deployment({"containers": [_container({"requests": {"cpu": "1"}})]})

    manifests = manifests_from_objects(
        [("app.k8s.yaml", [deployment]), ("copy/app.k8s.yaml", [dict(deployment)])]
    )

    assert len(manifests.deployments) == 1
    assert manifests.warnings == [
        "Deployment apps/burst read twice, from app.k8s.yaml and copy/app.k8s.yaml: the same "
        "object, counted once"
    ]


def test_two_different_manifests_of_one_name_are_refused_naming_both_files() -> None:
    first = _deployment({"containers": [_container({"requests": {"cpu": "1"}})]})
    second = _deployment({"containers": [_container({"requests": {"cpu": "2"}})]})

    with pytest.raises(HeadroomConfigError) as raised:
        manifests_from_objects([("a.yaml", [first]), ("b.yaml", [second])])

    assert raised.value.field == "b.yaml: [0].metadata.name"
    assert raised.value.allowed == (
        "one Deployment of this name: a.yaml holds a different Deployment apps/burst; "
        "keep one of them"
    )


def test_a_manifests_folder_with_a_copy_of_a_file_plans_each_object_once(
    tmp_path: Path,
) -> None:
    root = Path(__file__).resolve().parents[2]
    dist = tmp_path / "dist"
    dist.mkdir()
    files = sorted((root / "dist").glob("*.yaml"))
    for file in files:
        (dist / file.name).write_bytes(file.read_bytes())
    (dist / "copy").mkdir()
    (dist / "copy" / files[0].name).write_bytes(files[0].read_bytes())

    once = read_manifests(root / "dist")
    twice = read_manifests(dist)

    assert len(twice.daemonsets) == len(once.daemonsets) >= 1
    assert len(twice.classes) == len(once.classes)
    assert twice.warnings and all("read twice" in warning for warning in twice.warnings)


def _autoscaler(target: str, min_replicas: int | None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
        "maxReplicas": 6,
    }
    if min_replicas is not None:
        spec["minReplicas"] = min_replicas
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": target, "namespace": "apps"},
        "spec": spec,
    }


@pytest.mark.parametrize(
    ("replicas", "min_replicas", "arrivals"),
    [(None, 2, 2), (3, 2, 3), (None, None, 1), (0, 2, 0)],
    ids=["unset-below-min", "above-min", "min-defaults-to-1", "zero-disables-the-hpa"],
)
def test_a_deployment_an_hpa_scales_arrives_as_many_times_as_the_hpa_keeps(
    replicas: int | None, min_replicas: int | None, arrivals: int
) -> None:
    # max(replicas, minReplicas); a Deployment at 0 replicas has scaling disabled
    # (kubernetes pkg/controller/podautoscaler/horizontal.go).
    deployment = _deployment({"containers": [_container({"requests": {"cpu": "1"}})]})
    if replicas is None:
        del deployment["spec"]["replicas"]
    else:
        deployment["spec"]["replicas"] = replicas

    manifests = manifests_from_objects(
        [("hpa.k8s.yaml", [_autoscaler("burst", min_replicas)]), ("app.k8s.yaml", [deployment])]
    )

    assert [w.replicas for w in manifests.deployments] == [arrivals]


def test_an_hpa_of_another_deployment_changes_no_arrivals() -> None:
    deployment = _deployment({"containers": [_container({"requests": {"cpu": "1"}})]})
    del deployment["spec"]["replicas"]

    manifests = manifests_from_objects([("a.k8s.yaml", [deployment, _autoscaler("other", 4)])])

    assert [w.replicas for w in manifests.deployments] == [1]


LOOK_ALIKE = "n\u043ede-1"  # a Cyrillic o: it prints as node-1


def test_a_look_alike_node_name_is_escaped_where_a_message_quotes_it() -> None:
    # GIVEN a scenario that names a node with a Cyrillic o twice
    node = {"name": LOOK_ALIKE, "allocatable": {"cpu": "4", "memory": "16Gi"}}
    scenario = {"nodes": [node, node], "preemptor": {"name": "p"}}
    # THEN the message shows the letter's code point, here and where it cites the first
    with pytest.raises(HeadroomConfigError) as caught:
        load_scenario(scenario)
    assert str(caught.value) == (
        "scenario: nodes[1].name: invalid value 'n\\u043ede-1'; "
        "a node name: nodes[0] names 'n\\u043ede-1' too"
    )


def test_a_look_alike_node_name_is_escaped_where_a_message_lists_the_nodes() -> None:
    # GIVEN a pod bound to node-1 in a scenario whose node is n(Cyrillic o)de-1
    node = {"name": LOOK_ALIKE, "allocatable": {"cpu": "4", "memory": "16Gi"}}
    scenario = {
        "nodes": [node],
        "pods": [{"name": "a", "node": "node-1"}],
        "preemptor": {"name": "p"},
    }
    # THEN the list of the scenario's nodes tells the two names apart
    with pytest.raises(HeadroomConfigError, match=r"of the scenario: n\\u043ede-1$"):
        load_scenario(scenario)


def test_a_pod_bound_in_a_scenario_without_nodes_is_told_that_there_are_none() -> None:
    # GIVEN a scenario with nodes: [] and a pod bound to node1
    scenario = {"nodes": [], "pods": [{"name": "a", "node": "node1"}], "preemptor": {"name": "p"}}
    # THEN the message says that the scenario has no nodes, not an empty list of them
    with pytest.raises(HeadroomConfigError) as caught:
        load_scenario(scenario)
    assert str(caught.value) == (
        "scenario: pods[0].node: invalid value 'node1'; the name of a node of the scenario, "
        "but the scenario has no nodes: add this one under nodes"
    )
