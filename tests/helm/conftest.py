"""The Helm tests' fixtures: the chart, loaded once per module through the Helm library,
and its default values. (``chart`` here is the Helm chart, not the cdk8s chart of
``tests/conftest.py``.)"""

from __future__ import annotations

from typing import Any

import helm_python as helm
import pytest
import yaml

from scripts.helm_render import CHART, load


@pytest.fixture(scope="module")
def chart() -> helm.Chart:
    return load()


@pytest.fixture(scope="module")
def chart_defaults() -> dict[str, Any]:
    defaults: dict[str, Any] = yaml.safe_load((CHART / "values.yaml").read_text())
    return defaults
