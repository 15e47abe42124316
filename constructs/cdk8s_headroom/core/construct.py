"""The base of the library's constructs, and what each one tells the whole-app checks."""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any

from constructs import Construct, IConstruct

from cdk8s_headroom.core.app_checks import AppMember
from cdk8s_headroom.core.synthesis import attach_checks
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.props import check_call

_ROOTS: weakref.WeakKeyDictionary[IConstruct, IConstruct] = weakref.WeakKeyDictionary()
"""The root of each scope a library construct was added to, and of each library construct:
reading ``node.root`` costs two jsii round trips, more than creating a construct."""

_ID_ALLOWED = "a construct id: a non-empty string without '/' (cdk8s joins ids with it)"


def _where(scope: Construct) -> str:
    """The construct path of ``scope``, for a message (read only when one is raised)."""
    return shown(scope.node.path) if scope.node.path else "the app"


def _check_id(scope: Construct, id: object) -> None:
    """Refuses an id that jsii (``TypeError``) or cdk8s (``RuntimeError``, or a path
    that no longer says where the construct is) would take badly."""
    if not isinstance(id, str) or not id or "/" in id:
        raise HeadroomConfigError("id", id, f"{_ID_ALLOWED}, for a construct in {_where(scope)}")


def _judged(init: Callable[..., None]) -> Callable[..., None]:
    """``init``, which first judges its call: the id, then the props (``check_call``)."""

    @functools.wraps(init)
    def judged(self: HeadroomConstruct, *args: Any, **props: Any) -> None:
        # Only the outermost constructor judges: a subclass's calls its base's with
        # the same id and with keywords of the library's own.
        if type(self).__init__ is judged and len(args) >= 2:
            _check_id(args[0], args[1])
            check_call(props, of=init)
        init(self, *args, **props)

    return judged


class HeadroomConstruct(Construct, AppMember):
    """A construct of this library.

    The first one added to an app attaches the whole-app checks to the app's root
    (``synthesis.attach_checks``), so plain ``app.synth()`` and ``cdk8s synth`` refuse
    what ``cdk8s_headroom.synth`` refuses. The checks know no construct class: they ask
    each construct through ``AppMember``'s methods, which a subclass overrides for what
    it holds.

    Every subclass's constructor first judges its call, before its own props: an
    unknown or missing prop and an id that is not a non-empty string without ``/`` are
    a ``HeadroomConfigError`` naming them; an id already used in the scope is one too,
    raised where cdk8s refuses it, before the construct joins the tree.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            cls.__init__ = _judged(cls.__dict__["__init__"])  # type: ignore[method-assign]

    def __init__(self, scope: Construct, id: str) -> None:
        _check_id(scope, id)
        try:
            super().__init__(scope, id)
        except RuntimeError:
            # Asked only here: try_find_child costs more than creating a construct.
            if scope.node.try_find_child(id) is None:
                raise
            raise HeadroomConfigError(
                "id",
                id,
                f"an id not used yet in {_where(scope)}: each construct's id is unique "
                "among its siblings",
            ) from None
        root = _ROOTS.get(scope)
        if root is None:
            root = scope.node.root
            _ROOTS[scope] = root
            attach_checks(root)
        _ROOTS[self] = root
