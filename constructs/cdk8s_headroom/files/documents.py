"""Reading users' files: a path, a folder or stdin into Kubernetes objects, or one document.

Every command that reads a user's file reads it here, so every one of them refuses a
bad file the same way: with one ``InputFileError`` line that names the file (and the
line and column where the parser knows them) and says what is wrong.

What is read, as ``kubectl apply -f`` reads it: the files ``finding`` finds, their
bytes as ``file_bytes`` reads them (files up to ``MAX_FILE_BYTES``, regular files
only), their documents as ``parsing`` parses them (YAML or JSON, duplicate keys
refused, nesting and aliases bounded); and ``kind: List`` and typed lists
(``NodeList``, ``PodList``...), flattened. The API server leaves ``kind``/``apiVersion``
out of a typed list's items; they are filled from the list's kind without ``List`` and
its ``apiVersion``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cdk8s_headroom.files.file_bytes import decode, read_bytes
from cdk8s_headroom.files.finding import STDIN, manifest_files
from cdk8s_headroom.files.parsing import Document, parse_documents, text_documents
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.errors import InputFileError as InputFileError


def read_twice_warning(what: str, first: str, second: str) -> str:
    """The warning for one object (``what``: its kind, namespace and name) read from the
    sources ``first`` and then ``second``, the same both times, so counted once. Every
    reader of several sources (snapshots, manifests) says it in these words, and every
    command that reads them prints it (docs/plan-status.md, "Objects read twice")."""
    where = f"{first} and {second}" if first != second else f"{second} twice"
    return f"{what} read twice, from {where}: the same object, counted once"


@dataclass(frozen=True)
class SourcedObject:
    """A Kubernetes object and where it was read.

    Attributes:
        obj: the object, as plain JSON-like data (it has a string ``kind``).
        file: the file it came from, as given (``<stdin>`` for standard input).
        index: the document's position in the file, from 0 (empty documents skipped).
        item: where it sits in the document when it came from a List, e.g. ``items[3]``
            (``items[0].items[3]`` for a List in a List).
        line: the 1-based line where the object starts (None when read as JSON).
        end_line: the 1-based line where it ends (None when read as JSON).
    """

    obj: dict[str, Any]
    file: str
    index: int
    item: str | None = None
    line: int | None = None
    end_line: int | None = None

    @property
    def kind(self) -> str:
        return str(self.obj["kind"])

    @property
    def name(self) -> str | None:
        metadata = self.obj.get("metadata")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        return name if isinstance(name, str) and name else None

    @property
    def namespace(self) -> str | None:
        metadata = self.obj.get("metadata")
        namespace = metadata.get("namespace") if isinstance(metadata, Mapping) else None
        return namespace if isinstance(namespace, str) and namespace else None

    def label(self) -> str:
        """``Kind namespace/name`` (``Kind name`` without a namespace), or where the
        object sits when it has no name."""
        if self.name is None:
            place = f"document {self.index + 1}"
            if self.item is not None:
                place += f", {self.item}"
            return f"{self.kind} ({place})"
        if self.namespace is None:
            return f"{self.kind} {self.name}"
        return f"{self.kind} {self.namespace}/{self.name}"

    def describe(self) -> str:
        """The file and the object, for messages: ``nodes.json: Node ip-10-0-0-1``."""
        return f"{self.file}: {self.label()}"

    def field_error(self, path: str, value: object, allowed: str) -> HeadroomConfigError:
        """The error for a bad value at ``path`` in this object, e.g.
        ``nodes.json: Node n1: spec.taints[0].effect: invalid value 'X'; ...``."""
        return HeadroomConfigError(f"{self.describe()}: {path}", value, allowed)


@dataclass
class FileObjects:
    """What one file of a folder gave: its objects, or the error that stopped it."""

    file: str
    objects: list[SourcedObject] = field(default_factory=list)
    error: InputFileError | None = None


def read_document(path: Path | str) -> Any:
    """The one document of a file (or of stdin for ``-``): a scenario, a cluster file.

    Raises:
        InputFileError: see ``parse_documents``; also when the file holds more than one
            document.
    """
    name, data = read_bytes(path)
    documents = parse_documents(data, name)
    if len(documents) > 1:
        raise InputFileError(name, f"{len(documents)} documents; one is read from this file")
    return documents[0]


# --- Kubernetes objects -------------------------------------------------------------


def _what(value: Any) -> str:
    if isinstance(value, list):
        return "a list (a top-level list is not a manifest; use kind: List with items)"
    if isinstance(value, Mapping):
        missing = [key for key in ("apiVersion", "kind") if not isinstance(value.get(key), str)]
        if value.get("kind") == "":
            missing.append("kind")
        return f"a mapping without a string {' and '.join(missing)}"
    return f"a {type(value).__name__} ({shown(str(value)[:40])})"


def _is_object(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("kind"), str)
        and isinstance(value.get("apiVersion"), str)
        and bool(value["kind"])
    )


def _item_nodes(node: yaml.Node | None) -> list[yaml.Node] | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value == "items":
            return list(value.value) if isinstance(value, yaml.SequenceNode) else None
    return None


def _lines(node: yaml.Node | None) -> tuple[int | None, int | None]:
    if node is None:
        return None, None
    return node.start_mark.line + 1, node.end_mark.line + 1


def _objects(document: Document, name: str, index: int) -> list[SourcedObject]:
    value = document.value
    if not _is_object(value):
        mark = document.node.start_mark if document.node is not None else None
        raise InputFileError(
            name,
            f"document {index + 1}: not a Kubernetes object or List: {_what(value)}",
            line=mark.line + 1 if mark else None,
        )
    return _flatten(value, document.node, name, index, None)


def _flatten(
    value: dict[str, Any], node: yaml.Node | None, name: str, index: int, path: str | None
) -> list[SourcedObject]:
    """The object, or the objects of a List (recursively: a List may hold Lists)."""
    kind: str = value["kind"]
    if not kind.endswith("List") or "items" not in value:
        line, end = _lines(node)
        return [SourcedObject(value, name, index, path, line=line, end_line=end)]
    items = value["items"]
    if items is None:
        return []
    where = f"document {index + 1}" + (f", {path}" if path else "")
    if not isinstance(items, list):
        raise InputFileError(name, f"{where}: a {kind} whose items are not a list")
    nodes = _item_nodes(node) or []
    # A typed list (PodList) leaves its items' kind and apiVersion out; a List does not.
    item_kind = None if kind == "List" else kind[: -len("List")]
    objects = []
    for position, item in enumerate(items):
        if item_kind is not None and isinstance(item, dict):
            item = {"apiVersion": value["apiVersion"], "kind": item_kind, **item}
        item_path = f"{path}.items[{position}]" if path else f"items[{position}]"
        if not _is_object(item):
            raise InputFileError(
                name, f"{where}: {item_path} of the {kind}: not a Kubernetes object: {_what(item)}"
            )
        item_node = nodes[position] if position < len(nodes) else None
        objects += _flatten(item, item_node, name, index, item_path)
    return objects


def parse_objects(data: bytes, name: str) -> list[SourcedObject]:
    """The Kubernetes objects in a file's bytes, Lists flattened.

    Raises:
        InputFileError: see ``parse_documents``; also for a document that is neither a
            Kubernetes object (a string ``apiVersion`` and ``kind``) nor a List of them.
    """
    documents = [d for d in text_documents(decode(data, name), name) if d.value is not None]
    if not documents:
        raise InputFileError(name, "empty: no document in the file (or only comments)")
    return [obj for index, doc in enumerate(documents) for obj in _objects(doc, name, index)]


def read_each(path: Path | str) -> list[FileObjects]:
    """Every file that ``path`` names (``manifest_files``; ``-`` is stdin), each with
    its objects or the error that stopped it, so that one bad file hides nothing else.

    Raises:
        InputFileError: when ``path`` itself cannot be read (see ``manifest_files``).
    """
    if str(path) == STDIN:
        entries: list[Path | InputFileError] = [Path(STDIN)]
    else:
        entries = manifest_files(path)
    results = []
    for entry in entries:
        if isinstance(entry, InputFileError):
            results.append(FileObjects(entry.file, error=entry))
            continue
        try:
            name, data = read_bytes(entry)
            results.append(FileObjects(name, parse_objects(data, name)))
        except InputFileError as error:
            results.append(FileObjects(error.file, error=error))
    return results


def read_objects(path: Path | str) -> list[SourcedObject]:
    """Every Kubernetes object in a file, in a folder (recursively) or on stdin (``-``),
    in file order then document order, Lists flattened.

    Raises:
        InputFileError: for the first file that cannot be read; the message is one line
            naming the file.
    """
    objects = []
    for result in read_each(path):
        if result.error is not None:
            raise result.error
        objects += result.objects
    return objects
