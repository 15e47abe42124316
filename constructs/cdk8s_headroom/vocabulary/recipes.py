"""Recipes: an object's fields declared once, as data (plain Python).

A construct's ``_render`` evaluates its recipe with ``evaluate``, and ``make chart``
compiles the same recipe into a Go template helper (``helm.recipes``), so the library
and the chart build the object from one declaration: which fields it has, which are
fixed, and which come from which input.

A recipe is a constant (text, a number, a boolean, or a list or map of recipes) or:

- ``Take(name)``: the input ``name``;
- ``Each(name, recipe)``: a list, ``recipe`` once for each item of the input list
  ``name``, in which ``ITEM`` (or ``Item(key)``, the item's ``key``) and ``INDEX`` are
  that item and its index;
- ``Fill(pattern, place=recipe, ...)``: the text ``pattern`` with each ``{place}``
  replaced by the text of its recipe (``places.fill``);
- ``Join(recipe, ...)``: the lists of its recipes, one after another;
- ``Unique(recipe)``: the list of ``recipe`` with each item once, where it first
  comes (Sprig's ``uniq``: items equal as values, maps too);
- ``Choose(of, then, otherwise)``: ``then`` when the input ``of`` is given (not
  ``None``), else ``otherwise`` (a name with a part only some objects have);
- ``JoinText(recipe, separator)``: the texts of the list of ``recipe``, with
  ``separator`` between them (Sprig's ``join``), empty for no texts;
- ``Merge(recipe, ...)``: the maps of its recipes, one after another, a later one's
  entries over an earlier's (``None`` is no entries);
- ``EachEntry(name, recipe)``: a map, each key of the input map ``name`` with
  ``recipe``, in which ``ITEM`` is that key's item;
- ``IfAny(recipe)``, as a map's entry: the entry is left out when its recipe comes out
  empty, as a Go template's ``if`` judges it (nothing, false, zero, or an empty text,
  list or map), as the chart's compiled recipe leaves it out;
- ``IfGiven(recipe)``, as a map's entry: left out when its recipe comes out ``None``
  only (a zero stays); ``IfGiven(recipe, of=name)``: left out when the input ``name``
  is ``None``, for an entry whose own value is never ``None`` (a map around an input);
  ``IfGiven(recipe, unless=name)``: left out, too, when the input ``name`` is given (not
  ``None``), for an entry another input takes over (a Deployment's ``replicas``, which
  its autoscaler owns when it has one).

A map's entry of ``None`` is left out (as cdk8s leaves out a ``None``).

The inputs that are a construct's props as given are declared once too, as
``PropInputs``: the construct reads them with ``of``, and ``make chart`` compiles them,
with the values that give the props and the construct's defaults, into the chart's
``node-headroom.props.<construct>`` (``helm.props``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from cdk8s_headroom.vocabulary.places import fill


@dataclass(frozen=True)
class Take:
    """The input ``name``."""

    name: str


@dataclass(frozen=True)
class Item:
    """Inside an ``Each``: the item, or its ``key`` when one is given."""

    key: str = ""


@dataclass(frozen=True)
class Index:
    """Inside an ``Each``: the item's index in its list, from 0."""


ITEM = Item()
INDEX = Index()


@dataclass(frozen=True)
class Each:
    """A list: ``recipe`` once for each item of the input list ``name``."""

    name: str
    recipe: Any


@dataclass(frozen=True)
class Fill:
    """The text ``pattern`` with each ``{place}`` replaced by the text of its recipe."""

    pattern: str
    places: Mapping[str, Any] = field(default_factory=dict)


def fill_with(pattern: str, **places: Any) -> Fill:
    """``Fill(pattern, places)``, the places as keywords: ``fill_with(NAME, index=INDEX)``."""
    return Fill(pattern, places)


@dataclass(frozen=True)
class Join:
    """The lists of ``recipes``, one after another."""

    recipes: tuple[Any, ...]


def join(*recipes: Any) -> Join:
    return Join(recipes)


@dataclass(frozen=True)
class Choose:
    """``then`` when the input ``of`` is given (not ``None``), else ``otherwise``."""

    of: str
    then: Any
    otherwise: Any


@dataclass(frozen=True)
class Unique:
    """The list ``recipe`` with each item once, where it first comes."""

    recipe: Any


@dataclass(frozen=True)
class JoinText:
    """The texts of the list ``recipe``, with ``separator`` between them."""

    recipe: Any
    separator: str


@dataclass(frozen=True)
class Merge:
    """The maps of ``recipes``, one after another, a later one's entries over an
    earlier's."""

    recipes: tuple[Any, ...]


def merge(*recipes: Any) -> Merge:
    return Merge(recipes)


@dataclass(frozen=True)
class EachEntry:
    """A map: each key of the input map ``name`` with ``recipe``, ``ITEM`` its item."""

    name: str
    recipe: Any


@dataclass(frozen=True)
class IfAny:
    """A map's entry that is left out when ``recipe`` comes out empty (``empty``)."""

    recipe: Any


@dataclass(frozen=True)
class IfGiven:
    """A map's entry that is left out when ``recipe`` comes out ``None``, or, with
    ``of``, when the input ``of`` is ``None``; with ``unless``, also when the input
    ``unless`` is not ``None``."""

    recipe: Any
    of: str = ""
    unless: str = ""


@dataclass(frozen=True)
class PropInputs:
    """The inputs of a construct's recipes that are its props as given: by input name,
    the prop, which the construct keeps as the attribute of that name; ``defaults``, the
    construct's declared defaults of its props (``BURST_DEFAULTS``)."""

    props: Mapping[str, str]
    defaults: Mapping[str, object]

    def of(self, construct: object) -> dict[str, Any]:
        """Each input, the construct's attribute named as its prop: an enum by its value."""
        return {name: plain(getattr(construct, prop)) for name, prop in self.props.items()}

    def default(self, name: str) -> Any:
        """The default of the input ``name``'s prop, as ``of`` gives it; ``None`` for a
        required prop."""
        return plain(self.defaults.get(self.props[name]))


def plain(value: Any) -> Any:
    """``value`` as a manifest and the chart's values hold it: an enum by its value."""
    return value.value if isinstance(value, Enum) else value


def empty(value: Any) -> bool:
    """Empty as a Go template's ``if`` judges it (Go's text/template ``isTrue``)."""
    return value is None or value is False or (not isinstance(value, bool) and not value)


@dataclass(frozen=True)
class _Scope:
    inputs: Mapping[str, Any]
    item: Any = None
    index: int = 0


def evaluate(recipe: Any, inputs: Mapping[str, Any]) -> Any:
    """The value of ``recipe`` for ``inputs``: a plain manifest."""
    return _evaluate(recipe, _Scope(inputs))


def _evaluate(recipe: Any, scope: _Scope) -> Any:
    if isinstance(recipe, Take):
        return scope.inputs[recipe.name]
    if isinstance(recipe, Item):
        return scope.item[recipe.key] if recipe.key else scope.item
    if isinstance(recipe, Index):
        return scope.index
    if isinstance(recipe, Each):
        items = scope.inputs[recipe.name] or ()
        return [
            _evaluate(recipe.recipe, _Scope(scope.inputs, item, index))
            for index, item in enumerate(items)
        ]
    if isinstance(recipe, EachEntry):
        entries = scope.inputs[recipe.name] or {}
        return {
            key: _evaluate(recipe.recipe, _Scope(scope.inputs, item, index))
            for index, (key, item) in enumerate(entries.items())
        }
    if isinstance(recipe, Fill):
        places = {name: _evaluate(place, scope) for name, place in recipe.places.items()}
        return fill(recipe.pattern, places)
    if isinstance(recipe, Join):
        return [item for part in recipe.recipes for item in _evaluate(part, scope)]
    if isinstance(recipe, Choose):
        chosen = recipe.otherwise if scope.inputs[recipe.of] is None else recipe.then
        return _evaluate(chosen, scope)
    if isinstance(recipe, Unique):
        # Items may be maps, which no set holds: compared as values, as Sprig's uniq
        # compares them (reflect.DeepEqual)
        kept: list[Any] = []
        for item in _evaluate(recipe.recipe, scope) or ():
            if item not in kept:
                kept.append(item)
        return kept
    if isinstance(recipe, JoinText):
        # None is no texts, as Sprig's join takes a missing list
        return recipe.separator.join(_evaluate(recipe.recipe, scope) or ())
    if isinstance(recipe, Merge):
        return {
            key: value
            for part in recipe.recipes
            for key, value in (_evaluate(part, scope) or {}).items()
        }
    if isinstance(recipe, Mapping):
        found = {}
        for key, part in recipe.items():
            if part is None:
                continue
            if isinstance(part, IfAny):
                if not empty(value := _evaluate(part.recipe, scope)):
                    found[key] = value
            elif isinstance(part, IfGiven):
                if part.of and scope.inputs[part.of] is None:
                    continue
                if part.unless and scope.inputs[part.unless] is not None:
                    continue
                if (value := _evaluate(part.recipe, scope)) is not None:
                    found[key] = value
            else:
                found[key] = _evaluate(part, scope)
        return found
    if isinstance(recipe, list):
        return [_evaluate(part, scope) for part in recipe]
    return recipe
