"""A NodePool for any Karpenter provider: the typed node class reference, the KWOK
provider's instance labels, and node sizes the user declares.

The KWOK facts follow Karpenter v1.14.3's ``kwok/apis/v1alpha1/labels.go`` (its four
well-known labels in a restricted domain) and ``kwok/cloudprovider/helpers.go``,
``setDefaultOptions`` (label values from ``instance_types.json``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import (
    HeadroomConfigError,
    KarpenterNodePool,
    NodeClassRef,
    NodeHeadroom,
    NodePoolFlavour,
    NodeSelectorOperator,
    NodeSelectorRequirement,
)
from cdk8s_headroom.vocabulary.node_sizes import GIB, NodeSize, smallest_node
from tests.conftest import find

IN = NodeSelectorOperator.IN
AKS = NodeClassRef("karpenter.azure.com", "AKSNodeClass", "default")


def raises_on(field: str, build: Callable[[], object]) -> HeadroomConfigError:
    with pytest.raises(HeadroomConfigError) as raised:
        build()
    assert raised.value.field == field, str(raised.value)
    return raised.value


def test_a_kwok_pool_refers_to_its_kwok_node_class(chart: cdk8s.Chart, synth: Any) -> None:
    pool = KarpenterNodePool(chart, "burst", node_class=NodeClassRef.kwok())
    template = find(synth(chart), "NodePool", "burst")["spec"]["template"]["spec"]
    assert pool.flavour is NodePoolFlavour.KWOK
    assert template["nodeClassRef"] == {
        "group": "karpenter.kwok.sh",
        "kind": "KWOKNodeClass",
        "name": "default",
    }


@pytest.mark.parametrize("node_class", [NodeClassRef.kwok(), AKS], ids=["kwok", "aks"])
def test_a_pool_of_another_provider_defaults_to_the_provider_neutral_requirements(
    chart: cdk8s.Chart, synth: Any, node_class: NodeClassRef
) -> None:
    KarpenterNodePool(chart, "burst", node_class=node_class)
    template = find(synth(chart), "NodePool", "burst")["spec"]["template"]["spec"]
    assert [r["key"] for r in template["requirements"]] == [
        "kubernetes.io/arch",
        "kubernetes.io/os",
        "karpenter.sh/capacity-type",
    ]


def test_another_providers_class_is_written_as_given(chart: cdk8s.Chart, synth: Any) -> None:
    pool = KarpenterNodePool(chart, "azure", node_class=AKS)
    template = find(synth(chart), "NodePool", "azure")["spec"]["template"]["spec"]
    assert pool.flavour is NodePoolFlavour.OTHER
    assert template["nodeClassRef"] == {
        "group": "karpenter.azure.com",
        "kind": "AKSNodeClass",
        "name": "default",
    }


@pytest.mark.parametrize(
    ("field", "build"),
    [
        pytest.param(
            "node_class.kind",
            lambda: NodeClassRef("karpenter.kwok.sh", "EC2NodeClass", "default"),
            id="a known group with another provider's kind",
        ),
        pytest.param(
            "node_class.kind",
            lambda: NodeClassRef("karpenter.azure.com", "aks-node-class", "default"),
            id="a kind that is not CamelCase",
        ),
        pytest.param(
            "node_class.group",
            lambda: NodeClassRef("Karpenter Azure", "AKSNodeClass", "default"),
            id="a group that is not a DNS subdomain",
        ),
    ],
)
def test_a_bad_node_class_ref_names_its_field(field: str, build: Callable[[], object]) -> None:
    raises_on(field, build)


def test_a_kwok_pool_refuses_the_aws_instance_labels_and_names_its_own(
    chart: cdk8s.Chart,
) -> None:
    pool = KarpenterNodePool(chart, "burst", node_class=NodeClassRef.kwok())
    error = raises_on(
        "requirements[karpenter.k8s.aws/instance-cpu]",
        lambda: pool.add_requirement("karpenter.k8s.aws/instance-cpu", IN, ["4"]),
    )
    assert "use karpenter.kwok.sh/instance-cpu" in str(error)


def test_a_kwok_pool_refuses_a_kwok_key_the_provider_restricts(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(chart, "burst", node_class=NodeClassRef.kwok())
    error = raises_on(
        "requirements[karpenter.kwok.sh/instance-category]",
        lambda: pool.add_requirement("karpenter.kwok.sh/instance-category", IN, ["c"]),
    )
    assert "karpenter.kwok.sh/instance-cpu" in str(error)


def test_a_pool_of_another_provider_refuses_every_known_providers_instance_labels(
    chart: cdk8s.Chart,
) -> None:
    pool = KarpenterNodePool(chart, "azure", node_class=AKS)
    for key in ("karpenter.k8s.aws/instance-cpu", "karpenter.kwok.sh/instance-cpu"):
        raises_on(f"requirements[{key}]", lambda key=key: pool.add_requirement(key, IN, ["4"]))


def test_a_kwok_label_on_the_template_is_refused(chart: cdk8s.Chart) -> None:
    raises_on(
        "labels[karpenter.kwok.sh/instance-cpu]",
        lambda: KarpenterNodePool(
            chart,
            "burst",
            node_class=NodeClassRef.kwok(),
            labels={"karpenter.kwok.sh/instance-cpu": "4"},
        ),
    )


def kwok(key: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(f"karpenter.kwok.sh/{key}", IN, values)


@pytest.mark.parametrize(
    ("requirements", "cpu", "memory"),
    [
        pytest.param([kwok("instance-cpu", "8", "4")], 4, 8 * GIB, id="cpu, memory of family c-"),
        pytest.param(
            [kwok("instance-cpu", "8", "4"), kwok("instance-family", "m", "s")],
            4,
            16 * GIB,
            id="families s and m: s-4x has 16Gi",
        ),
        pytest.param([kwok("instance-size", "2")], 2, 4 * GIB, id="size is the vCPUs"),
        pytest.param(
            [kwok("instance-memory", "32Gi", "16Gi")], None, 16 * GIB, id="memory quantities"
        ),
    ],
)
def test_the_smallest_kwok_node_is_read_from_kwoks_labels(
    requirements: list[NodeSelectorRequirement], cpu: int | None, memory: int | None
) -> None:
    size = smallest_node(requirements, field="requirements")
    assert size == NodeSize(
        cpu=None if cpu is None else Fraction(cpu),
        memory=None if memory is None else Fraction(memory),
    )


def test_an_unknown_providers_node_size_is_unknown_until_declared(chart: cdk8s.Chart) -> None:
    unknown = KarpenterNodePool(chart, "azure", node_class=AKS)
    declared = KarpenterNodePool(
        chart, "declared", node_class=AKS, node_cpu="4", node_memory="16Gi"
    )
    assert unknown.smallest_node == NodeSize(cpu=None, memory=None)
    assert declared.smallest_node == NodeSize(cpu=Fraction(4), memory=Fraction(16 * GIB))


def test_a_declared_size_is_a_lower_bound_beside_the_requirements(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(
        chart,
        "burst",
        node_class=NodeClassRef.kwok(),
        node_memory="64Gi",
        requirements=[kwok("instance-cpu", "4", "8")],
    )
    assert pool.smallest_node == NodeSize(cpu=Fraction(4), memory=Fraction(64 * GIB))


def test_a_slice_larger_than_the_declared_node_is_refused(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(chart, "azure", node_class=AKS, node_cpu="2", node_memory="8Gi")
    raises_on(
        "cpu",
        lambda: NodeHeadroom(chart, "headroom", cpu="3", memory="1Gi", node_pool=pool),
    )


def test_a_referenced_pool_takes_declared_sizes_too() -> None:
    pool = KarpenterNodePool.from_name("aks-burst", node_cpu="8", node_memory="32Gi")
    assert pool.smallest_node == NodeSize(cpu=Fraction(8), memory=Fraction(32 * GIB))


@pytest.mark.parametrize(
    ("field", "props"),
    [
        pytest.param("node_cpu", {"node_cpu": "0"}, id="zero CPU"),
        pytest.param("node_memory", {"node_memory": "lots"}, id="a memory that is no quantity"),
    ],
)
def test_a_bad_declared_size_names_its_field(
    chart: cdk8s.Chart, field: str, props: dict[str, str]
) -> None:
    raises_on(field, lambda: KarpenterNodePool(chart, "azure", node_class=AKS, **props))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("node_class", "key"),
    [
        (NodeClassRef.ec2(), "karpenter.k8s.aws/instance-cpu"),
        (NodeClassRef.eks_auto_mode(), "eks.amazonaws.com/instance-cpu"),
        (NodeClassRef.kwok(), "karpenter.kwok.sh/instance-cpu"),
    ],
    ids=["ec2", "auto-mode", "kwok"],
)
def test_instance_label_names_the_providers_own_key(
    chart: cdk8s.Chart, node_class: NodeClassRef, key: str
) -> None:
    pool = KarpenterNodePool(chart, "burst", node_class=node_class)
    assert pool.instance_label("instance-cpu") == key


def test_instance_label_on_an_unknown_provider_says_to_write_the_key_out(
    chart: cdk8s.Chart,
) -> None:
    pool = KarpenterNodePool(chart, "azure", node_class=AKS)
    error = raises_on("node_class", lambda: pool.instance_label("instance-cpu"))
    assert "write the label key out" in str(error)


@pytest.mark.parametrize("example", ["first_pool", "karpenter_dedicated_pool", "capacity_buffer"])
def test_an_example_on_kwok_predicts_the_nodes_it_predicts_on_ec2(example: str) -> None:
    """The live tier runs these examples on KWOK: their pools' smallest nodes, so the
    summaries the live checks compare with, are the same as on EC2."""
    summaries = []
    for node_class in (None, NodeClassRef.kwok()):
        app = cdk8s.App()
        importlib.import_module(f"examples.{example}").build(app, node_class=node_class)
        summaries.append([c.summary() for c in app.node.find_all() if isinstance(c, NodeHeadroom)])
    assert summaries[0] == summaries[1]
