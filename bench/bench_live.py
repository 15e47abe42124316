"""The live tier: its build, a cluster's start, its wall time, and what the promises'
scenario counts on each release (e2e/, tests/live).

- build: what the cached build of each component took when it was made (recorded by
  ``e2e/build.py``); ``HEADROOM_BENCH_COLD_BUILD=1`` rebuilds everything into an empty
  Go build cache and cache folder first (about 20 minutes on 2 cores), so the figure is
  a cold build's (the module downloads stay in Go's module cache: they are the
  registry's time, not the build's);
- disk: what Go's build and module caches and the binaries' folder hold after the build
  (the Go caches hold whatever else the machine built too);
- cluster start: ``kwokctl create cluster`` to a default ServiceAccount (the controllers
  up), median of 3 per release;
- the tier's wall time: ``pytest -p no:xdist -m live tests/live``, once;
- per model and release, the counts of ``e2e/promises.py``'s scenario.

``python bench/bench_live.py`` prints the section.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cdk8s_headroom import PriorityModel  # noqa: E402
from e2e import build  # noqa: E402
from e2e.cluster import LiveCluster, NodeShape  # noqa: E402
from e2e.promises import PromiseCounts, run_scenario  # noqa: E402

STARTS = 3


def _cold_build() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["GOCACHE"] = str(Path(scratch) / "go-build")
        os.environ["HEADROOM_E2E_CACHE"] = str(Path(scratch) / "e2e")
        for release in build.releases():
            build.release_binaries(release)
        build.health_binary()
        build.kube_state_metrics_binary()
        build.karpenter_binary()
        _build_rows()  # read while the scratch cache exists
        _disk_rows()
    del os.environ["GOCACHE"], os.environ["HEADROOM_E2E_CACHE"]


_rows: list[str] = []


def _build_rows() -> list[str]:
    if _rows:
        return _rows
    for module in (
        *(build.kubernetes_module(r) for r in build.releases()),
        build.ETCD,
        build.KWOK,
        build.HEALTH,
        build.KUBE_STATE_METRICS,
        build.KARPENTER,
    ):
        folder = build.ensure(module, log=False)
        seconds = build.build_seconds(folder)
        shown = "unknown" if seconds is None else f"{seconds:.0f} s"
        binaries = ", ".join(name for name, _ in module.binaries)
        _rows.append(f"| `e2e/modules/{module.folder}` ({binaries}) | {shown} |")
    return _rows


_disk: list[str] = []


def _disk_rows() -> list[str]:
    if _disk:
        return _disk
    places = subprocess.run(
        ["go", "env", "GOCACHE", "GOMODCACHE"], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    for what, folder in (
        ("Go build cache (`go env GOCACHE`)", Path(places[0])),
        ("Go module cache (`go env GOMODCACHE`)", Path(places[1])),
        ("the binaries (`HEADROOM_E2E_CACHE`)", build.cache_root()),
    ):
        size = sum(
            path.lstat().st_size
            for path in folder.rglob("*")
            if not path.is_dir() or path.is_symlink()
        )
        _disk.append(f"| {what} | {size / 1e9:.1f} GB |")
    return _disk


def _starts(release: str) -> float:
    binaries = build.release_binaries(release, log=False)
    times = []
    for _ in range(STARTS):
        begun = time.perf_counter()
        cluster = LiveCluster.start(binaries)
        times.append(time.perf_counter() - begun)
        cluster.stop()
    return statistics.median(times)


def _counts(release: str) -> list[PromiseCounts]:
    cluster = LiveCluster.start(build.release_binaries(release, log=False))
    try:
        found = []
        for model in (PriorityModel.SEED, PriorityModel.GUARDED, PriorityModel.DEDICATED_POOL):
            found.append(run_scenario(cluster, model))
            cluster.reset()
        return found
    finally:
        cluster.stop()


LARGE_NODES = 1000
PODS_PER_NODE = 10
READS = 3


def _manifests(count: int, make: Callable[[int], dict[str, object]]) -> list[str]:
    """Lists of ``count`` objects, 500 to a List (one kubectl create each)."""
    return [
        json.dumps({"apiVersion": "v1", "kind": "List", "items": [make(i) for i in chunk]})
        for chunk in (range(start, min(start + 500, count)) for start in range(0, count, 500))
    ]


def _status_on_a_large_cluster(release: str) -> tuple[float, float, int]:
    """Seconds to status's first verdict read from the cluster, and to `kubectl get
    nodes,pods -A -o json` of the same cluster (medians of ``READS``), and the pods."""
    binaries = build.release_binaries(release, log=False)
    cluster = LiveCluster.start(binaries)
    try:
        nodes = _manifests(LARGE_NODES, lambda i: NodeShape(f"n{i}").manifest())
        pods = _manifests(
            LARGE_NODES * PODS_PER_NODE,
            lambda i: {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"p{i}", "namespace": "default"},
                "spec": {
                    "nodeName": f"n{i % LARGE_NODES}",
                    "containers": [
                        {"name": "c", "image": "i", "resources": {"requests": {"cpu": "10m"}}}
                    ],
                },
            },
        )
        for text in (*nodes, *pods):
            cluster.kubectl("create", "-f", "-", stdin=text, timeout=600)
        kubectl = str(binaries.binary("kubectl"))
        config = str(cluster.kubeconfig)
        env = {**os.environ, "PATH": f"{binaries.kubernetes}{os.pathsep}{os.environ['PATH']}"}

        def timed(command: list[str]) -> float:
            times = []
            for _ in range(READS):
                begun = time.perf_counter()
                subprocess.run(command, env=env, capture_output=True, check=False, timeout=600)
                times.append(time.perf_counter() - begun)
            return statistics.median(times)

        listing = timed(
            [kubectl, f"--kubeconfig={config}", "get", "nodes,pods", "-A", "-o", "json"]
        )
        status = timed(
            [
                str(Path(sys.executable).with_name("cdk8s-headroom")),
                "status",
                "--kubeconfig",
                config,
            ]
        )
        return status, listing, LARGE_NODES * PODS_PER_NODE
    finally:
        cluster.stop()


def _tier_seconds() -> float:
    begun = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-q", "-m", "live", "tests/live"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - begun


def run() -> str:
    title = "## The live tier (a real control plane, e2e/ and tests/live)\n\n"
    if not build.go_available():
        return title + f"Not measured: {build.HOW_TO_GET_GO}.\n"
    cold = os.environ.get("HEADROOM_BENCH_COLD_BUILD") == "1"
    if cold:
        _cold_build()
    build_table = "\n".join(
        [
            "| component | build time |",
            "| --- | --- |",
            *_build_rows(),
        ]
    )
    how = (
        "a cold build in this run (empty Go build cache)"
        if cold
        else "as recorded when this machine's cache was built (a cold build only if the "
        "Go build cache was empty then; `HEADROOM_BENCH_COLD_BUILD=1` measures one)"
    )
    disk_table = "\n".join(["| folder | size |", "| --- | --- |", *_disk_rows()])
    starts = "".join(f"| {release} | {_starts(release):.1f} s |\n" for release in build.releases())
    counts = [c for release in build.releases() for c in _counts(release)]
    count_rows = "".join(
        f"| {c.model} | {c.release} | {c.bursts_placed}/3 | {c.ordinary_preempted_by_bursts} "
        f"| {c.reservers_preempted_by_bursts} | {c.recreated_reserver_evictions} "
        f"| {c.freed_slices_taken_by_ordinary} | {c.ordinary_pods_on_the_pool} |\n"
        for c in counts
    )
    tier = _tier_seconds()
    release = build.releases()[0]
    status_seconds, listing_seconds, pod_count = _status_on_a_large_cluster(release)
    return (
        title
        + f"Build of each component, {how}:\n\n{build_table}\n\n"
        + "What the build leaves on disk (the Go caches hold the machine's other builds "
        + f"too):\n\n{disk_table}\n\n"
        + "Cluster start (`kwokctl create cluster` until the controllers serve), "
        + f"median of {STARTS}:\n\n| release | start |\n| --- | --- |\n{starts}\n"
        + "The live tier alone (`pytest -p no:xdist -m live tests/live`, every release): "
        + f"**{tier:.0f} s**\n\n"
        + "The promises' scenario (`e2e/promises.py`: 3 pool nodes full of ordinary pods, "
        + "3 bursts of a slice's size, a reserver recreated on a full node, the bursts "
        + "leave), as the real scheduler and DaemonSet controller decided:\n\n"
        + "| model | release | bursts placed | ordinary pods preempted by bursts "
        + "| reservers preempted by bursts | evictions by recreated reservers "
        + "| freed slices taken by ordinary pods | ordinary pods on the pool |\n"
        + "| --- | --- | --- | --- | --- | --- | --- | --- |\n"
        + count_rows
        + f"\n`status` read from the cluster (`--kubeconfig`, release {release}): "
        + f"{LARGE_NODES} KWOK nodes and {pod_count} pods created through the API, median "
        + f"of {READS}, the interpreter's start included:\n\n"
        + "| what | time |\n| --- | --- |\n"
        + f"| `kubectl get nodes,pods -A -o json` | {listing_seconds:.2f} s |\n"
        + f"| `cdk8s-headroom status --kubeconfig` to its verdict | {status_seconds:.2f} s |\n"
        + f"| over kubectl get | **{status_seconds / listing_seconds:.2f}x** (goal ≤ 1.5x) |\n"
    )


if __name__ == "__main__":
    print(run())
