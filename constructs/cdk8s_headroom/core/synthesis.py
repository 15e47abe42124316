"""Synthesis: the whole-app checks attached to an app's root, ``synth``, publication
into a folder that is replaced whole (``publish_app``), and how a refused app is shown.

The first library construct added to an app attaches ``AppChecks`` to the app's root
(``node.add_validation``), so plain ``app.synth()`` and ``cdk8s synth`` refuse what
``synth(app)`` refuses, with the same messages. A refusal that a script leaves uncaught
is printed as those messages, without jsii's and Node's traceback; so is a
``HeadroomConfigError``, with the line of the script that led to it.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

import cdk8s
from constructs import IConstruct

from cdk8s_headroom.core.app_checks import AppChecks, validate_app
from cdk8s_headroom.files.publish import Check, promote
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, caller_line

_CHECKS: weakref.WeakKeyDictionary[IConstruct, AppChecks] = weakref.WeakKeyDictionary()
"""The checks registered on each root."""


def attach_checks(root: IConstruct) -> None:
    """Adds ``AppChecks`` to ``root`` (once per root), and shows failures without a
    traceback when a script leaves them uncaught (``show_refused_app``)."""
    global _previous_excepthook
    if root in _CHECKS:
        return
    checks = AppChecks(root)
    root.node.add_validation(checks)
    _CHECKS[root] = checks
    if sys.excepthook is not _excepthook:
        _previous_excepthook = sys.excepthook
        sys.excepthook = _excepthook


def synth(app: cdk8s.App) -> None:
    """``validate_app``, then ``app.synth()``: nothing is written if a check fails.

    Raises:
        HeadroomConfigError: on the first problem ``validate_app`` finds.
    """
    validate_app(app)
    checks = _CHECKS.get(app)
    if checks is None:
        app.synth()
        return
    checks.passed = True  # checked above; cdk8s would run the same checks again
    try:
        app.synth()
    finally:
        checks.passed = False


SYNTH_FAILED = "synth failed, {target}/ left as it was: {error}"
"""The one line a command that publishes an app prints for a configuration error."""


def publish_app(
    build: Callable[[cdk8s.App], object],
    target: Path | str,
    *,
    checks: Sequence[Check] = (),
    copy_to: Path | str | None = None,
) -> cdk8s.App:
    """Builds an app, synthesizes it into a staging folder, checks it, and only then
    replaces ``target`` with it whole (``files.publish.promote``).

    The staging folder is new and sits beside ``target`` (so the swap is a rename on one
    filesystem); on any failure it is removed and ``target`` keeps every byte it had.
    cdk8s-cli empties its own output folder before it starts the app, so that folder
    can never be the published one: ``cdk8s synth`` gives it as ``copy_to``, which
    receives a copy of what was published once the swap is done, and stays absent on a
    failure (cdk8s-cli then reports that the app wrote nothing).

    Args:
        build: adds the app's constructs to the ``cdk8s.App`` it is given.
        target: the folder to publish, e.g. ``dist``; its parent is created if needed.
        checks: what the staged folder must pass besides ``check_manifest_folder``
            (``scripts/promote.py``'s ``CHECKS``: strict schemas, Pod Security).
            Default: none.
        copy_to: a folder that receives a copy of the published files. Default: none.

    Returns:
        The synthesized app (its ``outdir`` no longer exists: read ``target``).

    Raises:
        HeadroomConfigError: a bad prop, a whole-app check, or a publication check
            that failed; ``target`` is left as it was.
    """
    target = Path(target)
    if copy_to is not None and Path(copy_to).resolve() == target.resolve():
        raise HeadroomConfigError(
            "copy_to", str(copy_to), f"a folder other than the target {target}"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.staging-", dir=target.parent))
    try:
        app = cdk8s.App(outdir=str(staging))
        build(app)
        synth(app)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    promote(staging, target, checks=tuple(checks))
    if copy_to is not None:
        shutil.rmtree(copy_to, ignore_errors=True)
        shutil.copytree(target, copy_to)
    return app


_VALIDATION_FAILED = "Error: Validation failed with the following errors:"
"""How cdk8s's App.synth() starts the error it throws when validations fail."""

_previous_excepthook = sys.excepthook


def refused_app_message(error: BaseException, tb: TracebackType | None) -> str | None:
    """The lines to print for an uncaught failure of cdk8s's validations, or ``None``.

    jsii turns it into a ``RuntimeError`` whose traceback is jsii's and Node's; the user
    needs the messages and the line of their script that called ``synth()``.
    """
    text = str(error)
    if not isinstance(error, RuntimeError) or not text.startswith(_VALIDATION_FAILED):
        return None
    where = caller_line(tb)
    where += ": " if where else ""
    # cdk8s prefixes each message with its construct's path: "[]" for the root.
    lines = [line.strip().removeprefix("[] ") for line in text.splitlines()[1:]]
    return "\n".join([f"{where}synth refused the app:", *(f"  {line}" for line in lines)])


def config_error_message(error: BaseException, tb: TracebackType | None) -> str | None:
    """The line to print for an uncaught ``HeadroomConfigError``, or ``None``: its
    message after the innermost line of the script that led to it (``caller_line``:
    outside this library, jsii, cdk8s and the standard library). The message already
    says what, where and what is allowed."""
    if not isinstance(error, HeadroomConfigError):
        return None
    where = caller_line(tb)
    return f"{where}: {error}" if where else str(error)


def _excepthook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    message = refused_app_message(error, tb) or config_error_message(error, tb)
    if message is None:
        _previous_excepthook(kind, error, tb)
    else:
        print(message, file=sys.stderr)
