"""A real control plane on loopback: kube-apiserver, kube-controller-manager,
kube-scheduler, etcd and KWOK, started by kwokctl's binary runtime from the binaries that
``e2e/build.py`` built from pinned modules.

KWOK fakes the nodes and the kubelet's pod lifecycle; the API server (admission, Pod
Security, CRD schemas), the scheduler and the controllers are the real ones. Everything
the cluster writes lives in one temporary folder, removed by :meth:`LiveCluster.stop`
with every process the cluster started; the component logs are copied out first when
the caller asks (a failed test).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from e2e.build import ReleaseBinaries, cache_root, lock

T = TypeVar("T")
Manifest = dict[str, Any]

# kwokctl binds every component to 0.0.0.0 unless its configuration says otherwise; the
# live tier stays on loopback (kwok pkg/apis/config/v1alpha1 KwokctlConfigurationOptions).
_KWOKCTL_CONFIG = """\
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
options:
  bindAddress: 127.0.0.1
"""
KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node"
SYSTEM_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})
NAMESPACE_HOLDS = frozenset({"NamespaceContentRemaining", "NamespaceFinalizersRemaining"})
"""The conditions of a deleted namespace that say what keeps it, True while it does
(pkg/controller/namespace/deletion/status_condition_utils.go ProcessContentTotals)."""
CRD_HOLDS = frozenset({"Terminating"})
"""The condition of a deleted CRD that says what keeps it (apiextensions-apiserver's
pkg/controller/finalizer/crd_finalizer.go)."""
UNWAITED = ("--wait=false", "--ignore-not-found")
"""A reset's deletes: it waits on all at once, and what it listed a moment ago may be
gone by then (a namespace already being deleted)."""
OWNER_KINDS = "cronjobs,jobs,deployments,daemonsets,statefulsets,replicasets"
"""The workload kinds a test creates, whose controllers make pods: a reset deletes them
before their pods."""
RESET_LABEL = "app.kubernetes.io/part-of=cdk8s-headroom"
"""Cluster roles with this label are the project's, removed between tests."""


class ClusterError(RuntimeError):
    """The cluster did not start, or a command against it failed; names what and why."""


@dataclass(frozen=True)
class NodeShape:
    """One fake node: its name, allocatable resources, labels and taints."""

    name: str
    cpu: str = "4"
    memory: str = "8Gi"
    pods: int = 110
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: Sequence[Mapping[str, str]] = ()
    devices: Mapping[str, str] = field(default_factory=dict)
    """Extended resources the node advertises, e.g. ``{"nvidia.com/gpu": "1"}``."""

    def manifest(self) -> Manifest:
        resources = {
            "cpu": self.cpu,
            "memory": self.memory,
            "pods": str(self.pods),
            **self.devices,
        }
        spec: Manifest = {}
        if self.taints:
            spec["taints"] = [dict(t) for t in self.taints]
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.name,
                "annotations": {KWOK_NODE_ANNOTATION: "fake"},
                "labels": {
                    "kubernetes.io/hostname": self.name,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                    "type": "kwok",
                    **self.labels,
                },
            },
            "spec": spec,
            "status": {"allocatable": resources, "capacity": resources},
        }


class LiveCluster:
    """One running control plane. Use :meth:`start`, then :meth:`stop` (always)."""

    def __init__(
        self, binaries: ReleaseBinaries, workdir: Path, name: str, stages: Sequence[str] = ()
    ) -> None:
        self.binaries = binaries
        self.workdir = workdir
        self.name = name
        self.kubeconfig = workdir / "kubeconfig"
        self.stages = tuple(stages)
        """KWOK Stage documents in place of its defaults for their kind (kwok
        ``pkg/kwok/cmd/root.go``: a kind with stages in the configuration gets none of
        the defaults); none: KWOK's defaults."""
        self._pids: list[int] = []
        self.kept_crds: set[str] = set()
        """CRDs :meth:`reset` leaves: those of a controller that runs across tests
        (Karpenter's, ``e2e/karpenter.py``), which would fail without them."""

    # -- life cycle -------------------------------------------------------------------
    @classmethod
    def start(
        cls, binaries: ReleaseBinaries, *, name: str | None = None, stages: Sequence[str] = ()
    ) -> LiveCluster:
        workdir = Path(tempfile.mkdtemp(prefix="headroom-live-"))
        cluster = cls(
            binaries, workdir, name or f"headroom-{binaries.release.replace('.', '')}", stages
        )
        try:
            # kwokctl takes a free port for each component and the component binds it
            # later: two clusters created at once (two pytest workers, a benchmark) can
            # take the same one, and one component then fails to bind. Creations take
            # turns; the clusters still run side by side.
            with lock(cache_root() / "cluster-create.lock"):
                cluster._create()
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            {
                "KWOK_WORKDIR": str(self.workdir / "kwok"),
                "KWOK_KUBE_VERSION": self.binaries.version,
                "KWOK_KUBECTL_BINARY": str(self.binaries.binary("kubectl")),
                "KWOK_RUNTIME": "binary",
                "PATH": f"{self.binaries.kubernetes}:{env.get('PATH', '')}",
            }
        )
        return env

    def _create(self) -> None:
        config = self.workdir / "kwokctl.yaml"
        config.write_text("---\n".join([_KWOKCTL_CONFIG, *self.stages]))
        binaries = self.binaries
        command = [
            str(binaries.binary("kwokctl")),
            "create",
            "cluster",
            "--name",
            self.name,
            "--config",
            str(config),
            "--runtime",
            "binary",
            "--kubeconfig",
            str(self.kubeconfig),
            "--kube-apiserver-binary",
            str(binaries.binary("kube-apiserver")),
            "--kube-controller-manager-binary",
            str(binaries.binary("kube-controller-manager")),
            "--kube-scheduler-binary",
            str(binaries.binary("kube-scheduler")),
            "--kwok-controller-binary",
            str(binaries.binary("kwok")),
            "--etcd-binary",
            str(binaries.binary("etcd")),
            "--wait",
            "120s",
        ]
        done = subprocess.run(
            command,
            env=self._env(),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode != 0:
            raise ClusterError(
                f"kwokctl create cluster ({binaries.version}) exited {done.returncode}:\n"
                + _tail(done.stdout + done.stderr)
            )
        self._pids = processes_under(self.workdir)
        self.wait_for(
            lambda: self.kubectl("get", "serviceaccount", "default", check=False).returncode == 0,
            what="the default ServiceAccount (kube-controller-manager is up)",
        )

    @property
    def logs_dir(self) -> Path:
        return self.workdir / "kwok" / "clusters" / self.name / "logs"

    def keep_logs(self, destination: Path) -> Path:
        """Copies the component logs (and the kwokctl files beside them) to ``destination``."""
        shutil.rmtree(destination, ignore_errors=True)
        destination.mkdir(parents=True)
        if self.logs_dir.exists():
            shutil.copytree(self.logs_dir, destination / "logs")
        return destination

    def stop(self) -> None:
        """Deletes the cluster, ends every process it started, and removes its folder."""
        if (self.workdir / "kwok" / "clusters" / self.name).exists():
            subprocess.run(
                [str(self.binaries.binary("kwokctl")), "delete", "cluster", "--name", self.name],
                env=self._env(),
                capture_output=True,
                timeout=120,
                check=False,
                stdin=subprocess.DEVNULL,
            )
        # kwokctl starts each component in a session of its own: whatever survived the
        # delete (a crash half-way through create) is found by its working folder.
        survivors = processes_under(self.workdir)
        for pid in survivors:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        # kwokctl's delete and a kill return before the processes are gone; their
        # ports close only when they exit
        try:
            self.wait_for(
                lambda: not any(_alive(pid) for pid in survivors + self._pids),
                timeout=30,
                what="the components to exit",
            )
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def reset(self, *, timeout: float = 120) -> None:
        """Deletes what tests create: namespaces but the system's, PriorityClasses but
        ``system-*``, CRDs but ``kept_crds`` (with their objects), cluster roles of ours,
        and nodes; waits
        until they are gone, so the next test starts from an empty cluster. What is
        still there after ``timeout`` seconds is named in the error, with why it stays."""
        deadline = time.monotonic() + timeout
        namespaces = [n["metadata"]["name"] for n in self._test_namespaces()]
        if namespaces:
            # The namespace controller waits a fixed 5 s before it empties a deleted
            # namespace (namespaceDeletionGracePeriod, for HA API servers to observe the
            # deletion: pkg/controller/namespace/namespace_controller.go enqueueNamespace),
            # then waits again for the pods it deleted gracefully (deletion/
            # namespaced_resources_deleter.go estimateGracefulTermination). Emptied
            # first, a namespace costs only the fixed wait: 10.5 s to 4.5 s per reset
            # with a Deployment, a Job and a CronJob running. Owners go first, so that no
            # controller replaces a pod; KWOK's pods have no kubelet to wait for.
            outside = ",".join(f"metadata.namespace!={n}" for n in sorted(SYSTEM_NAMESPACES))
            self.kubectl("delete", OWNER_KINDS, "-A", "--field-selector", outside, "--wait=false")
            for namespace in namespaces:
                # One request for all of a namespace's pods (deletecollection): kubectl's
                # own delete takes them one at a time, 26 s for 137 pods
                self.kubectl(
                    "delete", "--raw", f"/api/v1/namespaces/{namespace}/pods?gracePeriodSeconds=0"
                )
            self.kubectl("delete", "namespace", *UNWAITED, *namespaces)
        classes = [
            c["metadata"]["name"]
            for c in self.get_json("priorityclasses")["items"]
            if not c["metadata"]["name"].startswith("system-")
        ]
        if classes:
            self.kubectl("delete", "priorityclass", *UNWAITED, *classes)
        crds = [
            c["metadata"]["name"]
            for c in self.get_json("customresourcedefinitions")["items"]
            if c["metadata"]["name"] not in self.kept_crds
        ]
        if crds:
            self.kubectl("delete", "customresourcedefinitions", *UNWAITED, *crds)
        self.kubectl("delete", "clusterrole,clusterrolebinding", "--wait=false", "-l", RESET_LABEL)
        if namespaces:
            # A watch: polled, the fixed wait above is overshot by up to a poll's delay.
            # Within the reset's time; a namespace still there is named below, with why.
            within = max(1, round(deadline - time.monotonic()))
            self.kubectl(
                "wait",
                "--for=delete",
                f"--timeout={within}s",
                *(f"namespace/{n}" for n in namespaces),
                check=False,
                timeout=within + 30,
            )
        # kubectl's own wait for the nodes took 9.5 s after the differential tests,
        # where they are gone at once (no finalizer: the API server removes them before
        # it answers, as the classes and roles above); the wait below covers them
        self.kubectl("delete", "nodes", "--all", "--wait=false")
        try:
            self.wait_for(
                lambda: not self._left_after_reset(),
                timeout=max(0.0, deadline - time.monotonic()),
                what="",
            )
        except ClusterError:
            raise ClusterError(
                f"timed out after {timeout:.0f} s waiting for every namespace, node, pod and "
                "CRD gone; left: " + "; ".join(self._left_after_reset())
            ) from None

    def _test_namespaces(self) -> list[Manifest]:
        """The namespaces but the system's: those tests create, which a reset deletes."""
        return [
            n
            for n in self.get_json("namespaces")["items"]
            if n["metadata"]["name"] not in SYSTEM_NAMESPACES
        ]

    def _left_after_reset(self) -> list[str]:
        """The namespaces, nodes, pods and CRDs a reset waits on, each with why it stays
        (a namespace's or CRD's conditions, a pod's node, phase and the finalizers that
        hold it)."""
        left = [
            f"namespace {n['metadata']['name']} ({_why_terminating(n, NAMESPACE_HOLDS)})"
            for n in self._test_namespaces()
        ]
        left += [f"node {n['metadata']['name']}" for n in self.get_json("nodes")["items"]]
        left += [_pod_left(p) for p in self.get_json("pods", "-A")["items"]]
        for crd in self.get_json("customresourcedefinitions")["items"]:
            if crd["metadata"]["name"] in self.kept_crds:
                continue
            left.append(f"CRD {crd['metadata']['name']} ({_why_terminating(crd, CRD_HOLDS)})")
        return left

    # -- commands ---------------------------------------------------------------------
    def kubectl(
        self,
        *args: str,
        stdin: str | None = None,
        check: bool = True,
        timeout: float = 120,
    ) -> subprocess.CompletedProcess[str]:
        command = [str(self.binaries.binary("kubectl")), f"--kubeconfig={self.kubeconfig}", *args]
        done = subprocess.run(
            command,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=None if stdin is not None else subprocess.DEVNULL,
        )
        if check and done.returncode != 0:
            raise ClusterError(f"kubectl {' '.join(args)} exited {done.returncode}: {done.stderr}")
        return done

    def get_json(self, *args: str) -> Manifest:
        """``kubectl get ARGS -o json``, always as a List (one named object too)."""
        out: Manifest = json.loads(self.kubectl("get", *args, "-o", "json").stdout)
        if out.get("kind") != "List" and "items" not in out:
            return {"kind": "List", "items": [out]}
        return out

    def apply(self, manifests: Iterable[Manifest], *extra: str) -> str:
        text = json.dumps({"apiVersion": "v1", "kind": "List", "items": list(manifests)})
        return self.kubectl("apply", "-f", "-", *extra, stdin=text).stdout

    def add_nodes(self, shapes: Iterable[NodeShape], *, timeout: float = 120) -> list[str]:
        """Creates fake nodes and waits until each is Ready and free of the not-ready
        taint that the node lifecycle controller removes (until then no DaemonSet
        targets it)."""
        shapes = list(shapes)
        self.kubectl(
            "create",
            "-f",
            "-",
            stdin=json.dumps(
                {"apiVersion": "v1", "kind": "List", "items": [s.manifest() for s in shapes]}
            ),
        )
        names = [s.name for s in shapes]

        def ready() -> bool:
            nodes = self.get_json("nodes", *names)["items"]
            return all(_node_ready(node) for node in nodes)

        self.wait_for(ready, timeout=timeout, what=f"nodes {', '.join(names)} Ready")
        return names

    def wait_for(
        self, condition: Callable[[], T], *, timeout: float = 120, what: str = "a condition"
    ) -> T:
        """Polls ``condition`` until it returns something true; the cluster's own
        progress decides how long that takes, so there is no fixed sleep to tune."""
        deadline = time.monotonic() + timeout
        delay = 0.05
        while True:
            result = condition()
            if result:
                return result
            if time.monotonic() > deadline:
                raise ClusterError(f"timed out after {timeout:.0f} s waiting for {what}")
            time.sleep(delay)
            delay = min(delay * 2, 1.0)

    def events(self, namespace: str, reason: str) -> list[Manifest]:
        items: list[Manifest] = self.get_json(
            "events", "-n", namespace, "--field-selector", f"reason={reason}"
        )["items"]
        return items


def _node_ready(node: Manifest) -> bool:
    conditions = node.get("status", {}).get("conditions", [])
    ready = any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)
    tainted = any(
        t.get("key", "").startswith("node.kubernetes.io/not-ready")
        for t in node.get("spec", {}).get("taints", [])
    )
    return ready and not tainted


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs: gone, or a zombie (whose sockets are closed), is not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def listening_ports(pids: list[int] | None = None) -> set[int]:
    """The TCP ports the processes ``pids`` listen on (from /proc: their socket inodes
    matched against the kernel's tables), so a check can name this cluster's ports
    and no other cluster's; every port listened on when ``pids`` is None."""
    inodes: set[str] = set()
    for pid in pids or ():
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and (pids is None or fields[9] in inodes):  # 0A: LISTEN
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def processes_under(folder: Path) -> list[int]:
    """Processes whose command line names ``folder`` (every component's flags do)."""
    marker = str(folder).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _tail(text: str, lines: int = 30) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _pod_left(pod: Manifest) -> str:
    """A pod a reset waits on, with its node and phase, and, once it is deleted, the
    finalizers that hold it: the phase alone can change under the reader (podgc marks a
    deleted pod that never reached a node Failed, pkg/controller/podgc/gc_controller.go
    gcUnscheduledTerminating, every 20 s)."""
    meta = pod["metadata"]
    why = str(pod.get("status", {}).get("phase"))
    if meta.get("deletionTimestamp") and meta.get("finalizers"):
        why += ", deleted and held by " + " and ".join(meta["finalizers"])
    node = pod["spec"].get("nodeName") or "no node"
    return f"pod {meta['namespace']}/{meta['name']} on {node} ({why})"


def _why_terminating(item: Manifest, holds: frozenset[str]) -> str:
    """Why a deleted namespace or CRD stays: its conditions of ``holds`` that are True,
    with their reasons and messages; "not deleted" when it was not."""
    if not item["metadata"].get("deletionTimestamp"):
        return "not deleted"
    why = [
        f"{c.get('reason')}: {c.get('message')}"
        for c in item.get("status", {}).get("conditions", [])
        if c["type"] in holds and c.get("status") == "True"
    ]
    return ", ".join(why) or "deleted, not yet emptied"
