"""The Karpenter schema check itself: it accepts a valid pool and rejects bad ones."""

from typing import Any

from scripts.validation import validate_karpenter

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
    (result,) = validate_karpenter([pool()])
    assert result.errors == ()


def test_rejects_an_unknown_requirement_operator() -> None:
    bad = pool()
    bad["spec"]["template"]["spec"]["requirements"] = [
        {"key": "k", "operator": "Bad", "values": []}
    ]
    (result,) = validate_karpenter([bad])
    assert any("operator" in e for e in result.errors)


def test_a_kind_without_a_schema_is_an_error_not_a_pass() -> None:
    (result,) = validate_karpenter(
        [{"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass", "metadata": {"name": "x"}}]
    )
    assert result.errors and "no schema" in result.errors[0]
