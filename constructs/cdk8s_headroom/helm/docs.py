"""The construct props' own documentation, read from their signatures and docstrings.

The chart's values describe themselves with the words of the props they map to, so
the two cannot drift apart: edit a prop's docstring and ``make chart`` rewrites the
chart's README and values.yaml comments.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

_ARG = re.compile(r"^    (?P<name>\w+): ?(?P<text>.*)$")
_DEFAULT_SENTENCE = re.compile(r"(?i)(?:^|(?<=[.;] ))default: (?:[^.]|\.(?=\S))*(?:\.|$)\s*")

_NO_DEFAULT = object()


@dataclass(frozen=True)
class PropDoc:
    """One prop: where it is declared, its description and its default."""

    owner: str
    name: str
    description: str
    default: Any = _NO_DEFAULT

    @property
    def has_default(self) -> bool:
        return self.default is not _NO_DEFAULT


def _args_section(target: Callable[..., Any] | type) -> dict[str, str]:
    """The ``Args:`` section of a Google-style docstring, one joined text per name."""
    docstring = inspect.getdoc(target) or ""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    in_args = False
    for line in docstring.splitlines():
        if line.strip() == "Args:":
            in_args = True
            continue
        if not in_args:
            continue
        if line and not line.startswith(" "):
            break
        match = _ARG.match(line)
        if match:
            current = found.setdefault(match["name"], [])
            current.append(match["text"])
        elif line.startswith("        ") and current is not None:
            current.append(line.strip())
    return {name: " ".join(part for part in parts if part) for name, parts in found.items()}


def _signature_target(target: Callable[..., Any] | type) -> Callable[..., Any]:
    if isinstance(target, type):
        init: Callable[..., Any] = target.__init__  # type: ignore[misc]
        return init
    return target


def prop(target: Callable[..., Any] | type, name: str) -> PropDoc:
    """The documentation of prop ``name`` of a construct, dataclass or factory.

    Raises:
        KeyError: when the docstring does not document ``name``; every prop the chart
            exposes must be documented where it is declared.
    """
    described = _args_section(target)
    if name not in described:
        raise KeyError(f"{target.__qualname__} does not document its prop {name!r}")
    parameter = inspect.signature(_signature_target(target)).parameters.get(name)
    default: Any = _NO_DEFAULT
    if parameter is not None and parameter.default is not inspect.Parameter.empty:
        default = parameter.default
    if dataclasses.is_dataclass(target):
        # A dataclass's signature shows a default_factory as a sentinel, not a value.
        for declared in dataclasses.fields(target):
            if declared.name == name and declared.default_factory is not dataclasses.MISSING:
                default = declared.default_factory()
    return PropDoc(
        owner=target.__qualname__,
        name=name,
        description=markdown(described[name]),
        default=default,
    )


def summary(target: Callable[..., Any] | type) -> str:
    """The first paragraph of a docstring, on one line."""
    docstring = inspect.getdoc(target) or ""
    return markdown(" ".join(docstring.split("\n\n")[0].split()))


def enum_values(enum: type[Enum]) -> list[str]:
    return [str(member.value) for member in enum]


def markdown(text: str) -> str:
    """reStructuredText literals (````x````) as Markdown code (```x```)."""
    return text.replace("``", "`")


def without_default(text: str) -> str:
    """The description without its ``Default: ...`` sentence, for a value whose chart
    default is shown beside it and may differ from the library's."""
    return " ".join(_DEFAULT_SENTENCE.sub("", text).split())
