"""The real Karpenter (its KWOK provider, ``e2e/karpenter.py``) on the live tier's
control plane, against what the project predicts:

- per Karpenter example built on ``NodeClassRef.kwok()``: the nodes and instance types
  Karpenter launched for it, beside the sizes its pools allow, the smallest node of its
  summary and the most nodes its limits allow (``max_nodes``);
- per buffer: the replicas Karpenter resolved, beside what ``plan`` reads from the same
  objects (``simulate.manifests``), and after the percentage buffer's Deployment scales;
- the seconds from a burst's arrival to its pod Running, without a buffer (Karpenter
  launches a node) and with one (the node is there), median of 3. These are
  control-plane seconds on KWOK, whose nodes are Ready when created: not cloud minutes.

Karpenter runs on the newest release of the tier it is made for
(``build.karpenter_newest_kubernetes``). ``python bench/bench_karpenter.py`` prints the
section.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cdk8s_headroom.simulate.manifests import manifests_from_objects  # noqa: E402
from cdk8s_headroom.vocabulary.node_sizes import max_nodes  # noqa: E402
from e2e import build  # noqa: E402
from e2e.cluster import LiveCluster  # noqa: E402
from e2e.karpenter import Karpenter  # noqa: E402
from e2e.karpenter_scenarios import (  # noqa: E402
    EXAMPLES,
    buffers,
    buffers_resolved,
    burst_seconds,
    example_objects,
    launch,
    pool_nodes,
)

T = TypeVar("T")
TIMINGS = 3
INSTANCE_TYPE = "node.kubernetes.io/instance-type"


@contextmanager
def _karpenter(cluster: LiveCluster) -> Iterator[Karpenter]:
    running = Karpenter.start(
        cluster, build.karpenter_binary(log=False), log=cluster.logs_dir / "karpenter.log"
    )
    try:
        yield running
    finally:
        running.stop()
        cluster.reset()


def _each(cluster: LiveCluster, scenario: Callable[[Karpenter], T]) -> T:
    with _karpenter(cluster) as karpenter:
        return scenario(karpenter)


def _example_rows(cluster: LiveCluster) -> list[str]:
    rows = []
    for name in EXAMPLES:
        objects, headrooms, pools = example_objects(name)
        slice_pools = [h.node_pool.pool_name for h in headrooms if h.reserver and h.node_pool]

        with _karpenter(cluster) as karpenter:
            launch(cluster, karpenter, objects, slice_pools)
            launched = {
                pool.pool_name: sorted(
                    n["metadata"]["labels"][INSTANCE_TYPE]
                    for n in pool_nodes(cluster, pool.pool_name)
                )
                for pool in pools
            }
        for pool in pools:
            allowed = [r for r in pool.requirements if r.key.endswith("instance-cpu")]
            sizes = ", ".join(allowed[0].values) if allowed else "any"
            limit = max_nodes(pool.smallest_node, pool.limit_amounts)
            types = ", ".join(launched[pool.pool_name])
            rows.append(
                f"| {name} | {pool.pool_name} | {sizes} vCPU; smallest {pool.smallest_node} "
                f"| {limit} | {len(launched[pool.pool_name])} | {types} |"
            )
    return rows


def _buffer_rows(cluster: LiveCluster) -> list[str]:
    objects, _, _ = example_objects("capacity_buffer")
    predicted = {
        b.name: b.units for b in manifests_from_objects([("capacity_buffer", objects)]).buffers
    }
    scaled_objects = [
        o | {"spec": o["spec"] | {"replicas": 6}}
        if o["kind"] == "Deployment" and o["metadata"]["name"] == "search"
        else o
        for o in objects
    ]
    scaled = {
        b.name: b.units
        for b in manifests_from_objects([("capacity_buffer", scaled_objects)]).buffers
    }

    def resolve(karpenter: Karpenter) -> tuple[dict[str, int], dict[str, int]]:
        launch(cluster, karpenter, objects, ["checkout"])
        karpenter.wait_for(lambda: buffers_resolved(cluster, predicted), what="the buffers")
        first = {n: b["status"]["replicas"] for n, b in buffers(cluster).items()}
        cluster.kubectl("scale", "deployment", "search", "-n", "burst", "--replicas=6")
        karpenter.wait_for(lambda: buffers_resolved(cluster, scaled), what="the scaled buffers")
        then = {n: b["status"]["replicas"] for n, b in buffers(cluster).items()}
        return first, then

    first, then = _each(cluster, resolve)
    return [
        f"| {name} | {predicted[name]} | {first[name]} | {scaled[name]} | {then[name]} |"
        for name in sorted(predicted)
    ]


def run() -> str:
    title = "## Karpenter on its KWOK provider (e2e/karpenter.py, tests/live)\n\n"
    if not build.go_available():
        return title + f"Not measured: {build.HOW_TO_GET_GO}.\n"
    newest = build.karpenter_newest_kubernetes()
    release = next(r for r in build.releases() if tuple(int(n) for n in r.split(".")) <= newest)
    karpenter_folder = build.ensure(build.KARPENTER, log=False)
    built = build.build_seconds(karpenter_folder)
    cluster = LiveCluster.start(build.release_binaries(release, log=False))
    try:
        examples = _example_rows(cluster)
        buffer_rows = _buffer_rows(cluster)
        timings = [_each(cluster, lambda k: burst_seconds(cluster, k)) for _ in range(TIMINGS)]
    finally:
        cluster.stop()
    without = statistics.median(t[0] for t in timings)
    with_buffer = statistics.median(t[1] for t in timings)
    return (
        title
        + f"Karpenter {build.karpenter_version()} (`kwok` command, `CapacityBuffer` gate on), "
        + f"built in {built:.0f} s, on Kubernetes {release}.\n\n"
        + "Nodes Karpenter launched per example (built on `NodeClassRef.kwok()`), beside "
        + "the summary's prediction:\n\n"
        + "| example | pool | sizes allowed; summary's smallest node | most nodes (limits) "
        + "| nodes launched | instance types |\n| --- | --- | --- | --- | --- | --- |\n"
        + "\n".join(examples)
        + "\n\nBuffer replicas Karpenter resolved (`status.replicas`), beside `plan`'s "
        + "reading of the same objects, then after `search` scales from 4 to 6 "
        + "replicas:\n\n"
        + "| buffer | plan | Karpenter | plan, 6 replicas | Karpenter, 6 replicas |\n"
        + "| --- | --- | --- | --- | --- |\n"
        + "\n".join(buffer_rows)
        + f"\n\nA burst's pod to Running, median of {TIMINGS} (control-plane seconds on "
        + "KWOK, not cloud minutes):\n\n| burst | seconds |\n| --- | --- |\n"
        + f"| without a buffer (Karpenter launches a node) | {without:.1f} s |\n"
        + f"| with a buffer of one chunk (its node is there) | {with_buffer:.1f} s |\n"
    )


if __name__ == "__main__":
    print(run())
