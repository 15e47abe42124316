"""The terms a Karpenter pool is made of are plain Python: ``durations``,
``disruption``, ``pool_ref`` and ``requirements`` load no jsii, cdk8s or constructs,
and check their input with no ``node`` on PATH. Only the constructs (``node_pool``,
``node_class``) start Node.

Each check runs in a fresh interpreter: this test process has loaded jsii already.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.test_no_node import _probe

PLAIN_MODULES = ("durations", "disruption", "pool_ref", "requirements")


def _no_node_env(tmp_path: Path) -> dict[str, str]:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "JSII_NODE"}
    env["PATH"] = str(empty)
    return env


def test_the_plain_karpenter_modules_check_their_terms_without_loading_jsii(
    tmp_path: Path,
) -> None:
    code = (
        "import importlib\n"
        f"for name in {PLAIN_MODULES!r}:\n"
        "    importlib.import_module('cdk8s_headroom.karpenter.' + name)\n"
        "from cdk8s_headroom.karpenter.disruption import (BudgetNodes, BudgetSchedule,\n"
        "    DisruptionBudget, DisruptionReason)\n"
        "from cdk8s_headroom.karpenter.durations import parse_duration\n"
        "from cdk8s_headroom.karpenter.pool_ref import KarpenterNodePoolRef, NodePoolFlavour\n"
        "from cdk8s_headroom.karpenter.requirements import check_requirement\n"
        "from cdk8s_headroom.vocabulary.errors import HeadroomConfigError\n"
        "from cdk8s_headroom.vocabulary.placement import (NodeSelectorOperator,\n"
        "    NodeSelectorRequirement)\n"
        "budget = DisruptionBudget(BudgetNodes.count(1), (DisruptionReason.DRIFTED,),\n"
        "    BudgetSchedule('0 9 * * mon-fri', '8h'))\n"
        "pool = KarpenterNodePoolRef('general-purpose', limits=(('cpu', '64'),))\n"
        "os_on_auto_mode = NodeSelectorRequirement(\n"
        "    'kubernetes.io/os', NodeSelectorOperator.IN, ('linux',))\n"
        "try:\n"
        "    check_requirement(os_on_auto_mode, NodePoolFlavour.EKS_AUTO_MODE)\n"
        "    refused = None\n"
        "except HeadroomConfigError as error:\n"
        "    refused = error.field\n"
        "print(json.dumps([budget.to_json(), parse_duration('1h30m', field='f'),\n"
        "    str(pool.limit_amounts['cpu']), refused]))\n"
    )

    result, loaded = _probe(code, _no_node_env(tmp_path))

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        {"nodes": "1", "reasons": ["Drifted"], "schedule": "0 9 * * mon-fri", "duration": "8h"},
        ["1h30m", 5400],
        "64",
        "requirements[kubernetes.io/os]",
    ]
    assert loaded == []
