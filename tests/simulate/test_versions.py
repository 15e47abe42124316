"""Scheduler rules that follow the Kubernetes release (simulate/versions.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cdk8s_headroom.cli import main
from cdk8s_headroom.simulate.versions import (
    EMPTY_PDB_SELECTOR_MATCHES_ALL,
    NEWEST_VALIDATED,
    OLDEST_MODELLED,
    RULES,
    KubernetesVersion,
    release_warnings,
    rules_release,
)
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

# Two nodes, each full with one low-priority pod. On node-a the victim is unlabeled and
# in namespace batch, where a PDB with `selector: {}` allows no disruption; it started
# later, so without the PDB node-a wins the last tie-break (latest start).
SCENARIO = {
    "nodes": [
        {"name": "node-a", "allocatable": {"cpu": "1", "memory": "1Gi"}},
        {"name": "node-b", "allocatable": {"cpu": "1", "memory": "1Gi"}},
    ],
    "pods": [
        {"name": "unlabeled", "namespace": "batch", "node": "node-a", "priority": 0,
         "requests": {"cpu": "1"}, "start_time": "2026-01-01T00:00:02Z"},
        {"name": "labeled", "namespace": "web", "node": "node-b", "priority": 0,
         "labels": {"app": "web"}, "requests": {"cpu": "1"},
         "start_time": "2026-01-01T00:00:01Z"},
    ],
    "pdbs": [{"name": "all", "namespace": "batch", "selector": {}, "disruptions_allowed": 0}],
    "preemptor": {"name": "p", "priority": 10, "requests": {"cpu": "500m"}},
}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("1.38", KubernetesVersion(1, 38)),
        ("v1.31.4", KubernetesVersion(1, 31)),
        ("v1.13.11-gke.14", KubernetesVersion(1, 13)),
        (" 1.7 ", KubernetesVersion(1, 7)),
    ],
)
def test_versions_parse_from_flags_and_kubelets(text: str, version: KubernetesVersion) -> None:
    assert KubernetesVersion.parse(text, field="--kubernetes-version") == version


@pytest.mark.parametrize("text", ["", "one.two", "1", "1.x", 1.38])
def test_a_bad_version_names_the_field(text: object) -> None:
    with pytest.raises(HeadroomConfigError, match=r"^--kubernetes-version: invalid value"):
        KubernetesVersion.parse(text, field="--kubernetes-version")


def test_the_empty_selector_rule_starts_with_1_38() -> None:
    assert KubernetesVersion(1, 38) == EMPTY_PDB_SELECTOR_MATCHES_ALL
    assert not KubernetesVersion(1, 37).pdb_empty_selector_matches_all
    assert KubernetesVersion(1, 38).pdb_empty_selector_matches_all
    assert KubernetesVersion(2, 0).pdb_empty_selector_matches_all


def test_the_default_is_the_newest_release_the_output_is_validated_against() -> None:
    kubernetes_validate = pytest.importorskip("kubernetes_validate.utils")
    newest = ".".join(kubernetes_validate.latest_version().split(".")[:2])

    assert str(NEWEST_VALIDATED) == newest


@pytest.mark.parametrize(
    ("version", "node", "violations"),
    [
        ("1.37", "node-a", {"node-a": 0, "node-b": 0}),
        ("1.38", "node-b", {"node-b": 0, "node-a": 1}),
    ],
)
def test_an_empty_pdb_selector_covers_unlabeled_pods_from_1_38(
    version: str,
    node: str,
    violations: dict[str, int],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(SCENARIO))

    code = main(
        ["simulate", "--scenario", str(scenario), "--json", "--kubernetes-version", version]
    )

    decision = json.loads(capsys.readouterr().out)
    assert code == 0
    assert decision["node"] == node
    assert decision["per_node_pdb_violations"] == violations


def test_simulate_defaults_to_the_newest_validated_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(SCENARIO))

    assert main(["simulate", "--scenario", str(scenario), "--json"]) == 0

    assert json.loads(capsys.readouterr().out)["node"] == "node-a"


def _kubectl_snapshot() -> dict[str, object]:
    """SCENARIO as `kubectl get nodes,pods,poddisruptionbudgets -A -o json` prints it,
    with nodes of kubelet 1.37 and room for a burst pod once their one pod is evicted."""

    def node(name: str) -> dict[str, object]:
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": {},
            "status": {
                "allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"},
                "nodeInfo": {"kubeletVersion": "v1.37.2"},
            },
        }

    def pod(name: str, namespace: str, node: str, start: str, **labels: str) -> object:
        metadata: dict[str, object] = {"name": name, "namespace": namespace, "uid": name}
        if labels:
            metadata["labels"] = labels
        request = {"requests": {"cpu": "2", "memory": "1Gi"}}
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": metadata,
            "spec": {
                "nodeName": node,
                "priority": 0,
                "containers": [{"name": "c", "resources": request}],
            },
            "status": {"phase": "Running", "startTime": start},
        }

    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "all", "namespace": "batch"},
        "spec": {"selector": {}},
        "status": {"disruptionsAllowed": 0},
    }
    items = [node("node-a"), node("node-b"), pdb]
    items += [pod("unlabeled", "batch", "node-a", "2026-01-01T00:00:02Z")]
    items += [pod("labeled", "web", "node-b", "2026-01-01T00:00:01Z", app="web")]
    return {"apiVersion": "v1", "kind": "List", "items": items}


@pytest.mark.parametrize(
    ("flags", "node", "victim"),
    [
        ([], "node-a", "unlabeled"),  # the kubelets' 1.37
        (["--kubernetes-version", "1.37"], "node-a", "unlabeled"),
        (["--kubernetes-version", "1.38"], "node-b", "labeled"),
    ],
)
def test_plan_applies_the_empty_pdb_selector_rule_of_the_snapshots_release(
    flags: list[str], node: str, victim: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(_kubectl_snapshot()))
    dist = Path(__file__).resolve().parents[2] / "dist"

    argv = ["plan", "--manifests", str(dist), "--snapshot", str(snapshot), "--json"]
    main([*argv, "--burst", "demo-burst=1", *flags])

    (arrival,) = json.loads(capsys.readouterr().out)["bursts"]["arrivals"]
    assert (arrival["node"], [e["pod"] for e in arrival["evicted"]]) == (node, [victim])


def test_the_rules_table_lists_each_rule_once_oldest_first_with_its_upstream_source() -> None:
    releases = [rule.release for rule in RULES]

    assert releases == sorted(releases)
    assert len({rule.name for rule in RULES}) == len(RULES)
    assert KubernetesVersion(1, 14) == OLDEST_MODELLED
    assert {str(rule.release) for rule in RULES} >= {"1.33", "1.34", "1.38"}
    assert all(rule.source for rule in RULES)


def test_docs_print_the_same_table_of_rules_by_release() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "plan-status.md").read_text()

    for rule in RULES:
        assert f"| {rule.release} | {rule.name} |" in docs


@pytest.mark.parametrize(
    ("version", "rules", "warned"),
    [
        ("1.7", "1.14", True),
        ("1.10", "1.14", True),
        ("1.14", "1.14", False),
        ("1.38", "1.38", False),
    ],
)
def test_a_release_older_than_the_oldest_modelled_is_judged_by_its_rules_and_warned(
    version: str, rules: str, warned: bool
) -> None:
    parsed = KubernetesVersion.parse(version, field="--kubernetes-version")

    assert str(rules_release(parsed)) == rules
    warnings = release_warnings(parsed)
    assert bool(warnings) is warned
    if warned:
        assert warnings == [
            f"Kubernetes {version} is older than the oldest release modelled (1.14): it is "
            "judged by the rules of 1.14, which may differ from its scheduler's"
        ]


def test_plan_prints_the_rules_release_in_its_header_and_warns_on_an_old_listing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = Path(__file__).resolve().parents[2]
    code = main(
        [
            "plan",
            "--manifests",
            str(root / "dist"),
            "--snapshot",
            str(root / "docs" / "examples" / "snapshot-after.json"),
            "--kubernetes-version",
            "1.10",
        ]
    )

    out = capsys.readouterr().out
    assert code in (0, 1)
    assert out.startswith("Kubernetes 1.10 (--kubernetes-version), rules of 1.14\n")
    assert "Kubernetes 1.10 is older than the oldest release modelled (1.14)" in out
