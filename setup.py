"""The one thing pyproject.toml cannot declare: ``cdk8s_headroom_node.pth`` at the top of
the wheel, which points jsii at a supported Node (``cdk8s_headroom/objects/node_runtime.py``
says why and how). Everything else is in pyproject.toml."""

import ast
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RUNTIME = Path(__file__).parent / "constructs" / "cdk8s_headroom" / "objects" / "node_runtime.py"


def _pth_line() -> str:
    # Read from the module's source, not imported: the build does not install the package.
    for node in ast.parse(RUNTIME.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PTH_LINE":
            return str(ast.literal_eval(node.value))
    raise RuntimeError(f"{RUNTIME} has no PTH_LINE")


class BuildWithNodeHook(build_py):
    def run(self) -> None:
        super().run()
        Path(self.build_lib, "cdk8s_headroom_node.pth").write_text(_pth_line())


setup(cmdclass={"build_py": BuildWithNodeHook})
