"""`plan` and `status` on a large snapshot, against reading the same file with json.load.

The snapshot is generated in ``kubectl get -o json``'s format (a ``List``, four-space
indents, ``managedFields``, full ``status``): 1,000 nodes and 30,000 pods, each node
with two system DaemonSet pods, a reserver (held on most nodes, waiting on every tenth,
beside a burst pod on every twentieth), and ordinary pods. Each command runs in-process
as ``cdk8s-headroom`` runs it (read the manifests and the snapshot, decide, print), so
interpreter start-up is left out of both sides. The goal: each at most 3x json.load.
``python bench/bench_cluster.py`` prints the section.
"""

from __future__ import annotations

import contextlib
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cdk8s_headroom.cli import main

ROOT = Path(__file__).resolve().parent.parent
NODES = 1000
PODS = 30_000
REPEAT = 3
_DS_TOLERATIONS = [
    {"effect": effect, "key": f"node.kubernetes.io/{key}", "operator": "Exists"}
    for key, effect in (
        ("not-ready", "NoExecute"),
        ("unreachable", "NoExecute"),
        ("disk-pressure", "NoSchedule"),
        ("memory-pressure", "NoSchedule"),
        ("pid-pressure", "NoSchedule"),
        ("unschedulable", "NoSchedule"),
    )
]


def _managed(manager: str) -> list[dict[str, Any]]:
    fields = {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"f:containers": {}}}
    return [
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": fields,
            "manager": manager,
            "operation": "Update",
            "time": "2026-11-30T08:00:00Z",
        },
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:status": {"f:conditions": {}, "f:phase": {}}},
            "manager": "kubelet",
            "operation": "Update",
            "subresource": "status",
            "time": "2026-11-30T08:00:00Z",
        },
    ]


def _node(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "creationTimestamp": "2026-11-29T10:00:00Z",
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "karpenter.sh/nodepool": "general",
                "node.kubernetes.io/instance-type": "m6i.4xlarge",
                "topology.kubernetes.io/zone": "eu-west-1a",
            },
            "managedFields": _managed("kubelet"),
            "name": name,
            "resourceVersion": "1000",
            "uid": f"node-{name}",
        },
        "spec": {"providerID": f"aws:///eu-west-1a/{name}"},
        "status": {
            "allocatable": {"cpu": "15890m", "memory": "63388736Ki", "pods": "110"},
            "capacity": {"cpu": "16", "memory": "64393280Ki", "pods": "110"},
            "conditions": [
                {
                    "lastHeartbeatTime": "2026-12-01T10:00:00Z",
                    "lastTransitionTime": "2026-11-29T10:00:00Z",
                    "message": "kubelet is posting ready status",
                    "reason": "KubeletReady",
                    "status": "True",
                    "type": "Ready",
                }
            ],
            "nodeInfo": {"kubeletVersion": "v1.31.4-eks-1234567", "osImage": "Amazon Linux"},
        },
    }


def _pod(
    name: str,
    namespace: str,
    node: str | None,
    *,
    cpu: str,
    memory: str,
    labels: dict[str, str],
    owner: tuple[str, str],
    priority: int = 0,
    klass: str | None = None,
    policy: str = "PreemptLowerPriority",
    pinned: str | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [
            {
                "image": "ghcr.io/acme/app:1",
                "imagePullPolicy": "IfNotPresent",
                "name": "app",
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}},
                "resources": {
                    "limits": {"memory": memory},
                    "requests": {"cpu": cpu, "memory": memory},
                },
                "terminationMessagePath": "/dev/termination-log",
                "volumeMounts": [
                    {"mountPath": "/var/run/secrets", "name": "token", "readOnly": True}
                ],
            }
        ],
        "dnsPolicy": "ClusterFirst",
        "preemptionPolicy": policy,
        "priority": priority,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
        "tolerations": _DS_TOLERATIONS if pinned else _DS_TOLERATIONS[:2],
        "volumes": [
            {
                "name": "token",
                "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]},
            }
        ],
    }
    if node is not None:
        spec["nodeName"] = node
    if klass is not None:
        spec["priorityClassName"] = klass
    if pinned is not None:
        term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [pinned]}]}
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
            }
        }
    running = node is not None
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "creationTimestamp": "2026-11-30T09:00:00Z",
            "labels": labels,
            "managedFields": _managed("kube-controller-manager"),
            "name": name,
            "namespace": namespace,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "controller": True,
                    "kind": owner[0],
                    "name": owner[1],
                    "uid": f"{owner[1]}-uid",
                }
            ],
            "resourceVersion": "20000",
            "uid": f"{namespace}-{name}",
        },
        "spec": spec,
        "status": {
            "conditions": [
                {
                    "lastTransitionTime": "2026-11-30T09:00:05Z",
                    "status": "True" if running else "False",
                    "type": "PodScheduled",
                }
            ],
            "containerStatuses": [
                {
                    "image": "ghcr.io/acme/app:1",
                    "name": "app",
                    "ready": running,
                    "restartCount": 0,
                    "state": {"running": {"startedAt": "2026-11-30T09:00:05Z"}} if running else {},
                }
            ],
            "phase": "Running" if running else "Pending",
            "qosClass": "Burstable",
            **({"startTime": "2026-11-30T09:00:05Z", "hostIP": "10.0.0.1"} if running else {}),
        },
    }


def snapshot_objects(nodes: int = NODES, pods: int = PODS) -> list[dict[str, Any]]:
    """The generated cluster: ``nodes`` nodes and ``pods`` pods."""
    reserver_labels = {
        "app": "headroom-reserver",
        "app.kubernetes.io/component": "headroom-reserver",
        "app.kubernetes.io/name": "headroom-reserver",
        "app.kubernetes.io/part-of": "node-headroom",
    }
    burst_labels = {"app": "demo-burst", "app.kubernetes.io/component": "burst-workload"}
    items: list[dict[str, Any]] = []
    per_node = pods // nodes
    for index in range(nodes):
        name = f"ip-10-{index // 250}-{index % 250}-1.eu-west-1.compute.internal"
        items.append(_node(name))
        system = [("kube-proxy", "100m", "64Mi"), ("aws-node", "25m", "128Mi")]
        for ds, cpu, memory in system:
            items.append(
                _pod(
                    f"{ds}-{index:05d}",
                    "kube-system",
                    name,
                    cpu=cpu,
                    memory=memory,
                    labels={"k8s-app": ds},
                    owner=("DaemonSet", ds),
                    priority=2_000_001_000,
                    klass="system-node-critical",
                    pinned=name,
                )
            )
        waits = index % 10 == 0
        items.append(
            _pod(
                f"headroom-reserver-{index:05d}",
                "node-headroom",
                None if waits else name,
                cpu="500m",
                memory="512Mi",
                labels=reserver_labels,
                owner=("DaemonSet", "headroom-reserver"),
                priority=-100,
                klass="headroom-reserve",
                policy="Never",
                pinned=name,
            )
        )
        ordinary = per_node - len(system) - 1
        if index % 20 == 0:
            items.append(
                _pod(
                    f"demo-burst-{index:05d}",
                    "node-headroom",
                    name,
                    cpu="500m",
                    memory="512Mi",
                    labels=burst_labels,
                    owner=("ReplicaSet", "demo-burst"),
                    priority=1_000_000_000,
                    klass="burst-critical",
                )
            )
            ordinary -= 1
        for number in range(ordinary):
            # 27 pods of 570m fill 15.4 of the node's 15.89 cpu: room for the slice
            # only where the reserver already holds it.
            items.append(
                _pod(
                    f"web-{index:05d}-{number:02d}",
                    "shop",
                    name,
                    cpu="570m",
                    memory="1Gi",
                    labels={"app": "web"},
                    owner=("ReplicaSet", "web-7c9f8d6b5"),
                )
            )
    for name, value, policy, default in (
        ("system-node-critical", 2_000_001_000, "PreemptLowerPriority", False),
        ("headroom-reserve", -100, "Never", False),
        ("default-no-preempt", 0, "Never", True),
        ("burst-critical", 1_000_000_000, "PreemptLowerPriority", False),
    ):
        items.append(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
                "preemptionPolicy": policy,
                "globalDefault": default,
            }
        )
    return items


def _seconds(action: Any) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _command(argv: list[str]) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    if code not in (0, 1):
        raise RuntimeError(f"cdk8s-headroom {' '.join(argv)} exited {code}")


def run() -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "snapshot.json"
        with path.open("w") as stream:
            items = snapshot_objects()
            pods = sum(1 for item in items if item["kind"] == "Pod")
            json.dump(
                {
                    "apiVersion": "v1",
                    "items": items,
                    "kind": "List",
                    "metadata": {"resourceVersion": ""},
                },
                stream,
                indent=4,
            )
            del items
        size = path.stat().st_size

        def load() -> None:
            with path.open() as stream:
                json.load(stream)

        dist = str(ROOT / "dist")
        load()  # warm the page cache
        # Interleaved rounds, each a ratio, so that drift in the machine's load hits
        # both sides of a ratio alike; the median round is reported.
        rounds = []
        for _ in range(REPEAT):
            baseline = _seconds(load)
            plan = _seconds(
                lambda: _command(["plan", "--manifests", dist, "--snapshot", str(path)])
            )
            status = _seconds(lambda: _command(["status", "--snapshot", str(path)]))
            rounds.append((baseline, plan, status))
        baseline = statistics.median(r[0] for r in rounds)
        plan_ratio = statistics.median(r[1] / r[0] for r in rounds)
        status_ratio = statistics.median(r[2] / r[0] for r in rounds)
    return (
        "## Plan and status on a large snapshot\n\n"
        f"A generated `kubectl get -o json` snapshot: {NODES} nodes, {pods} pods, "
        f"{size / 2**20:.0f} MiB. In-process (interpreter start-up left out), "
        f"{REPEAT} interleaved rounds; the median ratio of the rounds.\n\n"
        "| what | over json.load of the same file |\n| --- | --- |\n"
        f"| `json.load` ({baseline * 1000:.0f} ms, median) | 1.00x |\n"
        f"| `cdk8s-headroom plan --manifests dist/ --snapshot FILE` | "
        f"**{plan_ratio:.2f}x** (goal ≤ 3x) |\n"
        f"| `cdk8s-headroom status --snapshot FILE` | **{status_ratio:.2f}x** (goal ≤ 3x) |\n"
    )


if __name__ == "__main__":
    print(run())
    sys.exit(0)
