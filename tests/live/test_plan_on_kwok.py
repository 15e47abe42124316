"""`plan` on a listing of a live KWOK cluster, before `kubectl apply -f dist/`, against
where the real DaemonSet controller and scheduler then put the reservers.

KWOK nodes report ``kubeletVersion: kwok-0.7.0``, which names no Kubernetes release
(nor do virtual-kubelet's and some managed offerings'). Such a node once made the whole
listing unreadable (exit 2); it is read, and the release comes from
``--kubernetes-version``, the other nodes or the default, with a warning.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cdk8s_headroom.cli import main
from cdk8s_headroom.vocabulary.labels import COMPONENT_LABEL, RESERVER_COMPONENT
from e2e.cluster import LiveCluster, NodeShape
from tests.conftest import ROOT

DIST = ROOT / "dist"


def _listing(cluster: LiveCluster, path: Path) -> Path:
    # the kubectl command docs/plan-status.md gives
    listing = cluster.kubectl(
        "get", "nodes,pods,priorityclasses,poddisruptionbudgets", "-A", "-o", "json"
    )
    path.write_text(listing.stdout)
    return path


def test_plan_reads_kwok_nodes_and_predicts_where_the_controller_places_reservers(
    cluster: LiveCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.add_nodes([NodeShape("room-0"), NodeShape("room-1")])
    cluster.add_nodes(NodeShape(f"full-{i}", cpu="100m", memory="64Mi") for i in range(2))
    listing = _listing(cluster, tmp_path / "before.json")

    code = main(["plan", "--manifests", str(DIST), "--snapshot", str(listing), "--json"])
    report = json.loads(capsys.readouterr().out)

    assert code in (0, 1)  # 1: reservers pending beyond --max-pending 0, as predicted
    assert any("kwok-0.7.0" in w and "not a Kubernetes release" in w for w in report["warnings"])
    (reserver,) = report["reservers"]
    predicted = {
        "held": sorted(e["node"] for e in reserver["established"]),
        "waiting": sorted(p["node"] for p in reserver["pending"]),
    }
    assert predicted == {"held": ["room-0", "room-1"], "waiting": ["full-0", "full-1"]}

    cluster.kubectl("apply", "-f", str(DIST))

    def placed() -> dict[str, list[str]] | None:
        pods = [
            p
            for p in cluster.get_json("pods", "-n", "node-headroom")["items"]
            if p["metadata"]["labels"].get(COMPONENT_LABEL) == RESERVER_COMPONENT
        ]
        running = sorted(p["spec"]["nodeName"] for p in pods if p["status"]["phase"] == "Running")
        unschedulable = [
            p
            for p in pods
            if any(c.get("reason") == "Unschedulable" for c in p["status"].get("conditions", []))
        ]
        if len(running) + len(unschedulable) < 4:
            return None
        waiting = sorted(
            term["matchFields"][0]["values"][0]
            for p in unschedulable
            for term in p["spec"]["affinity"]["nodeAffinity"][
                "requiredDuringSchedulingIgnoredDuringExecution"
            ]["nodeSelectorTerms"]
        )
        return {"held": running, "waiting": waiting}

    assert cluster.wait_for(placed, what="every reserver Running or Unschedulable") == predicted


def test_plan_takes_the_given_release_for_kwok_nodes(
    cluster: LiveCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.add_nodes([NodeShape("room-0")])
    listing = _listing(cluster, tmp_path / "listing.json")
    release = cluster.binaries.release

    code = main(
        [
            "plan",
            "--manifests",
            str(DIST),
            "--snapshot",
            str(listing),
            "--kubernetes-version",
            release,
        ]
    )
    out = capsys.readouterr().out

    assert code == 0
    assert out.startswith(f"Kubernetes {release} (--kubernetes-version), rules of {release}\n")
    assert "node 'room-0' reports kubeletVersion 'kwok-0.7.0'" in out
