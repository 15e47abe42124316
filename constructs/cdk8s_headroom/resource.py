"""An ApiObject whose body is rendered at synthesis time."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import cdk8s
from constructs import Construct


def compact(value: Any) -> Any:
    """A manifest as cdk8s writes it: ``None`` fields dropped, mapping keys sorted."""
    if isinstance(value, Mapping):
        return {key: compact(value[key]) for key in sorted(value) if value[key] is not None}
    if isinstance(value, list | tuple):
        return [compact(item) for item in value]
    return value


class RenderedApiObject(cdk8s.ApiObject):
    """Renders everything but apiVersion, kind and metadata when the chart is synthesized.

    Constructs keep their state in Python and render it here, so ``add_*`` calls made
    after construction still reach the output (as cdk8s-plus does with ``Lazy``,
    which jsii's type checks do not accept for L1 specs from Python). ``render`` returns
    the body as plain JSON data in the API's field names: building it from cdk8s's L1
    structs costs a type check per field and a jsii round trip per object, which made
    synthesis of large apps several times slower. The schema checks of `make test`
    (strict, unknown fields rejected) guard the field names instead.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        api_version: str,
        kind: str,
        metadata: cdk8s.ApiObjectMetadata,
        render: Callable[[], Mapping[str, Any]],
    ) -> None:
        super().__init__(scope, id, api_version=api_version, kind=kind, metadata=metadata)
        self._render = render
        # Kept on the Python side: whole-app checks read them for every object, and a
        # jsii round trip per read would dominate synthesis of large apps.
        self.identity = (kind, metadata.namespace or "", metadata.name or "")

    def to_json(self) -> Any:
        document = super().to_json()
        body = compact(self._render())
        for key, value in body.items():
            if key not in ("apiVersion", "kind", "metadata"):
                document[key] = value
        return document
