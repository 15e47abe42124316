"""add_burst_workload is typed: mypy checks a consumer's props, and they are BurstWorkload's."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path
from typing import get_origin, get_type_hints

from cdk8s_headroom import BurstWorkload, BurstWorkloadProps
from cdk8s_headroom.objects.burst import Required
from tests.conftest import ROOT

HEADROOM_SETS = {"priority_class_name"}
"""The BurstWorkload props that NodeHeadroom sets itself."""


def test_the_typed_props_are_burst_workloads_props_but_the_class() -> None:
    props = get_type_hints(BurstWorkloadProps, include_extras=True)
    signature = inspect.signature(BurstWorkload.__init__)
    hints = get_type_hints(BurstWorkload.__init__)
    keyword_only = {
        name: parameter
        for name, parameter in signature.parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and name not in HEADROOM_SETS
    }
    assert set(props) == set(keyword_only)
    required = {name for name, hint in props.items() if get_origin(hint) is Required}
    assert required == {
        name for name, p in keyword_only.items() if p.default is inspect.Parameter.empty
    }
    for name, hint in props.items():
        bare = hint.__args__[0] if name in required else hint
        assert bare == hints[name], name


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
# to a couple of seconds, and the props under test are typed by this library.
MYPY_CONFIG = """
[mypy]
strict = True

[mypy-cdk8s.*,cdk8s_plus_27.*,constructs.*,jsii.*]
follow_imports = skip

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
