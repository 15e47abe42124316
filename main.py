"""The cdk8s app: the seed blueprint, built on cdk8s-headroom with the GUARDED model.

`cdk8s synth`, `make synth` and `python main.py` all run this file, and all publish
dist/ the same way: the app is synthesized into a staging folder, checked (the
whole-app checks, then ``cdk8s_headroom.validate.promotion.CHECKS``: the strict schemas
and Pod Security), and only then swapped in whole. On any failure dist/ keeps every byte it had.
`python main.py` writes to $CDK8S_OUTDIR when it is set, else to dist/ (`--out DIR`
overrides both); `cdk8s synth` gives the app build/synth-stage (cdk8s.yaml's `output`,
which cdk8s-cli empties first) and it receives a copy of what was published.

Exit status: 0 when dist/ was replaced; 2 for a configuration error (a bad setting,
or objects the checks refuse), printed as one line without a traceback; 1 for
anything else. `cdk8s synth` exits 1 on every failure.

Edit the settings below to fit your cluster; every other knob is a prop of the
constructs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import cdk8s

from cdk8s_headroom import (
    HeadroomConfigError,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
    headroom_charts,
)
from cdk8s_headroom.core.synthesis import SYNTH_FAILED, publish_app
from cdk8s_headroom.files.publish import load_manifests

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
    # Two charts, so that cdk8s numbers the files (0000-cluster, 0001-headroom) and
    # `kubectl apply -f dist/` creates the namespace and the classes first.
    charts = headroom_charts(app, namespace=NAMESPACE, model=MODEL)
    headroom = NodeHeadroom(
        charts.workloads,
        "headroom",
        cpu=SLICE_CPU,
        memory=SLICE_MEMORY,
        model=MODEL,
        node_pool=NodePoolRef.karpenter(NODE_POOL) if NODE_POOL else None,
        namespace=charts.namespace.name,
        priority_classes=charts.priority_classes,
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
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the folder to publish (default: $CDK8S_OUTDIR, else dist); when "
        "$CDK8S_OUTDIR names another folder, as under cdk8s synth, it gets a copy",
    )
    args = parser.parse_args(argv)
    outdir = os.environ.get("CDK8S_OUTDIR")
    target: Path = args.out or Path(outdir or "dist")
    copy_to = Path(outdir) if outdir and args.out is not None else None
    # Imported here: the schemas load kubernetes-validate, which `import main` (the chart
    # generator, the tests) does not need.
    from cdk8s_headroom.validate.promotion import CHECKS

    # stderr throughout, because cdk8s synth captures the app's stdout.
    try:
        app = publish_app(build, target, checks=CHECKS, copy_to=copy_to)
    except HeadroomConfigError as error:
        print(SYNTH_FAILED.format(target=target, error=error), file=sys.stderr)
        return 2
    # HEADROOM_QUIET lets `make synth Q=1` silence a success.
    if not (args.quiet or os.environ.get("HEADROOM_QUIET")):
        # Imported here, like CHECKS above: a quiet synthesis prints no summary.
        from cdk8s_headroom.objects.synth_summary import render, summarize

        files = sorted(p.name for p in target.glob("*.k8s.yaml"))
        objects = sum(1 for _ in load_manifests(target))
        print(f"wrote {objects} objects in {len(files)} files to {target}/", file=sys.stderr)
        print(render(summarize(app), files), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
