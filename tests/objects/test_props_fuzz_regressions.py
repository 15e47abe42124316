"""The bugs the fuzz test (tests/objects/test_props_fuzz.py) found, pinned one by one: each
input used to be accepted, or to raise something other than HeadroomConfigError."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cdk8s_headroom import (
    BurstWorkload,
    HeadroomConfigError,
    HeadroomPriorityClasses,
    NodeHeadroom,
    NodePoolRef,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    ReserverTask,
    Taint,
    Toleration,
    TolerationOperator,
)
from cdk8s_headroom.vocabulary.quantity import parse_quantity
from tests.conftest import chart_with_classes

Build = Callable[[Any], object]


def loose(value: object) -> Any:
    """A value of the wrong type, passed on purpose."""
    return value


def burst(chart: Any, **props: Any) -> BurstWorkload:
    return BurstWorkload(
        chart, "burst", **{"image": "nginx:1", "cpu": "1", "memory": "1Gi", **props}
    )


REGRESSIONS: list[tuple[str, Build, str]] = [
    (
        "tolerations-none",
        lambda c: NodeHeadroom(c, "h", cpu="1", memory="1Gi", tolerations=loose(None)),
        "tolerations",
    ),
    (
        "prepull-flag-string",
        lambda c: NodeHeadroom(c, "h", cpu="1", memory="1Gi", prepull_burst_images=loose("yes")),
        "prepull_burst_images",
    ),
    (
        "reserver-name",
        lambda c: NodeHeadroom(c, "h", cpu="1", memory="1Gi", reserver_name="Api"),
        "reserver_name",
    ),
    (
        "reserver-name-empty",
        lambda c: NodeHeadroom(c, "h", cpu="1", memory="1Gi", reserver_name=""),
        "reserver_name",
    ),
    (
        "affinity-values-none",
        lambda c: NodeSelectorRequirement("zone", NodeSelectorOperator.IN, loose(None)),
        "node_affinity[zone].values",
    ),
    (
        "affinity-values-string",
        lambda c: NodeSelectorRequirement("zone", NodeSelectorOperator.IN, loose("abc")),
        "node_affinity[zone].values",
    ),
    (
        "affinity-gt-string",
        lambda c: NodeSelectorRequirement("cpus", NodeSelectorOperator.GT, loose("7")),
        "node_affinity[cpus].values",
    ),
    (
        "pool-taints-none",
        lambda c: NodePoolRef.karpenter("pool", taints=loose(None)),
        "node_pool.taints",
    ),
    (
        "toleration-key-none",
        lambda c: Toleration(key=loose(None), operator=TolerationOperator.EXISTS),
        "toleration.key",
    ),
    ("label-key-empty-prefix", lambda c: Taint("/x", "v"), "taint.key"),
    ("label-key-newline", lambda c: Taint("x\n", "v"), "taint.key"),
    ("label-value-newline", lambda c: Taint("x", "v\n"), "taint.value"),
    ("name-newline", lambda c: burst(c, name="api\n"), "name"),
    (
        "selector-empty-prefix",
        lambda c: burst(c, node_selector={"/zone": "a"}),
        "node_selector['/zone']",
    ),
    ("quantity-arabic-digits", lambda c: burst(c, memory="١٢"), "memory"),
    ("command-control-character", lambda c: burst(c, command=["a\x7fb"]), "command"),
    ("command-one-line-tab", lambda c: burst(c, args=["a\tb"]), "args"),
    (
        "command-line-separator",
        lambda c: ReserverTask.custom(image="nginx", command=["a\u2028b"]),
        "task.command",
    ),
    (
        "default-class-flag-string",
        lambda c: HeadroomPriorityClasses(c, "p", create_default_class=loose("no")),
        "create_default_class",
    ),
    (
        "class-name-empty",
        lambda c: HeadroomPriorityClasses(c, "p", burst_class_name=""),
        "burst_class_name",
    ),
]


@pytest.mark.parametrize(
    ("build", "field"),
    [(build, field) for _, build, field in REGRESSIONS],
    ids=[name for name, _, _ in REGRESSIONS],
)
def test_a_formerly_accepted_input_raises_naming_its_field(
    chart: Any, build: Build, field: str
) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        build(chart)
    assert raised.value.field == field


def test_quantities_take_ascii_digits_only() -> None:
    assert parse_quantity("12", field="memory") == 12
    with pytest.raises(HeadroomConfigError):
        parse_quantity("١٢", field="memory")


def test_multi_line_scripts_may_still_hold_tabs(synth: Any) -> None:
    chart = chart_with_classes()
    burst(chart, args=["for i in 1 2; do\n\techo $i\ndone"])
    assert synth(chart)
