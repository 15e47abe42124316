"""The chart shows a refused value as the library does (``errors.shown``, and the
chart's ``node-headroom.repr``): control and non-ASCII characters escaped as Python's
``ascii()`` writes them, so that a Cyrillic letter beside Latin ones, a NUL or a newline
can be seen, and an empty list said to be empty."""

from __future__ import annotations

import warnings
from typing import Any

import helm_python as helm
import pytest

from cdk8s_headroom.helm import Release, synthesize
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from scripts.helm_render import render

TEXTS = [
    "n\u043ede-1",  # a Cyrillic o
    "caf\u00e9",  # below U+0100: Python writes \xe9, Go \u00e9
    "a\x00b",
    "line\nbreak\ttab",
    "bell\x07back\x08feed\x0cvert\x0b",
    "del\x7fc1\x85",
    "emoji\U0001f600",
    "back\\slash",
    "it's",
    "both ' and \"",
    'say "hi"',
]


@pytest.mark.parametrize("text", TEXTS)
def test_a_refused_text_is_shown_alike_by_the_chart_and_the_library(
    chart: helm.Chart, chart_defaults: dict[str, Any], text: str
) -> None:
    overrides = {"namespace": {"name": text}}
    with pytest.raises(HeadroomConfigError) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthesize(overrides, Release(), chart_defaults=chart_defaults)
    message = str(raised.value)
    assert message.isascii() and message.isprintable()
    with pytest.raises(helm.HelmError) as failed:
        render(chart, overrides)
    assert message in str(failed.value)
