"""The Karpenter schema check itself: it accepts a valid pool and rejects bad ones."""

from typing import Any

from scripts.validation import _as_older_karpenter, validate_models

NODE_CLASS_REF = {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}


def pool(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "burst-pool"},
        "spec": {
            "template": {"spec": {"nodeClassRef": NODE_CLASS_REF, "requirements": []}},
            **spec,
        },
    }


def test_accepts_a_valid_node_pool() -> None:
    (result,) = validate_models([pool()])
    assert result.errors == ()


def test_rejects_an_unknown_requirement_operator() -> None:
    bad = pool()
    bad["spec"]["template"]["spec"]["requirements"] = [
        {"key": "k", "operator": "Bad", "values": []}
    ]
    (result,) = validate_models([bad])
    assert any("operator" in e for e in result.errors)


def test_a_kind_without_a_schema_is_an_error_not_a_pass() -> None:
    (result,) = validate_models(
        [{"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass", "metadata": {"name": "x"}}]
    )
    assert result.errors and "no schema" in result.errors[0]


def test_rejects_unknown_fields_at_every_level() -> None:
    bad = pool(typo=1)
    bad["spec"]["template"]["spec"]["nodeClassRef"] = {**NODE_CLASS_REF, "extra": True}
    bad["metadata"]["bogus"] = "x"
    (result,) = validate_models([bad])
    assert sorted(result.errors) == [
        "/metadata must NOT have additional properties (bogus)",
        "/spec must NOT have additional properties (typo)",
        "/spec/template/spec/nodeClassRef must NOT have additional properties (extra)",
    ]


def test_free_form_maps_and_lists_still_accept_any_key() -> None:
    good = pool(limits={"cpu": "100", "memory": "400Gi"})
    good["metadata"]["labels"] = {"team": "platform"}
    good["spec"]["template"]["metadata"] = {"labels": {"any/key": "v"}}
    good["spec"]["template"]["spec"]["requirements"] = [
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}
    ]
    node_class = {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "default"},
        "spec": {
            "role": "KarpenterNodeRole",
            "amiSelectorTerms": [{"alias": "al2023@latest"}],
            "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}],
            "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}],
            "tags": {"cost-center": "42"},
            "kubelet": {"systemReserved": {"cpu": "100m"}},
        },
    }
    assert [r.errors for r in validate_models([good, node_class])] == [(), ()]


def test_gte_and_lte_reach_the_older_validator_as_the_gt_and_lt_that_say_the_same() -> None:
    newer = pool()
    newer["spec"]["template"]["spec"]["requirements"] = [
        {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gte", "values": ["4"]},
        {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lte", "values": ["16"]},
    ]
    assert _as_older_karpenter(newer)["spec"]["template"]["spec"]["requirements"] == [
        {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["3"]},
        {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lt", "values": ["17"]},
    ]
    (result,) = validate_models([newer])
    assert result.errors == ()
    assert newer["spec"]["template"]["spec"]["requirements"][0]["operator"] == "Gte"
