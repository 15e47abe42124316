"""The props are typed and declared once: mypy checks a consumer's props, ``inspect``
shows them, and a misspelt one is refused by name."""

from __future__ import annotations

import inspect
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_origin, get_type_hints

import cdk8s
import pytest

from cdk8s_headroom import (
    BurstWorkload,
    BurstWorkloadProps,
    CapacityBuffer,
    CapacityBufferForm,
    CapacityBufferVersion,
    HeadroomConfigError,
    HeadroomPriorityClasses,
    HeadroomReserver,
    ImagePrepuller,
    ImagePullPolicy,
    ModelClasses,
    NodeHeadroom,
    PlacementOptions,
)
from cdk8s_headroom.objects.burst import Required
from tests.conftest import ROOT

HEADROOM_SETS = {"priority_class_name"}
"""The BurstWorkload props that NodeHeadroom sets itself."""


def test_the_signature_inspect_shows_is_the_typed_props_and_the_class() -> None:
    # GIVEN the one declaration of a burst workload's props, which __init__ unpacks
    props = get_type_hints(BurstWorkloadProps, include_extras=True)

    # WHEN inspect reads the constructor (as help() and the chart generator do)
    parameters = inspect.signature(BurstWorkload.__init__).parameters
    keyword_only = {
        name: parameter
        for name, parameter in parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and name not in HEADROOM_SETS
    }

    # THEN it shows every prop with its type, required where the props say Required
    assert set(props) == set(keyword_only)
    assert set(PlacementOptions.__annotations__) < set(keyword_only)
    required = {name for name, hint in props.items() if get_origin(hint) is Required}
    assert required == {"image", "cpu", "memory"}
    assert required == {
        name for name, p in keyword_only.items() if p.default is inspect.Parameter.empty
    }
    for name, hint in props.items():
        bare = hint.__args__[0] if name in required else hint
        assert keyword_only[name].annotation == bare, name


def test_the_signatures_show_the_documented_defaults() -> None:
    # GIVEN constructors that unpack their props (the chart generator reads these defaults)
    burst = inspect.signature(BurstWorkload.__init__).parameters
    buffer = inspect.signature(CapacityBuffer.__init__).parameters
    reserver = inspect.signature(HeadroomReserver.__init__).parameters

    # THEN each default is the one the docstrings state
    assert burst["replicas"].default == 1
    assert burst["image_pull_policy"].default is ImagePullPolicy.IF_NOT_PRESENT
    assert burst["run_as_user"].default == 65534
    assert burst["target_cpu_utilization"].default == 80
    assert buffer["form"].default is CapacityBufferForm.POD_TEMPLATE
    assert buffer["api_version"].default is CapacityBufferVersion.V1BETA1
    assert reserver["namespace"].default == "default"
    assert reserver["tolerations"].default == ()


def _chart() -> cdk8s.Chart:
    return cdk8s.Chart(cdk8s.App(), "chart")


def _headroom() -> NodeHeadroom:
    return NodeHeadroom(_chart(), "headroom", cpu="1", memory="1Gi")


MISSPELT: dict[str, tuple[Callable[[Any], object], str, set[str]]] = {
    "HeadroomReserver": (
        lambda bad: HeadroomReserver(_chart(), "r", cpu="1", memory="1Gi", **bad),
        "HeadroomReserver",
        {"cpu", "task", "node_pool", "labels"},
    ),
    "ImagePrepuller": (
        lambda bad: ImagePrepuller(_chart(), "p", name="p", priority_class_name="c", **bad),
        "ImagePrepuller",
        {"images", "tools_image", "node_selector"},
    ),
    "BurstWorkload": (
        lambda bad: BurstWorkload(_chart(), "b", image="nginx:1", cpu="1", memory="1Gi", **bad),
        "BurstWorkload",
        {"priority_class_name", "replicas", "node_affinity"},
    ),
    "add_burst_workload": (
        lambda bad: _headroom().add_burst_workload(
            "b", image="nginx:1", cpu="1", memory="1Gi", **bad
        ),
        "BurstWorkload",
        {"replicas", "tolerations"},
    ),
    "NodeHeadroom": (
        lambda bad: NodeHeadroom(_chart(), "h", cpu="1", memory="1Gi", **bad),
        "NodeHeadroom",
        {"model", "reserver_name", "namespace"},
    ),
    "add_capacity_buffer": (
        lambda bad: (h := _headroom()).add_capacity_buffer(
            h.add_burst_workload("b", image="nginx:1", cpu="1", memory="1Gi"), **bad
        ),
        "NodeHeadroom.add_capacity_buffer",
        {"replicas", "form", "api_version"},
    ),
    "CapacityBuffer": (
        lambda bad: CapacityBuffer(
            (h := _headroom()),
            "buffer",
            workload=h.add_burst_workload("b", image="nginx:1", cpu="1", memory="1Gi"),
            **bad,
        ),
        "CapacityBuffer",
        {"workload", "labels", "replicas"},
    ),
    "HeadroomPriorityClasses": (
        lambda bad: HeadroomPriorityClasses(_chart(), "classes", **bad),
        "HeadroomPriorityClasses",
        {"model", "headroom_value"},
    ),
    "ModelClasses.of": (
        lambda bad: ModelClasses.of(**bad),
        "ModelClasses.of",
        {"headroom_class_name", "default_value"},
    ),
}


@pytest.mark.parametrize("call", MISSPELT, ids=list(MISSPELT))
def test_a_misspelt_prop_is_refused_by_name_listing_the_valid_ones(call: str) -> None:
    construct, takes, some_valid = MISSPELT[call]

    # WHEN a call is given a prop no declaration has
    with pytest.raises(HeadroomConfigError) as raised:
        construct({"replica": 3})

    # THEN the error names it and its value, and lists the props the call takes
    error = raised.value
    assert error.field.rsplit(".", 1)[-1] == "replica"
    assert error.value == 3
    assert error.allowed.startswith(f"no such prop; {takes} takes [")
    for prop in some_valid:
        assert repr(prop) in error.allowed, prop


def test_a_burst_workload_without_a_required_prop_is_refused_by_name() -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        BurstWorkload(_chart(), "b", image="nginx:1", cpu="1")
    assert (raised.value.field, raised.value.allowed) == (
        "memory",
        "a value: every burst workload needs one",
    )


CONSUMER = """
import cdk8s

from cdk8s_headroom import NodeHeadroom

app = cdk8s.App()
headroom = NodeHeadroom(cdk8s.Chart(app, "chart"), "web", cpu="1", memory="1Gi")
headroom.add_burst_workload("ok", image="nginx:1", cpu="500m", memory="512Mi", replicas=2)
headroom.add_burst_workload("bad-image", image=123, cpu="500m", memory="512Mi")
headroom.add_burst_workload("typo", image="nginx:1", cpu="500m", memory="1Gi", replica="three")
headroom.add_burst_workload("missing", image="nginx:1", cpu="500m")
"""

# cdk8s's and constructs' generated bindings are large; skipping them keeps one mypy run
# to a couple of seconds, and the props under test are typed by this library. So are
# matplotlib's and numpy's stubs (about 300 of the 480 modules mypy read), which only the
# simulator's plot imports: mypy reads stubs even under `skip` unless told
# (follow_imports_for_stubs), and reading them took 3 of the run's 5 seconds.
MYPY_CONFIG = """
[mypy]
strict = True

[mypy-cdk8s.*,cdk8s_plus_27.*,constructs.*,jsii.*]
follow_imports = skip

[mypy-matplotlib.*,numpy.*]
follow_imports = skip
follow_imports_for_stubs = True

[mypy-cdk8s_headroom.*]
follow_imports = silent
"""


def test_mypy_strict_rejects_a_wrong_type_an_unknown_prop_and_a_missing_one(
    tmp_path: Path,
) -> None:
    # GIVEN a consumer's app with one good call and three bad ones
    app = tmp_path / "consumer.py"
    app.write_text(CONSUMER)
    (tmp_path / "mypy.ini").write_text(MYPY_CONFIG)

    # WHEN mypy --strict checks it
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(tmp_path / "mypy.ini"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-error-summary",
            str(app),
        ],
        env={"MYPYPATH": str(ROOT / "constructs"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )

    # THEN it names each bad call, and only those
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert result.returncode == 1, result.stdout + result.stderr
    assert [line.split(":")[1] for line in errors] == ["9", "10", "11"]
    assert 'Argument "image" to "add_burst_workload"' in errors[0]
    assert 'has incompatible type "int"; expected "str"' in errors[0]
    assert 'Unexpected keyword argument "replica"' in errors[1]
    assert 'Missing named argument "memory"' in errors[2]
