"""Text with ``{place}``s, filled by plain replacement (plain Python).

The library declares a name or a rule once, as a pattern; it fills the pattern with
``fill``, and the Helm chart fills the same pattern, read from ``files/library.json``,
with ``replace``. Plain replacement, not ``str.format``: a pattern may hold other
braces (Prometheus' ``{{ $labels.pod }}``, PromQL's ``{namespace="..."}``) that both
engines leave as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def fill(item: Any, places: Mapping[str, object]) -> Any:
    """``item`` (text, or lists and maps of it) with each ``{place}`` replaced by the
    text of its value."""
    if isinstance(item, str):
        for key, value in places.items():
            item = item.replace(f"{{{key}}}", str(value))
        return item
    if isinstance(item, Mapping):
        return {key: fill(value, places) for key, value in item.items()}
    if isinstance(item, list):
        return [fill(value, places) for value in item]
    return item
