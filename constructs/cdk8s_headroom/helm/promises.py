"""What the chart's NOTES warn of: the promises a model breaks with the values of its
classes, found by the library's simulation (``simulate.promises.check_promises``) and
kept as data (``library.json``, each model's ``promises``), since a template cannot run
the scheduler.

Whether the model keeps P1 to P3 depends on its classes' values only through their
order: each of the headroom's and the burst's against the ordinary pods' (the default
class's, else no class, 0), and, with a tainted pool, the taint's effect (a
``PreferNoSchedule`` taint lets ordinary pods on). So the simulation runs once per
order, on values that stand for it, and its warning keeps ``{headroom}`` and
``{burst}`` where those values were, for the build to fill with the user's. ``outcomes``
refuses to write a table that the order does not decide: it runs every order on two sets
of values and requires the same warning of both.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from cdk8s_headroom.helm.notes import chart_words
from cdk8s_headroom.simulate.promises import check_promises, describe_broken
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.placement import DEFAULT_DEDICATED_TAINT, Taint, TaintEffect
from cdk8s_headroom.vocabulary.priority_models import ModelClasses, PriorityModel

_STAND_INS = (
    # The headroom's value and the burst's for each sign against 0, the burst's above
    # the headroom's: two sets, far from any count the warning also holds, to find their
    # places by
    ({-1: -987654322, 0: 0, 1: 987654321}, {-1: -987654321, 0: 0, 1: 987654322}),
    ({-1: -123456790, 0: 0, 1: 123456788}, {-1: -123456789, 0: 0, 1: 123456789}),
)
_NUMBER = re.compile(r"(?<![\w.-])-?\d+(?![\w.])")


def order_key(headroom: int, burst: int, ordinary: int, effect: TaintEffect | None) -> str:
    """The key of an order: each of the headroom's and the burst's value against the
    ordinary pods' (-1, 0 or 1), and the tainted pool's effect (``models.promises``)."""
    signs = [(value > ordinary) - (value < ordinary) for value in (headroom, burst)]
    return ",".join([*map(str, signs), *([effect.value] if effect else [])])


def _warning(model: PriorityModel, headroom: int, burst: int, taint: Taint | None) -> str | None:
    """The warning ``model`` gives with these values, its values as ``{headroom}`` and
    ``{burst}``; ``None`` when it keeps its promises or takes no such values."""
    try:
        classes = ModelClasses.of(model, headroom_value=headroom, burst_value=burst)
    except HeadroomConfigError:
        return None
    if classes.default is not None and classes.default.value != 0:
        raise ValueError(f"{model}: the ordinary pods' value is not 0; give it a place")
    broken = check_promises(
        model, cpu="500m", memory="512Mi", classes=classes, dedicated_taint=taint
    )
    if not broken:
        return None
    places = {str(headroom): "{headroom}", str(burst): "{burst}"}
    text = chart_words(describe_broken(model, broken))
    return _NUMBER.sub(lambda number: places.get(number[0], number[0]), text)


def _orders(model: PriorityModel) -> Iterator[tuple[int, int, TaintEffect | None]]:
    effects: list[TaintEffect | None] = list(TaintEffect) if model.tainted_pool else [None]
    for effect in effects:
        for headroom in (-1, 0, 1):
            for burst in (-1, 0, 1):
                yield headroom, burst, effect


def outcomes(model: PriorityModel) -> dict[str, str]:
    """The warning ``model`` gives for each order of its classes' values that breaks a
    promise, by ``order_key``.

    Raises:
        ValueError: when two sets of values of one order give different warnings.
    """
    found = {}
    for headroom, burst, effect in _orders(model):
        taint = None
        if effect is not None:
            taint = Taint(DEFAULT_DEDICATED_TAINT.key, DEFAULT_DEDICATED_TAINT.value, effect)
        warnings = {_warning(model, h[headroom], b[burst], taint) for h, b in _STAND_INS}
        if len(warnings) > 1:
            raise ValueError(f"{model}: the order {headroom, burst, effect} does not decide")
        (warning,) = warnings
        if warning is not None:
            found[order_key(headroom, burst, 0, effect)] = warning
    return found
