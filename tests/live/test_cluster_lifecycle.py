"""The live tier's own cluster: on loopback, its components reporting the pinned
release, its logs kept on request, and nothing left behind when it stops."""

from __future__ import annotations

import socket
import urllib.parse
from pathlib import Path

import yaml

from e2e import build
from e2e.cluster import LiveCluster, listening_ports, processes_under

COMPONENTS = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler")


def _server(cluster: LiveCluster) -> tuple[str, int]:
    config = yaml.safe_load(cluster.kubeconfig.read_text())
    url = urllib.parse.urlparse(config["clusters"][0]["cluster"]["server"])
    assert url.hostname is not None and url.port is not None
    return url.hostname, url.port


def _listening(host: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex((host, port)) == 0


def test_a_cluster_serves_its_release_on_loopback_and_leaves_nothing_when_stopped(
    live_binaries: build.ReleaseBinaries, tmp_path: Path
) -> None:
    cluster = LiveCluster.start(live_binaries, name="lifecycle")
    try:
        host, port = _server(cluster)
        assert host == "127.0.0.1"
        version = cluster.kubectl("version", "-o", "yaml").stdout
        assert yaml.safe_load(version)["serverVersion"]["gitVersion"] == live_binaries.version
        workdir = cluster.workdir
        pids = processes_under(workdir)
        assert pids  # the components run from its folder
        ports = listening_ports(pids)
        assert port in ports
        kept = cluster.keep_logs(tmp_path / "logs")
        for component in COMPONENTS:
            assert (kept / "logs" / f"{component}.log").stat().st_size > 0, component
    finally:
        cluster.stop()

    assert not workdir.exists()
    assert processes_under(workdir) == []
    # its API server's port (the kernel's free pick, e2e/cluster.py) is served no more;
    # its other ports were ephemeral ones that another process may take at once
    assert not _listening(host, port)
