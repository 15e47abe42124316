"""The cdk8s app: the seed blueprint, built on cdk8s-headroom with the GUARDED model.

`make synth` (or `cdk8s synth`) runs this file and writes dist/. Edit the settings
below to fit your cluster; every other knob is a prop of the constructs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import cdk8s

from cdk8s_headroom import (
    HeadroomNamespace,
    HeadroomPriorityClasses,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
    synth,
)
from cdk8s_headroom.objects.synth_summary import render, summarize

MODEL = PriorityModel.GUARDED
"""The priority model; GUARDED keeps P1-P3 on shared nodes (see the README)."""

NODE_POOL: str | None = None
"""A Karpenter NodePool to reserve on, e.g. "maintenance-pool". None: every node."""

NAMESPACE = "node-headroom"
"""Where the reserver and the demo burst workload run."""

SLICE_CPU = "500m"
SLICE_MEMORY = "512Mi"


def build(app: cdk8s.App) -> NodeHeadroom:
    """Builds the blueprint into ``app``: cluster-scoped objects first, then workloads."""
    # Separate charts, so that cdk8s numbers the files (0000-cluster, 0001-headroom)
    # and `kubectl apply -f dist/` creates the classes and the namespace first.
    cluster = cdk8s.Chart(app, "cluster")
    HeadroomNamespace(cluster, "namespace", name=NAMESPACE)
    classes = HeadroomPriorityClasses(cluster, "priority-classes", model=MODEL)

    workloads = cdk8s.Chart(app, "headroom")
    workloads.add_dependency(cluster)
    headroom = NodeHeadroom(
        workloads,
        "headroom",
        cpu=SLICE_CPU,
        memory=SLICE_MEMORY,
        model=MODEL,
        node_pool=NodePoolRef.karpenter(NODE_POOL) if NODE_POOL else None,
        namespace=NAMESPACE,
        priority_classes=classes,
        # P4: a pre-puller DaemonSet beside the reservers pulls the burst images onto
        # every node, so a burst starts without an image pull; the reservers' own pod
        # template never names them, so an image release leaves every slice in place.
        prepull_burst_images=True,
    )
    headroom.add_burst_workload(
        "demo-burst",
        image="public.ecr.aws/amazonlinux/amazonlinux:2",
        container_name="cpu-burn",
        cpu="500m",
        memory="512Mi",
        cpu_limit="800m",
        memory_limit="1Gi",
        command=["/bin/sh", "-c"],
        args=["while true; do sha1sum /dev/zero | head -c 1000000 > /dev/null; sleep 0.5; done"],
    )
    return headroom


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Synthesize the headroom blueprint.")
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary table")
    args = parser.parse_args(argv)
    app = cdk8s.App()
    build(app)
    synth(app)
    # stderr, because cdk8s synth captures the app's stdout; HEADROOM_QUIET lets
    # `make synth Q=1` silence it.
    if not (args.quiet or os.environ.get("HEADROOM_QUIET")):
        files = sorted(p.name for p in Path(app.outdir).glob("*.k8s.yaml"))
        print(render(summarize(app), files), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
