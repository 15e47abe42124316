"""KarpenterNodePool and Ec2NodeClass: the objects, their defaults and the bad input."""

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import cdk8s
import pytest
from syrupy.assertion import SnapshotAssertion

from cdk8s_headroom import (
    ConsolidationPolicy,
    Ec2NodeClass,
    HeadroomConfigError,
    INodePool,
    KarpenterNodePool,
    NodeClassRef,
    NodePoolFlavour,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    Taint,
    TaintEffect,
)
from scripts.validation import is_karpenter, validate_models
from tests.conftest import Manifest, find

IN = NodeSelectorOperator.IN


def requirements_of(pool: Manifest) -> dict[str, tuple[str, list[str]]]:
    return {
        r["key"]: (r["operator"], r.get("values", []))
        for r in pool["spec"]["template"]["spec"]["requirements"]
    }


def assert_valid(objects: list[Manifest]) -> None:
    karpenter = [o for o in objects if is_karpenter(o)]
    assert karpenter, "no Karpenter objects to validate"
    for result in validate_models(karpenter):
        assert result.errors == (), f"{result.kind} {result.name}: {result.errors}"


def raises_on(field: str, build: Callable[[], object]) -> HeadroomConfigError:
    with pytest.raises(HeadroomConfigError) as raised:
        build()
    assert raised.value.field == field, str(raised.value)
    return raised.value


def test_defaults(chart: cdk8s.Chart, synth: Any, snapshot: SnapshotAssertion) -> None:
    KarpenterNodePool(chart, "burst")
    objects = synth(chart)
    assert objects == snapshot
    assert_valid(objects)


def test_custom(chart: cdk8s.Chart, synth: Any, snapshot: SnapshotAssertion) -> None:
    node_class = Ec2NodeClass(
        chart,
        "node-class",
        name="burst",
        role="KarpenterNodeRole-demo",
        discovery_tag_value="demo",
        ami_alias="bottlerocket@v20240807",
        tags={"team": "payments"},
    )
    KarpenterNodePool(
        chart,
        "pool",
        name="burst",
        node_class=node_class,
        labels={"team": "payments"},
        requirements=[
            NodeSelectorRequirement("karpenter.k8s.aws/instance-family", IN, ("m7i", "c7i")),
            NodeSelectorRequirement("karpenter.k8s.aws/instance-cpu", IN, ("8", "16")),
            NodeSelectorRequirement("karpenter.sh/capacity-type", IN, ("on-demand",)),
        ],
        taints=[Taint("dedicated", "payments", TaintEffect.NO_EXECUTE)],
        limits={"cpu": "256", "memory": "1Ti"},
        consolidation_policy=ConsolidationPolicy.WHEN_EMPTY,
        consolidate_after=cdk8s.Duration.minutes(5),
        expire_after="168h",
        weight=50,
    )
    objects = synth(chart)
    assert objects == snapshot
    assert_valid(objects)


def test_default_pool_is_the_getting_started_pool(chart: cdk8s.Chart, synth: Any) -> None:
    KarpenterNodePool(chart, "burst")
    pool = find(synth(chart), "NodePool", "burst")
    assert requirements_of(pool) == {
        "kubernetes.io/arch": ("In", ["amd64"]),
        "kubernetes.io/os": ("In", ["linux"]),
        "karpenter.sh/capacity-type": ("In", ["on-demand", "spot"]),
        "karpenter.k8s.aws/instance-category": ("In", ["c", "m", "r"]),
        "karpenter.k8s.aws/instance-generation": ("Gt", ["2"]),
    }
    template = pool["spec"]["template"]["spec"]
    assert template["nodeClassRef"] == {
        "group": "karpenter.k8s.aws",
        "kind": "EC2NodeClass",
        "name": "default",
    }
    assert template["expireAfter"] == "720h"
    assert "taints" not in template
    assert pool["spec"]["limits"] == {"cpu": "1000"}
    assert pool["spec"]["disruption"] == {
        "consolidateAfter": "1m",
        "consolidationPolicy": "WhenEmptyOrUnderutilized",
    }


def test_an_ec2_node_class_discovers_subnets_and_security_groups_by_tag(
    chart: cdk8s.Chart, synth: Any
) -> None:
    Ec2NodeClass(chart, "class", role="KarpenterNodeRole-demo", discovery_tag_value="demo")
    spec = find(synth(chart), "EC2NodeClass", "default")["spec"]
    discovery = [{"tags": {"karpenter.sh/discovery": "demo"}}]
    assert spec == {
        "amiSelectorTerms": [{"alias": "al2023@latest"}],
        "role": "KarpenterNodeRole-demo",
        "securityGroupSelectorTerms": discovery,
        "subnetSelectorTerms": discovery,
    }


def test_a_pool_on_an_emitted_node_class_references_it(chart: cdk8s.Chart, synth: Any) -> None:
    node_class = Ec2NodeClass(chart, "class", name="burst", role="r", discovery_tag_value="c")
    KarpenterNodePool(chart, "burst", node_class=node_class)
    pool = find(synth(chart), "NodePool", "burst")
    assert pool["spec"]["template"]["spec"]["nodeClassRef"]["name"] == "burst"


def test_an_auto_mode_pool_uses_the_eks_node_class_and_labels(
    chart: cdk8s.Chart, synth: Any
) -> None:
    pool = KarpenterNodePool(chart, "burst", node_class=NodeClassRef.eks_auto_mode())
    objects = synth(chart)
    spec = find(objects, "NodePool", "burst")["spec"]
    assert pool.flavour is NodePoolFlavour.EKS_AUTO_MODE
    assert spec["template"]["spec"]["nodeClassRef"] == {
        "group": "eks.amazonaws.com",
        "kind": "NodeClass",
        "name": "default",
    }
    assert requirements_of(find(objects, "NodePool")) == {
        "kubernetes.io/arch": ("In", ["amd64"]),
        "karpenter.sh/capacity-type": ("In", ["on-demand", "spot"]),
        "eks.amazonaws.com/instance-category": ("In", ["c", "m", "r"]),
        "eks.amazonaws.com/instance-generation": ("Gt", ["4"]),
    }
    assert spec["template"]["spec"]["expireAfter"] == "336h"
    assert_valid(objects)


def test_the_pool_selects_its_nodes_by_the_nodepool_label_in_both_flavours(
    chart: cdk8s.Chart,
) -> None:
    for node_class in (NodeClassRef.ec2(), NodeClassRef.eks_auto_mode()):
        pool = KarpenterNodePool(chart, f"{node_class.kind.lower()}-pool", node_class=node_class)
        assert isinstance(pool, INodePool)
        assert pool.node_selector == {"karpenter.sh/nodepool": pool.pool_name}


def test_taints_and_requirements_added_later_reach_the_output(
    chart: cdk8s.Chart, synth: Any
) -> None:
    pool = KarpenterNodePool(chart, "burst", requirements=[], limits={})
    pool.add_requirement("karpenter.k8s.aws/instance-size", IN, ["xlarge"])
    pool.add_taint(Taint("dedicated", "burst"))
    pool.add_taint(Taint("dedicated", "burst"))
    spec = find(synth(chart), "NodePool", "burst")["spec"]
    assert spec["template"]["spec"]["requirements"] == [
        {"key": "karpenter.k8s.aws/instance-size", "operator": "In", "values": ["xlarge"]}
    ]
    assert spec["template"]["spec"]["taints"] == [
        {"effect": "NoSchedule", "key": "dedicated", "value": "burst"}
    ]
    assert "limits" not in spec


def test_exists_requirements_carry_no_values(chart: cdk8s.Chart, synth: Any) -> None:
    pool = KarpenterNodePool(chart, "burst", requirements=[])
    pool.add_requirement("example.com/gpu", NodeSelectorOperator.DOES_NOT_EXIST)
    (requirement,) = find(synth(chart), "NodePool")["spec"]["template"]["spec"]["requirements"]
    assert requirement == {"key": "example.com/gpu", "operator": "DoesNotExist"}


def test_from_name_references_a_pool_without_emitting_it(chart: cdk8s.Chart, synth: Any) -> None:
    taint = Taint("dedicated", "burst")
    pool = KarpenterNodePool.from_name(
        "burst",
        taints=[taint],
        requirements=[NodeSelectorRequirement("karpenter.k8s.aws/instance-cpu", IN, ("8",))],
        limits={"cpu": "80"},
    )
    assert isinstance(pool, INodePool)
    assert pool.node_selector == {"karpenter.sh/nodepool": "burst"}
    assert pool.taints == (taint,)
    assert pool.smallest_node.cpu == 8
    assert pool.limit_amounts == {"cpu": Fraction(80)}
    assert synth(chart) == []


@pytest.mark.parametrize(
    ("field", "build"),
    [
        pytest.param(
            "requirements[karpenter.k8s.aws/instance-category].values",
            lambda c: KarpenterNodePool(
                c,
                "p",
                requirements=[
                    NodeSelectorRequirement(
                        "karpenter.k8s.aws/instance-category", IN, ("c", "compute")
                    )
                ],
            ),
            id="unknown instance-category",
        ),
        pytest.param(
            "requirements[karpenter.sh/capacity-type].values",
            lambda c: KarpenterNodePool(c, "p").add_requirement(
                "karpenter.sh/capacity-type", IN, ["ondemand"]
            ),
            id="unknown capacity type",
        ),
        pytest.param(
            "requirements[karpenter.k8s.aws/instance-cpu].operator",
            lambda c: KarpenterNodePool(c, "p").add_requirement(
                "karpenter.k8s.aws/instance-cpu",
                "Gte",  # type: ignore[arg-type]
                ["4"],
            ),
            id="unknown operator",
        ),
        pytest.param(
            "requirements[karpenter.k8s.aws/instance-cpu].values",
            lambda c: KarpenterNodePool(c, "p").add_requirement(
                "karpenter.k8s.aws/instance-cpu", IN, []
            ),
            id="In without values",
        ),
        pytest.param(
            "requirements[karpenter.k8s.aws/instance-cpu].values",
            lambda c: KarpenterNodePool(c, "p").add_requirement(
                "karpenter.k8s.aws/instance-cpu", NodeSelectorOperator.GT, ["four"]
            ),
            id="Gt without an integer",
        ),
        pytest.param(
            "requirements[karpenter.k8s.aws/instance-cpu]",
            lambda c: KarpenterNodePool(
                c,
                "p",
                requirements=[
                    NodeSelectorRequirement("karpenter.k8s.aws/instance-cpu", IN, ("2", "4")),
                    NodeSelectorRequirement(
                        "karpenter.k8s.aws/instance-cpu", NodeSelectorOperator.GT, ("8",)
                    ),
                ],
            ),
            id="requirements that allow no instance",
        ),
        pytest.param(
            "requirements[karpenter.sh/nodepool]",
            lambda c: KarpenterNodePool(c, "p").add_requirement(
                "karpenter.sh/nodepool", IN, ["other"]
            ),
            id="restricted requirement key",
        ),
        pytest.param(
            "requirements[eks.amazonaws.com/instance-cpu]",
            lambda c: KarpenterNodePool(c, "p").add_requirement(
                "eks.amazonaws.com/instance-cpu", IN, ["4"]
            ),
            id="Auto Mode key on an EC2 pool",
        ),
        pytest.param(
            "labels[karpenter.sh/nodepool]",
            lambda c: KarpenterNodePool(c, "p", labels={"karpenter.sh/nodepool": "other"}),
            id="label on the pool's own key",
        ),
        pytest.param(
            "labels[karpenter.k8s.aws/instance-family]",
            lambda c: KarpenterNodePool(
                c, "p", labels={"karpenter.k8s.aws/instance-family": "m7i"}
            ),
            id="label on a provider key",
        ),
        pytest.param(
            "labels[node-role.kubernetes.io/burst]",
            lambda c: KarpenterNodePool(c, "p", labels={"node-role.kubernetes.io/burst": ""}),
            id="label in the kubernetes.io domain",
        ),
        pytest.param(
            "labels[kubernetes.io/arch]",
            lambda c: KarpenterNodePool(c, "p", labels={"kubernetes.io/arch": "arm64"}),
            id="label contradicting a default requirement",
        ),
        pytest.param(
            "requirements[team]",
            lambda c: KarpenterNodePool(c, "p", labels={"team": "web"}).add_requirement(
                "team", NodeSelectorOperator.NOT_IN, ["web"]
            ),
            id="requirement contradicting a label",
        ),
        pytest.param(
            "taint.effect",
            lambda c: KarpenterNodePool(
                c,
                "p",
                taints=[Taint("dedicated", "burst", "NoSchedule")],  # type: ignore[arg-type]
            ),
            id="taint effect that is not a TaintEffect",
        ),
        pytest.param(
            "taints",
            lambda c: KarpenterNodePool(c, "p").add_taint("dedicated=burst:NoSchedule"),  # type: ignore[arg-type]
            id="taint that is not a Taint",
        ),
        pytest.param(
            "limits[cpu]",
            lambda c: KarpenterNodePool(c, "p", limits={"cpu": "1000 cores"}),
            id="limit that does not parse",
        ),
        pytest.param(
            "limits[memory]",
            lambda c: KarpenterNodePool(c, "p", limits={"memory": "-1Gi"}),
            id="negative limit",
        ),
        pytest.param(
            "consolidate_after",
            lambda c: KarpenterNodePool(c, "p", consolidate_after="1 minute"),
            id="duration that does not parse",
        ),
        pytest.param(
            "consolidation_policy",
            lambda c: KarpenterNodePool(
                c,
                "p",
                consolidation_policy="WhenEmpty",  # type: ignore[arg-type]
            ),
            id="consolidation policy as a string",
        ),
        pytest.param(
            "weight",
            lambda c: KarpenterNodePool(c, "p", weight=101),
            id="weight above 100",
        ),
        pytest.param("name", lambda c: KarpenterNodePool(c, "Burst_Pool"), id="bad pool name"),
        pytest.param(
            "node_class",
            lambda c: KarpenterNodePool(c, "p", node_class="default"),  # type: ignore[arg-type]
            id="node class as a string",
        ),
        pytest.param(
            "role",
            lambda c: Ec2NodeClass(
                c, "n", role="arn:aws:iam::1:role/KarpenterNode", discovery_tag_value="demo"
            ),
            id="node role as an ARN",
        ),
        pytest.param(
            "ami_alias",
            lambda c: Ec2NodeClass(
                c, "n", role="r", discovery_tag_value="demo", ami_alias="al2023"
            ),
            id="AMI alias without a version",
        ),
        pytest.param(
            "discovery_tag_value",
            lambda c: Ec2NodeClass(c, "n", role="r", discovery_tag_value=""),
            id="empty discovery tag",
        ),
    ],
)
def test_bad_pool_input_raises_naming_the_field(
    chart: cdk8s.Chart, synth: Any, field: str, build: Callable[[cdk8s.Chart], object]
) -> None:
    raises_on(field, lambda: build(chart))


def test_a_rejected_requirement_leaves_the_pool_unchanged(chart: cdk8s.Chart, synth: Any) -> None:
    pool = KarpenterNodePool(chart, "burst")
    before = pool.requirements
    raises_on(
        "requirements[karpenter.k8s.aws/instance-category].values",
        lambda: pool.add_requirement("karpenter.k8s.aws/instance-category", IN, ["q"]),
    )
    assert pool.requirements == before
    assert len(requirements_of(find(synth(chart), "NodePool"))) == len(before)


def test_an_unknown_category_names_the_known_ones(chart: cdk8s.Chart) -> None:
    error = raises_on(
        "requirements[karpenter.k8s.aws/instance-category].values",
        lambda: KarpenterNodePool(chart, "p").add_requirement(
            "karpenter.k8s.aws/instance-category", IN, ["compute"]
        ),
    )
    assert error.value == ["compute"]
    assert "c, d, dl" in error.allowed


def test_node_labels_of_the_node_subdomain_are_allowed(chart: cdk8s.Chart, synth: Any) -> None:
    KarpenterNodePool(chart, "p", labels={"node.kubernetes.io/role": "burst"})
    pool = find(synth(chart), "NodePool")
    assert pool["spec"]["template"]["metadata"]["labels"] == {"node.kubernetes.io/role": "burst"}


def test_a_reserved_label_says_why(chart: cdk8s.Chart) -> None:
    error = raises_on(
        "labels[karpenter.sh/nodepool]",
        lambda: KarpenterNodePool(chart, "p", labels={"karpenter.sh/nodepool": "x"}),
    )
    assert "karpenter.sh/nodepool is the pool's name" in str(error)


@pytest.mark.parametrize(
    ("field", "build"),
    [
        pytest.param(
            "expire_after",
            lambda c: KarpenterNodePool(
                c, "p", node_class=NodeClassRef.eks_auto_mode(), expire_after="337h"
            ),
            id="expireAfter above 336h",
        ),
        pytest.param(
            "expire_after",
            lambda c: KarpenterNodePool(
                c, "p", node_class=NodeClassRef.eks_auto_mode(), expire_after="Never"
            ),
            id="expireAfter Never",
        ),
        pytest.param(
            "expire_after",
            lambda c: KarpenterNodePool(
                c,
                "p",
                node_class=NodeClassRef.eks_auto_mode(),
                expire_after=cdk8s.Duration.days(15),
            ),
            id="expireAfter as a cdk8s.Duration above 336h",
        ),
        pytest.param(
            "name",
            lambda c: KarpenterNodePool(
                c, "general-purpose", node_class=NodeClassRef.eks_auto_mode()
            ),
            id="the built-in general-purpose pool",
        ),
        pytest.param(
            "name",
            lambda c: KarpenterNodePool(c, "system", node_class=NodeClassRef.eks_auto_mode()),
            id="the built-in system pool",
        ),
        pytest.param(
            "requirements[karpenter.k8s.aws/instance-cpu]",
            lambda c: KarpenterNodePool(
                c, "p", node_class=NodeClassRef.eks_auto_mode()
            ).add_requirement("karpenter.k8s.aws/instance-cpu", IN, ["4"]),
            id="a Karpenter instance key",
        ),
        pytest.param(
            "requirements[kubernetes.io/os]",
            lambda c: KarpenterNodePool(
                c,
                "p",
                node_class=NodeClassRef.eks_auto_mode(),
                requirements=[NodeSelectorRequirement("kubernetes.io/os", IN, ("linux",))],
            ),
            id="an OS requirement",
        ),
        pytest.param(
            "labels[eks.amazonaws.com/compute-type]",
            lambda c: KarpenterNodePool(
                c,
                "p",
                node_class=NodeClassRef.eks_auto_mode(),
                labels={"eks.amazonaws.com/compute-type": "auto"},
            ),
            id="a label Auto Mode sets",
        ),
    ],
)
def test_auto_mode_rejects_what_it_manages(
    chart: cdk8s.Chart, field: str, build: Callable[[cdk8s.Chart], object]
) -> None:
    raises_on(field, lambda: build(chart))


def test_auto_mode_accepts_its_longest_lifetime(chart: cdk8s.Chart, synth: Any) -> None:
    KarpenterNodePool(
        chart, "p", node_class=NodeClassRef.eks_auto_mode(), expire_after=cdk8s.Duration.days(14)
    )
    assert find(synth(chart), "NodePool")["spec"]["template"]["spec"]["expireAfter"] == "336h"


def test_the_auto_mode_key_error_names_the_auto_mode_key(chart: cdk8s.Chart) -> None:
    pool = KarpenterNodePool(chart, "p", node_class=NodeClassRef.eks_auto_mode())
    error = raises_on(
        "requirements[karpenter.k8s.aws/instance-cpu]",
        lambda: pool.add_requirement("karpenter.k8s.aws/instance-cpu", IN, ["4"]),
    )
    assert "use eks.amazonaws.com/instance-cpu" in str(error)


def test_a_node_class_ref_of_another_kind_in_a_known_group_is_an_error() -> None:
    error = raises_on(
        "node_class.kind", lambda: NodeClassRef("karpenter.k8s.aws", "NodeClass", "default")
    )
    assert "karpenter.k8s.aws/EC2NodeClass" in str(error)


def test_no_jsii_type_error_reaches_the_user_for_a_non_string_limit(chart: cdk8s.Chart) -> None:
    raises_on("limits[cpu]", lambda: KarpenterNodePool(chart, "p", limits={"cpu": 1000}))  # type: ignore[dict-item]
