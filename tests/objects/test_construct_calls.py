"""Every public construct judges its call before it joins the tree: an id that is not a
string, is empty, holds ``/`` or is already used, and an unknown or missing prop, are a
``HeadroomConfigError`` naming the field, never jsii's ``TypeError`` or cdk8s'
``RuntimeError`` (``core.construct.HeadroomConstruct``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cdk8s
import pytest
from cdk8s import Testing as K8sTesting

import cdk8s_headroom
from cdk8s_headroom import (
    BurstWorkload,
    HeadroomNamespace,
    HeadroomPriorityClasses,
    HeadroomReserver,
    NodeHeadroom,
)
from cdk8s_headroom.core.construct import HeadroomConstruct
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

PUBLIC_CONSTRUCTS = sorted(
    name
    for name in cdk8s_headroom.__all__
    if isinstance(getattr(cdk8s_headroom, name), type)
    and issubclass(getattr(cdk8s_headroom, name), HeadroomConstruct)
)

# One valid call of each, so that a test changes one thing at a time.
VALID: dict[str, Callable[[cdk8s.Chart, Any], object]] = {
    "NodeHeadroom": lambda scope, id: NodeHeadroom(scope, id),
    "HeadroomNamespace": lambda scope, id: HeadroomNamespace(scope, id, name="headroom"),
    "HeadroomPriorityClasses": lambda scope, id: HeadroomPriorityClasses(scope, id),
    "HeadroomReserver": lambda scope, id: HeadroomReserver(
        scope, id, cpu="100m", memory="64Mi", priority_class_name="headroom-reserve"
    ),
    "BurstWorkload": lambda scope, id: BurstWorkload(
        scope, id, image="nginx:1.27", cpu="100m", memory="64Mi"
    ),
}


def test_the_table_of_valid_calls_names_public_constructs() -> None:
    assert set(VALID) <= set(PUBLIC_CONSTRUCTS)
    assert len(PUBLIC_CONSTRUCTS) >= 10


@pytest.mark.parametrize("name", PUBLIC_CONSTRUCTS)
@pytest.mark.parametrize("bad_id", [5, None, "", "a/b"], ids=["int", "none", "empty", "slash"])
def test_a_bad_id_is_refused_naming_the_field_and_the_path(name: str, bad_id: object) -> None:
    chart = K8sTesting.chart()
    construct = getattr(cdk8s_headroom, name)
    with pytest.raises(HeadroomConfigError) as raised:
        construct(chart, bad_id)  # the id is judged before the props
    assert (raised.value.field, raised.value.value) == ("id", bad_id)
    assert f"for a construct in {chart.node.path!r}" in raised.value.allowed
    assert chart.node.children == []


@pytest.mark.parametrize("name", sorted(VALID))
def test_an_id_used_twice_is_refused_and_the_first_construct_kept(name: str) -> None:
    chart = K8sTesting.chart()
    first = VALID[name](chart, "same")
    with pytest.raises(HeadroomConfigError) as raised:
        VALID[name](chart, "same")
    assert (raised.value.field, raised.value.value) == ("id", "same")
    assert raised.value.allowed.startswith(f"an id not used yet in {chart.node.path!r}")
    assert chart.node.children == [first]


@pytest.mark.parametrize("name", PUBLIC_CONSTRUCTS)
def test_an_unknown_keyword_is_refused_listing_the_valid_props(name: str) -> None:
    construct = getattr(cdk8s_headroom, name)
    with pytest.raises(HeadroomConfigError) as raised:
        construct(K8sTesting.chart(), "x", colour="red")
    assert (raised.value.field, raised.value.value) == ("colour", "red")
    assert raised.value.allowed.startswith(f"no such prop; {name} takes [")


def test_a_missing_required_keyword_is_refused_by_name() -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        HeadroomReserver(K8sTesting.chart(), "r", priority_class_name="headroom-reserve")
    assert raised.value.field == "cpu"
    assert raised.value.allowed.startswith("a required prop, not given; HeadroomReserver takes")


def test_a_subclass_that_takes_any_keyword_passes_its_own_on() -> None:
    class Named(HeadroomNamespace):
        def __init__(self, scope: cdk8s.Chart, id: str, **kwargs: Any) -> None:
            self.extra = kwargs.pop("extra")
            super().__init__(scope, id, **kwargs)

    named = Named(K8sTesting.chart(), "n", name="headroom", extra=1)
    assert (named.name, named.extra) == ("headroom", 1)


def test_add_burst_workload_refuses_an_unknown_keyword() -> None:
    headroom = NodeHeadroom(K8sTesting.chart(), "h")
    with pytest.raises(HeadroomConfigError) as raised:
        headroom.add_burst_workload("api", image="nginx:1.27", cpu="100m", memory="64Mi", colour=1)
    assert raised.value.field.endswith("colour")
    assert "no such prop" in raised.value.allowed


@pytest.mark.parametrize("name", ["kube-system", "kube-public", "default"])
def test_a_namespace_others_pods_live_in_is_refused_saying_why(name: str) -> None:
    chart = K8sTesting.chart()
    with pytest.raises(HeadroomConfigError) as raised:
        HeadroomNamespace(chart, "namespace", name=name)
    assert (raised.value.field, raised.value.value) == ("namespace", name)
    assert "would reject the pods already there" in raised.value.allowed
    assert chart.node.children == []
