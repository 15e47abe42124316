"""The Karpenter and EKS Auto Mode examples synthesize, and their Karpenter objects validate."""

import importlib
import re
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import HeadroomWarning, validate_app
from scripts.validation import is_karpenter, validate_models
from tests.conftest import Manifest, find, find_all, pod_spec

EXAMPLES = tuple(
    sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "examples").glob("[!_]*.py"))
)
"""Every example: each builds its app with ``build(app)``."""


def example(name: str) -> ModuleType:
    return importlib.import_module(f"examples.{name}")


def synthesize(module: ModuleType, outdir: Path) -> list[Manifest]:
    app = cdk8s.App(outdir=str(outdir))
    module.build(app)
    validate_app(app)
    return [o for chart in app.charts for o in chart.to_json()]


@pytest.mark.parametrize("name", EXAMPLES)
def test_an_example_synthesizes_and_its_karpenter_objects_validate(
    name: str, tmp_path: Path
) -> None:
    objects = synthesize(example(name), tmp_path)
    karpenter = [o for o in objects if is_karpenter(o)]
    for result in validate_models(karpenter):
        assert result.errors == (), f"{result.kind} {result.name}: {result.errors}"
    # the slices: a reserver DaemonSet, or a CronJob per time window (time_windows)
    assert find_all(objects, "DaemonSet") or find_all(objects, "CronJob")


def test_the_dedicated_pool_example_taints_its_pool_for_headroom_pods_only(
    tmp_path: Path,
) -> None:
    objects = synthesize(example("karpenter_dedicated_pool"), tmp_path)
    pool = find(objects, "NodePool", "burst")["spec"]["template"]["spec"]
    assert pool["nodeClassRef"] == {
        "group": "karpenter.k8s.aws",
        "kind": "EC2NodeClass",
        "name": "burst",
    }
    assert pool["taints"] == [
        {"effect": "NoSchedule", "key": "headroom.cdk8s.io/burst", "value": "true"}
    ]
    assert find(objects, "EC2NodeClass", "burst")
    for workload in (
        find(objects, "DaemonSet", "headroom-reserver-burst"),
        find(objects, "DaemonSet", "headroom-reserver-burst-prepull"),
        find(objects, "Deployment", "checkout"),
    ):
        spec = pod_spec(workload)
        assert spec["nodeSelector"] == {"karpenter.sh/nodepool": "burst"}
        assert [t["key"] for t in spec["tolerations"]] == ["headroom.cdk8s.io/burst"]
    assert not any(pc.get("globalDefault", False) for pc in find_all(objects, "PriorityClass"))


def test_the_auto_mode_example_targets_the_built_in_pool_without_emitting_one(
    tmp_path: Path,
) -> None:
    objects = synthesize(example("eks_auto_mode"), tmp_path)
    assert [o for o in objects if is_karpenter(o)] == []
    for workload in (find(objects, "DaemonSet"), find(objects, "Deployment", "demo-burst")):
        assert pod_spec(workload)["nodeSelector"] == {"karpenter.sh/nodepool": "general-purpose"}


@pytest.mark.parametrize(
    ("name", "summary"),
    [
        (
            "karpenter_dedicated_pool",
            "worst case 16 nodes (limits cpu 64) hold 16 CPU, 32Gi memory",
        ),
        ("eks_auto_mode", "of the smallest node's allocatable (2 CPU, 4Gi memory)"),
        (
            "karpenter_spot_budgets",
            "of the smallest node's allocatable (4 CPU, 8Gi memory); worst case 32 nodes",
        ),
    ],
)
def test_running_an_example_writes_to_cdk8s_outdir_says_where_and_prints_the_summary(
    name: str, summary: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("CDK8S_OUTDIR", str(tmp_path))
    example(name).main()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "0000-cluster.k8s.yaml",
        "0001-headroom.k8s.yaml",
    ]
    printed = capsys.readouterr()
    assert summary in printed.out
    # The folder goes to stderr, so stdout stays the summaries alone.
    assert printed.err == f"wrote 0000-cluster.k8s.yaml, 0001-headroom.k8s.yaml to {tmp_path}/\n"
    assert str(tmp_path) not in printed.out


def test_an_example_run_without_cdk8s_outdir_names_its_own_dist_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    module = example("eks_auto_mode")
    monkeypatch.delenv("CDK8S_OUTDIR", raising=False)
    # The default folder sits beside the example; point the module's file at tmp_path so
    # the run writes there instead of into the repository.
    monkeypatch.setattr(module, "__file__", str(tmp_path / "eks_auto_mode.py"))
    module.main()
    default = tmp_path / "eks_auto_mode" / "dist"
    assert sorted(p.name for p in default.iterdir()) == [
        "0000-cluster.k8s.yaml",
        "0001-headroom.k8s.yaml",
    ]
    assert capsys.readouterr().err.endswith(f" to {default}/\n")


def test_the_spot_budgets_example_keeps_spot_flexible_and_rolls_slowly(tmp_path: Path) -> None:
    objects = synthesize(example("karpenter_spot_budgets"), tmp_path)
    spec = find(objects, "NodePool", "spot-burst")["spec"]
    families = next(
        r
        for r in spec["template"]["spec"]["requirements"]
        if r["key"] == "karpenter.k8s.aws/instance-family"
    )
    assert families["minValues"] == 5 <= len(families["values"])
    assert {"nodes": "1", "reasons": ["Drifted"]} in spec["disruption"]["budgets"]
    assert spec["template"]["spec"]["terminationGracePeriod"] == "2h"
    assert "headroom.cdk8s.io/node-room" in spec["template"]["metadata"]["annotations"]
    reserver = pod_spec(find(objects, "DaemonSet", "headroom-reserver-spot-burst"))
    assert "initContainers" not in reserver
    assert find(objects, "DaemonSet", "headroom-reserver-spot-burst-prepull")


def test_the_library_pages_first_pool_is_the_first_pool_example() -> None:
    # docs/library.md shows the code and runs the example; both must build one app.
    page = (Path(__file__).resolve().parents[2] / "docs" / "library.md").read_text()
    section = page[page.index("## A first pool, end to end") :]
    block = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert block is not None
    shown: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)
        exec(compile(block.group(1), "docs/library.md", "exec"), shown)
        app = cdk8s.App()
        example("first_pool").build(app)
    assert [c.to_json() for c in shown["app"].charts] == [c.to_json() for c in app.charts]


def test_the_first_pool_puts_its_namespace_and_pool_before_the_workloads(tmp_path: Path) -> None:
    app = cdk8s.App(outdir=str(tmp_path))
    # The page says a buffer on a shared pool warns; it does.
    with pytest.warns(HeadroomWarning, match="any pod can take the buffer's room"):
        example("first_pool").build(app)
    cluster, workloads = (chart.to_json() for chart in app.charts)
    assert {o["kind"] for o in cluster} == {
        "Namespace",
        "PriorityClass",
        "EC2NodeClass",
        "NodePool",
    }
    assert (
        find(cluster, "Namespace", "shop")["metadata"]["labels"][
            "pod-security.kubernetes.io/enforce"
        ]
        == "restricted"
    )
    assert sorted(o["metadata"]["name"] for o in find_all(workloads, "Deployment")) == [
        "checkout",
        "search",
    ]
    assert find(workloads, "CapacityBuffer", "checkout-buffer")["spec"]["replicas"] == 2
    assert {o["metadata"]["namespace"] for o in workloads} == {"shop"}
