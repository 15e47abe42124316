"""The recipe language (``vocabulary.recipes``) as the library evaluates it; the chart's
compiled recipes are held to the same results in tests/helm/test_helm_recipes.py."""

from __future__ import annotations

from typing import Any

import pytest

from cdk8s_headroom.vocabulary.recipes import (
    INDEX,
    ITEM,
    Choose,
    Each,
    EachEntry,
    IfAny,
    IfGiven,
    Item,
    JoinText,
    Take,
    Unique,
    empty,
    evaluate,
    fill_with,
    join,
    merge,
)


def test_a_constant_is_itself_and_a_take_is_its_input() -> None:
    recipe = {"fixed": {"emptyDir": {}}, "zero": 0, "taken": Take("x")}

    assert evaluate(recipe, {"x": []}) == {"fixed": {"emptyDir": {}}, "zero": 0, "taken": []}


@pytest.mark.parametrize(
    ("value", "left_out"),
    [
        *[(None, True), (False, True), (0, True), ("", True), ([], True), ({}, True)],
        *[(True, False), (1, False), ("x", False), (["x"], False), ({"a": 1}, False)],
    ],
)
def test_an_if_any_entry_is_left_out_when_empty_as_go_templates_if_judges(
    value: Any, left_out: bool
) -> None:
    # text/template's isTrue (Go's src/text/template/exec.go): the zero value is false
    assert empty(value) is left_out
    assert ("x" not in evaluate({"x": IfAny(Take("x"))}, {"x": value})) is left_out


def test_each_gives_its_recipe_every_item_with_its_index() -> None:
    recipe = Each("paths", {"name": fill_with("scratch-{index}", index=INDEX), "path": ITEM})

    assert evaluate(recipe, {"paths": ["/a", "/b"]}) == [
        {"name": "scratch-0", "path": "/a"},
        {"name": "scratch-1", "path": "/b"},
    ]


def test_join_puts_lists_one_after_another_and_item_reads_a_key() -> None:
    recipe = join(Each("a", ITEM), Each("b", Item("k")))

    assert evaluate(recipe, {"a": [1], "b": [{"k": 2}, {"k": 3}]}) == [1, 2, 3]


def test_join_text_puts_a_lists_texts_one_after_another_with_the_separator() -> None:
    recipe = JoinText(join(Take("a"), Take("b")), ", ")

    assert evaluate(recipe, {"a": ["x", "y"], "b": ["z"]}) == "x, y, z"
    assert evaluate(recipe, {"a": ["x"], "b": []}) == "x"
    assert evaluate(recipe, {"a": [], "b": []}) == ""
    # no list, as Sprig's join takes a missing one: no texts
    assert evaluate(JoinText(Take("a"), "|"), {"a": None}) == ""


def test_choose_takes_then_when_its_input_is_given_and_otherwise_when_none() -> None:
    recipe = Choose("zone", fill_with("{w}-{zone}", w=Take("w"), zone=Take("zone")), Take("w"))

    assert evaluate(recipe, {"w": "api", "zone": "a"}) == "api-a"
    assert evaluate(recipe, {"w": "api", "zone": None}) == "api"
    # given is not None: an empty text is given (a value check refuses it, by its name)
    assert evaluate(recipe, {"w": "api", "zone": ""}) == "api-"


def test_unique_keeps_each_item_once_where_it_first_comes() -> None:
    recipe = Unique(join(Take("a"), Take("b")))

    # maps too, compared as values (Sprig's uniq: reflect.DeepEqual)
    given = {"a": [{"k": 1}, "x", {"k": 2}], "b": ["x", {"k": 1}, "y"]}
    assert evaluate(recipe, given) == [{"k": 1}, "x", {"k": 2}, "y"]
    assert evaluate(Unique(Take("a")), {"a": None}) == []


def test_an_if_given_entry_is_left_out_only_when_none() -> None:
    recipe = {"seconds": IfGiven(Take("seconds"))}

    assert evaluate(recipe, {"seconds": None}) == {}
    assert evaluate(recipe, {"seconds": 0}) == {"seconds": 0}


def test_an_if_given_entry_of_an_input_is_left_out_only_when_that_input_is_none() -> None:
    # A map around an input never comes out None itself: its input says whether it is there
    recipe = {"ref": IfGiven({"kind": "Deployment", "name": Take("name")}, of="name")}

    assert evaluate(recipe, {"name": None}) == {}
    assert evaluate(recipe, {"name": ""}) == {"ref": {"kind": "Deployment", "name": ""}}


def test_an_if_given_entry_unless_an_input_is_left_out_when_that_input_is_given() -> None:
    # Another input takes the entry over: a Deployment's replicas, an autoscaler's count
    recipe = {"replicas": IfGiven(Take("replicas"), unless="maxReplicas")}

    assert evaluate(recipe, {"replicas": 0, "maxReplicas": None}) == {"replicas": 0}
    assert evaluate(recipe, {"replicas": 2, "maxReplicas": 0}) == {}
    assert evaluate(recipe, {"replicas": None, "maxReplicas": None}) == {}


def test_merge_puts_maps_one_after_another_a_later_entry_over_an_earlier() -> None:
    recipe = merge(Take("selector"), {"zone": IfGiven(Take("zone"))})

    assert evaluate(recipe, {"selector": None, "zone": None}) == {}
    assert evaluate(recipe, {"selector": {"zone": "a", "k": "v"}, "zone": "b"}) == {
        "zone": "b",
        "k": "v",
    }


def test_each_entry_gives_its_recipe_every_item_of_a_map_under_its_key() -> None:
    recipe = EachEntry("devices", fill_with("{count}", count=ITEM))

    assert evaluate(recipe, {"devices": {"nvidia.com/gpu": 1}}) == {"nvidia.com/gpu": "1"}
    assert evaluate(recipe, {"devices": None}) == {}
