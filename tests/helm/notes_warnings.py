"""The warnings a value set gives, as the library gives them (``errors.warn``, a
``HeadroomWarning``) and as the chart's NOTES.txt writes them (a ``WARNING:`` paragraph),
in the same words (``helm/library.py chart_words``), so a test can hold the two equal."""

from __future__ import annotations

import warnings

from cdk8s_headroom.helm.notes import chart_words
from cdk8s_headroom.helm.values import HEADROOM_FIELDS
from cdk8s_headroom.vocabulary.errors import HeadroomWarning


def library_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    """The library's warnings of ``caught`` (``catch_warnings(record=True)``), sorted,
    the lines joined, in the chart's words: the models named as the values name them,
    and a warning of a headroom's prop (``cpu: '64' is 64 cores``) named by the value
    that gives it (``reservation.cpu``, ``values.HEADROOM_FIELDS``)."""
    given = [w for w in caught if issubclass(w.category, HeadroomWarning)]
    found = []
    for warning in given:
        text = chart_words(" ".join(str(warning.message).split()))
        prop, colon, rest = text.partition(": ")
        if colon and prop in HEADROOM_FIELDS:
            text = f"{HEADROOM_FIELDS[prop]}: {rest}"
        found.append(text)
    return sorted(found)


def notes_warnings(notes: str) -> list[str]:
    """The ``WARNING:`` paragraphs of a NOTES.txt, sorted, the lines joined."""
    paragraphs = [" ".join(p.split()) for p in notes.split("\n\n")]
    return sorted(p.removeprefix("WARNING: ") for p in paragraphs if p.startswith("WARNING: "))
