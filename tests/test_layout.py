"""The package's layout: layers as folders, arrows that point down only, no import
circle, and one declaration of the public names; and, outside the package, main.py,
scripts/, e2e/ and bench/ in an order too.

The layers, bottom up (``cdk8s_headroom/__init__.py`` says what each holds, and
docs/architecture.md draws them): vocabulary, files, simulate, core (the construct base),
karpenter, objects; beside the constructs, cluster, gitops and validate; then helm, cli.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import cdk8s_headroom
from cdk8s_headroom._exports import declared_exports

PACKAGE = Path(cdk8s_headroom.__file__).parent
ROOT = Path(__file__).resolve().parent.parent

LAYERS: dict[str, tuple[str, ...]] = {
    "vocabulary": (),
    "files": ("vocabulary",),
    "simulate": ("files",),
    "core": ("files",),
    "karpenter": ("core",),
    "objects": ("karpenter", "simulate"),
    "cluster": ("simulate",),
    "gitops": ("vocabulary",),
    "validate": ("files",),
    "helm": ("objects", "cluster"),
    "cli": ("cluster", "gitops", "validate"),
}
"""Each layer and the layers right below it. A module may import its own layer and every
layer below it, directly or through another (``BELOW``); nothing else. So the constructs
(core, karpenter, objects) never read a cluster, plan, status, the GitOps wiring and
validate read plain objects and never a construct, and karpenter's pools never import
the headroom constructs that use them."""


def _below(layer: str) -> frozenset[str]:
    reached: set[str] = set()
    todo = list(LAYERS[layer])
    while todo:
        lower = todo.pop()
        if lower not in reached:
            reached.add(lower)
            todo.extend(LAYERS[lower])
    return frozenset(reached)


BELOW = {layer: _below(layer) for layer in LAYERS}
"""Each layer and every layer it may import (``LAYERS``, followed down)."""

OUTSIDE = ("main", "scripts", "e2e", "bench")
"""The code outside the package, bottom up: each may import the package and what comes
before it here, never what comes after (``scripts/chart.py`` imports ``main``, so main.py
takes the promotion checks from the package, not from ``scripts/promote.py``)."""


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
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def test_every_module_lives_in_a_layer_folder() -> None:
    loose = sorted(
        path.name
        for path in PACKAGE.glob("*.py")
        if path.name not in ("__init__.py", "__main__.py", "_exports.py")
    )

    assert loose == []
    folders = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    assert folders == set(LAYERS)


def test_the_layers_are_an_order_with_one_bottom() -> None:
    assert [layer for layer in LAYERS if layer in BELOW[layer]] == []  # no circle
    assert [layer for layer in LAYERS if not LAYERS[layer]] == ["vocabulary"]
    assert all("vocabulary" in BELOW[layer] for layer in LAYERS if layer != "vocabulary")


def test_imports_point_down_the_layers_only() -> None:
    upward = [
        f"{module} -> {target}"
        for module, targets in _import_graph().items()
        for target in targets
        if (low := _layer(module)) is not None
        and (high := _layer(target)) is not None
        and high != low
        and high not in BELOW[low]
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


def _outside_imports() -> dict[str, set[str]]:
    """The top-level names each of main.py, scripts/, e2e/ and bench/ imports, at run time
    or not, and the package's own (``cdk8s_headroom``)."""
    sources = {
        "cdk8s_headroom": list(PACKAGE.rglob("*.py")),
        "main": [ROOT / "main.py"],
        **{folder: list((ROOT / folder).rglob("*.py")) for folder in OUTSIDE[1:]},
    }
    imported: dict[str, set[str]] = {}
    for owner, paths in sources.items():
        names: set[str] = set()
        for path in paths:
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
                elif isinstance(node, ast.Import):
                    names.update(alias.name.split(".")[0] for alias in node.names)
        imported[owner] = names
    return imported


def test_main_scripts_e2e_and_bench_import_only_what_comes_before_them() -> None:
    order = ("cdk8s_headroom", *OUTSIDE, "tests")
    upward = [
        f"{owner} -> {name}"
        for owner, names in _outside_imports().items()
        for name in sorted(names)
        if name in order and order.index(owner) < order.index(name)
    ]

    assert upward == []


def test_a_module_over_the_vocabulary_never_loads_a_construct_for_plan_or_status() -> None:
    graph = _import_graph()
    reached: set[str] = set()
    todo = ["cdk8s_headroom.cluster.plan", "cdk8s_headroom.cluster.status"]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(graph[module])

    assert sorted(m for m in reached if _layer(m) in ("core", "objects", "karpenter", "helm")) == []


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

LIMITED = ("constructs", "scripts", "e2e", "bench", "examples", "tests", "main.py", "setup.py")
"""The Python the limit holds for: the package, the scripts, the live tier's runners, the
benchmarks, the examples and the tests; not ``imports/``, which ``cdk8s import`` writes."""


def test_no_python_module_of_the_repository_is_longer_than_the_house_limit() -> None:
    paths = [
        path
        for name in LIMITED
        for path in ((ROOT / name).rglob("*.py") if (ROOT / name).is_dir() else [ROOT / name])
    ]
    long = {
        str(path.relative_to(ROOT)): lines
        for path in paths
        if (lines := len(path.read_text().splitlines())) > HOUSE_LIMIT_LINES
    }

    assert long == {}
