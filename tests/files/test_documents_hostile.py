"""Hostile input to the readers of users' files: duplicate keys, files cut short, and
special files (pipes, sockets, devices), each refused in one line without blocking."""

from __future__ import annotations

import json
import os
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from cdk8s_headroom.files.documents import (
    InputFileError,
    parse_objects,
    read_document,
    read_each,
    read_objects,
)
from tests.files.bad_files import parse_error

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "apps"}}
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "ip-10-0-0-1"}}


# --- hostile input: duplicate keys, truncation, special files ------------------------
#
# Duplicate keys: the API server decodes strictly (k8s.io/apimachinery
# pkg/util/yaml NewYAMLOrJSONDecoder and pkg/runtime/serializer/json with strict
# fields, through sigs.k8s.io/yaml UnmarshalStrict: "key ... already set in map"), so a
# manifest or a kubectl snapshot with a key twice is an error here too, not a file
# where the last value silently wins.


def test_a_yaml_key_given_twice_is_refused_with_its_line_and_the_first() -> None:
    message = parse_error(b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  name: api\n")

    assert message == (
        "f.yaml: line 5, column 3: invalid YAML: the key 'name' appears twice in one mapping "
        "(first at line 4); Kubernetes' strict decoding refuses duplicate keys (the last "
        "value would silently win)"
    )


@pytest.mark.parametrize("name", ["f.json", "f.yaml"])
def test_a_json_key_given_twice_is_refused_with_its_line(name: str) -> None:
    # kubectl get -o json's layout; the same error whether read as .json or sniffed JSON
    text = json.dumps(NODE, indent=4).replace(
        '"name": "ip-10-0-0-1"', '"name": "ip-10-0-0-1",\n        "name": "ip-10-0-0-2"'
    )

    message = parse_error(text.encode(), name)

    assert message.startswith(
        f"{name}: line 6, column 9: invalid JSON: the key 'name' appears twice in one object "
        "(first at line 5)"
    )


def test_a_key_given_twice_in_a_cluster_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(
        "nodes:\n  - name: n\n    allocatable: {cpu: '4', memory: 16Gi}\n"
        "    allocatable: {cpu: '64', memory: 256Gi}\n"
    )

    with pytest.raises(InputFileError, match=r"line 4, column 5: .*'allocatable' appears twice"):
        read_document(path)


def test_a_merged_key_may_be_overridden_as_yaml_merge_says() -> None:
    text = b"apiVersion: v1\nkind: Pod\nbase: &b {name: a, namespace: apps}\n"
    text += b"metadata:\n  <<: *b\n  name: web\n"

    (pod,) = parse_objects(text, "f.yaml")

    assert pod.obj["metadata"] == {"name": "web", "namespace": "apps"}


def test_the_same_text_under_two_keys_of_different_types_is_not_a_duplicate() -> None:
    # "1" and 1 are different YAML keys; only the same key twice is refused
    (pod,) = parse_objects(b"apiVersion: v1\nkind: Pod\ndata: {'1': a, 1: b}\n", "f.yaml")

    assert pod.obj["data"] == {"1": "a", 1: "b"}


@pytest.mark.parametrize(
    ("data", "name", "expected"),
    [
        (b'{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "w"', "f.json", "line 1"),
        (b'{"apiVersion": "v1", "kind": "Po', "f.json", "Unterminated string"),
        (b'apiVersion: v1\nkind: Pod\nmetadata: {name: "w', "f.yaml", "quoted scalar"),
        (b"apiVersion: v1\nkind: Pod\nspec: {containers: [\n", "f.yaml", "flow node"),
    ],
    ids=["json-object", "json-string", "yaml-quote", "yaml-flow"],
)
def test_a_file_cut_short_is_said_to_end_early(data: bytes, name: str, expected: str) -> None:
    message = parse_error(data, name)

    assert message.endswith("; the file ends early: is it truncated?")
    assert expected in message


def test_an_unterminated_json_string_says_where_the_string_starts() -> None:
    # GIVEN JSON cut short inside a string that starts on line 2, column 10
    message = parse_error(b'{"apiVersion": "v1",\n "kind": "Po', "f.json")

    # THEN json's "starting at" keeps its position
    assert message == (
        "f.json: line 2, column 10: invalid JSON: Unterminated string starting at line 2, "
        "column 10; the file ends early: is it truncated?"
    )


def test_a_syntax_error_in_the_middle_does_not_claim_truncation() -> None:
    message = parse_error(b'{"apiVersion": "v1",, "kind": "Pod"}\n', "f.json")

    assert "invalid JSON" in message
    assert "ends early" not in message


@pytest.fixture
def no_hang() -> Iterator[None]:
    """Fails the test, instead of hanging the suite, if reading blocks for 10 s."""

    def blocked(signum: int, frame: object) -> None:
        raise TimeoutError("the reader blocked on a special file")

    previous = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_named_pipe_named_directly_is_refused_without_blocking(
    tmp_path: Path, no_hang: None
) -> None:
    pipe = tmp_path / "pods.yaml"
    os.mkfifo(pipe)

    with pytest.raises(InputFileError) as error:
        read_objects(pipe)
    assert (
        str(error.value) == f"{pipe}: a named pipe (FIFO), not a regular file: only files are read"
    )


def test_a_named_pipe_in_a_folder_is_refused_and_hides_no_other_file(
    tmp_path: Path, no_hang: None
) -> None:
    os.mkfifo(tmp_path / "a-pipe.yaml")
    (tmp_path / "b-pod.yaml").write_text(yaml.safe_dump(POD))

    results = read_each(tmp_path)

    assert [(Path(r.file).name, r.error.problem if r.error else None) for r in results] == [
        ("a-pipe.yaml", "a named pipe (FIFO), not a regular file: only files are read"),
        ("b-pod.yaml", None),
    ]
    assert [o.name for o in results[1].objects] == ["web"]


def test_a_socket_is_refused_by_name(tmp_path: Path, no_hang: None) -> None:
    path = tmp_path / "s.yaml"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(InputFileError, match=r"s\.yaml: a socket, not a regular file"):
            read_objects(path)


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_a_device_is_refused_by_name(device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"{device} does not exist here")
    with pytest.raises(InputFileError) as error:
        read_document(device)
    assert (
        str(error.value) == f"{device}: a character device, not a regular file: only files are read"
    )
