"""Props declared once as a TypedDict: the signature ``inspect`` shows, the defaults, and
the refusal of a prop the declaration lacks."""

from __future__ import annotations

import inspect

import pytest

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.props import (
    Required,
    TypedDict,
    Unpack,
    check_props,
    required,
    spelled_out,
    with_defaults,
)


class _Props(TypedDict, total=False):
    size: Required[int]
    colour: str
    count: int


_DEFAULTS = {"colour": "red", "count": 1}


@spelled_out(_Props, _DEFAULTS)
def _make(name: str, *, strict: bool = False, **props: Unpack[_Props]) -> _Props:
    check_props(props, of=_make)
    return with_defaults(props, _DEFAULTS)


def test_required_reads_required_from_the_hints_in_the_order_written() -> None:
    assert required(_Props) == ("size",)


def test_the_signature_spells_out_the_props_required_first_with_their_defaults() -> None:
    parameters = inspect.signature(_make).parameters
    assert list(parameters) == ["name", "strict", "size", "colour", "count"]
    assert parameters["size"].default is inspect.Parameter.empty
    assert parameters["size"].kind is inspect.Parameter.KEYWORD_ONLY
    assert (parameters["colour"].default, parameters["colour"].annotation) == ("red", str)
    assert parameters["count"].default == 1


def test_the_defaults_fill_in_what_the_call_leaves_out() -> None:
    assert _make("x", size=2, count=5) == {"size": 2, "colour": "red", "count": 5}


def test_a_prop_the_declaration_lacks_is_refused_listing_every_keyword() -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        _make("x", size=2, colour="blue", cuont=5)
    assert raised.value.field == "cuont"
    assert raised.value.value == 5
    assert raised.value.allowed == (
        "no such prop; _make takes ['colour', 'count', 'size', 'strict']"
    )


@pytest.mark.parametrize(
    "defaults",
    [
        {"colour": "red"},
        {"colour": "red", "count": 1, "size": 3},
        {"colour": "red", "count": 1, "x": 0},
    ],
    ids=["a prop without a default", "a default for a required prop", "a default for no prop"],
)
def test_defaults_that_do_not_match_the_props_are_refused_at_import(
    defaults: dict[str, object],
) -> None:
    def make(**props: Unpack[_Props]) -> None:
        del props

    with pytest.raises(TypeError, match="defaults"):
        spelled_out(_Props, defaults)(make)
