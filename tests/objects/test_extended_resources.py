"""Extended resources (GPUs and any ``domain/name``) in a slice, as kube-scheduler and
the API server treat them: whole, requests equal to limits, never overcommitted
(``pkg/scheduler/framework/plugins/noderesources/fit.go``, ``fitsRequest``;
``pkg/apis/core/validation``, ``ValidateResourceRequirements``)."""

from typing import Any

import pytest

from cdk8s_headroom import (
    HeadroomConfigError,
    KarpenterNodePool,
    NodeClassRef,
    NodeHeadroom,
    NodeSelectorOperator,
)
from tests.conftest import find, pod_spec

GPU = {"nvidia.com/gpu": "1"}


def test_the_reserver_holds_whole_devices_in_requests_and_limits(chart: Any, synth: Any) -> None:
    headroom = NodeHeadroom(chart, "h", cpu="500m", memory="512Mi", extended_resources=GPU)
    headroom.add_burst_workload(
        "train", image="nginx:1", cpu="500m", memory="512Mi", extended_resources=GPU
    )
    objects = synth(chart)
    reserver = pod_spec(find(objects, "DaemonSet"))["containers"][0]["resources"]
    assert reserver["requests"] == reserver["limits"] == {"cpu": "500m", "memory": "512Mi", **GPU}
    burst = pod_spec(find(objects, "Deployment"))["containers"][0]["resources"]
    assert burst["requests"]["nvidia.com/gpu"] == burst["limits"]["nvidia.com/gpu"] == "1"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("gpu", "extended resource name"),
        ("kubernetes.io/gpu", "outside kubernetes.io"),
        ("example.kubernetes.io/gpu", "outside kubernetes.io"),
        ("requests.example.com/gpu", "extended resource name"),
        ("nvidia.com/", "extended resource name"),
        ("Nvidia.com/gpu", "extended resource name"),
        ("nvidia.com/" + "g" * 64, "at most 63"),
    ],
)
def test_a_name_kubernetes_refuses_is_refused(chart: Any, name: str, why: str) -> None:
    with pytest.raises(HeadroomConfigError, match=rf"^extended_resources.name: .*{why}"):
        NodeHeadroom(chart, "h", cpu="1", memory="1Gi", extended_resources={name: "1"})


@pytest.mark.parametrize("count", ["0.5", "500m", "0", "-1", 1, "1.0", ""])
def test_a_fraction_of_a_device_is_refused(chart: Any, count: object) -> None:
    with pytest.raises(HeadroomConfigError, match=r"whole number of devices"):
        NodeHeadroom(
            chart, "h", cpu="1", memory="1Gi", extended_resources={"nvidia.com/gpu": count}
        )


def test_devices_without_slices_are_refused(chart: Any) -> None:
    with pytest.raises(HeadroomConfigError, match=r"^extended_resources: .*without slices"):
        NodeHeadroom(chart, "h", extended_resources=GPU)


def test_a_burst_pod_needing_more_devices_than_the_slice_is_refused(chart: Any) -> None:
    headroom = NodeHeadroom(chart, "h", cpu="1", memory="1Gi", extended_resources=GPU)
    with pytest.raises(
        HeadroomConfigError,
        match=r"^burst_workloads\[train\]\.extended_resources\[nvidia.com/gpu\]: .*at most 1",
    ):
        headroom.add_burst_workload(
            "train",
            image="nginx:1",
            cpu="1",
            memory="1Gi",
            extended_resources={"nvidia.com/gpu": "2"},
        )


def test_an_emitted_karpenter_pool_launches_instances_with_the_held_gpus(
    chart: Any, synth: Any
) -> None:
    pool = KarpenterNodePool(chart, "pool", name="gpu")
    NodeHeadroom(
        chart,
        "h",
        cpu="1",
        memory="1Gi",
        node_pool=pool,
        extended_resources={"nvidia.com/gpu": "2"},
    )

    spec = find(synth(chart), "NodePool")["spec"]["template"]["spec"]
    # karpenter-provider-aws labels each GPU instance type instance-gpu-count In [n].
    assert {
        "key": "karpenter.k8s.aws/instance-gpu-count",
        "operator": "Gt",
        "values": ["1"],
    } in spec["requirements"]


def test_a_pool_that_already_requires_a_gpu_count_is_left_as_it_is(chart: Any) -> None:
    pool = KarpenterNodePool(chart, "pool", name="gpu")
    pool.add_requirement("karpenter.k8s.aws/instance-gpu-count", NodeSelectorOperator.IN, ["8"])
    NodeHeadroom(chart, "h", cpu="1", memory="1Gi", node_pool=pool, extended_resources=GPU)

    keys = [r.key for r in pool.requirements]
    assert keys.count("karpenter.k8s.aws/instance-gpu-count") == 1


def _pool_requirements(chart: Any, devices: dict[str, str], **pool: Any) -> list[Any]:
    node_pool = KarpenterNodePool(chart, "pool", name="accelerated", **pool)
    NodeHeadroom(chart, "h", cpu="1", memory="1Gi", node_pool=node_pool, extended_resources=devices)
    return list(find(chart.to_json(), "NodePool")["spec"]["template"]["spec"]["requirements"])


@pytest.mark.parametrize(
    ("devices", "key", "above"),
    [
        # karpenter-provider-aws pkg/providers/instancetype/types.go computeRequirements:
        # Habana's Gaudi is GPU info (instance-gpu-count), a Neuron device an accelerator
        ({"habana.ai/gaudi": "8"}, "karpenter.k8s.aws/instance-gpu-count", "7"),
        ({"aws.amazon.com/neuron": "2"}, "karpenter.k8s.aws/instance-accelerator-count", "1"),
    ],
)
def test_an_ec2_pool_launches_instances_with_the_held_accelerators(
    chart: Any, devices: dict[str, str], key: str, above: str
) -> None:
    requirements = _pool_requirements(chart, devices)
    assert {"key": key, "operator": "Gt", "values": [above]} in requirements


def test_neuron_cores_have_no_counting_label_and_add_no_requirement(chart: Any) -> None:
    requirements = _pool_requirements(chart, {"aws.amazon.com/neuroncore": "2"})
    assert not [r for r in requirements if "accelerator" in r["key"] or "gpu" in r["key"]]


def test_a_pool_of_a_provider_without_device_labels_gets_no_device_requirement(
    chart: Any,
) -> None:
    # It was given "Noneinstance-gpu-count", a label no node has: the pool launched nothing
    azure = NodeClassRef("karpenter.azure.com", "AKSNodeClass", "default")
    requirements = _pool_requirements(
        chart, GPU, node_class=azure, node_cpu="8", node_memory="32Gi"
    )
    assert not [r for r in requirements if "gpu" in r["key"]]


def test_a_kwok_pool_with_a_gpu_slice_is_taken_without_a_requirement_kwok_refuses(
    chart: Any,
) -> None:
    # Karpenter's KWOK provider restricts its domain to four instance labels: the GPU
    # count the headroom added was refused, naming a requirement the user never wrote
    requirements = _pool_requirements(chart, GPU, node_class=NodeClassRef.kwok())
    assert not [r for r in requirements if "gpu" in r["key"]]
