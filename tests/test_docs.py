"""The API reference: every public name is documented and appears in `make docs`'s output."""

import inspect
import re
import warnings
from pathlib import Path

import pytest
from pdoc.__main__ import cli as pdoc_cli

import cdk8s_headroom


def test_every_public_name_has_a_docstring() -> None:
    undocumented = [
        name
        for name in cdk8s_headroom.__all__
        if (inspect.isclass(obj := getattr(cdk8s_headroom, name)) or inspect.isfunction(obj))
        and not inspect.getdoc(obj)
    ]
    assert undocumented == []


def test_pdoc_renders_a_page_with_every_public_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `make docs`'s command line, given to pdoc's CLI in this process: a process of its
    # own spent a second starting Python and jsii, which this one has already.
    monkeypatch.setenv("PDOC_ALLOW_EXEC", "1")  # jsii starts Node at import
    with warnings.catch_warnings():
        # what pdoc warns about (attributes it cannot place) goes to stderr in `make docs`
        warnings.simplefilter("ignore", UserWarning)
        pdoc_cli(["--docformat", "google", "-o", str(tmp_path), "cdk8s_headroom"])
    page = (tmp_path / "cdk8s_headroom.html").read_text()
    missing = [name for name in cdk8s_headroom.__all__ if f'id="{name}"' not in page]
    assert missing == []


def test_the_chart_writers_docstrings_name_functions_that_exist() -> None:
    # ``module.function`` in a docstring of helm/chart.py: the module is one of the
    # package's (by its last name), and holds the function.
    from cdk8s_headroom.helm import chart

    modules = {path.stem: path for path in Path(cdk8s_headroom.__file__).parent.rglob("*.py")}
    named = {
        reference
        for _, function in inspect.getmembers(chart, inspect.isfunction)
        if function.__module__ == chart.__name__
        for reference in re.findall(r"``([a-z_]+)\.([a-z_]+)``", function.__doc__ or "")
    }
    assert named
    missing = [
        f"{module}.{name}"
        for module, name in sorted(named)
        if module not in modules or f"def {name}(" not in modules[module].read_text()
    ]
    assert missing == []
