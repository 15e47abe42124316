"""Finding a user's files: a path, or a folder read recursively as ``kubectl apply -f DIR``
reads it (``*.yaml``, ``*.yml``, ``*.json``, in name order, following symlinks), each
unreadable entry an error of its own."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from cdk8s_headroom.vocabulary.errors import InputFileError

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
"""The files a folder is read for, as ``kubectl apply -f DIR`` reads them."""

STDIN = "-"
"""The path that means standard input."""


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
                yield InputFileError(str(path), symlink_problem(path, error))
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


def symlink_problem(path: Path, error: OSError) -> str:
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
            raise InputFileError(str(path), symlink_problem(path, error)) from None
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
