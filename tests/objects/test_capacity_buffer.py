"""CapacityBuffer: the pod-template and scalable forms, from NodeHeadroom and standalone,
slices and buffers on one pool, the refusals, and what a buffer holds back."""

from __future__ import annotations

import copy
import importlib
import warnings
from pathlib import Path
from typing import Any

import cdk8s
import pytest
import yaml
from syrupy.assertion import SnapshotAssertion

from cdk8s_headroom import (
    DEFAULT_DEDICATED_TAINT,
    BurstWorkload,
    CapacityBuffer,
    CapacityBufferForm,
    CapacityBufferVersion,
    HeadroomConfigError,
    HeadroomWarning,
    KarpenterNodePool,
    NodeClassRef,
    NodeHeadroom,
    NodePoolRef,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    PriorityModel,
    ReserverTask,
    Taint,
    synth,
)
from cdk8s_headroom.objects.synth_summary import render, summarize
from cdk8s_headroom.vocabulary import pod_security
from scripts.validation import load_folder, validate_objects, validate_schemas
from tests.conftest import Manifest, chart_with_classes, find, find_all

IMAGE = "registry.example/checkout:1"


def dedicated(chart: cdk8s.Chart, **props: Any) -> NodeHeadroom:
    pool = NodePoolRef.karpenter("burst", taints=[DEFAULT_DEDICATED_TAINT])
    return NodeHeadroom(
        chart, "headroom", model=PriorityModel.DEDICATED_POOL, node_pool=pool, **props
    )


def sized_pool(chart: cdk8s.Chart, cpus: str = "4") -> KarpenterNodePool:
    pool = KarpenterNodePool(chart, "pool", limits={"cpu": "64"})
    pool.add_requirement("karpenter.k8s.aws/instance-cpu", NodeSelectorOperator.IN, [cpus])
    return pool


def buffer_objects(objects: list[Manifest]) -> list[Manifest]:
    """A buffer's own objects: its CapacityBuffer and, in the pod-template form, its
    PodTemplate (the burst workload and the classes have snapshots of their own)."""
    return [o for o in objects if o["kind"] in ("CapacityBuffer", "PodTemplate")]


def test_defaults(synth: Any, snapshot: SnapshotAssertion) -> None:
    chart = chart_with_classes()
    workload = BurstWorkload(chart, "api", image=IMAGE, cpu="500m", memory="512Mi")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)  # every node: shared by design
        CapacityBuffer(chart, "buffer", workload=workload, replicas=2)
    objects = buffer_objects(synth(chart))
    assert [o["kind"] for o in objects] == ["PodTemplate", "CapacityBuffer"]
    assert objects == snapshot
    assert validate_schemas(objects) == [[], []]


def test_custom(synth: Any, snapshot: SnapshotAssertion) -> None:
    chart = chart_with_classes()
    workload = BurstWorkload(
        chart,
        "checkout",
        image=IMAGE,
        cpu="1",
        memory="2Gi",
        replicas=8,
        namespace="payments",
        node_pool=NODE_GROUP,
    )
    CapacityBuffer(
        chart,
        "buffer",
        workload=workload,
        form=CapacityBufferForm.SCALABLE,
        percentage=25,
        limits={"cpu": "4", "memory": "8Gi"},
        api_version=CapacityBufferVersion.V1ALPHA1,
        name="checkout-spare",
        labels={"team": "payments"},
    )
    objects = buffer_objects(synth(chart))
    assert [o["kind"] for o in objects] == ["CapacityBuffer"]
    assert objects == snapshot
    assert validate_schemas(objects) == [[]]


def test_the_pod_template_form_carries_the_burst_pods_scheduling_shape_and_a_pause_container(
    chart: cdk8s.Chart, synth: Any
) -> None:
    headroom = dedicated(
        chart,
        node_affinity=[
            NodeSelectorRequirement("topology.kubernetes.io/zone", NodeSelectorOperator.IN, ("a",))
        ],
    )
    workload = headroom.add_burst_workload(
        "checkout", image=IMAGE, cpu="250m", memory="256Mi", memory_limit="512Mi"
    )
    headroom.add_capacity_buffer(workload, replicas=4)
    objects = synth(chart)

    buffer = find(objects, "CapacityBuffer", "checkout-buffer")
    assert buffer["apiVersion"] == "autoscaling.x-k8s.io/v1beta1"
    assert buffer["spec"] == {
        "podTemplateRef": {"name": "checkout-buffer"},
        "provisioningStrategy": "buffer.x-k8s.io/active-capacity",
        "replicas": 4,
    }
    template = find(objects, "PodTemplate", "checkout-buffer")["template"]["spec"]
    burst = find(objects, "Deployment", "checkout")["spec"]["template"]["spec"]
    for field in ("nodeSelector", "affinity", "tolerations"):
        assert template[field] == burst[field], field
    assert {
        "key": "headroom.cdk8s.io/burst",
        "operator": "Equal",
        "value": "true",
        "effect": "NoSchedule",
    } in template["tolerations"]
    (pause,) = template["containers"]
    assert pause["image"] == "registry.k8s.io/pause:3.10"
    assert pause["resources"] == {
        "requests": {"cpu": "250m", "memory": "256Mi"},
        "limits": {"cpu": "250m", "memory": "512Mi"},
    }
    assert "priorityClassName" not in template


def test_the_scalable_form_refers_to_the_burst_deployment_with_a_percentage(
    chart: cdk8s.Chart, synth: Any
) -> None:
    headroom = dedicated(chart)
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="1", memory="1Gi", replicas=10)
    buffer = headroom.add_capacity_buffer(
        workload, form=CapacityBufferForm.SCALABLE, percentage=20, limits={"cpu": "4"}
    )
    objects = synth(chart)
    assert find_all(objects, "PodTemplate") == []
    assert find(objects, "CapacityBuffer")["spec"] == {
        "scalableRef": {"apiGroup": "apps", "kind": "Deployment", "name": "api"},
        "provisioningStrategy": "buffer.x-k8s.io/active-capacity",
        "percentage": 20,
        "limits": {"cpu": "4"},
    }
    assert buffer.hold().units == 2


NODE_GROUP = NodePoolRef(
    "burst", label_key="eks.amazonaws.com/nodegroup", taints=(DEFAULT_DEDICATED_TAINT,)
)
"""A managed node group that Cluster Autoscaler scales: EKS labels, but not Auto Mode."""


def test_v1alpha1_is_a_choice_for_cluster_autoscaler_1_34(chart: cdk8s.Chart, synth: Any) -> None:
    headroom = NodeHeadroom(chart, "h", model=PriorityModel.DEDICATED_POOL, node_pool=NODE_GROUP)
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="1", memory="1Gi")
    headroom.add_capacity_buffer(workload, replicas=1, api_version=CapacityBufferVersion.V1ALPHA1)
    objects = synth(chart)
    assert find(objects, "CapacityBuffer")["apiVersion"] == "autoscaling.x-k8s.io/v1alpha1"
    template = find(objects, "PodTemplate")["template"]["spec"]
    assert template["nodeSelector"] == {"eks.amazonaws.com/nodegroup": "burst"}


KARPENTER_TARGETS: dict[str, Any] = {
    "an emitted NodePool": lambda chart: {"node_pool": KarpenterNodePool(chart, "pool")},
    "a NodePool reference": lambda _: {"node_pool": NodePoolRef.karpenter("burst")},
    "the nodepool label in a selector": lambda _: {
        "node_selector": {"karpenter.sh/nodepool": "burst"}
    },
    "the nodepool label in an affinity": lambda _: {
        "node_affinity": [
            NodeSelectorRequirement("karpenter.sh/nodepool", NodeSelectorOperator.EXISTS)
        ]
    },
}
"""Ways a burst workload's pods land on Karpenter's nodes: targeting props, by chart."""


@pytest.mark.parametrize("target", KARPENTER_TARGETS)
def test_v1alpha1_on_karpenters_nodes_is_refused_naming_api_version(target: str) -> None:
    chart = chart_with_classes()
    workload = BurstWorkload(
        chart, "api", image=IMAGE, cpu="1", memory="1Gi",
        **KARPENTER_TARGETS[target](chart),
    )  # fmt: skip
    with pytest.raises(HeadroomConfigError) as raised:
        CapacityBuffer(
            chart, "buffer", workload=workload, replicas=1,
            api_version=CapacityBufferVersion.V1ALPHA1,
        )  # fmt: skip
    assert raised.value.field == "api_version"
    assert raised.value.value == "v1alpha1"
    assert "Karpenter serves the CapacityBuffer API at v1beta1 only" in str(raised.value)
    assert "v1alpha1 is for Cluster Autoscaler 1.34" in str(raised.value)
    assert chart.node.try_find_child("buffer") is None


def test_slices_and_a_buffer_keep_one_pool_together(chart: cdk8s.Chart, synth: Any) -> None:
    headroom = dedicated(chart, cpu="500m", memory="512Mi")
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="500m", memory="512Mi")
    headroom.add_capacity_buffer(workload, replicas=2)
    objects = synth(chart)
    assert [o["kind"] for o in objects if o["kind"] in ("DaemonSet", "CapacityBuffer")] == [
        "DaemonSet",
        "CapacityBuffer",
    ]
    assert str(headroom.summary()).splitlines()[1] == (
        "buffer api-buffer: 2 x (500m CPU, 512Mi memory) = 1 CPU, 1Gi memory held back, "
        "whatever the node count"
    )


def test_a_headroom_kept_by_a_buffer_alone_has_no_reserver_and_no_slice_check(
    chart: cdk8s.Chart, synth: Any
) -> None:
    headroom = dedicated(chart)
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="3", memory="6Gi")
    headroom.add_capacity_buffer(workload, replicas=2)
    objects = synth(chart)
    assert headroom.reserver is None
    assert find_all(objects, "DaemonSet") == []
    summary = headroom.summary()
    assert summary.slice is None and summary.worst_case is None
    assert str(summary).splitlines()[0] == "headroom (DEDICATED_POOL) on pool burst: no slices"


def test_a_headroom_with_neither_slices_nor_a_buffer_fails_synthesis() -> None:
    app = cdk8s.App()
    dedicated(cdk8s.Chart(app, "c"))
    with pytest.raises(HeadroomConfigError) as raised:
        synth(app)
    assert raised.value.field == "c/headroom.cpu"
    assert "slices (cpu and memory) or a capacity buffer" in str(raised.value)
    with pytest.raises(RuntimeError, match="this headroom keeps no room at all"):
        app.synth()  # the app's checks, as a cdk8s validation


@pytest.mark.parametrize(
    ("props", "field"),
    [
        ({"cpu": "1"}, "memory"),
        ({"memory": "1Gi"}, "cpu"),
        ({"task": ReserverTask.pause()}, "task"),
        ({"prepull_burst_images": True}, "prepull_burst_images"),
    ],
)
def test_slice_props_without_slices_are_refused(
    chart: cdk8s.Chart, props: dict[str, Any], field: str
) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        dedicated(chart, **props)
    assert raised.value.field == field


def test_a_standalone_buffer_takes_any_burst_workload(synth: Any) -> None:
    chart = chart_with_classes()  # the burst workload's class
    taint = Taint("team", "search")
    workload = BurstWorkload(
        chart,
        "search",
        image=IMAGE,
        cpu="1",
        memory="1Gi",
        node_pool=NodePoolRef.karpenter("search", taints=[taint]),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", HeadroomWarning)
        buffer = CapacityBuffer(chart, "buffer", workload=workload, limits={"cpu": "3500m"})
    assert buffer.dedicated
    assert buffer.hold().units == 3
    template = find(synth(chart), "PodTemplate")["template"]["spec"]
    assert template["tolerations"] == [
        {"key": "team", "operator": "Equal", "value": "search", "effect": "NoSchedule"}
    ]


def test_a_buffer_on_a_shared_pool_warns_that_ordinary_pods_can_take_its_room(
    chart: cdk8s.Chart,
) -> None:
    headroom = NodeHeadroom(chart, "h", node_pool=NodePoolRef.karpenter("web"))
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="1", memory="1Gi")
    with pytest.warns(HeadroomWarning, match="any pod can take the buffer's room.*P1 does not"):
        buffer = headroom.add_capacity_buffer(workload, replicas=1)
    assert not buffer.dedicated


def test_a_buffer_on_a_dedicated_pool_does_not_warn(chart: cdk8s.Chart) -> None:
    headroom = dedicated(chart)
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="1", memory="1Gi")
    with warnings.catch_warnings():
        warnings.simplefilter("error", HeadroomWarning)
        assert headroom.add_capacity_buffer(workload, replicas=1).dedicated


@pytest.mark.parametrize(
    ("props", "field", "says"),
    [
        ({"percentage": 10}, "capacity_buffers[api-buffer].percentage", "pod-template form"),
        (
            {"form": CapacityBufferForm.SCALABLE, "percentage": 10, "replicas": 2},
            "capacity_buffers[api-buffer].percentage",
            "either replicas or percentage",
        ),
        ({"limits": {"cpu": "lots"}}, "capacity_buffers[api-buffer].limits[cpu]", "quantity"),
        ({"limits": {"cpu": "-1"}}, "capacity_buffers[api-buffer].limits[cpu]", "greater"),
        ({}, "capacity_buffers[api-buffer].replicas", "a count of chunks"),
        ({"limits": {"nvidia.com/gpu": "1"}}, "capacity_buffers[api-buffer].replicas", "count"),
        ({"replicas": -1}, "capacity_buffers[api-buffer].replicas", "from 0 to"),
        ({"form": "scalable", "replicas": 1}, "capacity_buffers[api-buffer].form", "SCALABLE"),
        ({"api_version": "v1", "replicas": 1}, "capacity_buffers[api-buffer].api_version", "V1"),
    ],
)
def test_a_bad_buffer_prop_is_refused_naming_the_field(
    chart: cdk8s.Chart, props: dict[str, Any], field: str, says: str
) -> None:
    headroom = dedicated(chart)
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="1", memory="1Gi")
    with pytest.raises(HeadroomConfigError) as raised:
        headroom.add_capacity_buffer(workload, **props)
    assert raised.value.field == field
    assert says in str(raised.value)
    assert headroom.capacity_buffers == []


def test_a_buffer_on_eks_auto_mode_is_refused(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(chart, "auto", node_class=NodeClassRef.eks_auto_mode())
    headroom = NodeHeadroom(
        chart, "h", cpu="100m", memory="128Mi", model=PriorityModel.DEDICATED_POOL, node_pool=pool
    )
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="100m", memory="128Mi")
    with pytest.raises(HeadroomConfigError, match="Auto Mode exposes no Karpenter feature gates"):
        headroom.add_capacity_buffer(workload, replicas=1)


@pytest.mark.parametrize(
    ("targeting", "field", "value"),
    [
        (
            {"node_selector": {"eks.amazonaws.com/compute-type": "auto"}},
            "workload.node_selector['eks.amazonaws.com/compute-type']",
            "auto",
        ),
        (
            {"node_selector": {"eks.amazonaws.com/instance-category": "c"}},
            "workload.node_selector['eks.amazonaws.com/instance-category']",
            "c",
        ),
        (
            {
                "node_affinity": [
                    NodeSelectorRequirement(
                        "eks.amazonaws.com/compute-type", NodeSelectorOperator.IN, ("auto",)
                    )
                ]
            },
            "workload.node_affinity[eks.amazonaws.com/compute-type]",
            "In",
        ),
        (
            {
                "node_affinity": [
                    NodeSelectorRequirement(
                        "eks.amazonaws.com/instance-generation", NodeSelectorOperator.GT, ("4",)
                    )
                ]
            },
            "workload.node_affinity[eks.amazonaws.com/instance-generation]",
            "Gt",
        ),
    ],
    ids=["compute-type-selector", "instance-label-selector", "compute-type-in", "instance-gt"],
)
def test_a_buffer_for_pods_that_target_auto_mode_without_a_pool_is_refused(
    targeting: dict[str, Any], field: str, value: str
) -> None:
    chart = chart_with_classes()
    workload = BurstWorkload(chart, "api", image=IMAGE, cpu="1", memory="1Gi", **targeting)
    with pytest.raises(HeadroomConfigError) as raised:
        CapacityBuffer(chart, "buffer", workload=workload, replicas=1)
    assert (raised.value.field, raised.value.value) == (field, value)
    assert "Auto Mode exposes no Karpenter feature gates" in str(raised.value)
    assert chart.node.try_find_child("buffer") is None


def test_an_auto_mode_selector_on_a_headrooms_workload_is_named_under_its_buffer(
    chart: cdk8s.Chart,
) -> None:
    headroom = NodeHeadroom(chart, "h", node_selector={"eks.amazonaws.com/compute-type": "auto"})
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="1", memory="1Gi")
    with pytest.raises(HeadroomConfigError) as raised:
        headroom.add_capacity_buffer(workload, replicas=1)
    assert raised.value.field == (
        "capacity_buffers[api-buffer].workload.node_selector['eks.amazonaws.com/compute-type']"
    )
    assert headroom.capacity_buffers == []


@pytest.mark.parametrize(
    "targeting",
    [
        {"node_selector": {"eks.amazonaws.com/nodegroup": "burst"}},
        {"node_selector": {"eks.amazonaws.com/compute-type": "fargate"}},
        {
            "node_affinity": [
                NodeSelectorRequirement(
                    "eks.amazonaws.com/compute-type", NodeSelectorOperator.NOT_IN, ("auto",)
                )
            ]
        },
        {
            "node_affinity": [
                NodeSelectorRequirement(
                    "eks.amazonaws.com/instance-category", NodeSelectorOperator.DOES_NOT_EXIST
                )
            ]
        },
    ],
    ids=["managed-node-group", "fargate", "compute-type-not-auto", "no-auto-mode-label"],
)
def test_eks_labels_that_do_not_mean_auto_mode_keep_the_buffer(
    targeting: dict[str, Any], synth: Any
) -> None:
    chart = chart_with_classes()
    workload = BurstWorkload(chart, "api", image=IMAGE, cpu="1", memory="1Gi", **targeting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)  # a shared pool: warned, not refused
        CapacityBuffer(chart, "buffer", workload=workload, replicas=1)
    assert find(synth(chart), "CapacityBuffer")["spec"]["replicas"] == 1


def test_a_buffer_on_auto_modes_built_in_pool_is_refused(chart: cdk8s.Chart) -> None:
    headroom = NodeHeadroom(
        chart,
        "h",
        cpu="100m",
        memory="128Mi",
        node_pool=KarpenterNodePool.from_name("general-purpose"),
    )
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="100m", memory="128Mi")
    with pytest.raises(HeadroomConfigError) as raised:
        headroom.add_capacity_buffer(workload, replicas=1)
    assert raised.value.field == "capacity_buffers[api-buffer].node_pool"


def test_a_buffer_pod_larger_than_the_pools_smallest_node_is_refused(chart: cdk8s.Chart) -> None:
    headroom = NodeHeadroom(
        chart, "h", model=PriorityModel.DEDICATED_POOL, node_pool=sized_pool(chart, "4")
    )
    workload = headroom.add_burst_workload("big", image=IMAGE, cpu="4", memory="1Gi")
    with pytest.raises(HeadroomConfigError) as raised:
        headroom.add_capacity_buffer(workload, replicas=1)
    assert raised.value.field == "capacity_buffers[big-buffer].workload.cpu"
    assert "a buffer pod that fits on the smallest node of pool 'pool'" in str(raised.value)


def test_a_buffer_is_for_a_workload_the_headroom_holds_and_only_one_per_workload(
    chart: cdk8s.Chart,
) -> None:
    headroom = dedicated(chart)
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="1", memory="1Gi")
    stranger = BurstWorkload(chart, "other", image=IMAGE, cpu="1", memory="1Gi")
    with pytest.raises(HeadroomConfigError, match="a burst workload of this headroom"):
        headroom.add_capacity_buffer(stranger, replicas=1)
    headroom.add_capacity_buffer(workload, replicas=1)
    with pytest.raises(HeadroomConfigError, match="one buffer per burst workload"):
        headroom.add_capacity_buffer(workload, replicas=2, name="again")


def test_the_pod_template_meets_pod_security_and_a_loosened_one_does_not(
    chart: cdk8s.Chart, synth: Any
) -> None:
    headroom = dedicated(chart)
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="1", memory="1Gi")
    headroom.add_capacity_buffer(workload, replicas=1)
    template: Manifest = find(synth(chart), "PodTemplate")
    assert pod_security.check_object(template).violations == ()
    template["template"]["spec"]["containers"][0]["securityContext"]["privileged"] = True
    assert pod_security.check_object(template).violations


def test_the_synth_summary_shows_what_a_buffer_holds_back_beside_the_slices(
    chart: cdk8s.Chart,
) -> None:
    headroom = dedicated(chart, cpu="500m", memory="512Mi")
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="500m", memory="512Mi")
    headroom.add_capacity_buffer(workload, replicas=3)
    (report,) = summarize(chart)
    text = render([report], [])
    assert "buffer api-buffer: 3 x (500m CPU, 512Mi memory) = 1500m CPU, 1536Mi memory" in text
    header = text.splitlines()[0]
    assert "buffer" in header
    assert "api-buffer x3" in text.splitlines()[1]


def test_the_capacity_buffer_example_runs_and_prints_what_each_headroom_holds_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("CDK8S_OUTDIR", str(tmp_path))
    importlib.import_module("examples.capacity_buffer").main()
    out = capsys.readouterr().out
    assert "buffer checkout-buffer: 3 x (1 CPU, 2Gi memory) = 3 CPU, 6Gi memory held back" in out
    assert "search (DEDICATED_POOL) on pool search: no slices" in out
    assert "buffer search-buffer: 2 x (2 CPU, 4Gi memory)" in out
    written = (tmp_path / "0001-headroom.k8s.yaml").read_text()
    assert written.count("kind: CapacityBuffer") == 2


def test_a_requirement_that_later_shrinks_the_pool_below_the_buffer_pod_is_refused(
    chart: cdk8s.Chart,
) -> None:
    pool = KarpenterNodePool(chart, "pool", limits={"cpu": "64"})
    headroom = NodeHeadroom(chart, "h", model=PriorityModel.DEDICATED_POOL, node_pool=pool)
    workload = headroom.add_burst_workload("big", image=IMAGE, cpu="3", memory="1Gi")
    headroom.add_capacity_buffer(workload, replicas=1)
    with pytest.raises(HeadroomConfigError) as raised:
        pool.add_requirement("karpenter.k8s.aws/instance-cpu", NodeSelectorOperator.IN, ["2"])
    assert raised.value.field == "requirements[karpenter.k8s.aws/instance-cpu]"
    assert "a buffer pod that fits" in str(raised.value)
    assert all(r.key != "karpenter.k8s.aws/instance-cpu" for r in pool.requirements)


def test_make_validate_judges_the_pod_template_with_checkov_and_pod_security(
    chart: cdk8s.Chart, synth: Any, tmp_path: Path
) -> None:
    headroom = dedicated(chart)
    workload = headroom.add_burst_workload("api", image=IMAGE, cpu="1", memory="1Gi")
    headroom.add_capacity_buffer(workload, replicas=1)
    good = find(synth(chart), "PodTemplate")
    loose = copy.deepcopy(good)
    loose["metadata"]["name"] = "loose"
    container = loose["template"]["spec"]["containers"][0]
    container["securityContext"] |= {"privileged": True, "allowPrivilegeEscalation": True}
    del container["resources"]["limits"]
    (tmp_path / "templates.yaml").write_text(yaml.safe_dump_all([good, loose]))

    # validate_objects runs checkov (its default), as `make validate` does.
    reports = {r.item.name: r.errors for r in validate_objects(load_folder(tmp_path))}
    assert reports["api-buffer"] == []
    assert {"checkov CKV_K8S_16", "checkov CKV_K8S_11", "checkov CKV_K8S_13"} <= {
        error.split(":")[0] for error in reports["loose"]
    }
    assert any(error.startswith("pod security: ") for error in reports["loose"])
