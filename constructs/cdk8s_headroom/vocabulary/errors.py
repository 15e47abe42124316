"""The exception type for invalid configuration (and its kind for unreadable input
files), and the warning category."""

from __future__ import annotations

import sys
import warnings
from types import FrameType, TracebackType


class HeadroomConfigError(ValueError):
    """An invalid configuration of a headroom construct.

    Raised in the constructor or method that received the bad value, before anything
    reaches jsii or the output folder. The message names the field, shows the bad
    value and says what is allowed.

    Attributes:
        field: the prop or value path that is wrong, e.g. ``cpu`` or
            ``burst_workloads[api].replicas``.
        value: the value that was given.
        allowed: what the field accepts.
        advice: how a Python caller gets it, after ``allowed`` in the message (the
            chart's errors, in values' words, leave it out).
    """

    def __init__(self, field: str, value: object, allowed: str, advice: str = "") -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        self.advice = advice
        tail = f"; {advice}" if advice else ""
        super().__init__(f"{field}: invalid value {shown(value)}; {allowed}{tail}")


def shown(value: object) -> str:
    """A value as a message shows it: ``null``, ``true`` and ``false`` as YAML and JSON
    write them (the chart's users give values in YAML), in lists and maps too; an empty
    list as ``[] (empty)``, so that no one reads a list that lost its items; a text as
    ``repr`` with its non-ASCII and control characters escaped (``'n\\u043ede-1'``: a
    Cyrillic letter looks like a Latin one, and a NUL would cut the message); anything
    else as ``repr`` (``'500m'``, ``[1, 'a']``). The chart's ``node-headroom.repr``
    shows values the same way."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return ascii(value)
    if isinstance(value, (list, tuple)):
        return f"[{', '.join(shown(item) for item in value)}]" if value else "[] (empty)"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{shown(k)}: {shown(v)}" for k, v in value.items()) + "}"
    return repr(value)


def printable(text: str) -> str:
    """``text`` with its control and non-ASCII characters escaped (a newline as ``\\n``,
    a Cyrillic o as ``\\u043e``): a file name may hold them, and a message or a
    listing line that shows it stays one line and shows which characters it holds."""
    return "".join(c if c.isascii() and c.isprintable() else ascii(c)[1:-1] for c in text)


class InputFileError(HeadroomConfigError):
    """A file that cannot be read as input: the message is one line that names the file,
    the line and column when known, and what is wrong.

    Attributes:
        file: the file (or folder) as given, ``<stdin>`` for standard input.
        problem: what is wrong, e.g. ``invalid YAML: ...``.
        line: the 1-based line, when the parser knows it.
        column: the 1-based column, when the parser knows it.
    """

    def __init__(
        self, file: str, problem: str, *, line: int | None = None, column: int | None = None
    ) -> None:
        where = printable(file)
        if line is not None:
            where += f": line {line}" + (f", column {column}" if column is not None else "")
        super().__init__(where, file, problem)
        self.file = file
        self.problem = problem
        self.line = line
        self.column = column
        self.args = (f"{where}: {' '.join(problem.split())}",)


class HeadroomWarning(UserWarning):
    """A configuration that synthesizes but breaks one of the promises P1-P4."""


# Frames of these packages are not the user's: the library, and what it calls the user
# back through or is called through (jsii's metaclass creates every construct).
_LIBRARY_PACKAGES = (__name__.partition(".")[0], "jsii", "cdk8s", "constructs")


def in_library(frame: FrameType) -> bool:
    """Whether ``frame`` runs code that is not the user's: this library's, jsii's,
    cdk8s's, or the standard library's, which stands between the library's own frames
    (``contextlib`` re-raises an error of a ``with`` block from its ``__exit__``); a
    dataclass's generated ``__init__`` runs in its class's module, so it counts as that
    module's. Judged by module, not by file: a script given with ``python -c`` has no
    file."""
    package = str(frame.f_globals.get("__name__", "")).partition(".")[0]
    return package in _LIBRARY_PACKAGES or package in sys.stdlib_module_names


def caller_line(tb: TracebackType | None) -> str:
    """``<file>:<line>`` of the innermost frame of ``tb`` that is the user's (not
    ``in_library``), or ``""`` when none is: where a script led to an error."""
    where = ""
    while tb is not None:
        if not in_library(tb.tb_frame):
            where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def warn(message: str) -> None:
    """Issues a ``HeadroomWarning`` that points at the user's line: the innermost caller
    outside this library and jsii (``in_library``). A fixed ``stacklevel`` cannot:
    constructs are created through jsii's metaclass, so the caller of ``__init__`` is
    jsii's code, and the library calls itself at varying depths."""
    frame = sys._getframe(1)
    level = 2  # 1 is this function; 2 is the frame above
    while frame.f_back is not None and in_library(frame):
        frame = frame.f_back
        level += 1
    warnings.warn(message, HeadroomWarning, stacklevel=level)
