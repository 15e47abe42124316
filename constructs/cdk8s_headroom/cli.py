"""The ``cdk8s-headroom`` command.

Subcommands:
    simulate  a what-if of kube-scheduler's fit and preemption decisions, for one
              scenario (``--scenario``) or for synthesized manifests on a described
              cluster (``--manifests`` and ``--cluster``); see docs/simulate.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import HeadroomConfigError

# Each command imports what it runs, inside its function: `--help` and one-pod
# scenarios start in about the time of `import yaml` (bench/bench_startup.py), and
# nothing here loads jsii, cdk8s or constructs.


def _simulate(args: argparse.Namespace) -> int:
    if args.scenario is not None:
        if args.manifests or args.cluster or args.burst or args.plot:
            raise HeadroomConfigError(
                "--scenario", str(args.scenario), "no --manifests, --cluster, --burst or --plot"
            )
        from .simulate.scenario import decide, read_scenario

        decision = decide(read_scenario(args.scenario))
        if args.json:
            print(json.dumps(decision.to_json(), indent=2))
        else:
            victims = ", ".join(pod.name for pod in decision.victims) or "nobody"
            where = decision.node or "nowhere (stays pending)"
            print(f"{decision.pod.name} -> {where}; evicts {victims}")
            print(f"  {decision.reason}")
        return 0
    if args.manifests is None or args.cluster is None:
        raise HeadroomConfigError(
            "simulate", "", "--scenario FILE, or --manifests DIR with --cluster FILE"
        )
    from .simulate.cluster import read_cluster
    from .simulate.manifests import read_manifests
    from .simulate.report import parse_bursts, run_whatif

    manifests = read_manifests(args.manifests)
    report = run_whatif(manifests, read_cluster(args.cluster), parse_bursts(args.burst, manifests))
    if args.plot is not None:
        from .simulate.plot import plot_report

        plot_report(report, args.plot)
    print(json.dumps(report.to_json(), indent=2) if args.json else report.render())
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cdk8s-headroom", description="Tools for the node reserved headroom pattern."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    simulate = commands.add_parser(
        "simulate",
        help="what the scheduler does with the headroom: placements, evictions, P1-P3",
        description=(
            "A what-if of kube-scheduler's fit and preemption decisions. With --scenario, "
            "the decision for one pod; with --manifests and --cluster, the reservers' "
            "establishment, the burst arrivals, the recreations and a verdict on P1-P3."
        ),
    )
    simulate.add_argument("--scenario", type=Path, help="a scenario file (JSON or YAML)")
    simulate.add_argument("--manifests", type=Path, help="the synthesized manifests (dist/)")
    simulate.add_argument("--cluster", type=Path, help="the cluster file (YAML or JSON)")
    simulate.add_argument(
        "--burst",
        action="append",
        default=[],
        metavar="NAME=COUNT",
        help="how many pods of burst Deployment NAME arrive (default: its replicas)",
    )
    simulate.add_argument("--plot", type=Path, metavar="PNG", help="draw capacity per node")
    simulate.add_argument("--json", action="store_true", help="print the result as JSON")
    simulate.set_defaults(run=_simulate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command; invalid input prints the message, not a traceback, and exits 2."""
    args = _parser().parse_args(argv)
    try:
        result: int = args.run(args)
    except HeadroomConfigError as error:
        print(f"cdk8s-headroom {args.command}: error: {error}", file=sys.stderr)
        return 2
    return result
