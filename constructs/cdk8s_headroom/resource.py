"""An ApiObject whose body is rendered at synthesis time."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import cdk8s
from constructs import Construct


class RenderedApiObject(cdk8s.ApiObject):
    """Renders everything but apiVersion, kind and metadata when the chart is synthesized.

    Constructs keep their state in Python and render it here, so ``add_*`` calls made
    after construction still reach the output (as cdk8s-plus does with ``Lazy``,
    which jsii's type checks do not accept for L1 specs from Python).
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
        body = self._render()
        for key in sorted(body):
            if key not in ("apiVersion", "kind", "metadata"):
                document[key] = body[key]
        return document
