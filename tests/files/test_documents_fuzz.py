"""Fuzzed input files: every reader ends in a result or in one line naming the file.

Each example takes a real input (a cluster file, a scenario, the synthesized manifests,
a kubectl snapshot), mutates its bytes (truncation, random bytes, another encoding,
deep nesting, anchors and aliases, huge numbers, YAML tags) and hands it to one of the readers
that users' files go through: the object reader, the one-document reader, simulate's
cluster, scenario and manifests readers, and `make validate`'s folder reader. Anything
but a result or a ``HeadroomConfigError`` with a one-line message is a failure.

The examples run in-process, so that 300 of them stay cheap; a few fixed cases run the
commands themselves, to show exit status 2, one line on stderr and no traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from cdk8s_headroom.cluster.snapshot import read_snapshot
from cdk8s_headroom.files.documents import FileObjects, parse_objects, read_document, read_objects
from cdk8s_headroom.simulate import read_cluster, read_manifests, read_scenario
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from scripts.validation import is_karpenter, read_folder, validate_objects
from tests.conftest import ROOT

COMMAND = (sys.executable, "-m", "cdk8s_headroom", "simulate")
EXAMPLES = int(os.environ.get("HEADROOM_READER_FUZZ_EXAMPLES", "300"))

CLUSTER = (ROOT / "docs" / "examples" / "cluster.yaml").read_bytes()
MANIFESTS = b"---\n".join(path.read_bytes() for path in sorted((ROOT / "dist").glob("*.yaml")))
SCENARIO = b"""\
nodes:
  - name: n
    allocatable: {cpu: "2", memory: 4Gi}
pods:
  - {name: low, node: n, priority: 0, requests: {cpu: "1", memory: 1Gi}}
preemptor: {name: burst, priority: 1000, requests: {cpu: 1500m}}
"""
SNAPSHOT = json.dumps(
    {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": "ip-10-0-0-1", "creationTimestamp": "2024-01-01T00:00:00Z"},
                "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}},
            },
            {
                "apiVersion": "v1",
                "kind": "PodList",
                "items": [{"metadata": {"name": "web", "namespace": "apps"}, "spec": {}}],
            },
        ],
    },
    indent=1,
).encode()
SEEDS = {"cluster.yaml": CLUSTER, "manifests.yaml": MANIFESTS, "scenario.yaml": SCENARIO}
SEEDS["snapshot.json"] = SNAPSHOT

BOMB = b"a: &a [x, x, x, x, x, x, x, x]\n" + b"".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 8)}]\n".encode()
    for i in range(8)
)


def _splice(data: bytes, at: int, insert: bytes, remove: int = 0) -> bytes:
    at = at % (len(data) + 1)
    return data[:at] + insert + data[at + remove :]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(sorted(SEEDS)))
    data = SEEDS[name]
    at = draw(st.integers(min_value=0, max_value=len(data)))
    mutation = draw(
        st.sampled_from(
            [
                "truncate",
                "bytes",
                "random",
                "encoding",
                "nesting",
                "alias",
                "number",
                "tag",
                "twice",
            ]
        )
    )
    note(f"{name}: {mutation} at {at}")
    if mutation == "truncate":
        return name, data[:at]
    if mutation == "bytes":
        noise = draw(st.binary(min_size=1, max_size=16))
        return name, _splice(data, at, noise, draw(st.integers(0, 16)))
    if mutation == "random":
        return name, draw(st.binary(max_size=256))
    if mutation == "encoding":
        text = _splice(data, at, "é€\u00a0".encode()).decode("utf-8", "replace")
        encoding = draw(st.sampled_from(["utf-16", "utf-16-le", "utf-32", "latin-1", "cp1252"]))
        return name, text.encode(encoding, "replace")
    if mutation == "nesting":
        depth = draw(st.sampled_from([5, 99, 100, 101, 1000, 20_000]))
        opening, closing = draw(st.sampled_from([(b"[", b"]"), (b"{a: ", b"}"), (b"- ", b"")]))
        return name, _splice(data, at, b" " + opening * depth + b"x" + closing * depth)
    if mutation == "alias":
        piece = draw(
            st.sampled_from(
                [b" &anchor x", b" *anchor", b" &r [*r]", b" &m {k: *m}", b" <<: *nowhere", BOMB]
            )
        )
        if piece is BOMB:
            return name, BOMB + b"---\n" + data
        return name, _splice(data, at, piece)
    if mutation == "number":
        number = draw(
            st.sampled_from(
                [
                    b"1e400",
                    b"-1e400",
                    b".nan",
                    b"-.inf",
                    b"0x" + b"f" * 64,
                    b"9" * 4301,
                    b"9" * 50_000,
                    b"1" + b"0" * 400 + b"Ki",
                    b"2" * 20,
                ]
            )
        )
        return name, _splice(data, at, b" " + number, draw(st.integers(0, 8)))
    if mutation == "tag":
        tag = draw(
            st.sampled_from(
                [
                    b" !!omap [a: 1, b: 2]",
                    b" !!pairs [a: 1, a: 2]",
                    b" !!set {a, b}",
                    b" !!binary aGVsbG8=",
                    b" !!timestamp 2024-01-01",
                    b" !!python/object/apply:os.system [true]",
                    b" !custom x",
                    b" =",
                ]
            )
        )
        return name, _splice(data, at, tag)
    return name, data + b"\n---\n" + data[: at // 2]


def _validate(folder: Path) -> list[FileObjects]:
    """`make validate` without its subprocesses: the reading, the schemas and Pod
    Security (checkov and the Karpenter validator run outside Python)."""
    files = read_folder(folder)
    objects = [o for f in files for o in f.objects if not is_karpenter(o.obj)]
    validate_objects(objects, checkov=False)
    return files


def _in_process(reader: str, name: str, data: bytes, folder: Path) -> object:
    target = folder / name
    target.write_bytes(data)
    readers: dict[str, Callable[[], object]] = {
        "objects": lambda: parse_objects(data, name),
        "document": lambda: read_document(target),
        "cluster": lambda: read_cluster(target),
        "scenario": lambda: read_scenario(target),
        "manifests": lambda: read_manifests(folder),
        "snapshot": lambda: read_snapshot(target),
        "validate": lambda: _validate(folder),
    }
    return readers[reader]()


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    case=mutated(),
    reader=st.sampled_from(
        ["objects", "document", "cluster", "scenario", "manifests", "snapshot", "validate"]
    ),
)
def test_every_reader_gives_a_result_or_one_line_naming_the_file(
    case: tuple[str, bytes], reader: str
) -> None:
    name, data = case
    with tempfile.TemporaryDirectory() as workdir:
        try:
            result: Any = _in_process(reader, name, data, Path(workdir))
        except HeadroomConfigError as error:
            message = str(error)
            assert "\n" not in message, message
            assert name in message, message
            return
    if reader == "validate":
        for file in result:
            if file.error is not None:
                assert "\n" not in str(file.error)
                assert str(file.error).startswith(name)


def test_the_seeds_themselves_are_read() -> None:
    # Otherwise the fuzzing would only mutate inputs that fail before any consumer.
    assert [o.kind for o in parse_objects(SNAPSHOT, "s.json")] == ["Node", "Pod"]
    assert len(parse_objects(MANIFESTS, "m.yaml")) == len(read_objects(ROOT / "dist"))
    with tempfile.TemporaryDirectory() as workdir:
        assert read_cluster(_written(Path(workdir), "cluster.yaml", CLUSTER)).nodes
        assert read_scenario(_written(Path(workdir), "scenario.yaml", SCENARIO)).preemptor


def _written(folder: Path, name: str, data: bytes) -> Path:
    (folder / name).write_bytes(data)
    return folder / name


# --- the commands themselves -----------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (BOMB, "excessive aliasing"),
        (b"nodes: " + b"[" * 5000 + b"]" * 5000, "invalid YAML"),
        (b"nodes: [{name: n, allocatable: {cpu: " + b"9" * 5000 + b"}}]", "too large to read"),
        (CLUSTER[: len(CLUSTER) // 3], "cluster.yaml"),
    ],
    ids=["alias bomb", "deep nesting", "huge integer", "truncated"],
)
def test_the_simulate_command_exits_2_with_one_line(
    tmp_path: Path, data: bytes, expected: str
) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_bytes(data)

    result = subprocess.run(
        [*COMMAND, "--manifests", "dist", "--cluster", str(cluster)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 2, result.stdout
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert expected in result.stderr


def test_the_simulate_command_reads_a_scenario_from_stdin() -> None:
    result = subprocess.run(
        [*COMMAND, "--scenario", "-"],
        input=SCENARIO.decode(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("burst -> n; evicts low")
