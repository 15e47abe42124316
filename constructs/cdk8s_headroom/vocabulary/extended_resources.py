"""Extended resources in a slice: GPUs (``nvidia.com/gpu``) and any ``domain/name``
resource a device plugin or an operator advertises on nodes.

kube-scheduler's rules for them (``pkg/scheduler/framework/plugins/noderesources/fit.go``,
``fitsRequest``) and the API server's (``pkg/apis/core/validation``,
``ValidateResourceRequirements``): a name outside ``kubernetes.io``
(``rules.EXTENDED_RESOURCE``), whole units (``rules.DEVICE_COUNT``), requests equal to
limits (never overcommitted), and a pod that does not request one is never refused for
it. So a reserver holds whole devices, and only a burst pod that requests the device
preempts it for that device.
"""

from __future__ import annotations

from collections.abc import Mapping

from cdk8s_headroom.vocabulary import rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

ExtendedResources = Mapping[str, str]
"""Whole counts by resource name, e.g. ``{"nvidia.com/gpu": "1"}``."""


def check_extended_resources(value: object, *, field: str) -> dict[str, str]:
    """``value`` judged once: names by ``rules.EXTENDED_RESOURCE``, counts by
    ``rules.DEVICE_COUNT``; ``None`` is none."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise HeadroomConfigError(
            field, value, 'a mapping of resource name to whole count, e.g. {"nvidia.com/gpu": "1"}'
        )
    judged: dict[str, str] = {}
    for name, count in value.items():
        rules.EXTENDED_RESOURCE.check(name, field=f"{field}.name")
        judged[name] = rules.DEVICE_COUNT.check(count, field=f"{field}[{name}]")
    return judged
