"""One object of a kubectl listing, as the snapshot reader reads it: where it came from,
for messages that name the file, the kind and the object, and its fields read with
their types checked; and the listing's quantities, parsed once per text."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from cdk8s_headroom.simulate.fields import Reader, Shown, Value
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, printable
from cdk8s_headroom.vocabulary.quantity import parse_quantity


class ListedObject:
    """Where an object came from, for error messages: file, kind, namespace, name."""

    __slots__ = ("kind", "name", "namespace", "source")

    def __init__(self, source: str, kind: str, namespace: str | None, name: str) -> None:
        self.source = source
        self.kind = kind
        self.namespace = namespace
        self.name = name

    @property
    def label(self) -> str:
        name = printable(self.name) or "(no name)"
        if self.namespace is None:
            return f"{self.source}: {self.kind} {name}"
        return f"{self.source}: {self.kind} {printable(self.namespace)}/{name}"

    def fail(self, path: str, value: object, allowed: str) -> HeadroomConfigError:
        return HeadroomConfigError(f"{self.label}: {path}", Shown(value), allowed)

    def value(self, data: object, path: str) -> Value:
        """``data`` for the shared readers of ``reading``, whose errors then name this
        object and ``path``."""
        return Value(Reader(self.label, ""), data, path)

    def mapping(self, data: object, path: str) -> Mapping[str, Any]:
        if data is None:
            return {}
        if not isinstance(data, Mapping):
            raise self.fail(path, data, "a mapping")
        return data

    def sequence(self, data: object, path: str) -> list[Any]:
        if data is None:
            return []
        if not isinstance(data, list):
            raise self.fail(path, data, "a list")
        return data

    def text(self, data: object, path: str, default: str = "") -> str:
        if data is None:
            return default
        if not isinstance(data, str):
            raise self.fail(path, data, "a string")
        return data

    def integer(self, data: object, path: str, *, minimum: int, maximum: int) -> int:
        if isinstance(data, bool) or not isinstance(data, int) or not minimum <= data <= maximum:
            raise self.fail(path, data, f"an integer from {minimum} to {maximum}")
        return data

    def labels(self, data: object, path: str) -> dict[str, str]:
        labels = self.mapping(data, path)
        for key, value in labels.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise self.fail(f"{path}.{key}", value, "a string label value")
        return dict(labels)


class Quantities:
    """Parsed quantities by text, per unit: a snapshot repeats the same few thousand
    texts tens of thousands of times."""

    def __init__(self) -> None:
        self.cpu: dict[str, int] = {}
        """Millicores by text."""
        self.memory: dict[str, int] = {}
        """Bytes (or plain counts) by text."""

    def get(self, obj: ListedObject, data: object, path: str, unit: int) -> int:
        cache = self.cpu if unit == 1000 else self.memory
        known = cache.get(data) if isinstance(data, str) else None
        if known is not None:
            return known
        text = data
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            text = str(data)
        if not isinstance(text, str):
            raise obj.fail(path, data, 'a Kubernetes quantity, e.g. "500m", "2", "512Mi"')
        try:
            amount = parse_quantity(text, field=path)
        except HeadroomConfigError as error:
            raise obj.fail(path, data, error.allowed) from None
        if amount < 0:
            raise obj.fail(path, data, "a quantity of zero or more")
        parsed = math.ceil(amount * unit)
        if isinstance(data, str):
            cache[data] = parsed
        return parsed
