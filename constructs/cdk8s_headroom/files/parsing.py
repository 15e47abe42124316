"""A file's text parsed into documents, YAML or JSON, as Kubernetes reads them.

Multi-document YAML, where empty documents (a bare ``---``) are skipped; JSON, one value
or several in a row. YAML is read with YAML 1.1's safe schema, except that timestamps
stay strings: ``kubectl get -o yaml`` writes ``creationTimestamp`` unquoted, and
Kubernetes itself reads it as a string (sigs.k8s.io/yaml converts YAML to JSON first).

A mapping with the same key twice is refused, in YAML and JSON, as the API server's
strict decoding refuses it (k8s.io/apimachinery ``yaml.NewYAMLOrJSONDecoder`` with
strict fields, sigs.k8s.io/yaml ``UnmarshalStrict``: "key ... already set in map");
where the last value would silently win, the reader names the key and its line.

Bounds, so that a hostile or broken file ends in a message rather than in exhausted
memory or a ``RecursionError``: nesting up to ``MAX_DEPTH``, alias expansion limited
as Kubernetes' YAML decoder limits it (``allowed_alias_ratio``), and no recursive
aliases. The limits are checked on the composed node graph, before any Python object
is built.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from cdk8s_headroom.files.file_bytes import decode
from cdk8s_headroom.vocabulary.errors import InputFileError, shown

MAX_DEPTH = 100
"""The deepest nesting of mappings and lists read. Kubernetes objects nest about 20
deep; the bound keeps every consumer's recursion far from Python's limit."""


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
        f"the key {shown(key)} appears twice in one mapping{where}; Kubernetes' strict "
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
class Document:
    """A parsed document, with the node it came from when it was YAML."""

    value: Any
    node: yaml.Node | None


def _yaml_documents(text: str, name: str) -> Iterator[Document]:
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            _check_shape(node, name)
            yield Document(loader.construct_document(node), node)
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


def _json_documents(text: str, name: str) -> Iterator[Document]:
    decoder = json.JSONDecoder(object_pairs_hook=_unique_keys)
    position = _skip_space(text, 0)
    while position < len(text):
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            problem = f"invalid JSON: {error.msg}"
            if error.msg.endswith(" at"):
                # json's message reads "Unterminated string starting at: <position>",
                # and msg stops before the position, which is where the string starts.
                problem += f" line {error.lineno}, column {error.colno}"
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
        yield Document(value, None)
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


def text_documents(text: str, name: str) -> Iterator[Document]:
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
    documents = [d.value for d in text_documents(decode(data, name), name) if d.value is not None]
    if not documents:
        raise InputFileError(name, "empty: no document in the file (or only comments)")
    return documents
