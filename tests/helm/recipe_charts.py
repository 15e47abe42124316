"""A recipe's compiled Go helper (``helm.recipes``), or any generated helpers, run in a
chart of their own through helm-python-sdk: what the tests hold to the library's
``evaluate`` (``test_helm_recipes.py``, ``test_helm_placement_recipes.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import helm_python as helm

from cdk8s_headroom.helm.recipes import compile_recipe


def compiled(
    tmp_path: Path, recipe: Any, inputs: dict[str, Any], absent: frozenset[str] = frozenset()
) -> Any:
    """``recipe`` compiled into a chart of its own, run on ``inputs``, as JSON."""
    helper = compile_recipe("probe", recipe, "a probe", absent)
    return run(tmp_path, [helper], 'include "node-headroom.recipe.probe" $in', inputs)


def run(tmp_path: Path, helpers: list[str], call: str, inputs: dict[str, Any]) -> Any:
    """``helpers`` in a chart of their own, ``call`` run on ``inputs`` (``$in``): its
    ``out``, as JSON."""
    (tmp_path / "templates").mkdir()
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: recipe\nversion: 0.1.0\n")
    (tmp_path / "templates" / "_probe.tpl").write_text("\n".join(helpers))
    (tmp_path / "templates" / "out.yaml").write_text(
        f"{{{{- $in := fromJson (toJson .Values) }}}}{{{{ {call} }}}}{{{{ toJson $in.out }}}}"
    )
    rendered = helm.Chart.load(tmp_path).render(inputs, name="r", namespace="r", is_install=True)
    return json.loads(rendered["recipe/templates/out.yaml"])
