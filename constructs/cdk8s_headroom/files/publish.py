"""Publishing synthesized manifests: checked first, then swapped in whole.

GitOps tools prune what disappears from the folder they sync, so an empty or
half-written ``dist/`` could delete the live headroom. Synthesis therefore writes to a
staging folder, the staging folder is checked, and only then replaces the target.
"""

from __future__ import annotations

import copy
import functools
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.pod_security import check_documents

MANIFEST_SUFFIX = ".k8s.yaml"

Check = Callable[[Path], None]
"""A check of a staged folder; it raises ``HeadroomConfigError`` to stop publication."""


def load_manifests(folder: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Yields every object of every ``*.k8s.yaml`` file in ``folder``, in file order;
    each call gets objects of its own."""
    for path in sorted(folder.rglob(f"*{MANIFEST_SUFFIX}")):
        for document in _parsed(path.read_text()):
            if document is not None:
                yield path, copy.deepcopy(document)


@functools.lru_cache(maxsize=16)
def _parsed(text: str) -> tuple[Any, ...]:
    """The documents of a file's text, parsed once for every read of the same text.

    Each publication check reads the staged folder, and parsing was most of what a check
    of dist/ cost (1.3 ms a read); copies of its objects cost 0.14 ms.
    """
    # Imported here: synthesis itself never reads YAML, and PyYAML's import is a
    # noticeable share of `python main.py` over the bare cdk8s floor.
    import yaml

    # libyaml's safe loader where PyYAML has it (as files.documents reads): the same
    # objects, parsed several times faster.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return tuple(yaml.load_all(text, Loader=loader))


def check_pod_security(folder: Path) -> None:
    """A publication check: every pod template of the ``*.k8s.yaml`` files meets Pod
    Security ``restricted`` (``pod_security.check_documents``)."""
    check_documents((path.name, document) for path, document in load_manifests(folder))


def check_manifest_folder(folder: Path) -> None:
    """The structural check: manifests only, at least one object, each one named."""
    if not folder.is_dir():
        raise HeadroomConfigError("staging", str(folder), "an existing folder of manifests")
    # Anything but folders and regular *.k8s.yaml files: a named pipe would block the
    # reading below, and a GitOps tool would sync whatever else is there.
    strays = [
        p.name
        for p in folder.rglob("*")
        if not p.is_dir() and not (p.is_file() and p.name.endswith(MANIFEST_SUFFIX))
    ]
    if strays:
        raise HeadroomConfigError(
            "staging",
            sorted(strays),
            f"only regular {MANIFEST_SUFFIX} files (dist/ holds objects only)",
        )
    count = 0
    for path, document in load_manifests(folder):
        count += 1
        if not isinstance(document, dict) or not all(
            key in document for key in ("apiVersion", "kind", "metadata")
        ):
            raise HeadroomConfigError(
                str(path.name), document, "Kubernetes objects with apiVersion, kind and metadata"
            )
        if not document["metadata"].get("name"):
            raise HeadroomConfigError(str(path.name), document["metadata"], "a metadata.name")
    if count == 0:
        raise HeadroomConfigError(
            "staging", str(folder), "at least one object: an empty dist/ would prune everything"
        )


def swap_in(staging: Path, target: Path, prepare: Check) -> None:
    """Replaces ``target`` with ``staging`` once ``prepare(staging)`` returns.

    ``prepare`` fills or checks the staging folder; if it raises, ``target`` is untouched
    and ``staging`` is removed. The swap is two renames on one filesystem; a crash
    between them leaves ``<target>.previous``, which the next call restores before
    anything else. ``target`` gets the mode the umask gives a new folder, whatever mode
    ``staging`` was made with.
    """
    previous = target.with_name(target.name + ".previous")
    if previous.exists() and not target.exists():
        previous.rename(target)
    try:
        prepare(staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    # A staging folder from mkdtemp is 0700: renamed as is, a GitOps agent or CI step
    # running as another user could not read what was published.
    staging.chmod(0o777 & ~_umask())
    if previous.exists():
        shutil.rmtree(previous)
    if target.exists():
        target.rename(previous)
    staging.rename(target)
    shutil.rmtree(previous, ignore_errors=True)


def _umask() -> int:
    """The process's umask; reading it means setting it, so it is set straight back."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def promote(staging: Path, target: Path, *, checks: tuple[Check, ...] = ()) -> None:
    """Replaces ``target`` with the manifests in ``staging`` once every check passes
    (``check_manifest_folder`` first); see ``swap_in``."""

    def check_all(folder: Path) -> None:
        check_manifest_folder(folder)
        for check in checks:
            check(folder)

    swap_in(staging, target, check_all)
