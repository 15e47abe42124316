"""An ApiObject whose body is rendered at synthesis time: every object the library emits."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError


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

    JSON patches (``add_json_patch``, cdk8s's escape hatch) apply to the whole rendered
    object, body included: cdk8s would apply them before the body exists.
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
        self._patches: list[cdk8s.JsonPatch] = []
        # Kept on the Python side: whole-app checks read them for every object, and a
        # jsii round trip per read would dominate synthesis of large apps.
        self._identity = (kind, metadata.namespace or "", metadata.name or "")

    def add_json_patch(self, *ops: cdk8s.JsonPatch) -> None:
        """Applies ``ops`` to the rendered object (body included) when it is synthesized.

        A patch whose path does not exist in the rendered object is a
        ``HeadroomConfigError`` at synthesis, naming this object and the patch.
        """
        self._patches.extend(ops)

    @property
    def patched(self) -> bool:
        """Whether JSON patches change this object."""
        return bool(self._patches)

    @property
    def identity(self) -> tuple[str, str, str]:
        """(kind, namespace, name) as synthesized, JSON patches included."""
        if not self._patches:
            return self._identity
        document = self.to_json()
        metadata = document.get("metadata") or {}
        return (
            str(document.get("kind", "")),
            str(metadata.get("namespace") or ""),
            str(metadata.get("name") or ""),
        )

    def to_json(self) -> Any:
        document = super().to_json()
        body = compact(self._render())
        for key, value in body.items():
            if key not in ("apiVersion", "kind", "metadata"):
                document[key] = value
        # One patch at a time, so that an error can say which one failed.
        for index, op in enumerate(self._patches):
            try:
                document = cdk8s.JsonPatch.apply(document, op)
            except RuntimeError as error:  # jsii's wrapper of the JavaScript error
                raise HeadroomConfigError(
                    f"{self.node.path}.json_patches[{index}]",
                    str(error).splitlines()[0],
                    f"a JSON patch that applies to the rendered {self._identity[0]}: "
                    "its path must exist (for add, its parent); synthesize without the "
                    "patch to see the object's fields",
                ) from None
        return document
