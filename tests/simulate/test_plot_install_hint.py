"""--plot without matplotlib: the hint installs something that exists."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

# matplotlib made unimportable, as in a venv that installed the wheel without the extra
_PROBE = """
import sys
sys.modules["matplotlib"] = None
from cdk8s_headroom.cli import main
sys.exit(main(["simulate", "--manifests", "dist", "--cluster", "docs/examples/cluster.yaml",
               "--plot", "out.png"]))
"""


def test_a_plot_without_matplotlib_says_how_to_install_it_from_pypi(tmp_path: object) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True, check=False
    )

    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert "pip install 'matplotlib>=3.8'" in line
    assert "cdk8s-headroom[plot]" not in line  # the package is not on PyPI
    assert not (ROOT / "out.png").exists()


def test_a_plot_without_matplotlib_blames_the_missing_package_not_the_path() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True, check=False
    )

    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        "cdk8s-headroom simulate: error: --plot needs matplotlib, which is not installed"
    )
    assert "invalid value" not in line and "out.png" not in line
    assert "plot extra (pip install '.[plot]'" in line
