"""Node sizes read from pool requirements, and the allocatable estimate."""

from fractions import Fraction

import pytest

from cdk8s_headroom import HeadroomConfigError, NodeSelectorOperator, NodeSelectorRequirement
from cdk8s_headroom.vocabulary.node_sizes import (
    GIB,
    MIB,
    NodeSize,
    kube_reserved_cpu,
    smallest_node,
)

IN = NodeSelectorOperator.IN
GT = NodeSelectorOperator.GT
LT = NodeSelectorOperator.LT
NOT_IN = NodeSelectorOperator.NOT_IN


def req(key: str, operator: NodeSelectorOperator, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, operator, values)


def smallest(*requirements: NodeSelectorRequirement, auto_mode: bool = False) -> NodeSize:
    return smallest_node(list(requirements), field="requirements", auto_mode=auto_mode)


@pytest.mark.parametrize(
    ("requirements", "cpu", "memory"),
    [
        pytest.param([], None, None, id="no size requirement"),
        pytest.param(
            [req("karpenter.k8s.aws/instance-cpu", IN, "8", "4", "16")], 4, None, id="cpu In"
        ),
        pytest.param([req("karpenter.k8s.aws/instance-cpu", GT, "3")], 4, None, id="cpu Gt"),
        pytest.param(
            [
                req("karpenter.k8s.aws/instance-cpu", IN, "2", "4", "8"),
                req("karpenter.k8s.aws/instance-cpu", NOT_IN, "2"),
                req("karpenter.k8s.aws/instance-cpu", LT, "8"),
            ],
            4,
            None,
            id="cpu In, NotIn and Lt together",
        ),
        pytest.param(
            [req("eks.amazonaws.com/instance-memory", IN, "16384", "8192")],
            2,
            8 * GIB,
            id="Auto Mode memory In, and its 2-vCPU floor",
        ),
        pytest.param(
            [req("karpenter.k8s.aws/instance-size", IN, "2xlarge", "large", "metal")],
            2,
            None,
            id="size names",
        ),
        pytest.param(
            [
                req("karpenter.k8s.aws/instance-size", IN, "xlarge"),
                req("karpenter.k8s.aws/instance-category", IN, "m", "r"),
            ],
            4,
            16 * GIB,
            id="size and categories of known memory ratio",
        ),
        pytest.param(
            [
                req("karpenter.k8s.aws/instance-cpu", IN, "4"),
                req("karpenter.k8s.aws/instance-category", IN, "c", "t"),
            ],
            4,
            None,
            id="a category of unknown ratio leaves memory unknown",
        ),
        pytest.param(
            [req("node.kubernetes.io/instance-type", IN, "m5.xlarge", "c5.2xlarge")],
            4,
            16 * GIB,
            id="instance types",
        ),
        pytest.param(
            [req("node.kubernetes.io/instance-type", IN, "t3.medium", "m5.large")],
            1,
            None,
            id="an instance type of unknown ratio",
        ),
    ],
)
def test_smallest_node_is_read_from_the_requirements(
    requirements: list[NodeSelectorRequirement], cpu: int | None, memory: int | None
) -> None:
    node = smallest(*requirements)
    assert (node.cpu, node.memory) == (cpu, memory)


def test_auto_mode_nodes_have_at_least_two_vcpus() -> None:
    node = smallest(req("eks.amazonaws.com/instance-category", IN, "c"), auto_mode=True)
    assert node == NodeSize(cpu=Fraction(2), memory=Fraction(4 * GIB))


def test_requirements_that_exclude_every_size_are_an_error() -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        smallest(
            req("karpenter.k8s.aws/instance-memory", IN, "4096"),
            req("karpenter.k8s.aws/instance-memory", GT, "8192"),
        )
    assert raised.value.field == "requirements"
    assert "allow no instance at all" in raised.value.allowed


@pytest.mark.parametrize(
    ("cores", "millicores"),
    [(1, 60), (2, 70), (4, 80), (8, 90), (16, 110), (64, 230)],
)
def test_kube_reserved_cpu_follows_the_eks_formula(cores: int, millicores: int) -> None:
    assert kube_reserved_cpu(Fraction(cores)) * 1000 == millicores


def test_allocatable_subtracts_kube_reserved_and_eviction() -> None:
    allocatable = NodeSize(cpu=Fraction(4), memory=Fraction(8 * GIB)).allocatable()
    assert allocatable.cpu == Fraction(392, 100)
    # 255 MiB + 11 MiB x 110 pods + 100 MiB eviction threshold
    assert allocatable.memory == 8 * GIB - (255 + 11 * 110 + 100) * MIB


def test_node_size_prints_unknowns() -> None:
    assert str(NodeSize(cpu=Fraction(1, 2), memory=None)) == "500m CPU, ? memory"
