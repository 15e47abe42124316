"""Keyword props declared once, as a ``TypedDict`` that several signatures share.

Props that two calls take (``BurstWorkload`` and ``NodeHeadroom.add_burst_workload``,
the placement of every workload, ``CapacityBuffer`` and ``add_capacity_buffer``,
``HeadroomPriorityClasses`` and ``ModelClasses.of``) are declared as a ``TypedDict``,
and each call takes them as ``**props: Unpack[...]`` (PEP 692): mypy and editors check a
caller's keywords against the one declaration, as cdk8s-plus's ``DaemonSetProps extends
WorkloadProps`` and aws-cdk's shared ``FooOptions`` do. Such a call loses two things
Python gives an explicit signature, and this module gives them back: a misspelt keyword
is no longer refused (``check_props`` refuses it, naming the valid props), and
``inspect.signature`` and ``help()`` show ``**props`` alone (``spelled_out`` shows the
props with their defaults, which the chart generator reads too).
"""

from __future__ import annotations

import functools
import inspect  # already imported by dataclasses: free for the simulator
import sys
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast, get_origin

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

if sys.version_info >= (3, 11):
    from typing import Required, TypedDict, Unpack, get_type_hints
else:  # the quickstart promises Python 3.10; its typing would not strip Required
    from typing_extensions import Required, TypedDict, Unpack, get_type_hints

__all__ = [
    "Required",
    "TypedDict",
    "Unpack",
    "check_call",
    "check_props",
    "required",
    "spelled_out",
    "with_defaults",
]

_Props = TypeVar("_Props", bound=Mapping[str, object])
_Function = TypeVar("_Function", bound=Callable[..., Any])


@functools.cache  # asked on every construction; reading the hints costs ~0.1 ms
def required(props: object) -> tuple[str, ...]:
    """The keys a ``total=False`` ``TypedDict`` marks ``Required``, in the order written.

    Read from the hints: under ``from __future__ import annotations`` the class's own
    ``__required_keys__`` misses them (Python 3.11's ``typing`` sees a string, not
    ``Required``)."""
    hints: dict[str, Any] = get_type_hints(props, include_extras=True)
    return tuple(key for key, hint in hints.items() if get_origin(hint) is Required)


def check_props(given: Mapping[str, object], *, of: Callable[..., object]) -> None:
    """Refuses a keyword in ``given`` that ``of`` (a ``spelled_out`` function) does not
    take; the message lists its keyword-only parameters."""
    takes = _keywords(of)
    for prop, value in given.items():
        if prop not in takes:
            name = of.__qualname__.removesuffix(".__init__")
            raise HeadroomConfigError(prop, value, f"no such prop; {name} takes {sorted(takes)}")


def check_call(given: Mapping[str, object], *, of: Callable[..., object]) -> None:
    """``check_props``, and refuses a call to ``of`` that leaves out a keyword-only prop
    without a default, as a ``HeadroomConfigError`` that lists the props (Python's own
    ``TypeError`` names neither the construct's props nor what they accept). A function that
    takes ``**kwargs`` of its own (a user's subclass) is left to Python."""
    if _takes_any(of):
        return
    check_props(given, of=of)
    for prop in _needed(of):
        if prop not in given:
            name = of.__qualname__.removesuffix(".__init__")
            raise HeadroomConfigError(
                prop, None, f"a required prop, not given; {name} takes {sorted(_keywords(of))}"
            )


@functools.cache  # asked on every construction, like ``required``
def _keywords(function: Callable[..., object]) -> frozenset[str]:
    return frozenset(
        name
        for name, parameter in inspect.signature(function).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    )


@functools.cache
def _needed(function: Callable[..., object]) -> tuple[str, ...]:
    """The keyword-only parameters without a default that Python itself requires: those
    of the code, not of a ``spelled_out`` signature, whose required props (in
    ``**props``) the function's own checks name."""
    code = getattr(function, "__code__", None)
    if code is None:
        return ()
    names = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
    defaults = getattr(function, "__kwdefaults__", None) or {}
    return tuple(name for name in names if name not in defaults)


@functools.cache
def _takes_any(function: Callable[..., object]) -> bool:
    return any(
        parameter.kind is inspect.Parameter.VAR_KEYWORD
        for parameter in inspect.signature(function).parameters.values()
    )


def with_defaults(given: _Props, defaults: Mapping[str, object]) -> _Props:
    """``given``, with ``defaults`` for the props it leaves out."""
    return cast(_Props, {**defaults, **given})


def spelled_out(props: object, defaults: Mapping[str, object]) -> Callable[[_Function], _Function]:
    """Shows a function's ``**props: Unpack[props]`` as the keyword-only parameters that
    the ``TypedDict`` ``props`` declares, with ``defaults`` (every prop it does not
    require has one), to ``inspect.signature``, ``help()`` and ``check_props``. A default
    that names no prop, a default for a required prop and a prop without a default are
    a ``TypeError`` at import."""

    def decorate(function: _Function) -> _Function:
        signature = inspect.signature(function)
        *fixed, variadic = signature.parameters.values()
        if variadic.kind is not inspect.Parameter.VAR_KEYWORD:
            raise TypeError(f"{function.__qualname__} takes no **props to spell out")
        hints = get_type_hints(props)
        needed = set(required(props))
        if set(defaults) != set(hints) - needed:
            raise TypeError(
                f"{function.__qualname__}: the defaults must be those of the props it does "
                f"not require; these differ: {sorted(set(defaults) ^ (set(hints) - needed))}"
            )
        spelled = [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if name in needed else defaults[name],
                annotation=hint,
            )
            # The required first, as a signature would list them.
            for name, hint in sorted(hints.items(), key=lambda item: item[0] not in needed)
        ]
        cast(Any, function).__signature__ = signature.replace(parameters=[*fixed, *spelled])
        return function

    return decorate
