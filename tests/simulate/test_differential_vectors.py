"""Every disagreement the differential runs found (``e2e/differential.py``), kept as a
regression vector per release in ``tests/simulate/vectors/differential-<release>.json``
(the format of the upstream vectors, ``expected`` being what the live kube-scheduler of
that release did). Each is either fixed, so the simulator now gives the scheduler's
answer or one it may reach by breaking a tie at random (``answers``), or is a limit of
the model that ``docs/simulate.md`` explains, named in the vector's ``reasoning``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cdk8s_headroom.simulate.versions import KubernetesVersion
from e2e.differential import VECTORS
from e2e.differential_answers import Answer, answers

DOCS = Path(__file__).resolve().parents[2] / "docs" / "simulate.md"


def _vectors() -> list[Any]:
    found = []
    for path in sorted(VECTORS.glob("differential-*.json")):
        release = path.stem.removeprefix("differential-")
        for vector in json.loads(path.read_text()):
            found.append(pytest.param(release, vector, id=f"{release}: {vector['name']}"))
    return found


@pytest.mark.parametrize(("release", "vector"), _vectors())
def test_the_simulator_now_gives_what_the_scheduler_did_or_the_limit_is_documented(
    release: str, vector: dict[str, Any]
) -> None:
    version = KubernetesVersion.parse(release, field="release")
    expected = Answer(vector["expected"]["node"], frozenset(vector["expected"]["victims"]))

    if vector["reasoning"].startswith("limit: "):
        assert vector["reasoning"].removeprefix("limit: ") in DOCS.read_text()
    else:
        assert expected in answers(vector, version)


def test_the_vectors_are_there() -> None:
    assert _vectors()
