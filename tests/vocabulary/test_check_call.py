"""A call to a construct with a keyword it does not take, or without one it needs, is a
``HeadroomConfigError`` naming the prop and listing the valid ones (``props.check_call``),
not Python's ``TypeError``."""

from __future__ import annotations

import pytest

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.props import check_call


def _construct(scope: object, id: str, *, name: str, size: int = 1) -> None:
    del scope, id, name, size


def test_an_unknown_keyword_is_named_with_the_valid_props() -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        check_call({"name": "x", "colour": "red"}, of=_construct)
    assert (raised.value.field, raised.value.value) == ("colour", "red")
    assert "_construct takes ['name', 'size']" in raised.value.allowed


def test_a_missing_required_keyword_is_named() -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        check_call({"size": 2}, of=_construct)
    assert raised.value.field == "name"
    assert raised.value.allowed.startswith("a required prop, not given")
