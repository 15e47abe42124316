"""Reading users' files: objects with their source, and one-line errors for bad files."""

from __future__ import annotations

import builtins
import io
import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from cdk8s_headroom.files.documents import (
    InputFileError,
    parse_objects,
    read_document,
    read_each,
    read_objects,
)
from cdk8s_headroom.files.parsing import MAX_DEPTH
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from tests.conftest import ROOT, refuse_listing
from tests.files.bad_files import parse_error

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "apps"}}
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "ip-10-0-0-1"}}


# --- what is read --------------------------------------------------------------------


def test_multi_document_yaml_gives_each_object_with_its_file_index_and_lines() -> None:
    text = yaml.safe_dump(POD) + "---\n---\n" + yaml.safe_dump(NODE)

    objects = parse_objects(text.encode(), "apps.yaml")

    assert [o.obj for o in objects] == [POD, NODE]
    assert [(o.file, o.index, o.item) for o in objects] == [
        ("apps.yaml", 0, None),
        ("apps.yaml", 1, None),
    ]
    assert objects[0].line == 1
    assert objects[1].line == text.splitlines().index("apiVersion: v1", 1) + 1
    assert [o.describe() for o in objects] == [
        "apps.yaml: Pod apps/web",
        "apps.yaml: Node ip-10-0-0-1",
    ]


def test_timestamps_stay_strings_as_kubernetes_reads_them() -> None:
    text = (
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, creationTimestamp: 2024-05-01T10:00:00Z}"
    )

    (pod,) = parse_objects(text, "pod.yaml")

    assert pod.obj["metadata"]["creationTimestamp"] == "2024-05-01T10:00:00Z"


def test_yaml_tags_read_as_a_conversion_to_json_reads_them() -> None:
    text = b"""\
apiVersion: v1
kind: Secret
metadata: {name: s}
data: {key: !!binary aGVsbG8=}
stringData: {ordered: !!omap [a: 1, b: 2], members: !!set {x, y}, "=": =}
"""
    (secret,) = parse_objects(text, "s.yaml")

    assert secret.obj["data"] == {"key": "aGVsbG8="}
    assert secret.obj["stringData"] == {
        "ordered": [{"a": 1}, {"b": 2}],
        "members": {"x": None, "y": None},
        "=": "=",
    }
    assert "could not determine a constructor" in parse_error(
        b"a: !!python/object/apply:os.system [1]"
    )


def test_lists_are_flattened_and_a_typed_lists_items_get_its_kind_and_api_version() -> None:
    snapshot = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            NODE,
            {"apiVersion": "v1", "kind": "PodList", "items": [{"metadata": POD["metadata"]}]},
        ],
    }
    typed = {"apiVersion": "v1", "kind": "NodeList", "items": [{"metadata": {"name": "n2"}}]}
    data = (json.dumps(snapshot) + "\n" + json.dumps(typed)).encode()

    objects = parse_objects(data, "cluster.json")

    assert [o.describe() for o in objects] == [
        "cluster.json: Node ip-10-0-0-1",
        "cluster.json: Pod apps/web",
        "cluster.json: Node n2",
    ]
    assert objects[2].obj == {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}}
    assert [(o.index, o.item) for o in objects] == [
        (0, "items[0]"),
        (0, "items[1].items[0]"),
        (1, "items[0]"),
    ]


def test_items_of_a_yaml_list_carry_their_own_lines() -> None:
    text = b"apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n"

    objects = parse_objects(text, "pods.yaml")

    assert [(o.obj["kind"], o.name, o.line) for o in objects] == [("Pod", "a", 4), ("Pod", "b", 5)]


def test_a_field_error_names_the_file_the_object_and_the_path() -> None:
    (node,) = parse_objects(json.dumps(NODE).encode(), "nodes.json")

    error = node.field_error("spec.taints[0].effect", "Sometimes", "NoSchedule or NoExecute")

    assert isinstance(error, HeadroomConfigError)
    assert str(error) == (
        "nodes.json: Node ip-10-0-0-1: spec.taints[0].effect: invalid value 'Sometimes'; "
        "NoSchedule or NoExecute"
    )


def test_a_folder_is_read_recursively_in_name_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "pod.yml").write_text(yaml.safe_dump(POD))
    (tmp_path / "a.json").write_text(json.dumps(NODE))
    (tmp_path / "notes.txt").write_text("not read")

    objects = read_objects(tmp_path)

    assert [(Path(o.file).relative_to(tmp_path).as_posix(), o.kind) for o in objects] == [
        ("a.json", "Node"),
        ("b/pod.yml", "Pod"),
    ]


def test_a_dash_reads_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(POD).encode())))

    (pod,) = read_objects("-")

    assert pod.file == "<stdin>"
    assert pod.obj == POD


def test_read_document_gives_the_one_document_of_any_shape(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("nodes: [{name: n}]\n")
    (tmp_path / "two.yaml").write_text("a: 1\n---\nb: 2\n")

    assert read_document(tmp_path / "s.yaml") == {"nodes": [{"name": "n"}]}
    with pytest.raises(InputFileError, match=r"two\.yaml: 2 documents; one is read"):
        read_document(tmp_path / "two.yaml")


# --- one line for each bad file ----------------------------------------------------


def test_a_yaml_syntax_error_names_the_line_and_column() -> None:
    message = parse_error(b"apiVersion: v1\nkind: Pod\nmetadata: {name: x\n")

    assert message == (
        "f.yaml: line 4, column 1: invalid YAML: while parsing a flow mapping "
        "(started at line 3, column 11), did not find expected ',' or '}'; the file ends "
        "early: is it truncated?"
    )


def test_a_json_syntax_error_names_the_line_and_column() -> None:
    message = parse_error(b'{"apiVersion": "v1",\n "kind": }', "f.json")

    assert message == "f.json: line 2, column 10: invalid JSON: Expecting value"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            "kind: Pod\n".encode("utf-16"),
            "f.yaml: UTF-16 text (it starts with a UTF-16 byte-order mark)",
        ),
        ("a: 1\nb: é\n".encode("latin-1"), "f.yaml: line 2, column 4: not UTF-8 text (byte 0xe9)"),
        ("kind: Pod\n".encode("utf-16-le"), "the file holds NUL bytes"),
        ("kind: Pod\n".encode("utf-32"), "f.yaml: UTF-32 text (it starts with a UTF-32 byte"),
        ("kind: Pod\n".encode("utf-32-be"), "the file holds NUL bytes"),
    ],
    ids=[
        "utf-16 with a byte-order mark",
        "latin-1",
        "utf-16 without a byte-order mark",
        "utf-32 with a byte-order mark",
        "utf-32 without a byte-order mark",
    ],
)
def test_undecodable_bytes_say_what_they_are(data: bytes, expected: str) -> None:
    assert expected in parse_error(data)


@pytest.mark.parametrize("text", ["", "\n", "# only a comment\n", "---\n---\n"])
def test_an_empty_file_is_an_error(text: str) -> None:
    assert parse_error(text.encode()) == "f.yaml: empty: no document in the file (or only comments)"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- a\n- b\n", "a list (a top-level list is not a manifest"),
        ("just text\n", "a str ('just text')"),
        ("metadata: {name: x}\n", "a mapping without a string apiVersion and kind"),
        (
            "apiVersion: v1\nkind: ''\n",
            "not a Kubernetes object or List: a mapping without a string kind",
        ),
        ("apiVersion: v1\nkind: Pod\n---\n42\n", "line 4: document 2: not a Kubernetes object"),
        (
            "apiVersion: v1\nkind: List\nitems: [3]\n",
            "document 1: items[0] of the List: not a Kubernetes",
        ),
    ],
)
def test_a_document_that_is_not_an_object_or_list_is_an_error(text: str, expected: str) -> None:
    assert expected in parse_error(text.encode())


def test_a_file_name_with_a_newline_stays_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "two\nlines.yaml"
    path.write_text("")

    with pytest.raises(InputFileError) as error:
        read_objects(path)
    assert str(error.value) == f"{tmp_path}/two\\nlines.yaml: empty: no document in the " + (
        "file (or only comments)"
    )


def test_a_file_that_cannot_be_read_names_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests may run as root, which chmod cannot stop: the OS's refusal is simulated.
    path = tmp_path / "secret.yaml"
    path.write_text(yaml.safe_dump(POD))
    real_open = builtins.open

    def refuse(file: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(file) == path:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", refuse)

    with pytest.raises(InputFileError) as error:
        read_objects(path)
    assert str(error.value) == f"{path}: cannot read it (Permission denied)"


def test_a_folder_that_cannot_be_listed_names_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "locked").mkdir()
    (tmp_path / "ok.yaml").write_text(yaml.safe_dump(POD))
    refuse_listing(monkeypatch, tmp_path / "locked")

    results = read_each(tmp_path)

    assert [(Path(r.file).name, str(r.error) if r.error else None) for r in results] == [
        ("locked", f"{tmp_path / 'locked'}: cannot list the folder (Permission denied)"),
        ("ok.yaml", None),
    ]


def test_a_folder_given_that_cannot_be_listed_is_the_error_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refuse_listing(monkeypatch, tmp_path)

    with pytest.raises(InputFileError) as error:
        read_each(tmp_path)
    assert str(error.value) == f"{tmp_path}: cannot list the folder (Permission denied)"


def test_symlink_loops_and_broken_links_are_errors_not_hangs(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pod.yaml").write_text(yaml.safe_dump(POD))
    (tmp_path / "sub" / "again").symlink_to(tmp_path)
    (tmp_path / "self.yaml").symlink_to(tmp_path / "self.yaml")
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "missing.yaml")

    results = {Path(r.file).relative_to(tmp_path).as_posix(): r for r in read_each(tmp_path)}

    assert [o.kind for o in results["sub/pod.yaml"].objects] == ["Pod"]
    assert "a symlink loop: it leads back to a folder" in str(results["sub/again"].error)
    assert "a symlink loop (it points to" in str(results["self.yaml"].error)
    assert "a broken symlink: it points to" in str(results["gone.yaml"].error)
    with pytest.raises(InputFileError, match="symlink loop"):
        read_objects(tmp_path / "self.yaml")


def test_a_folder_without_manifests_and_a_missing_path_are_errors(tmp_path: Path) -> None:
    (tmp_path / "readme.md").write_text("# no manifests")

    with pytest.raises(InputFileError, match=r"no manifests in the folder \(files named \*\.yaml"):
        read_objects(tmp_path)
    with pytest.raises(InputFileError, match=r"nope\.yaml: cannot read it \(No such file"):
        read_objects(tmp_path / "nope.yaml")


# --- bounded memory and time ---------------------------------------------------------


def _alias_bomb(levels: int = 9) -> bytes:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return ("\n".join(lines) + "\n").encode()


READ_STDIN = """\
import sys
from cdk8s_headroom.files.documents import InputFileError, parse_objects
try:
    parse_objects(sys.stdin.buffer.read(), "bomb.yaml")
except InputFileError as error:
    print(error)
"""


def test_a_yaml_alias_bomb_is_refused_in_bounded_memory() -> None:
    # Nine levels of nine aliases expand to 9**10 (3.5 billion) strings: walking that
    # would exhaust the machine. The refusal must come from the node graph alone, within
    # 128 MiB of address space (libyaml's allocations count too) and well within the
    # timeout, a bound rather than a measurement.
    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (128 * 2**20, 128 * 2**20))

    result = subprocess.run(
        [sys.executable, "-c", READ_STDIN],
        input=_alias_bomb(),
        capture_output=True,
        preexec_fn=limit_memory,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().startswith("bomb.yaml: line 1, column 1: excessive aliasing")


def test_moderate_anchors_and_aliases_are_read() -> None:
    text = b"""\
apiVersion: v1
kind: Pod
metadata: {name: p, labels: &labels {app: web}}
spec:
  nodeSelector: *labels
"""
    (pod,) = parse_objects(text, "p.yaml")

    assert pod.obj["spec"]["nodeSelector"] == {"app": "web"}


def test_a_recursive_alias_is_refused() -> None:
    assert "a recursive alias" in parse_error(b"apiVersion: v1\nkind: Pod\nspec: &s {again: *s}\n")


@pytest.mark.parametrize("name", ["deep.yaml", "deep.json"])
def test_deep_nesting_is_refused_without_a_recursion_error(name: str) -> None:
    depth = 5000
    data = b'{"apiVersion": "v1", "kind": "Pod", "x": ' + b"[" * depth + b"]" * depth + b"}"

    message = parse_error(data, name)

    assert f"nested more than {MAX_DEPTH} levels deep" in message


@pytest.mark.parametrize("name", ["big.yaml", "big.json"])
def test_an_integer_too_long_to_convert_is_refused(name: str) -> None:
    if not hasattr(sys, "get_int_max_str_digits"):
        pytest.skip("this Python converts integers of any length")
    data = b'{"apiVersion": "v1", "kind": "Pod", "x": ' + b"7" * 10_000 + b"}"

    assert "a number too large to read (more than 4300 digits)" in parse_error(data, name)


def test_a_float_overflow_is_read_as_infinity_for_the_consumer_to_refuse() -> None:
    (pod,) = parse_objects(b'{"apiVersion": "v1", "kind": "Pod", "x": 1e400}', "p.json")

    assert pod.obj["x"] == float("inf")


def test_a_file_over_the_size_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cdk8s_headroom.files.file_bytes.MAX_FILE_BYTES", 1024)
    path = tmp_path / "huge.yaml"
    path.write_text(yaml.safe_dump({**POD, "data": "x" * 2048}))

    with pytest.raises(InputFileError, match=r"huge\.yaml: larger than 1024 bytes"):
        read_objects(path)


# --- the commands that read files ----------------------------------------------------


@pytest.mark.parametrize("option", ["--scenario", "--cluster", "--manifests"])
@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("nodes: []\n".encode("utf-16"), "UTF-16 text"),
        (b"\x89PNG\r\n\x1a\n\x00", "line 1, column 1: not UTF-8 text (byte 0x89)"),
        (b"nodes: [{name: n\n", "line 2, column 1: invalid YAML"),
    ],
    ids=["utf-16", "binary", "truncated"],
)
def test_simulate_refuses_an_unreadable_file_in_one_line_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, data: bytes, expected: str
) -> None:
    from cdk8s_headroom.cli import main

    bad = tmp_path / "bad.yaml"
    bad.write_bytes(data)
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("nodes: [{name: n, allocatable: {cpu: '4', memory: 16Gi}}]\n")
    given = {
        "--scenario": [],
        "--cluster": ["--manifests", str(ROOT / "dist")],
        "--manifests": ["--cluster", str(cluster)],
    }

    code = main(["simulate", option, str(bad), *given[option]])

    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith(f"cdk8s-headroom simulate: error: {bad}")
    assert expected in err
