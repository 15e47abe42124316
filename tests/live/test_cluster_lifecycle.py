"""The live tier's own cluster: on loopback, its components reporting the pinned
release, and its logs kept on request. That it leaves no process or folder behind is
checked when the session's cluster stops (tests/live/conftest.py)."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest
import yaml

from e2e.cluster import ClusterError, LiveCluster, listening_ports, processes_under

COMPONENTS = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler")


def test_the_cluster_serves_its_release_on_loopback_and_keeps_its_logs(
    cluster: LiveCluster, tmp_path: Path
) -> None:
    config = yaml.safe_load(cluster.kubeconfig.read_text())
    url = urllib.parse.urlparse(config["clusters"][0]["cluster"]["server"])
    assert url.hostname == "127.0.0.1"
    pids = processes_under(cluster.workdir)
    assert url.port in listening_ports(pids)  # its own API server answers there
    version = yaml.safe_load(cluster.kubectl("version", "-o", "yaml").stdout)
    assert version["serverVersion"]["gitVersion"] == cluster.binaries.version

    kept = cluster.keep_logs(tmp_path / "logs")

    for component in COMPONENTS:
        assert (kept / "logs" / f"{component}.log").stat().st_size > 0, component


def test_a_reset_that_cannot_finish_names_what_stays_and_why(cluster: LiveCluster) -> None:
    # a finalizer nobody removes holds a pod of the default namespace (which a reset
    # keeps) after its deletion: the reset must say so, not only that it timed out
    held = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "held", "namespace": "default", "finalizers": ["example.com/hold"]},
        "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}]},
    }
    cluster.apply([held])
    cluster.kubectl("delete", "pod", "held", "--wait=false")

    with pytest.raises(ClusterError) as raised:
        cluster.reset(timeout=3)

    assert "pod default/held on no node (Pending)" in str(raised.value)
    release = '{"metadata":{"finalizers":null}}'
    cluster.kubectl("patch", "pod", "held", "--type=merge", "-p", release)
    cluster.reset()  # and once the finalizer goes, the reset finishes
