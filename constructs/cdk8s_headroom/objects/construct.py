"""The base of the library's constructs, and what each one tells the whole-app checks."""

from __future__ import annotations

import weakref

from constructs import Construct, IConstruct

from cdk8s_headroom.objects.app_checks import AppMember
from cdk8s_headroom.objects.synthesis import attach_checks

_ROOTS: weakref.WeakKeyDictionary[IConstruct, IConstruct] = weakref.WeakKeyDictionary()
"""The root of each scope a library construct was added to, and of each library construct:
reading ``node.root`` costs two jsii round trips, more than creating a construct."""


class HeadroomConstruct(Construct, AppMember):
    """A construct of this library.

    The first one added to an app attaches the whole-app checks to the app's root
    (``synthesis.attach_checks``), so plain ``app.synth()`` and ``cdk8s synth`` refuse
    what ``cdk8s_headroom.synth`` refuses. The checks know no construct class: they ask
    each construct through ``AppMember``'s methods, which a subclass overrides for what
    it holds.
    """

    def __init__(self, scope: Construct, id: str) -> None:
        super().__init__(scope, id)
        root = _ROOTS.get(scope)
        if root is None:
            root = scope.node.root
            _ROOTS[scope] = root
            attach_checks(root)
        _ROOTS[self] = root
