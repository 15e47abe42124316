"""The strict schemas' verdicts on objects already judged, kept between runs: publishing
objects that were judged before imports no validator and reads no schema.

Judging dist/'s objects took about 55 ms of a `python main.py` of 450 ms (importing
jsonschema and kubernetes-validate, reading each release's definitions, compiling a
validator per kind, validating), and a synthesis mostly publishes objects it published
before. A verdict depends on the object and on the code that judges it, nothing else.
So a store is a JSON file per judging code, named by a digest of its ``identity()``:
the installed versions of kubernetes-validate (the schemas), jsonschema, referencing and
jsonschema-specifications (the validator), the Python release (the ``pattern``
regexes), and the source of ``schemas`` and of this module (how a schema is compiled,
an error worded, an entry keyed). A change of any of them names another file, and the
identity is also kept in the file and compared: an entry is only read by the code that
wrote it, so it is never stale.

Each entry is keyed by the SHA-256 of the object's JSON, its key order kept (an error
lists unexpected fields in that order), and holds the errors for each release, ``[]``
when valid; refusals are kept too. An object that JSON cannot hold exactly (a key that
is not a string, a date, bytes, inf) is judged every time. A missing, unreadable,
corrupt or unwritable store is the same as an empty one: its objects are judged. So is
a package whose version cannot be read from its ``.dist-info`` folder (an install of
another kind): then nothing is kept.

The folder: ``$HEADROOM_SCHEMA_CACHE``, else ``$XDG_CACHE_HOME/cdk8s-headroom/schemas``,
else ``~/.cache/cdk8s-headroom/schemas``; it keeps the ``MAX_FILES`` stores written
last, each holding at most ``MAX_ENTRIES`` objects.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

MAX_ENTRIES = 1024
"""The objects a store keeps, the newest: about 100 KB, read in about 1 ms."""

MAX_FILES = 8
"""The stores a folder keeps, those written last: one per version of the judging code
(another virtualenv, another release of a package, an edit of ``schemas``)."""

_JUDGING_PACKAGES = (
    "kubernetes_validate",
    "jsonschema",
    "referencing",
    "jsonschema_specifications",
)
"""The packages a verdict depends on (each one's ``.dist-info`` folder is named as it)."""

_JUDGING_SOURCES = ("schemas.py", "verdict_cache.py")
"""The modules of this package a verdict depends on: how it is judged and worded, and
how it is kept."""


def folder() -> Path:
    """Where the stores are: ``$HEADROOM_SCHEMA_CACHE``, else the user's cache folder."""
    explicit = os.environ.get("HEADROOM_SCHEMA_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cdk8s-headroom" / "schemas"


def _installed_version(package: str) -> str | None:
    """The version in the name of the ``.dist-info`` folder beside ``package``, found
    without importing it (``importlib.metadata`` takes about 2 ms a package)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    site = Path(next(iter(spec.submodule_search_locations))).parent
    found = list(site.glob(f"{package}-*.dist-info"))
    if len(found) != 1:
        return None
    return found[0].name.removeprefix(f"{package}-").removesuffix(".dist-info")


def identity() -> dict[str, Any] | None:
    """What a verdict depends on besides the object (see the module's docstring), or
    ``None`` when a package's version cannot be read."""
    versions = {package: _installed_version(package) for package in _JUDGING_PACKAGES}
    if None in versions.values():
        return None
    here = Path(__file__).parent
    try:
        sources = {
            name: hashlib.sha256((here / name).read_bytes()).hexdigest()
            for name in _JUDGING_SOURCES
        }
    except OSError:
        return None
    return {
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "packages": versions,
        "sources": sources,
    }


def _holds_exactly(document: object) -> bool:
    """Whether ``json.dumps`` writes ``document`` as nothing else is written: dicts with
    string keys, lists, strings, numbers, booleans and null (a tuple would be written
    as a list, a key 1 as "1")."""
    pending = [document]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            if not all(isinstance(key, str) for key in value):
                return False
            pending += value.values()
        elif isinstance(value, list):
            pending += value
        elif not (value is None or isinstance(value, str | int | float)):
            return False
    return True


def object_key(document: object) -> str | None:
    """The SHA-256 of the object's JSON, key order kept; ``None`` when JSON cannot hold
    it exactly (``_holds_exactly``, and inf or nan)."""
    if not _holds_exactly(document):
        return None
    try:
        text = json.dumps(document, allow_nan=False, separators=(",", ":"))
    except (ValueError, RecursionError):
        return None
    return hashlib.sha256(text.encode()).hexdigest()


class VerdictStore:
    """The verdicts kept for the judging code of this process (``open``): the errors of
    each object for each release (``get``, ``put``), and the releases they are for."""

    def __init__(
        self,
        path: Path | None,
        identity: dict[str, Any] | None,
        releases: tuple[str, ...] | None = None,
        entries: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.identity = identity
        self.releases = releases
        """The releases the kept verdicts are for; ``None`` when nothing is kept."""
        self._entries: dict[str, Any] = entries or {}
        self._changed = False

    @classmethod
    def open(cls) -> VerdictStore:
        """The store of this judging code; an empty one when it cannot be read, is
        corrupt, or was written by other code."""
        judging = identity()
        if judging is None:
            return cls(None, None)
        digest = hashlib.sha256(json.dumps(judging, sort_keys=True).encode()).hexdigest()
        try:  # Path.home() raises when the home folder cannot be found
            path = folder() / f"verdicts-{digest[:24]}.json"
        except RuntimeError:
            return cls(None, judging)
        try:
            kept = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return cls(path, judging)
        if not isinstance(kept, dict) or kept.get("identity") != judging:
            return cls(path, judging)
        releases, entries = kept.get("releases"), kept.get("verdicts")
        if not (
            isinstance(releases, list)
            and releases
            and all(isinstance(r, str) for r in releases)
            and isinstance(entries, dict)
        ):
            return cls(path, judging)
        return cls(path, judging, tuple(releases), entries)

    def get(self, document: object, releases: Sequence[str]) -> list[list[str]] | None:
        """The errors kept for ``document`` in each of ``releases``, or ``None``."""
        if tuple(releases) != self.releases:
            return None
        key = object_key(document)
        kept = self._entries.get(key) if key is not None else None
        if not (
            isinstance(kept, list)
            and len(kept) == len(releases)
            and all(isinstance(errors, list) for errors in kept)
            and all(isinstance(error, str) for errors in kept for error in errors)
        ):
            return None
        return kept

    def put(self, document: object, releases: Sequence[str], errors: list[list[str]]) -> None:
        """Keeps the errors of ``document`` in each of ``releases`` (unless JSON cannot
        hold it exactly); those of other releases are dropped."""
        key = object_key(document)
        if key is None or self.path is None:
            return
        if tuple(releases) != self.releases:
            self.releases = tuple(releases)
            self._entries = {}
        self._entries.pop(key, None)  # the newest last: they are kept longest
        self._entries[key] = errors
        self._changed = True

    def save(self) -> None:
        """Writes what ``put`` added, whole or not at all; a folder that cannot be
        written only means nothing is kept."""
        if not self._changed or self.path is None:
            return
        entries = dict(list(self._entries.items())[-MAX_ENTRIES:])
        text = json.dumps(
            {"identity": self.identity, "releases": self.releases, "verdicts": entries},
            separators=(",", ":"),
        )
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(
                dir=self.path.parent, prefix=".verdicts-", suffix=".tmp"
            )
        except OSError:
            return
        try:
            with os.fdopen(descriptor, "w") as file:
                file.write(text)
            os.replace(temporary, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            return
        self._changed = False
        self._prune()

    def _prune(self) -> None:
        assert self.path is not None
        with contextlib.suppress(OSError):
            stores = sorted(
                self.path.parent.glob("verdicts-*.json"),
                key=lambda p: p.stat().st_mtime_ns,
                reverse=True,
            )
            for stale in stores[MAX_FILES:]:
                if stale != self.path:
                    stale.unlink(missing_ok=True)
