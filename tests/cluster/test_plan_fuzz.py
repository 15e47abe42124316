"""Mutated kubectl snapshots end in a report or in one error line, never a traceback.

Each case takes a small snapshot in kubectl's format (nodes, pods with managedFields and
status, classes, a PDB, an event), mutates it (a field dropped, a value of the wrong type,
an unknown kind, the file truncated), serializes it as JSON or YAML, and runs the reader,
plan and status on the bytes, in-process. ``HEADROOM_FUZZ_EXAMPLES`` runs more cases.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdk8s_headroom.cluster.plan import plan
from cdk8s_headroom.cluster.snapshot import load_snapshot
from cdk8s_headroom.cluster.status import status
from cdk8s_headroom.files.documents import parse_objects
from cdk8s_headroom.simulate.manifests import read_manifests
from cdk8s_headroom.simulate.versions import KubernetesVersion
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = max(300, int(os.environ.get("HEADROOM_FUZZ_EXAMPLES", "300")))
MANIFESTS = read_manifests(ROOT / "dist")
FILE = "snapshot.json"
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _base() -> dict[str, Any]:
    """One node of the example with its pods (a waiting reserver among them), the
    classes, the PDB and an event: every reader path and both reports run, and a case
    stays cheap."""
    after = json.loads((ROOT / "docs" / "examples" / "snapshot-after.json").read_text())
    node = [o for o in after["items"] if o["kind"] == "Node"][2]
    name = node["metadata"]["name"]
    items = [
        o
        for o in after["items"]
        if o["kind"] in ("PriorityClass", "PodDisruptionBudget")
        or (o["kind"] == "Pod" and name in json.dumps(o["spec"]))
    ]
    event = next(o for o in after["items"] if o["kind"] == "Event")
    return {"apiVersion": "v1", "items": [node, *items, event], "kind": "List", "metadata": {}}


BASE = _base()
BASE_TEXT = json.dumps(BASE)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


PATHS = _paths(BASE)
WRONG = st.sampled_from(
    [
        None,
        0,
        -1,
        3.5,
        True,
        "",
        "x",
        "-5",
        "1e400",
        "2024-13-45T00:00:00Z",
        "2024-02-30T25:61:61.5Z",
        [],
        [1],
        {},
        {"a": 1},
    ]
)
KINDS = st.sampled_from(["Widget", "", "List", "NodeList", "Pod", "Node", "Event", 7])


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    snapshot = json.loads(BASE_TEXT)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PATHS))
        parent: Any = snapshot
        try:
            for key in path[:-1]:
                parent = parent[key]
            action = draw(st.sampled_from(["drop", "wrong", "kind"]))
            if action == "drop":
                del parent[path[-1]]
            elif action == "wrong":
                parent[path[-1]] = draw(WRONG)
            else:
                item = parent if isinstance(parent, dict) else {}
                item["kind"] = draw(KINDS)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed the path
    # YAML costs ten times JSON to write and read: one case in eight is YAML.
    if draw(st.integers(0, 7)):
        text = json.dumps(snapshot).encode()
    else:
        text = yaml.dump(snapshot, Dumper=_DUMPER).encode()
    if draw(st.integers(0, 4)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return text


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutated())
def test_a_mutated_snapshot_gives_a_report_or_one_error_line(data: bytes) -> None:
    try:
        objects = parse_objects(data, FILE)
        snapshot = load_snapshot(objects)
        version = snapshot.version or KubernetesVersion(1, 37)
        planned = plan(MANIFESTS, snapshot, version=version, version_from="fuzz")
        observed = status(snapshot, version=version, version_from="fuzz")
    except HeadroomConfigError as error:
        message = str(error)
        assert message.startswith(FILE) or message.startswith("--snapshot"), message
        assert "\n" not in message, message
        return
    assert planned.render()
    json.dumps(planned.to_json())
    assert observed.render()
    json.dumps(observed.to_json())
    assert planned.exit_status(0) in (0, 1)
