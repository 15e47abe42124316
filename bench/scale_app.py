"""Builds and synthesizes N NodeHeadrooms (each with a burst workload); prints seconds.

Usage: scale_app.py N OUTDIR. Only construction and synthesis are timed: the interpreter
and the imports are the same for every N, and the floor benchmark measures them.
"""

import sys
import time

import cdk8s

from cdk8s_headroom import HeadroomPriorityClasses, NodeHeadroom, NodePoolRef, synth


def main(count: int, outdir: str) -> float:
    start = time.perf_counter()
    app = cdk8s.App(outdir=outdir)
    chart = cdk8s.Chart(app, "scale")
    classes = HeadroomPriorityClasses(chart, "classes")
    for index in range(count):
        headroom = NodeHeadroom(
            chart,
            f"headroom-{index}",
            cpu="500m",
            memory="512Mi",
            node_pool=NodePoolRef.karpenter(f"pool-{index}"),
            priority_classes=classes,
        )
        headroom.add_burst_workload(
            f"burst-{index}", image="ghcr.io/acme/api:1", cpu="500m", memory="512Mi"
        )
    synth(app)
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"{main(int(sys.argv[1]), sys.argv[2]):.6f}")
