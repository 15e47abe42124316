"""The package's layout: layers as folders, arrows that point down only, no import
circle, and one declaration of the public names.

The layers, bottom up (``cdk8s_headroom/__init__.py`` says what each holds):
vocabulary, files, simulate, the constructs (objects, karpenter), cluster, gitops,
validate, helm, cli.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import cdk8s_headroom
from cdk8s_headroom._exports import declared_exports

PACKAGE = Path(cdk8s_headroom.__file__).parent

RANK = {
    "vocabulary": 0,
    "files": 1,
    "simulate": 2,
    "objects": 3,
    "karpenter": 3,
    "cluster": 3,
    "gitops": 3,
    "validate": 3,
    "helm": 4,
    "cli": 5,
}
"""A module may import its own layer and the layers of a lower rank. The constructs
(objects, karpenter) and the cluster checks share a rank: neither may import the other."""

APART = {
    ("cluster", "objects"),
    ("cluster", "karpenter"),
    ("objects", "cluster"),
    ("gitops", "objects"),
    ("gitops", "karpenter"),
    ("gitops", "cluster"),
    ("validate", "objects"),
    ("validate", "karpenter"),
    ("validate", "cluster"),
    ("validate", "gitops"),
}
"""Layers of one rank that must not import each other: plan, status, the GitOps wiring
and validate read plain objects, never a construct (and no construct reads a cluster)."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _runtime_imports(tree: ast.Module) -> Iterator[ast.ImportFrom | ast.Import]:
    """Every import the module can run, in functions too; not those for type checkers."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        ):
            skipped.update(id(child) for child in ast.walk(node))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skipped:
            yield node


def _import_graph() -> dict[str, set[str]]:
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in _runtime_imports(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{name}: relative import; the package imports absolutely"
                base = node.module or ""
                for alias in node.names:
                    candidate = f"{base}.{alias.name}"
                    targets.add(candidate if candidate in modules else base)
            else:
                targets.update(alias.name for alias in node.names)
        graph[name] = {target for target in targets if target in modules and target != name}
    return graph


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in RANK else None


def test_every_module_lives_in_a_layer_folder() -> None:
    loose = sorted(
        path.name
        for path in PACKAGE.glob("*.py")
        if path.name not in ("__init__.py", "__main__.py", "_exports.py")
    )

    assert loose == []
    assert {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()} == set(RANK)


def test_imports_point_down_the_layers_only() -> None:
    upward = [
        f"{module} -> {target}"
        for module, targets in _import_graph().items()
        for target in targets
        if (low := _layer(module)) is not None
        and (high := _layer(target)) is not None
        and (RANK[high] > RANK[low] or (low, high) in APART)
    ]

    assert upward == []


def test_the_import_graph_has_no_circle() -> None:
    graph = _import_graph()
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                circles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)

    assert circles == []


def test_a_module_over_the_vocabulary_never_loads_a_construct_for_plan_or_status() -> None:
    graph = _import_graph()
    reached: set[str] = set()
    todo = ["cdk8s_headroom.cluster.plan", "cdk8s_headroom.cluster.status"]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(graph[module])

    assert sorted(m for m in reached if _layer(m) in ("objects", "karpenter", "helm")) == []


def test_the_public_names_are_declared_once_and_each_one_imports() -> None:
    source = (PACKAGE / "__init__.py").read_text()
    declared = declared_exports(PACKAGE / "__init__.py")
    spelled = [
        alias.asname or alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module != "cdk8s_headroom._exports"
        for alias in node.names
        if node.module != "__future__" and alias.name != "TYPE_CHECKING"
    ]

    assert sorted(spelled) == sorted(declared)  # one spelling each, no second list
    assert cdk8s_headroom.__all__ == sorted(declared)
    for name in declared:
        assert getattr(cdk8s_headroom, name) is not None, name
    assert "NodeHeadroom" in declared and "synth" in declared


def test_dir_of_the_package_shows_its_public_names_only() -> None:
    shown = set(dir(cdk8s_headroom))

    assert shown == {*cdk8s_headroom.__all__, "__version__"}
    assert not shown & {"Any", "TYPE_CHECKING", "importlib", "annotations", "lazy_module"}


def test_an_unknown_name_is_an_attribute_error_that_names_it() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'NodeHeadrom'"):
        cdk8s_headroom.NodeHeadrom  # noqa: B018


HOUSE_LIMIT_LINES = 600
"""The house limit on a module's length: past it, a module holds more than one concept."""


def test_no_module_of_the_package_is_longer_than_the_house_limit() -> None:
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text().splitlines())) > HOUSE_LIMIT_LINES
    }
    assert long == {}
