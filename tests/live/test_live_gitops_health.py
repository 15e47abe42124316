"""GitOps health judged by the tools' own code on live objects, against the project's
ported rules (tests/gitops/upstream_health.py).

``e2e/modules/health`` builds a helper from Argo CD's ``gitops-engine`` (``pkg/health``
``GetResourceHealth``, v3.6.2) and kstatus (sigs.k8s.io/cli-utils ``pkg/kstatus/status``
``Compute``, v0.37.2). It judges the live DaemonSets and Deployments of ``dist/`` while
reservers wait, after bursts arrive, and when a burst Deployment misses its progress
deadline; each verdict must equal the ported rule's, status and message.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from e2e import build
from e2e.cluster import LiveCluster, Manifest, NodeShape
from tests.conftest import ROOT
from tests.gitops.upstream_health import (
    argo_daemonset_health,
    argo_deployment_health,
    kstatus,
)

DIST = ROOT / "dist"
NAMESPACE = "node-headroom"


@pytest.fixture(scope="session")
def health_helper(live_binaries: build.ReleaseBinaries) -> Path:
    try:
        return build.health_binary(log=False)
    except build.BuildError as error:
        pytest.fail(f"the GitOps health helper did not build: {error}")


def _ported(obj: Manifest) -> dict[str, str]:
    argo = argo_daemonset_health(obj) if obj["kind"] == "DaemonSet" else argo_deployment_health(obj)
    flux = kstatus(obj)
    return {
        "argocd": argo[0],
        "argocdMessage": argo[1],
        "kstatus": flux[0],
        "kstatusMessage": flux[1],
    }


def _assert_same_verdicts(
    helper: Path, cluster: LiveCluster
) -> dict[tuple[str, str], dict[str, str]]:
    """The tools' verdicts on the live objects equal the ported rules' on the same
    objects (read once, so both judge the same counts)."""
    listing = cluster.get_json("daemonsets,deployments", "-n", NAMESPACE)["items"]
    done = subprocess.run(
        [str(helper)],
        input=json.dumps({"apiVersion": "v1", "kind": "List", "items": listing}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    tools = {(v["kind"], v["name"]): v for v in json.loads(done.stdout)}
    assert len(tools) == len(listing) >= 2
    for obj in listing:
        key = (obj["kind"], obj["metadata"]["name"])
        expected = _ported(obj)
        actual = {field: tools[key][field] for field in expected}
        assert actual == expected, key
    return tools


def _reserver(cluster: LiveCluster) -> Manifest:
    (ds,) = cluster.get_json("daemonset", "headroom-reserver", "-n", NAMESPACE)["items"]
    return ds


def _deadline_exceeded(deployment: Manifest) -> bool:
    """Whether the controller has seen the Deployment's latest spec and found its
    progress deadline exceeded. Seen first: a deadline the previous rollout missed is
    still in the conditions until then, and Argo CD reads a Deployment whose
    observedGeneration lags as Progressing (gitops-engine pkg/health/health_deployment.go
    getAppsv1DeploymentHealth), which a run on 1.34 met."""
    status = deployment.get("status", {})
    seen = status.get("observedGeneration", 0) >= deployment["metadata"]["generation"]
    return seen and any(
        c.get("reason") == "ProgressDeadlineExceeded" for c in status.get("conditions", [])
    )


def test_the_tools_read_a_headroom_as_the_ported_rules_do_while_reservers_wait_after_bursts_and_on_a_missed_deadline(  # noqa: E501
    cluster: LiveCluster, health_helper: Path
) -> None:
    cluster.add_nodes([NodeShape("room-0", cpu="8")])
    cluster.add_nodes(NodeShape(f"full-{i}", cpu="100m", memory="64Mi") for i in range(2))
    cluster.kubectl("apply", "-f", str(DIST))
    cluster.wait_for(
        lambda: (
            _reserver(cluster).get("status", {}).get("numberAvailable") == 1
            and _reserver(cluster)["status"].get("desiredNumberScheduled") == 3
        ),
        what="one reserver available of three",
    )

    # reservers waiting on full nodes: what docs/gitops.md says each tool reads
    waiting = _assert_same_verdicts(health_helper, cluster)
    assert waiting[("DaemonSet", "headroom-reserver")]["argocd"] == "Healthy"
    assert waiting[("DaemonSet", "headroom-reserver")]["kstatus"] == "InProgress"

    # a burst arrives and takes a slice
    cluster.kubectl("scale", "deployment", "demo-burst", "-n", NAMESPACE, "--replicas=2")
    cluster.wait_for(
        lambda: (
            cluster.get_json("deployment", "demo-burst", "-n", NAMESPACE)["items"][0]
            .get("status", {})
            .get("availableReplicas")
            == 2
        ),
        what="two burst pods available",
    )
    _assert_same_verdicts(health_helper, cluster)

    # a burst Deployment that cannot roll out misses its progress deadline
    cluster.kubectl(
        "patch",
        "deployment",
        "demo-burst",
        "-n",
        NAMESPACE,
        "--type=merge",
        "-p",
        json.dumps(
            {
                "spec": {
                    "progressDeadlineSeconds": 1,
                    "template": {"metadata": {"annotations": {"headroom.test/rollout": "2"}}},
                }
            }
        ),
    )
    cluster.kubectl(
        "set",
        "resources",
        "deployment/demo-burst",
        "-n",
        NAMESPACE,
        "--requests=cpu=64",
        "--limits=cpu=64",
    )
    cluster.wait_for(
        lambda: _deadline_exceeded(
            cluster.get_json("deployment", "demo-burst", "-n", NAMESPACE)["items"][0]
        ),
        timeout=60,
        what="the burst Deployment's progress deadline exceeded",
    )
    stuck = _assert_same_verdicts(health_helper, cluster)
    assert stuck[("Deployment", "demo-burst")]["argocd"] == "Degraded"
    assert stuck[("Deployment", "demo-burst")]["kstatus"] == "Failed"
