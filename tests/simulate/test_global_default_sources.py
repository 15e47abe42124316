"""Two ``globalDefault`` PriorityClasses are refused naming the file each comes from:
the API server's admission (``plugin/pkg/admission/priority/admission.go``
``validatePriorityClass``) refuses a second global default, and the simulator refuses a
cluster that has two, saying which files to change."""

from __future__ import annotations

import pytest

from cdk8s_headroom import HeadroomConfigError
from cdk8s_headroom.simulate import ClassRegistry, manifests_from_objects


def _default_class(name: str) -> dict[str, object]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": 0,
        "preemptionPolicy": "Never",
        "globalDefault": True,
    }


def test_two_global_defaults_are_refused_naming_the_file_of_each() -> None:
    manifests = manifests_from_objects(
        [("a.k8s.yaml", [_default_class("quiet")]), ("b.k8s.yaml", [_default_class("calm")])]
    )
    registry = ClassRegistry()
    registry.update(manifests.classes)
    with pytest.raises(HeadroomConfigError) as raised:
        _ = registry.default
    assert (raised.value.field, raised.value.value) == ("globalDefault", ["calm", "quiet"])
    assert "calm at " in raised.value.allowed and "b.k8s.yaml" in raised.value.allowed
    assert "quiet at " in raised.value.allowed and "a.k8s.yaml" in raised.value.allowed
