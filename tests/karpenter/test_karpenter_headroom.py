"""NodeHeadroom on Karpenter and Auto Mode pools: targeting, the dedicated taint, sizing."""

import warnings
from fractions import Fraction
from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import (
    DEFAULT_DEDICATED_TAINT,
    HeadroomConfigError,
    KarpenterNodePool,
    NodeClassRef,
    NodeHeadroom,
    NodePoolRef,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    NodeSize,
    PriorityModel,
    Taint,
    TaintEffect,
)
from tests.conftest import find, find_all, pod_spec

IN = NodeSelectorOperator.IN
DEDICATED_TOLERATION = {
    "effect": "NoSchedule",
    "key": "headroom.cdk8s.io/burst",
    "operator": "Equal",
    "value": "true",
}


def headroom(chart: cdk8s.Chart, **props: Any) -> NodeHeadroom:
    props.setdefault("cpu", "500m")
    props.setdefault("memory", "512Mi")
    return NodeHeadroom(chart, "headroom", **props)


def add_api(target: NodeHeadroom, **props: Any) -> Any:
    props.setdefault("image", "ghcr.io/acme/api:1.2")
    props.setdefault("cpu", "500m")
    props.setdefault("memory", "512Mi")
    return target.add_burst_workload("api", **props)


def cpu_pool(chart: cdk8s.Chart, *cpus: str, **props: Any) -> KarpenterNodePool:
    pool = KarpenterNodePool(chart, "burst", **props)
    pool.add_requirement(f"{pool.flavour.label_prefix}instance-cpu", IN, list(cpus))
    return pool


@pytest.mark.parametrize(
    "node_class", [NodeClassRef.ec2(), NodeClassRef.eks_auto_mode()], ids=["ec2", "auto-mode"]
)
def test_the_reserver_and_bursts_target_an_emitted_pool_by_its_nodepool_label(
    chart: cdk8s.Chart, synth: Any, node_class: NodeClassRef
) -> None:
    pool = KarpenterNodePool(chart, "burst", node_class=node_class)
    add_api(headroom(chart, node_pool=pool))
    objects = synth(chart)
    for workload in (
        find(objects, "DaemonSet", "headroom-reserver-burst"),
        find(objects, "Deployment"),
    ):
        assert pod_spec(workload)["nodeSelector"] == {"karpenter.sh/nodepool": "burst"}


def test_a_referenced_pool_is_targeted_but_not_emitted(chart: cdk8s.Chart, synth: Any) -> None:
    pool = KarpenterNodePool.from_name("general-purpose")
    add_api(headroom(chart, node_pool=pool))
    objects = synth(chart)
    assert find_all(objects, "NodePool") == []
    for workload in (find(objects, "DaemonSet"), find(objects, "Deployment")):
        assert pod_spec(workload)["nodeSelector"] == {"karpenter.sh/nodepool": "general-purpose"}


def test_a_burst_workload_on_another_karpenter_pool_is_an_error(
    chart: cdk8s.Chart, synth: Any
) -> None:
    target = headroom(chart, node_pool=KarpenterNodePool(chart, "burst"))
    other = KarpenterNodePool(chart, "general")
    with pytest.raises(HeadroomConfigError) as raised:
        add_api(target, node_pool=other)
    assert raised.value.field == "burst_workloads[api].node_pool"
    assert "pool burst" in str(raised.value)
    assert find_all(synth(chart), "Deployment") == []


def test_a_burst_workload_on_a_referenced_pool_of_the_same_name_is_accepted(
    chart: cdk8s.Chart, synth: Any
) -> None:
    target = headroom(chart, node_pool=KarpenterNodePool(chart, "burst"))
    add_api(target, node_pool=KarpenterNodePool.from_name("burst"))
    assert find(synth(chart), "Deployment", "api")


def test_dedicated_pool_taints_an_emitted_pool_and_only_headroom_pods_tolerate_it(
    chart: cdk8s.Chart, synth: Any
) -> None:
    # GIVEN an emitted pool without taints
    pool = KarpenterNodePool(chart, "burst")
    # WHEN a DEDICATED_POOL headroom targets it
    add_api(headroom(chart, model=PriorityModel.DEDICATED_POOL, node_pool=pool))
    objects = synth(chart)
    # THEN the pool carries the dedicated taint, and the reserver and burst tolerate it
    spec = find(objects, "NodePool", "burst")["spec"]["template"]["spec"]
    assert spec["taints"] == [
        {"effect": "NoSchedule", "key": "headroom.cdk8s.io/burst", "value": "true"}
    ]
    assert pool.taints == (DEFAULT_DEDICATED_TAINT,)
    assert pod_spec(find(objects, "DaemonSet"))["tolerations"] == [DEDICATED_TOLERATION]
    assert pod_spec(find(objects, "Deployment"))["tolerations"] == [DEDICATED_TOLERATION]
    # AND no globalDefault class is emitted
    assert not any(pc.get("globalDefault", False) for pc in find_all(objects, "PriorityClass"))


def test_dedicated_pool_uses_a_configured_taint(chart: cdk8s.Chart, synth: Any) -> None:
    taint = Taint("example.com/burst-only", "", TaintEffect.NO_EXECUTE)
    pool = KarpenterNodePool(chart, "burst")
    headroom(chart, model=PriorityModel.DEDICATED_POOL, node_pool=pool, dedicated_taint=taint)
    objects = synth(chart)
    spec = find(objects, "NodePool")["spec"]["template"]["spec"]
    assert spec["taints"] == [{"effect": "NoExecute", "key": "example.com/burst-only"}]
    assert pod_spec(find(objects, "DaemonSet"))["tolerations"] == [
        {"effect": "NoExecute", "key": "example.com/burst-only", "operator": "Equal"}
    ]


def test_guarded_does_not_taint_the_pool(chart: cdk8s.Chart, synth: Any) -> None:
    headroom(chart, node_pool=KarpenterNodePool(chart, "burst"))
    objects = synth(chart)
    assert "taints" not in find(objects, "NodePool")["spec"]["template"]["spec"]
    assert "tolerations" not in pod_spec(find(objects, "DaemonSet"))


def test_a_taint_added_to_the_pool_later_is_tolerated_by_the_headroom(
    chart: cdk8s.Chart, synth: Any
) -> None:
    pool = KarpenterNodePool(chart, "burst")
    target = headroom(chart, node_pool=pool)
    add_api(target)
    pool.add_taint(Taint("example.com/gpu", "true"))
    objects = synth(chart)
    for workload in (find(objects, "DaemonSet"), find(objects, "Deployment")):
        assert pod_spec(workload)["tolerations"] == [
            {
                "effect": "NoSchedule",
                "key": "example.com/gpu",
                "operator": "Equal",
                "value": "true",
            }
        ]


def test_dedicated_pool_on_a_referenced_pool_without_the_taint_says_what_to_pass(
    chart: cdk8s.Chart,
) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        headroom(
            chart,
            model=PriorityModel.DEDICATED_POOL,
            node_pool=KarpenterNodePool.from_name("burst"),
        )
    # the pool's declared taints are what is wrong: none of them is the dedicated one
    assert raised.value.field == "node_pool.taints"
    assert raised.value.value == []
    assert (
        "KarpenterNodePool.from_name('burst', taints=[Taint('headroom.cdk8s.io/burst', "
        "'true', TaintEffect.NO_SCHEDULE)])" in str(raised.value)
    )


def test_dedicated_pool_on_a_referenced_pool_that_declares_the_taint(
    chart: cdk8s.Chart, synth: Any
) -> None:
    pool = KarpenterNodePool.from_name("burst", taints=[DEFAULT_DEDICATED_TAINT])
    add_api(headroom(chart, model=PriorityModel.DEDICATED_POOL, node_pool=pool))
    assert pod_spec(find(synth(chart), "Deployment"))["tolerations"] == [DEDICATED_TOLERATION]


def test_dedicated_pool_without_a_pool_says_what_to_pass(chart: cdk8s.Chart) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        headroom(chart, model=PriorityModel.DEDICATED_POOL)
    assert raised.value.field == "node_pool"
    assert "pass node_pool=KarpenterNodePool(...)" in str(raised.value)


def test_a_rejected_headroom_leaves_the_pool_untainted(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(chart, "burst")
    with pytest.raises(HeadroomConfigError):
        headroom(chart, model=PriorityModel.DEDICATED_POOL, node_pool=pool, namespace="Bad_NS")
    assert pool.taints == ()


@pytest.mark.parametrize(
    ("field", "props"),
    [("cpu", {"cpu": "2"}), ("memory", {"memory": "3Gi"})],
)
def test_a_slice_larger_than_the_smallest_node_is_an_error(
    chart: cdk8s.Chart, synth: Any, field: str, props: dict[str, str]
) -> None:
    # 2 vCPUs of category c: 4 GiB, about 1.93 CPU and 2.47 GiB allocatable
    pool = cpu_pool(chart, "2", "4")
    with pytest.raises(HeadroomConfigError) as raised:
        headroom(chart, node_pool=pool, **props)
    assert raised.value.field == field
    assert "fits on the smallest node of pool 'burst'" in str(raised.value)
    assert find_all(synth(chart), "DaemonSet") == []


def test_a_slice_larger_than_a_referenced_pools_smallest_node_is_an_error(
    chart: cdk8s.Chart,
) -> None:
    pool = KarpenterNodePool.from_name(
        "burst",
        requirements=[
            NodeSelectorRequirement("node.kubernetes.io/instance-type", IN, ("c5.large",))
        ],
    )
    with pytest.raises(HeadroomConfigError) as raised:
        headroom(chart, node_pool=pool, cpu="2")
    assert raised.value.field == "cpu"


def test_an_auto_mode_pool_is_at_least_two_vcpus(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(chart, "burst", node_class=NodeClassRef.eks_auto_mode())
    assert pool.smallest_node.cpu == 2
    with pytest.raises(HeadroomConfigError) as raised:
        headroom(chart, node_pool=pool, cpu="2")
    assert raised.value.field == "cpu"


def test_a_requirement_that_shrinks_the_nodes_below_the_slice_is_refused(
    chart: cdk8s.Chart, synth: Any
) -> None:
    pool = KarpenterNodePool(chart, "burst")
    headroom(chart, node_pool=pool, cpu="3")
    with pytest.raises(HeadroomConfigError) as raised:
        pool.add_requirement("karpenter.k8s.aws/instance-cpu", IN, ["2", "4"])
    assert raised.value.field == "requirements[karpenter.k8s.aws/instance-cpu]"
    assert "still holds every headroom slice" in str(raised.value)
    requirement_keys = [
        r["key"] for r in find(synth(chart), "NodePool")["spec"]["template"]["spec"]["requirements"]
    ]
    assert "karpenter.k8s.aws/instance-cpu" not in requirement_keys


def test_a_slice_on_a_pool_of_unknown_size_is_not_judged(chart: cdk8s.Chart) -> None:
    # 63 cores: from 64, a bare number warns that millicores were likely meant.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        target = headroom(chart, node_pool=KarpenterNodePool(chart, "burst"), cpu="63")
    assert target.summary().cpu_share is None


def test_summary_states_the_share_of_each_node_and_the_worst_case(chart: cdk8s.Chart) -> None:
    # GIVEN a pool of 4- or 8-vCPU c/m/r nodes, limited to 64 CPU
    pool = cpu_pool(chart, "4", "8", limits={"cpu": "64", "memory": "512Gi"})
    # WHEN a 1 CPU / 2Gi headroom targets it
    summary = headroom(chart, node_pool=pool, cpu="1", memory="2Gi").summary()
    # THEN the smallest node is 4 CPU / 8Gi, at most 16 nodes, 16 CPU / 32Gi reserved
    assert summary.pool_name == "burst"
    assert summary.smallest_node == NodeSize(cpu=Fraction(4), memory=Fraction(8 * 2**30))
    assert summary.max_nodes == 16
    assert summary.worst_case == NodeSize(cpu=Fraction(16), memory=Fraction(32 * 2**30))
    assert summary.cpu_share is not None and 0.25 < summary.cpu_share < 0.26
    assert str(summary) == (
        "headroom-reserver-burst (GUARDED) on pool burst: 1 CPU, 2Gi memory per node = "
        "26% CPU, 31% memory of the smallest node's allocatable (4 CPU, 8Gi memory); "
        "worst case 16 nodes (limits cpu 64, memory 512Gi) hold 16 CPU, 32Gi memory"
    )


def test_summary_takes_the_tighter_of_the_cpu_and_memory_limits(chart: cdk8s.Chart) -> None:
    pool = cpu_pool(chart, "4", limits={"cpu": "64", "memory": "64Gi"})
    assert headroom(chart, node_pool=pool).summary().max_nodes == 8


def test_summary_reflects_requirements_added_after_the_headroom(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(chart, "burst")
    target = headroom(chart, node_pool=pool)
    assert target.summary().max_nodes is None
    pool.add_requirement("karpenter.k8s.aws/instance-size", IN, ["2xlarge"])
    assert target.summary().max_nodes == 125


@pytest.mark.parametrize(
    ("node_pool", "expected"),
    [
        pytest.param(
            None,
            "headroom-reserver (GUARDED) on every node: 500m CPU, 512Mi memory per node; "
            "worst case unbounded: one slice per node, and the pool has no limits",
            id="no pool",
        ),
        pytest.param(
            NodePoolRef.karpenter("burst"),
            "headroom-reserver-burst (GUARDED) on pool burst: 500m CPU, 512Mi memory per "
            "node; node size unknown (the pool declares no instance-cpu, instance-memory, "
            "instance-size or instance-type requirement, nor node_cpu or node_memory); "
            "worst case unknown: the pool's "
            "limits are not declared",
            id="plain reference",
        ),
        pytest.param(
            KarpenterNodePool.from_name("burst", limits={}),
            "headroom-reserver-burst (GUARDED) on pool burst: 500m CPU, 512Mi memory per "
            "node; node size unknown (the pool declares no instance-cpu, instance-memory, "
            "instance-size or instance-type requirement, nor node_cpu or node_memory); "
            "worst case unbounded: one slice "
            "per node, and the pool has no limits",
            id="reference without limits",
        ),
        pytest.param(
            KarpenterNodePool.from_name("burst", limits={"cpu": "100"}),
            "headroom-reserver-burst (GUARDED) on pool burst: 500m CPU, 512Mi memory per "
            "node; node size unknown (the pool declares no instance-cpu, instance-memory, "
            "instance-size or instance-type requirement, nor node_cpu or node_memory); "
            "worst case unknown (limits cpu "
            "100, node size unknown)",
            id="reference with limits of unknown nodes",
        ),
    ],
)
def test_summary_says_what_it_does_not_know(
    chart: cdk8s.Chart, node_pool: Any, expected: str
) -> None:
    assert str(headroom(chart, node_pool=node_pool).summary()) == expected
