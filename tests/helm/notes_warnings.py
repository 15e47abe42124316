"""The warnings a value set gives, as the library gives them (``errors.warn``, a
``HeadroomWarning``) and as the chart's NOTES.txt writes them (a ``WARNING:`` paragraph),
in the same words (``helm/library.py chart_words``), so a test can hold the two equal."""

from __future__ import annotations

import re
import warnings

from cdk8s_headroom.helm.notes import chart_words
from cdk8s_headroom.helm.values import BURST_WORKLOAD, HEADROOM_FIELDS
from cdk8s_headroom.vocabulary.errors import HeadroomWarning


def library_warnings(caught: list[warnings.WarningMessage], prefix: str = "") -> list[str]:
    """The library's warnings of ``caught`` (``catch_warnings(record=True)``), sorted,
    the lines joined, in the chart's words: the models named as the values name them,
    and a warning of a prop (``cpu: '64' is 64 cores``) named by the value that gives it
    (``reservation.cpu``, ``_value_path``); a burst workload by its item's name, without
    the release's name ``prefix`` (``values_to_app.name_prefix``)."""
    given = [w for w in caught if issubclass(w.category, HeadroomWarning)]
    found = []
    for warning in given:
        text = chart_words(" ".join(str(warning.message).split()))
        field, colon, rest = text.partition(": ")
        if colon:
            text = f"{_value_path(field, prefix)}: {rest}"
        found.append(text)
    return sorted(found)


_BURST_PATHS = {prop: path for path, prop in BURST_WORKLOAD.items()}
_BURST_PROP = re.compile(r"burst_workloads\[(?P<name>[^]]+)\]\.(?P<prop>\w+)")


def _value_path(field: str, prefix: str) -> str:
    """The value that gives the library's ``field``: a headroom's prop
    (``values.HEADROOM_FIELDS``), or a burst workload's (``burst_workloads[api].memory``
    is ``burstWorkloads[api].resources.requests.memory``, ``values.BURST_WORKLOAD``)."""
    if field in HEADROOM_FIELDS:
        return HEADROOM_FIELDS[field]
    burst = _BURST_PROP.fullmatch(field)
    if burst and burst["prop"] in _BURST_PATHS:
        name = burst["name"].removeprefix(prefix)
        return f"burstWorkloads[{name}].{_BURST_PATHS[burst['prop']]}"
    return field


def notes_warnings(notes: str) -> list[str]:
    """The ``WARNING:`` paragraphs of a NOTES.txt, sorted, the lines joined."""
    paragraphs = [" ".join(p.split()) for p in notes.split("\n\n")]
    return sorted(p.removeprefix("WARNING: ") for p in paragraphs if p.startswith("WARNING: "))
