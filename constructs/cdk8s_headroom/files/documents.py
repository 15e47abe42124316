"""Reading users' files: a path, a folder or stdin into Kubernetes objects, or one document.

Every command that reads a user's file reads it here, so every one of them refuses a
bad file the same way: with one ``InputFileError`` line that names the file (and the
line and column where the parser knows them) and says what is wrong.

What is read, as ``kubectl apply -f`` reads it:

- a file, or a folder read recursively (``*.yaml``, ``*.yml``, ``*.json``, in name
  order, following symlinks), or ``-`` for stdin;
- multi-document YAML, where empty documents (a bare ``---``) are skipped; JSON, one
  value or several in a row;
- ``kind: List`` and typed lists (``NodeList``, ``PodList``...), flattened. The API
  server leaves ``kind``/``apiVersion`` out of a typed list's items; they are filled
  from the list's kind without ``List`` and its ``apiVersion``.

YAML is read with YAML 1.1's safe schema, except that timestamps stay strings:
``kubectl get -o yaml`` writes ``creationTimestamp`` unquoted, and Kubernetes itself
reads it as a string (sigs.k8s.io/yaml converts YAML to JSON first).

Only regular files are read (and ``-``): a named pipe, a device or a socket, named
directly or found in a folder, is refused by name without blocking. A mapping with the
same key twice is refused, in YAML and JSON, as the API server's strict decoding
refuses it (k8s.io/apimachinery ``yaml.NewYAMLOrJSONDecoder`` with strict fields,
sigs.k8s.io/yaml ``UnmarshalStrict``: "key ... already set in map"); where the last
value would silently win, the reader names the key and its line.

Bounds, so that a hostile or broken file ends in a message rather than in exhausted
memory or a ``RecursionError``: files up to ``MAX_FILE_BYTES``, nesting up to
``MAX_DEPTH``, alias expansion limited as Kubernetes' YAML decoder limits it
(``allowed_alias_ratio``), and no recursive aliases. The limits are checked on the
composed node graph, before any Python object is built.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.errors import InputFileError as InputFileError

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
"""The files a folder is read for, as ``kubectl apply -f DIR`` reads them."""

STDIN = "-"
"""The path that means standard input."""

MAX_FILE_BYTES = 2**30
"""The largest file read (1 GiB). Real pods are 6 to 9 KB each in ``kubectl get -o json``
(without managedFields, kubectl's default), so a snapshot of 30,000 pods is about 250 MiB;
this bound leaves room for 100,000 and keeps a stray disk image or ``/dev/zero`` out."""

MAX_DEPTH = 100
"""The deepest nesting of mappings and lists read. Kubernetes objects nest about 20
deep; the bound keeps every consumer's recursion far from Python's limit."""

_UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF8_BOM = b"\xef\xbb\xbf"


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


# --- finding the files --------------------------------------------------------------


def _listing(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as listing:
            return sorted(listing, key=lambda entry: entry.name)
    except OSError as error:
        raise InputFileError(str(folder), f"cannot list the folder ({error.strerror})") from None


def _scan(
    folder: Path, entries: list[os.DirEntry[str]], visiting: tuple[tuple[int, int], ...]
) -> Iterator[Path | InputFileError]:
    """The manifest files among ``folder``'s ``entries`` and below, in name order, and an
    error for each entry that cannot be listed or followed; ``visiting`` holds the
    folders above, to detect symlink loops."""
    for entry in entries:
        path = folder / entry.name
        try:
            info = os.stat(path)
        except OSError as error:
            if entry.is_symlink():
                yield InputFileError(str(path), _symlink_problem(path, error))
            else:
                yield InputFileError(str(path), f"cannot read it ({error.strerror})")
            continue
        if stat.S_ISDIR(info.st_mode):
            identity = (info.st_dev, info.st_ino)
            if identity in visiting:
                yield InputFileError(
                    str(path), "a symlink loop: it leads back to a folder that contains it"
                )
                continue
            try:
                below = _listing(path)
            except InputFileError as error:
                yield error
                continue
            yield from _scan(path, below, (*visiting, identity))
        elif path.suffix in MANIFEST_SUFFIXES:
            yield path


def _symlink_problem(path: Path, error: OSError) -> str:
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    if error.errno == errno.ELOOP:
        return f"a symlink loop (it points to {target})"
    return f"a broken symlink: it points to {target} ({error.strerror})"


def manifest_files(path: Path | str) -> list[Path | InputFileError]:
    """The files that ``path`` names: itself when it is a file, else every manifest
    file under it (``MANIFEST_SUFFIXES``, in name order, recursively), with an error in
    place of each entry that cannot be listed or followed.

    Raises:
        InputFileError: when ``path`` does not exist, cannot be listed, or is a folder
            without manifests.
    """
    path = Path(path)
    try:
        info = os.stat(path)
    except OSError as error:
        if path.is_symlink():
            raise InputFileError(str(path), _symlink_problem(path, error)) from None
        raise InputFileError(str(path), f"cannot read it ({error.strerror})") from None
    if not stat.S_ISDIR(info.st_mode):
        return [path]
    found = list(_scan(path, _listing(path), ((info.st_dev, info.st_ino),)))
    if not found:
        raise InputFileError(
            str(path),
            f"no manifests in the folder (files named *{', *'.join(MANIFEST_SUFFIXES)})",
        )
    return found


# --- reading bytes ------------------------------------------------------------------


def read_bytes(path: Path | str) -> tuple[str, bytes]:
    """The display name and the bytes of a file, or of stdin for ``-``."""
    if str(path) == STDIN:
        return "<stdin>", _read_limited(sys.stdin.buffer, "<stdin>")
    name = str(Path(path))
    try:
        # Judged before opening (a socket cannot be opened at all), and again on the open
        # file, so that it cannot change in between; O_NONBLOCK keeps the open of a named
        # pipe from waiting for a writer.
        _refuse_special(name, os.stat(path).st_mode)
        with open(path, "rb", opener=_open_nonblocking) as stream:
            _refuse_special(name, os.fstat(stream.fileno()).st_mode)
            return name, _read_limited(stream, name)
    except OSError as error:
        if Path(path).is_symlink() and not Path(path).exists():
            raise InputFileError(name, _symlink_problem(Path(path), error)) from None
        problem = "a folder, not a file" if Path(path).is_dir() else "cannot read it"
        raise InputFileError(name, f"{problem} ({error.strerror})") from None


def _open_nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NONBLOCK)


_SPECIAL_FILES = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _refuse_special(name: str, mode: int) -> None:
    """Refuses what is neither a regular file nor a folder (opening a folder fails
    with its own message)."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    kind = next((kind for test, kind in _SPECIAL_FILES if test(mode)), "a special file")
    raise InputFileError(name, f"{kind}, not a regular file: only files are read")


def _read_limited(stream: BinaryIO, name: str) -> bytes:
    data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise InputFileError(name, f"larger than {MAX_FILE_BYTES} bytes, the most read")
    return data


def decode(data: bytes, name: str) -> str:
    """UTF-8 text (a UTF-8 byte-order mark is dropped); anything else is an error that
    says where the first undecodable byte is."""
    # UTF-32's little-endian mark starts with UTF-16's: the longer marks come first.
    if data.startswith(_UTF32_BOMS):
        raise InputFileError(
            name, "UTF-32 text (it starts with a UTF-32 byte-order mark); save it as UTF-8"
        )
    if data.startswith(_UTF16_BOMS):
        raise InputFileError(
            name, "UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8"
        )
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[: error.start]
        line = before.count(b"\n") + 1
        column = error.start - (before.rfind(b"\n") + 1) + 1
        raise InputFileError(
            name,
            f"not UTF-8 text (byte 0x{data[error.start]:02x}); save it as UTF-8",
            line=line,
            column=column,
        ) from None


# --- parsing ------------------------------------------------------------------------


_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc]
    """The safe loader (libyaml's when PyYAML has it: it parses large files several
    times faster), with the scalars Kubernetes reads as strings kept as strings, and
    duplicate keys refused."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        _refuse_duplicate_keys(node)
        return super().construct_mapping(node, deep=deep)


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _duplicate_key_problem(key: object, first_line: int | None) -> str:
    where = f" (first at line {first_line})" if first_line is not None else ""
    return (
        f"the key {key!r} appears twice in one mapping{where}; Kubernetes' strict "
        "decoding refuses duplicate keys (the last value would silently win)"
    )


def _refuse_duplicate_keys(node: yaml.MappingNode) -> None:
    """Refuses a mapping that gives one key twice, before the constructor keeps the
    last value. Merged keys (``<<``) may be overridden, as YAML's merge says."""
    seen: dict[tuple[str, str], int] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
            continue
        identity = (key_node.tag, key_node.value)
        line = key_node.start_mark.line + 1
        if identity in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                _duplicate_key_problem(key_node.value, seen[identity]),
                key_node.start_mark,
            )
        seen[identity] = line


def _as_string(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


def _bounded_int(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)  # type: ignore[arg-type]
    except ValueError:
        raise yaml.constructor.ConstructorError(
            None, None, _too_many_digits(), node.start_mark
        ) from None


# Timestamps: kubectl's output writes them unquoted, and Kubernetes reads strings.
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _as_string)
# A plain `=` is YAML 1.1's "value" key, which the safe loader cannot construct.
_Loader.add_constructor("tag:yaml.org,2002:value", _as_string)
# Secrets' `data` may be tagged !!binary; Kubernetes wants the base64 text itself.
_Loader.add_constructor("tag:yaml.org,2002:binary", _as_string)
_Loader.add_constructor("tag:yaml.org,2002:int", _bounded_int)
# Ordered maps, pairs and sets are read as their plain YAML shapes, as a conversion to
# JSON reads them: a list of one-key mappings, and a mapping with null values.
_Loader.add_constructor("tag:yaml.org,2002:omap", yaml.SafeLoader.construct_yaml_seq)
_Loader.add_constructor("tag:yaml.org,2002:pairs", yaml.SafeLoader.construct_yaml_seq)
_Loader.add_constructor("tag:yaml.org,2002:set", yaml.SafeLoader.construct_yaml_map)


def allowed_alias_ratio(decoded: int) -> float:
    """The share of decoded nodes that may come from alias expansion: go-yaml's rule
    (gopkg.in/yaml, ``allowedAliasRatio``), which Kubernetes' YAML decoding uses. 99%
    up to 400000 nodes, falling to 10% at 4000000."""
    low, high = 400_000, 4_000_000
    if decoded <= low:
        return 0.99
    if decoded >= high:
        return 0.10
    return 0.99 - 0.89 * (decoded - low) / (high - low)


def _check_shape(root: yaml.Node, name: str) -> None:
    """Refuses a document nested deeper than ``MAX_DEPTH``, with a recursive alias, or
    whose aliases expand too much (``allowed_alias_ratio``), without expanding it.

    Most documents have no aliases: one pass, level by level over the collections,
    checks their depth. Only a document where a collection is reached twice gets the
    slower walk that weighs the aliases.
    """
    level = [] if isinstance(root, yaml.ScalarNode) else [root]
    seen: set[int] = set()
    for depth in range(1, MAX_DEPTH + 2):
        if not level:
            return
        if depth > MAX_DEPTH:
            raise _node_error(name, level[0], f"nested more than {MAX_DEPTH} levels deep")
        below: list[yaml.Node] = []
        for node in level:
            if id(node) in seen:
                _check_aliases(root, name)
                return
            seen.add(id(node))
            children = (
                node.value
                if isinstance(node, yaml.SequenceNode)
                else [part for pair in node.value for part in pair]
            )
            below += [child for child in children if not isinstance(child, yaml.ScalarNode)]
        level = below


def _check_aliases(root: yaml.Node, name: str) -> None:
    """``_check_shape`` for a document with aliases: the depth along every path, and
    the size the aliases expand to, from each collection's weight computed once."""
    expanded: dict[int, int] = {}
    height: dict[int, int] = {}
    distinct = 0
    # An explicit stack: the walk must not recurse as deep as the document does.
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    open_nodes: set[int] = set()
    while stack:
        node, depth, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            children = _children(node)
            expanded[key] = 1 + sum(expanded.get(id(c), 1) for c in children)
            height[key] = 1 + max((height.get(id(c), 1) for c in children), default=0)
            continue
        if key in open_nodes:
            raise _node_error(name, node, "a recursive alias: an anchor used inside itself")
        if depth > MAX_DEPTH:
            raise _node_error(name, node, f"nested more than {MAX_DEPTH} levels deep")
        if key in height:
            if depth - 1 + height[key] > MAX_DEPTH:
                raise _node_error(name, node, f"nested more than {MAX_DEPTH} levels deep")
            continue
        children = _children(node)
        distinct += 1
        if not children:
            expanded[key] = height[key] = 1
            continue
        open_nodes.add(key)
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in reversed(children))
    decoded = expanded[id(root)]
    aliased = decoded - distinct
    if aliased > 100 and decoded > 1000 and aliased / decoded > allowed_alias_ratio(decoded):
        raise _node_error(
            name,
            root,
            f"excessive aliasing: its anchors and aliases expand to {decoded} values "
            f"from {distinct}",
        )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _node_error(name: str, node: yaml.Node, problem: str) -> InputFileError:
    mark = node.start_mark
    return InputFileError(name, problem, line=mark.line + 1, column=mark.column + 1)


@dataclass(frozen=True)
class _Document:
    """A parsed document, with the node it came from when it was YAML."""

    value: Any
    node: yaml.Node | None


def _yaml_documents(text: str, name: str) -> Iterator[_Document]:
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            _check_shape(node, name)
            yield _Document(loader.construct_document(node), node)
    except yaml.reader.ReaderError as error:
        line, column = _line_and_column(text, error.position)
        # libyaml reports the character as a code point, PyYAML's reader as a string.
        character = error.character
        code = character if isinstance(character, int) else ord(character)
        problem = f"invalid YAML: the character U+{code:04X} is not allowed"
        raise InputFileError(name, problem + _nul_hint(text), line=line, column=column) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        context = error.context
        opened = error.context_mark
        # The parser notices a missing `}` where the file goes on; say where it opened.
        if context and opened and mark and (opened.line, opened.column) != (mark.line, mark.column):
            context += f" (started at line {opened.line + 1}, column {opened.column + 1})"
        problem = ", ".join(str(p) for p in (context, error.problem) if p)
        if _ends_early(text, mark, problem):
            problem += "; the file ends early: is it truncated?"
        raise InputFileError(
            name,
            f"invalid YAML: {problem}{_nul_hint(text)}",
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as error:
        raise InputFileError(name, f"invalid YAML: {error}") from None
    finally:
        loader.dispose()


def _ends_early(text: str, mark: yaml.Mark | None, problem: str) -> bool:
    """Whether the parser stopped because the text ended inside a structure (an open
    quote, bracket or brace): the sign of a file cut short."""
    if "end of stream" in problem or "stream end" in problem:
        return True
    if mark is None:
        return False
    content = text.rstrip()
    last_line = content.count("\n")
    last_column = len(content) - (content.rfind("\n") + 1)
    return (mark.line, mark.column) >= (last_line, last_column)


def _nul_hint(text: str) -> str:
    if "\0" not in text:
        return ""
    return " (the file holds NUL bytes: it is binary, or UTF-16 without a byte-order mark)"


def _line_and_column(text: str, position: int) -> tuple[int, int]:
    before = text[:position]
    return before.count("\n") + 1, position - (before.rfind("\n") + 1) + 1


def _too_many_digits() -> str:
    # Python 3.11 refuses to convert ints of more digits (CVE-2020-10735).
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    return f"a number too large to read (more than {limit} digits)"


class _JsonSyntaxError(InputFileError):
    """Text that is not JSON: for text that only looked like JSON, YAML gets a try."""


class _DuplicateKeyError(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict; a key given twice raises ``_DuplicateKeyError``."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return result


def _json_duplicate_error(text: str, name: str, key: str) -> InputFileError:
    """The error for a key given twice in a JSON object, with its line: the JSON decoder
    knows no positions, so the text is read again as YAML (JSON is YAML), whose reader
    refuses the same key with its line."""
    try:
        for _ in _yaml_documents(text, name):
            pass
    except InputFileError as error:
        if "appears twice" in error.problem:
            return InputFileError(
                name,
                error.problem.replace("invalid YAML", "invalid JSON", 1).replace(
                    "one mapping", "one object", 1
                ),
                line=error.line,
                column=error.column,
            )
    problem = _duplicate_key_problem(key, None).replace("one mapping", "one object", 1)
    return InputFileError(name, f"invalid JSON: {problem}")


def _json_documents(text: str, name: str) -> Iterator[_Document]:
    decoder = json.JSONDecoder(object_pairs_hook=_unique_keys)
    position = _skip_space(text, 0)
    while position < len(text):
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            problem = f"invalid JSON: {error.msg}"
            # The decoder reports an unclosed string where the string starts.
            if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string"):
                problem += "; the file ends early: is it truncated?"
            raise _JsonSyntaxError(name, problem, line=error.lineno, column=error.colno) from None
        except _DuplicateKeyError as duplicate:
            raise _json_duplicate_error(text, name, duplicate.key) from None
        except RecursionError:
            raise InputFileError(name, f"nested more than {MAX_DEPTH} levels deep") from None
        except ValueError:  # Python's limit on the digits of an int
            raise InputFileError(name, f"invalid JSON: {_too_many_digits()}") from None
        _check_depth(value, name)
        yield _Document(value, None)
        position = _skip_space(text, position)


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _check_depth(value: Any, name: str) -> None:
    level = [value] if isinstance(value, (dict, list)) else []
    for _ in range(MAX_DEPTH):
        if not level:
            return
        below: list[Any] = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            below += [child for child in children if isinstance(child, (dict, list))]
        level = below
    if level:
        raise InputFileError(name, f"nested more than {MAX_DEPTH} levels deep")


def _documents(text: str, name: str) -> Iterator[_Document]:
    """JSON for ``*.json`` and for text that starts with ``{`` and parses as JSON (the
    faster parser, for kubectl's snapshots); YAML otherwise."""
    if name.endswith(".json"):
        yield from _json_documents(text, name)
        return
    if text.lstrip().startswith("{"):
        try:
            documents = list(_json_documents(text, name))
        except _JsonSyntaxError:
            pass
        else:
            yield from documents
            return
    yield from _yaml_documents(text, name)


def parse_documents(data: bytes, name: str) -> list[Any]:
    """Every non-empty document of a file's bytes, as plain data.

    Raises:
        InputFileError: undecodable bytes, a syntax error, a limit exceeded, or no
            document at all.
    """
    documents = [d.value for d in _documents(decode(data, name), name) if d.value is not None]
    if not documents:
        raise InputFileError(name, "empty: no document in the file (or only comments)")
    return documents


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
    return f"a {type(value).__name__} ({str(value)[:40]!r})"


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


def _objects(document: _Document, name: str, index: int) -> list[SourcedObject]:
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
    documents = [d for d in _documents(decode(data, name), name) if d.value is not None]
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
