"""Synthesis: the whole-app checks attached to an app's root, ``synth``, and how a
refused app is shown.

The first library construct added to an app attaches ``AppChecks`` to the app's root
(``node.add_validation``), so plain ``app.synth()`` and ``cdk8s synth`` refuse what
``synth(app)`` refuses, with the same messages. A refusal that a script leaves uncaught
is printed as those messages, without jsii's and Node's traceback.
"""

from __future__ import annotations

import sys
import traceback
import weakref
from types import TracebackType

import cdk8s
from constructs import IConstruct

from cdk8s_headroom.objects.app_checks import AppChecks, validate_app

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
    frames = [
        frame
        for frame in traceback.extract_tb(tb)
        if "/jsii/" not in frame.filename and "/cdk8s/" not in frame.filename
    ]
    where = f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""
    # cdk8s prefixes each message with its construct's path: "[]" for the root.
    lines = [line.strip().removeprefix("[] ") for line in text.splitlines()[1:]]
    return "\n".join([f"{where}synth refused the app:", *(f"  {line}" for line in lines)])


def _excepthook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    message = refused_app_message(error, tb)
    if message is None:
        _previous_excepthook(kind, error, tb)
    else:
        print(message, file=sys.stderr)
