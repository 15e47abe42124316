"""Whole-app checks run as a cdk8s validation: plain ``app.synth()`` and ``cdk8s synth``
refuse what ``cdk8s_headroom.synth(app)`` refuses, with the same messages."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import cdk8s
import pytest

from cdk8s_headroom import (
    HeadroomConfigError,
    HeadroomPriorityClasses,
    HeadroomReserver,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
    synth,
)
from cdk8s_headroom.core.app_checks import problems
from tests.conftest import ROOT


def two_default_classes(app: cdk8s.App) -> None:
    chart = cdk8s.Chart(app, "chart")
    HeadroomPriorityClasses(chart, "a")
    HeadroomPriorityClasses(
        chart,
        "b",
        headroom_class_name="b-reserve",
        burst_class_name="b-burst",
        default_class_name="b-default",
    )


def two_reservers_of_one_name(app: cdk8s.App) -> None:
    chart = cdk8s.Chart(app, "chart")
    classes = HeadroomPriorityClasses(chart, "classes")
    for id in ("a", "b"):
        NodeHeadroom(chart, id, cpu="1", memory="1Gi", priority_classes=classes)


def two_bursts_of_one_name(app: cdk8s.App) -> None:
    chart = cdk8s.Chart(app, "chart")
    classes = HeadroomPriorityClasses(chart, "classes")
    for pool in ("a", "b"):
        headroom = NodeHeadroom(
            chart,
            pool,
            cpu="1",
            memory="1Gi",
            priority_classes=classes,
            node_pool=NodePoolRef.karpenter(pool),
        )
        headroom.add_burst_workload("api", image="nginx:1", cpu="1", memory="1Gi")


def an_unknown_class(app: cdk8s.App) -> None:
    HeadroomReserver(
        cdk8s.Chart(app, "chart"), "r", cpu="1", memory="1Gi", priority_class_name="nowhere"
    )


BAD_APPS: dict[str, Callable[[cdk8s.App], None]] = {
    "create_default_class": two_default_classes,
    "name": two_reservers_of_one_name,
    "name ": two_bursts_of_one_name,
    "chart/r.priority_class_name": an_unknown_class,
}


@pytest.mark.parametrize(("field", "build"), BAD_APPS.items(), ids=list(BAD_APPS))
def test_app_synth_refuses_what_synth_refuses_with_the_same_message(
    tmp_path: Path, field: str, build: Callable[[cdk8s.App], None]
) -> None:
    # GIVEN the same invalid app twice
    ours, plain = cdk8s.App(outdir=str(tmp_path / "a")), cdk8s.App(outdir=str(tmp_path / "b"))
    build(ours)
    build(plain)

    # WHEN one goes through cdk8s_headroom.synth and the other through app.synth()
    with pytest.raises(HeadroomConfigError) as refused:
        synth(ours)
    with pytest.raises(RuntimeError) as failed:
        plain.synth()

    # THEN both refuse it, with the same message, and nothing is written
    assert refused.value.field == field.strip()
    assert str(refused.value) in str(failed.value)
    assert list(tmp_path.rglob("*.yaml")) == []


def test_the_checks_are_registered_once_per_app_not_per_construct() -> None:
    app = cdk8s.App()
    two_reservers_of_one_name(app)
    chart = cdk8s.Chart(app, "other")
    HeadroomReserver(chart, "r", cpu="1", memory="1Gi", name="r", priority_class_name="nowhere")
    messages = [m for c in app.node.find_all() for m in c.node.validate()]
    assert len(messages) == 2
    assert messages == [str(problem) for problem in problems(app)]
    assert all(c.node.validate() == [] for c in app.node.find_all() if c is not app)


def test_a_valid_app_synthesizes_with_plain_app_synth(tmp_path: Path) -> None:
    app = cdk8s.App(outdir=str(tmp_path))
    chart = cdk8s.Chart(app, "chart")
    NodeHeadroom(chart, "a", cpu="1", memory="1Gi", model=PriorityModel.GUARDED)
    app.synth()
    assert [p.name for p in tmp_path.iterdir()] == ["chart.k8s.yaml"]


BAD_SCRIPT = """
import cdk8s
from cdk8s_headroom import NodeHeadroom, NodePoolRef

app = cdk8s.App()
chart = cdk8s.Chart(app, "chart")
for pool in ("a", "b"):
    NodeHeadroom(chart, pool, cpu="1", memory="1Gi", node_pool=NodePoolRef.karpenter(pool))
app.synth()
"""


def test_cdk8s_synth_shows_the_refusal_without_a_python_or_jsii_traceback(
    tmp_path: Path,
) -> None:
    # GIVEN a user's app that calls plain app.synth() on two sets of the same classes
    (tmp_path / "app.py").write_text(BAD_SCRIPT)
    (tmp_path / "cdk8s.yaml").write_text(f"language: python\napp: {sys.executable} app.py\n")

    # WHEN cdk8s synth runs it
    result = subprocess.run(
        [str(ROOT / "node_modules" / ".bin" / "cdk8s"), "synth"],
        cwd=tmp_path,
        env={
            **os.environ,
            "PATH": f"{ROOT / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}",
            "CDK8S_CHECK_UPGRADE": "false",
            "PYTHONPATH": str(ROOT / "constructs"),
        },
        capture_output=True,
        text=True,
    )

    # THEN it fails with the checks' messages, pointing at the user's line
    assert result.returncode != 0
    assert f"{tmp_path / 'app.py'}:9: synth refused the app:" in result.stderr
    assert (
        "  name: invalid value 'headroom-reserve'; a name no other PriorityClass has: "
        "chart/a/PriorityClasses/Headroom and chart/b/PriorityClasses/Headroom both use it; "
        "PriorityClasses are cluster-scoped: share one HeadroomPriorityClasses"
    ) in result.stderr
    assert "Traceback" not in result.stderr
    assert "jsii" not in result.stderr
    assert not (tmp_path / "dist").exists() or list((tmp_path / "dist").iterdir()) == []
