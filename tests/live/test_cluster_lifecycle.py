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
HOLD = "example.com/hold"


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
    # keeps) after its deletion, and a ConfigMap of a test's namespace, which holds the
    # namespace in turn. The reset must say so, not only that it timed out
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "held", "namespace": "default", "finalizers": [HOLD]},
        "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}]},
    }
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "held", "namespace": "kept", "finalizers": [HOLD]},
    }
    cluster.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kept"}}])
    cluster.apply([pod, config])
    release = '{"metadata":{"finalizers":null}}'

    def _namespace_conditions() -> list[str]:
        (item,) = cluster.get_json("namespace", "kept")["items"]
        return [c["type"] for c in item["status"].get("conditions", []) if c["status"] == "True"]

    try:
        cluster.kubectl("delete", "pod", "held", "--wait=false")
        cluster.kubectl("delete", "namespace", "kept", "--wait=false")
        # until the namespace controller has tried to empty "kept" (its fixed 5 s first)
        cluster.wait_for(
            lambda: "NamespaceFinalizersRemaining" in _namespace_conditions(),
            what="the namespace controller to find the ConfigMap held",
        )

        with pytest.raises(ClusterError) as raised:
            cluster.reset(timeout=3)

        # the pod named with the finalizer that holds it, Pending or Failed: podgc may
        # mark it Failed at any moment (pkg/controller/podgc/gc_controller.go
        # gcUnscheduledTerminating)
        left = str(raised.value).split("; left: ", 1)[1].split("; ")
        assert {
            f"pod default/held on no node ({phase}, deleted and held by {HOLD})"
            for phase in ("Pending", "Failed")
        } & set(left)
        # the namespace with the condition that says what holds it (pkg/controller/
        # namespace/deletion/status_condition_utils.go ProcessContentTotals)
        (namespace,) = [item for item in left if item.startswith("namespace kept (")]
        assert (
            "SomeFinalizersRemain: Some content in the namespace has finalizers remaining: "
            f"{HOLD} in 1 resource instances"
        ) in namespace
    finally:
        # released even when a check fails, so no later test's reset waits on them
        for kind, namespace in (("pod", "default"), ("configmap", "kept")):
            patch = ("patch", kind, "held", "-n", namespace, "--type=merge", "-p", release)
            cluster.kubectl(*patch, check=False)  # one that is gone needs no release
    cluster.reset()  # and once the finalizers go, the reset finishes
