"""A user's file as bytes and as text: bounded in size, only regular files (and ``-``
for stdin), a named pipe, a device or a socket refused by name without blocking, and
the bytes decoded as the API server decodes them (UTF-8, or UTF-16/32 by their mark)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from cdk8s_headroom.files.finding import STDIN, symlink_problem
from cdk8s_headroom.vocabulary.errors import InputFileError

MAX_FILE_BYTES = 2**30
"""The largest file read (1 GiB). Real pods are 6 to 9 KB each in ``kubectl get -o json``
(without managedFields, kubectl's default), so a snapshot of 30,000 pods is about 250 MiB;
this bound leaves room for 100,000 and keeps a stray disk image or ``/dev/zero`` out."""

_UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF8_BOM = b"\xef\xbb\xbf"


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
            raise InputFileError(name, symlink_problem(Path(path), error)) from None
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
