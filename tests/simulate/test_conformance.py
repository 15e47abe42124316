"""The simulator against kube-scheduler's own cases (shared/preemption/*.json).

The vectors live beside the repository (``../shared/preemption/``) and are not copied
into it; without them these tests skip. Each vector is read with ``load_scenario`` and
decided with ``decide``, the functions behind ``cdk8s-headroom simulate --scenario``,
and only what the vector asserts is compared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cdk8s_headroom.cli import main
from cdk8s_headroom.simulate import decide, load_scenario

VECTORS = Path(__file__).resolve().parents[2].parent / "shared" / "preemption"


def _vectors() -> list[Any]:
    if not VECTORS.is_dir():
        return [
            pytest.param(
                None,
                marks=pytest.mark.skip(reason=f"no preemption vectors at {VECTORS}"),
                id="vectors-missing",
            )
        ]
    return [
        pytest.param(vector, id=f"{path.stem}: {vector['name']}")
        for path in sorted(VECTORS.glob("*.json"))
        for vector in json.loads(path.read_text())
    ]


def _sorted(per_node: dict[str, list[str]]) -> dict[str, list[str]]:
    return {node: sorted(victims) for node, victims in per_node.items()}


@pytest.mark.parametrize("vector", _vectors())
def test_the_simulator_decides_as_the_scheduler(vector: dict[str, Any]) -> None:
    expected = vector["expected"]

    decision: dict[str, Any] = decide(load_scenario(vector, source=vector["name"])).to_json()

    if "eligible_to_preempt" in expected:
        assert decision["eligible"] is expected["eligible_to_preempt"]
    if "node" in expected:
        assert decision["node"] == expected["node"]
    if "node_one_of" in expected:
        assert decision["node"] in expected["node_one_of"]
    if "victims" in expected:
        assert sorted(decision["victims"]) == sorted(expected["victims"])
    if "per_node_victims" in expected:
        assert _sorted(decision["per_node_victims"]) == _sorted(expected["per_node_victims"])
    if "per_node_pdb_violations" in expected:
        assert decision["per_node_pdb_violations"] == expected["per_node_pdb_violations"]
    if "num_pdb_violations" in expected:
        assert (
            decision["per_node_pdb_violations"][decision["node"]]
            == (expected["num_pdb_violations"])
        )


@pytest.mark.skipif(not VECTORS.is_dir(), reason=f"no preemption vectors at {VECTORS}")
def test_the_command_prints_the_same_decision_as_the_function(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vector = json.loads((VECTORS / "upstream_vectors.json").read_text())[2]
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(vector))

    code = main(["simulate", "--scenario", str(scenario), "--json"])

    assert code == 0
    assert json.loads(capsys.readouterr().out) == decide(load_scenario(vector)).to_json()
