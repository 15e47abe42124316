"""Karpenter beside a live cluster: its ``kwok`` command (Karpenter with the KWOK cloud
provider, built from the pinned module by ``e2e/build.py``) run outside the cluster
against its API server, as DESIGN.md's phase 4 describes.

Environment variables stand in for Karpenter's chart (``pkg/operator/options``):
``SYSTEM_NAMESPACE``, ``DISABLE_LEADER_ELECTION``, ``METRICS_PORT``,
``HEALTH_PROBE_PORT`` (free loopback ports) and ``FEATURE_GATES`` with
``CapacityBuffer=true``, which is off by default. Its CRDs and the ``KWOKNodeClass``
CRD are applied from the Go module cache, where the build put the module; nothing of
Karpenter is copied into this repository.

Karpenter puts finalizers on what it launches (NodeClaims and their Nodes) and on its
node class, and only a running Karpenter removes them. One Karpenter serves the tests
of a module: :meth:`Karpenter.release_nodes` between them deletes the NodePools and
waits until Karpenter has terminated every NodeClaim, and the cluster's reset leaves
Karpenter's CRDs (``LiveCluster.kept_crds``): deleting a CRD moments after creating it
can leave it Terminating for minutes (``could not list instances: storage is
(re)initializing``, seen on 1.34). :meth:`Karpenter.stop` releases the node class too,
ends the process, then removes the CRDs.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import yaml

from e2e import build
from e2e.cluster import ClusterError, LiveCluster, Manifest
from e2e.monitoring import free_port

T = TypeVar("T")
SYSTEM_NAMESPACE = "kube-system"
FEATURE_GATES = (
    "NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,"
    "NodeOverlay=false,StaticCapacity=false,CapacityBuffer=true"
)
"""Karpenter v1.14.3's default gates (``pkg/operator/options/options.go``) with
``CapacityBuffer`` on."""
KWOK_NODE_CLASS = "default"
"""The name of the ``KWOKNodeClass`` applied with the CRDs (``NodeClassRef.kwok()``)."""
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class KarpenterError(ClusterError):
    """Karpenter did not start or stop, or exited; the message holds its last log lines."""


class Karpenter:
    """One Karpenter process on one cluster: :meth:`start`, then :meth:`stop` (always)."""

    def __init__(self, cluster: LiveCluster, workdir: Path, log: Path) -> None:
        self.cluster = cluster
        self.workdir = workdir
        self.log = log
        self.ports: dict[str, int] = {}
        self.crds: list[str] = []
        self._process: subprocess.Popen[bytes] | None = None

    @classmethod
    def start(cls, cluster: LiveCluster, binary: Path, *, log: Path) -> Karpenter:
        """Applies Karpenter's CRDs and a ``KWOKNodeClass`` ``default``, starts Karpenter,
        and waits until its health probe answers and the node class is Ready."""
        karpenter = cls(cluster, Path(tempfile.mkdtemp(prefix="headroom-karpenter-")), log)
        try:
            karpenter._start(binary)
        except BaseException:
            karpenter.stop()
            raise
        return karpenter

    def _start(self, binary: Path) -> None:
        crds = [doc for path in build.karpenter_crds() for doc in _documents(path)]
        self.cluster.apply(crds)
        self.crds = [crd["metadata"]["name"] for crd in crds]
        self.cluster.kept_crds.update(self.crds)
        for crd in crds:
            self.cluster.kubectl(
                "wait", "--for=condition=Established", f"crd/{crd['metadata']['name']}"
            )
        self.cluster.apply([kwok_node_class()])
        self.ports = {"metrics": free_port(), "health": free_port()}
        env = {
            "KUBECONFIG": str(self.cluster.kubeconfig),
            "SYSTEM_NAMESPACE": SYSTEM_NAMESPACE,
            "DISABLE_LEADER_ELECTION": "true",
            "METRICS_PORT": str(self.ports["metrics"]),
            "HEALTH_PROBE_PORT": str(self.ports["health"]),
            "FEATURE_GATES": FEATURE_GATES,
            "HOME": str(self.workdir),
            "PATH": "/usr/bin:/bin",
        }
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self._process = subprocess.Popen(
                [str(binary)],
                cwd=self.workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.wait_for(self._healthy, what="Karpenter's health probe")
        self.wait_for(
            lambda: _ready(self.cluster.get_json("kwoknodeclasses", KWOK_NODE_CLASS)["items"][0]),
            what=f"KWOKNodeClass {KWOK_NODE_CLASS} Ready",
        )

    def _healthy(self) -> bool:
        url = f"http://127.0.0.1:{self.ports['health']}/readyz"
        try:
            with _NO_PROXY.open(url, timeout=2) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def check_running(self) -> None:
        if self._process is not None and self._process.poll() is not None:
            raise KarpenterError(f"Karpenter exited {self._process.returncode}:\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def wait_for(
        self, condition: Callable[[], T], *, timeout: float = 120, what: str = "a condition"
    ) -> T:
        """Polls ``condition`` as :meth:`LiveCluster.wait_for` does; Karpenter exiting
        ends the wait at once, with its last log lines."""
        deadline = time.monotonic() + timeout
        delay = 0.05
        while True:
            self.check_running()
            result = condition()
            if result:
                return result
            if time.monotonic() > deadline:
                raise KarpenterError(f"timed out after {timeout:.0f} s waiting for {what}")
            time.sleep(delay)
            delay = min(delay * 2, 1.0)

    def release_nodes(self, *, timeout: float = 120) -> None:
        """Deletes every NodePool and NodeClaim and waits until Karpenter has terminated
        them and their nodes (it removes its finalizers as it goes): between tests that
        share this Karpenter, and before it stops."""
        if self._process is None or self._process.poll() is not None:
            return
        self.cluster.kubectl("delete", "nodepools,nodeclaims", "--all", "--wait=false")
        self.wait_for(
            lambda: (
                not self.cluster.get_json("nodeclaims")["items"]
                and not self.cluster.get_json("nodepools")["items"]
            ),
            timeout=timeout,
            what="Karpenter to terminate every NodeClaim",
        )

    def _release_node_class(self, *, timeout: float = 120) -> None:
        if self._process is None or self._process.poll() is not None:
            return
        self.cluster.kubectl("delete", "kwoknodeclasses", "--all", "--wait=false")
        self.wait_for(
            lambda: not self.cluster.get_json("kwoknodeclasses")["items"],
            timeout=timeout,
            what="Karpenter to release every KWOKNodeClass",
        )

    def _drop_finalizers(self) -> None:
        """After Karpenter is gone: its finalizers on whatever it did not release (it
        exited early) would block the cluster's reset for ever."""
        for kind in ("nodeclaims", "kwoknodeclasses", "nodepools", "nodes"):
            found = self.cluster.kubectl("get", kind, "-o", "name", check=False)
            for name in found.stdout.split():
                self.cluster.kubectl(
                    "patch",
                    name,
                    "--type=merge",
                    "-p",
                    '{"metadata":{"finalizers":null}}',
                    check=False,
                )

    def stop(self) -> None:
        """Releases Karpenter's nodes and node class, ends the process (SIGTERM, then
        SIGKILL after 30 s), removes its CRDs (the cluster's reset leaves them while it
        runs) and its folder. The log stays where the caller put it."""
        try:
            with contextlib.suppress(ClusterError):
                self.release_nodes()
                self._release_node_class()
        finally:
            try:
                if self._process is not None:
                    with contextlib.suppress(ProcessLookupError):
                        self._process.send_signal(signal.SIGTERM)
                    try:
                        self._process.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        self._process.kill()
                        self._process.wait(timeout=30)
                self._drop_finalizers()
                self.cluster.kept_crds.difference_update(self.crds)
                if self.crds:
                    self.cluster.kubectl("delete", "crd", "--ignore-not-found", *self.crds)
            finally:
                shutil.rmtree(self.workdir, ignore_errors=True)


def kwok_node_class(name: str = KWOK_NODE_CLASS) -> Manifest:
    """A ``karpenter.kwok.sh/v1alpha1`` KWOKNodeClass with the CRD's defaults."""
    return {
        "apiVersion": "karpenter.kwok.sh/v1alpha1",
        "kind": "KWOKNodeClass",
        "metadata": {"name": name},
    }


def _ready(manifest: Manifest) -> bool:
    conditions = manifest.get("status", {}).get("conditions", [])
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def _documents(path: Path) -> list[Manifest]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
