"""The API reference: every public name is documented and appears in `make docs`'s output."""

import inspect
import os
import subprocess
import sys
from pathlib import Path

import cdk8s_headroom
from tests.conftest import ROOT


def test_every_public_name_has_a_docstring() -> None:
    undocumented = [
        name
        for name in cdk8s_headroom.__all__
        if (inspect.isclass(obj := getattr(cdk8s_headroom, name)) or inspect.isfunction(obj))
        and not inspect.getdoc(obj)
    ]
    assert undocumented == []


def test_pdoc_renders_a_page_with_every_public_name(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PDOC_ALLOW_EXEC": "1",
        "PATH": f"{ROOT / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}",
    }
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pdoc",
            "--docformat",
            "google",
            "-o",
            str(tmp_path),
            "cdk8s_headroom",
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    page = (tmp_path / "cdk8s_headroom.html").read_text()
    missing = [name for name in cdk8s_headroom.__all__ if f'id="{name}"' not in page]
    assert missing == []
