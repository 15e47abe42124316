"""`plan` and `status` read straight from a kubeconfig context, on a live cluster: the same
verdicts as from a listing file, and kubectl's own words when the read cannot be made
(an unknown context, a server that does not answer, a user who may not list pods).

The read runs the real kubectl (``cluster/live_listing.py``); the RBAC it needs is what
``reader_rules`` declares and docs/plan-status.md shows, checked here against the real
API server's authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go, ``RBACAuthorizer``).
"""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml

from cdk8s_headroom.cli import main
from cdk8s_headroom.cluster.live_listing import ClusterSource, reader_rules
from cdk8s_headroom.vocabulary.labels import COMPONENT_LABEL, RESERVER_COMPONENT
from e2e.cluster import RESET_LABEL, LiveCluster, NodeShape
from tests.conftest import ROOT, Manifest
from tests.live.crds import install_crds

DIST = ROOT / "dist"


@pytest.fixture
def kubectl_on_path(cluster: LiveCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    kubectl = cluster.binaries.binary("kubectl")
    monkeypatch.setenv("PATH", f"{kubectl.parent}{os.pathsep}{os.environ['PATH']}")


def _context(cluster: LiveCluster) -> str:
    return cluster.kubectl("config", "current-context").stdout.strip()


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _headroom_on_nodes(cluster: LiveCluster) -> None:
    cluster.add_nodes([NodeShape("read-0"), NodeShape("read-1")])
    cluster.add_nodes([NodeShape("read-full", cpu="100m", memory="64Mi")])
    cluster.kubectl("apply", "-f", str(DIST))

    def settled() -> bool:
        pods = [
            p
            for p in cluster.get_json("pods", "-n", "node-headroom")["items"]
            if p["metadata"]["labels"].get(COMPONENT_LABEL) == RESERVER_COMPONENT
        ]
        running = [p for p in pods if p["status"].get("phase") == "Running"]
        waiting = [
            p
            for p in pods
            if any(c.get("reason") == "Unschedulable" for c in p["status"].get("conditions", []))
        ]
        return len(running) == 2 and len(waiting) == 1

    cluster.wait_for(settled, what="two reservers Running and one Unschedulable")


@pytest.mark.usefixtures("kubectl_on_path")
def test_plan_and_status_from_the_context_equal_those_from_a_listing_file(
    cluster: LiveCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _headroom_on_nodes(cluster)
    listing = tmp_path / "listing.json"
    listing.write_text(
        cluster.kubectl(
            "get",
            "nodes,pods,priorityclasses,poddisruptionbudgets,daemonsets",
            "-A",
            "-o",
            "json",
        ).stdout
    )
    live = ["--kubeconfig", str(cluster.kubeconfig), "--context", _context(cluster)]

    for command in (["status"], ["plan", "--manifests", str(DIST)]):
        from_file = _run(capsys, *command, "--snapshot", str(listing), "--json")
        from_cluster = _run(capsys, *command, *live, "--json")

        assert from_cluster[0] == from_file[0]
        assert json.loads(from_cluster[1]) == json.loads(from_file[1])
        if command == ["status"]:
            (headroom,) = json.loads(from_cluster[1])["headrooms"]
            assert sorted(headroom["held"]) == ["read-0", "read-1"]
            # the controller's own counts, as kubectl get daemonset shows them
            namespace, name = headroom["name"].split("/")
            (daemonset,) = cluster.get_json("daemonset", name, "-n", namespace)["items"]
            counted = daemonset["status"]
            assert headroom["controller"] == {
                "desired": counted["desiredNumberScheduled"],
                "current": counted["currentNumberScheduled"],
                "ready": counted.get("numberReady", 0),
                "misscheduled": counted["numberMisscheduled"],
            }
            assert headroom["controller"]["desired"] == 3


@pytest.mark.usefixtures("kubectl_on_path")
def test_an_unknown_context_is_refused_in_one_line_naming_it(
    cluster: LiveCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(
        capsys, "status", "--kubeconfig", str(cluster.kubeconfig), "--context", "no-such"
    )

    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("cdk8s-headroom status: error: --context: invalid value 'no-such'; ")
    assert "a context of the kubeconfig; kubectl said: " in err


@pytest.mark.usefixtures("kubectl_on_path")
def test_a_server_that_does_not_answer_is_refused_with_kubectls_words(
    cluster: LiveCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as closed:  # a loopback port that nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    config = yaml.safe_load(cluster.kubeconfig.read_text())
    for entry in config["clusters"]:
        entry["cluster"]["server"] = f"https://127.0.0.1:{port}"
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump(config))

    code, out, err = _run(
        capsys, "status", "--kubeconfig", str(kubeconfig), "--request-timeout", "5s"
    )

    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "a context whose API server answers within --request-timeout 5s" in err
    assert f"127.0.0.1:{port}" in err and "refused" in err


def _reader_role(rules: list[Any]) -> dict[str, object]:
    label_key, label_value = RESET_LABEL.split("=")
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "headroom-reader", "labels": {label_key: label_value}},
        "rules": rules,
    }


def _reader_kubeconfig(cluster: LiveCluster, tmp_path: Path, rules: list[Any]) -> Path:
    """A kubeconfig for a service account bound to a ClusterRole of ``rules``."""
    name = "headroom-reader"
    label_key, label_value = RESET_LABEL.split("=")
    labels = {label_key: label_value}
    cluster.apply(
        [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
            {
                "apiVersion": "v1",
                "kind": "ServiceAccount",
                "metadata": {"name": name, "namespace": name},
            },
            _reader_role(rules),
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRoleBinding",
                "metadata": {"name": name, "labels": labels},
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": name,
                },
                "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": name}],
            },
        ]
    )
    token = cluster.kubectl("create", "token", name, "-n", name).stdout.strip()
    config = yaml.safe_load(cluster.kubeconfig.read_text())
    config["users"] = [{"name": name, "user": {"token": token}}]
    for context in config["contexts"]:
        context["context"]["user"] = name
    kubeconfig = tmp_path / f"{name}.kubeconfig"
    kubeconfig.write_text(yaml.safe_dump(config))
    return kubeconfig


@pytest.mark.usefixtures("kubectl_on_path")
def test_the_documented_rules_are_enough_and_a_user_without_pods_is_told_what_is_missing(
    cluster: LiveCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _headroom_on_nodes(cluster)
    rules = reader_rules()
    without_pods = [
        {**rule, "resources": [r for r in rule["resources"] if r != "pods"]} for rule in rules
    ]
    kubeconfig = _reader_kubeconfig(cluster, tmp_path, without_pods)

    code, out, err = _run(capsys, "status", "--kubeconfig", str(kubeconfig))

    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert (
        "may get and list nodes, pods, priorityclasses, poddisruptionbudgets, daemonsets and "
        "events" in err
    )
    assert 'cannot list resource \\"pods\\"' in err or 'cannot list resource "pods"' in err

    cluster.apply([_reader_role(list(rules))])

    def allowed() -> bool:
        return _run(capsys, "status", "--kubeconfig", str(kubeconfig), "--json")[0] != 2

    cluster.wait_for(allowed, what="the reader's new rules in force")
    code, out, _ = _run(capsys, "status", "--kubeconfig", str(kubeconfig), "--json")
    (headroom,) = json.loads(out)["headrooms"]
    assert sorted(headroom["held"]) == ["read-0", "read-1"]


@pytest.mark.usefixtures("kubectl_on_path")
def test_status_watch_until_settled_waits_for_the_reservers_after_apply(
    cluster: LiveCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.add_nodes([NodeShape("watch-0"), NodeShape("watch-1")])
    cluster.kubectl("apply", "-f", str(DIST))
    live = ["--kubeconfig", str(cluster.kubeconfig), "--manifests", str(DIST)]

    code, out, err = _run(
        capsys, "status", *live, "--watch", "--until-settled", "--interval", "1", "--timeout", "2m"
    )

    assert (code, err) == (0, "")
    held = json.loads(_run(capsys, "status", *live, "--json")[1])["headrooms"][0]["held"]
    assert sorted(held) == ["watch-0", "watch-1"]
    if "verdict failing -> ok" not in out:  # settled before the first read ended
        assert "held: 2;" in out


@pytest.mark.usefixtures("kubectl_on_path")
def test_status_from_the_context_reports_the_capacitybuffers_the_cluster_serves(
    cluster: LiveCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    buffer = {
        "apiVersion": "autoscaling.x-k8s.io/v1beta1",
        "kind": "CapacityBuffer",
        "metadata": {"name": "checkout-buffer", "namespace": "buffers"},
        "spec": {"replicas": 2, "podTemplateRef": {"name": "checkout"}},
    }
    install_crds(cluster, [buffer])
    cluster.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "buffers"}}])
    cluster.apply([buffer])
    _headroom_on_nodes(cluster)

    code, out, _ = _run(capsys, "status", "--kubeconfig", str(cluster.kubeconfig), "--json")

    assert code == 1  # read-full's slice does not fit: one node eroded, over --max-pending 0
    # no autoscaler runs here: the buffer is served, and nothing provisioned it yet
    assert json.loads(out)["buffers"] == [
        {"name": "buffers/checkout-buffer", "replicas": None, "conditions": []}
    ]


def test_a_listing_that_changes_while_it_is_read_is_read_whole_and_once(
    cluster: LiveCluster, tmp_path: Path
) -> None:
    # Pages of 5 at the resourceVersion of the first (the API server's continue token:
    # staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go, GetList), while pods are
    # created and deleted: each read sees every pod once, as the cluster was when the
    # read began, and the reader's refusal of an object read twice with other contents
    # never fires.
    cluster.add_nodes([NodeShape("churn-0")])
    cluster.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "churn"}}])

    def pod(index: int) -> Manifest:
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p{index}", "namespace": "churn"},
            "spec": {"nodeName": "churn-0", "containers": [{"name": "c", "image": "i"}]},
        }

    cluster.apply([pod(i) for i in range(40)])
    source = ClusterSource(
        kubeconfig=cluster.kubeconfig, kubectl=str(cluster.binaries.binary("kubectl")), chunk_size=5
    )
    stop = threading.Event()

    def churn() -> None:
        index = 40
        while not stop.is_set():
            cluster.kubectl("delete", "pod", "-n", "churn", f"p{index - 40}", "--wait=false")
            cluster.apply([pod(index)])
            index += 1

    changing = threading.Thread(target=churn)
    changing.start()
    try:
        counts = []
        for _ in range(5):
            snapshot = source.read()
            names = [p.name for p in [*snapshot.bound, *snapshot.waiting] if p.namespace == "churn"]
            assert len(names) == len(set(names))
            counts.append(len(names))
    finally:
        stop.set()
        changing.join()

    # one pod is deleted before the next is created: 39 to 40 pods, plus the ones a
    # deletion left terminating
    assert all(39 <= count <= 45 for count in counts), counts
