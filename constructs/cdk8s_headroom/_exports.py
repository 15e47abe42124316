"""Lazy re-exports (PEP 562), declared once: the package's ``if TYPE_CHECKING:`` imports.

A package lists each public name once, as ``from module import Name as Name`` under
``if TYPE_CHECKING:``. Type checkers and editors read those imports; at run time a name
is imported from its module on first use, so ``import cdk8s_headroom`` loads nothing
and a name loads only its own module. Readers of YAML (the simulator, ``plan``,
``status``) therefore never start Node through jsii.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any


def declared_exports(init_file: str | Path) -> dict[str, str]:
    """Each name the package declares under ``if TYPE_CHECKING:``, with its module."""
    import ast  # only on first use of a name: `import cdk8s_headroom` stays cheap

    tree = ast.parse(Path(init_file).read_text(encoding="utf-8"))
    exports: dict[str, str] = {}
    for statement in tree.body:
        if not (
            isinstance(statement, ast.If)
            and isinstance(statement.test, ast.Name)
            and statement.test.id == "TYPE_CHECKING"
        ):
            continue
        for node in statement.body:
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    exports[alias.asname or alias.name] = node.module
    return exports


def lazy_module(name: str, init_file: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the package ``name`` defined in ``init_file``.

    ``__all__`` is served by ``__getattr__`` too, so ``from package import *`` sees the
    declared names and nothing else.
    """
    exports: dict[str, str] = {}

    def table() -> dict[str, str]:
        # Parsed on first use, not at import: `import cdk8s_headroom` stays free.
        if not exports:
            exports.update(declared_exports(init_file))
        return exports

    def getattr_(attribute: str) -> Any:
        if attribute == "__all__":
            return sorted(table())
        module = table().get(attribute)
        if module is None:
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        package = importlib.import_module(name)
        value = getattr(importlib.import_module(module), attribute)
        setattr(package, attribute, value)  # later lookups skip __getattr__
        return value

    def dir_() -> list[str]:
        return sorted({"__version__", *table()})

    return getattr_, dir_
