"""The ``cdk8s-headroom`` command.

Subcommands:
    simulate  a what-if of kube-scheduler's fit and preemption decisions, for one
              scenario (``--scenario``) or for synthesized manifests on a described
              cluster (``--manifests`` and ``--cluster``); see docs/simulate.md.
    plan      what ``kubectl apply`` of the manifests does on a cluster, from a kubectl
              snapshot; see docs/plan-status.md.
    status    whether the headroom is really there, from a kubectl snapshot.
    validate  whether a folder of manifests would be accepted: strict schemas, the API
              server's rules, Pod Security, checkov; see docs/operations.md.

Exit status: 0 when all is well; 1 when plan or status find a condition that fails the
run (docs/plan-status.md has the table), or when validate finds an object that fails or
a file it cannot read; 2 for bad input. Every non-zero exit of plan and status ends with
one line on stderr: ``cdk8s-headroom plan: failed: ...`` names each condition and the
flag that relaxes it; ``... error: ...`` names the bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from cdk8s_headroom.cli import gitops
from cdk8s_headroom.simulate.versions import NEWEST_VALIDATED, KubernetesVersion
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.names import int_text

if TYPE_CHECKING:
    from cdk8s_headroom.cli.status_watch import WatchOptions
    from cdk8s_headroom.cluster.snapshot import Snapshot
    from cdk8s_headroom.cluster.status import StatusReport

# Each command imports what it runs, inside its function: `--help` and one-pod
# scenarios start in about the time of `import yaml` (bench/bench_startup.py), and
# nothing here loads jsii, cdk8s or constructs.


def _simulate(args: argparse.Namespace) -> int:
    if args.scenario is not None:
        if args.manifests or args.cluster or args.burst or args.plot:
            raise HeadroomConfigError(
                "--scenario", str(args.scenario), "no --manifests, --cluster, --burst or --plot"
            )
        from cdk8s_headroom.simulate.scenario import decide, read_scenario

        version = _version(args.kubernetes_version, None)[0]
        decision = decide(read_scenario(args.scenario, version=version))
        if args.json:
            print(json.dumps(decision.to_json(), indent=2))
        else:
            victims = ", ".join(pod.name for pod in decision.victims) or "nobody"
            where = decision.node or "nowhere (stays pending)"
            print(f"{decision.pod.name} -> {where}; evicts {victims}")
            print(f"  {decision.reason}")
            for other in decision.alternatives:
                evicted = ", ".join(pod.name for pod in other.victims) or "nobody"
                print(
                    f"  or, equally good (the scheduler breaks the tie at random): "
                    f"{other.node}; evicts {evicted}"
                )
        return 0
    if args.manifests is None or args.cluster is None:
        raise HeadroomConfigError(
            "simulate", "", "--scenario FILE, or --manifests DIR with --cluster FILE"
        )
    from cdk8s_headroom.simulate.cluster import read_cluster
    from cdk8s_headroom.simulate.manifests import read_manifests
    from cdk8s_headroom.simulate.report import parse_bursts, run_whatif

    manifests = read_manifests(args.manifests)
    report = run_whatif(
        manifests,
        read_cluster(args.cluster),
        parse_bursts(args.burst, manifests),
        version=_version(args.kubernetes_version, None)[0],
    )
    if args.plot is not None:
        from cdk8s_headroom.simulate.plot import plot_report

        plot_report(report, args.plot)
        _wrote(args, args.plot)
    print(json.dumps(report.to_json(), indent=2) if args.json else report.render())
    return 0


def _wrote(args: argparse.Namespace, path: Path) -> None:
    """Says where ``--plot`` wrote, on stderr, so that stdout stays the report."""
    print(f"cdk8s-headroom {args.command}: plot written to {path}", file=sys.stderr)


def _verdict(args: argparse.Namespace, failures: Sequence[str]) -> int:
    """The exit status, and for a failed run the one line that ends it (on stderr, so
    that ``--json`` stays one document): each condition, and the flag that relaxes it."""
    if not failures:
        return 0
    sys.stdout.flush()
    print(f"cdk8s-headroom {args.command}: failed: {'; '.join(failures)}", file=sys.stderr)
    return 1


def _version(given: str | None, snapshot: Snapshot | None) -> tuple[KubernetesVersion, str]:
    """The release whose scheduler rules apply, and where that choice came from. Nodes
    that report no release (KWOK, virtual-kubelet) are warned about, never refused."""
    if given is not None:
        chosen = (
            KubernetesVersion.parse(given, field="--kubernetes-version"),
            "--kubernetes-version",
        )
    elif snapshot is not None and snapshot.version is not None:
        chosen = snapshot.version, "the nodes' kubeletVersion"
    else:
        chosen = NEWEST_VALIDATED, "the default: the newest release the project validates"
    if snapshot is not None and snapshot.unversioned_nodes:
        snapshot.warnings.append(_unversioned_warning(snapshot.unversioned_nodes, *chosen))
    return chosen


def _unversioned_warning(
    nodes: Sequence[tuple[str, str]], version: KubernetesVersion, version_from: str
) -> str:
    name, reported = nodes[0]
    more = f" and {len(nodes) - 1} more report" if len(nodes) > 1 else " reports"
    advice = "" if version_from == "--kubernetes-version" else "; give --kubernetes-version"
    return (
        f"node {shown(name)}{more} kubeletVersion {shown(reported)}, not a Kubernetes "
        f"release (a virtual or simulated node, such as KWOK's or virtual-kubelet's): "
        f"judged by the rules of {version} ({version_from}){advice}"
    )


def _max_pending(value: str) -> int:
    from cdk8s_headroom.simulate.cluster import MAX_NODES

    # A threshold on nodes: a cluster has at most MAX_NODES, so a larger one is a typo.
    return int_text(value, field="--max-pending", minimum=0, maximum=MAX_NODES)


def _plan(args: argparse.Namespace) -> int:
    from cdk8s_headroom.cluster.plan import plan
    from cdk8s_headroom.simulate.manifests import read_manifests
    from cdk8s_headroom.simulate.report import parse_bursts

    manifests = read_manifests(args.manifests)
    bursts = parse_bursts(args.burst, manifests)
    max_pending = _max_pending(args.max_pending)
    snapshot = _snapshot(args)
    version, version_from = _version(args.kubernetes_version, snapshot)
    at = _at(args.at)
    report = plan(manifests, snapshot, version=version, version_from=version_from, bursts=bursts)
    if args.plot is not None:
        from cdk8s_headroom.simulate.plot import plot_report

        plot_report(report.whatif, args.plot)
        _wrote(args, args.plot)
    rendered, data = report.render(), report.to_json()
    if manifests.holds:
        from cdk8s_headroom.cluster.windows import plan_windows

        windows = plan_windows(manifests.holds, at)
        rendered, data = f"{rendered}\n{windows.render()}", {**data, "windows": windows.to_json()}
    print(json.dumps(data, indent=2) if args.json else rendered)
    return _verdict(args, report.failures(max_pending))


def _at(value: str | None) -> datetime:
    """``--at``: a time with its offset (ISO 8601); default now."""
    if value is None:
        return datetime.now(timezone.utc)
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        at = None
    if at is None or at.tzinfo is None:
        raise HeadroomConfigError(
            "--at",
            value,
            "a time with its UTC offset, e.g. 2026-12-07T09:00:00+01:00 or 2026-12-07T08:00Z",
        )
    return at


def _status(args: argparse.Namespace) -> int:
    from cdk8s_headroom.cluster.status import status
    from cdk8s_headroom.simulate.manifests import read_manifests

    manifests = read_manifests(args.manifests) if args.manifests is not None else None
    max_pending = _max_pending(args.max_pending)
    watch = _watch_options(args, max_pending)

    def judge() -> StatusReport:
        snapshot = _snapshot(args)
        version, version_from = _version(args.kubernetes_version, snapshot)
        return status(snapshot, version=version, version_from=version_from, manifests=manifests)

    if watch is not None:
        from cdk8s_headroom.cli.status_watch import watch_status

        code, last = watch_status(judge, watch)
        return _verdict(args, last.failures(max_pending)) if code else 0
    report = judge()
    if args.plot is not None:
        from cdk8s_headroom.simulate.plot import plot_usage

        plot_usage(
            list(report.allocatable),
            report.allocatable,
            [("now", report.usage)],
            args.plot,
            marks=report.plot_marks(),
        )
        _wrote(args, args.plot)
    print(json.dumps(report.to_json(), indent=2) if args.json else report.render())
    return _verdict(args, report.failures(max_pending))


def _watch_options(args: argparse.Namespace, max_pending: int) -> WatchOptions | None:
    """``status --watch``'s options, or ``None`` without ``--watch`` (whose own flags
    are refused then, as ``--plot`` is with it)."""
    from cdk8s_headroom.vocabulary.durations import flag_duration

    if not args.watch:
        for flag, value in (
            ("--interval", args.interval),
            ("--timeout", args.timeout),
            ("--until-settled", args.until_settled or None),
        ):
            if value is not None:
                raise HeadroomConfigError(flag, value, "no value without --watch")
        return None
    if args.plot is not None:
        raise HeadroomConfigError("--plot", str(args.plot), "no value with --watch")
    from cdk8s_headroom.cli.status_watch import DEFAULT_INTERVAL, WatchOptions

    return WatchOptions(
        interval=flag_duration(args.interval or DEFAULT_INTERVAL, field="--interval"),
        timeout=None if args.timeout is None else flag_duration(args.timeout, field="--timeout"),
        until_settled=args.until_settled,
        max_pending=max_pending,
        as_json=args.json,
    )


def _snapshot(args: argparse.Namespace) -> Snapshot:
    """The listing files of ``--snapshot``, or else the cluster itself, read through the
    kubeconfig context as kubectl would (docs/plan-status.md, "Reading the cluster")."""
    live = {
        flag: value
        for flag, value in (
            ("--kubeconfig", args.kubeconfig),
            ("--context", args.context),
            ("--request-timeout", args.request_timeout),
        )
        if value is not None
    }
    if args.snapshot:
        from cdk8s_headroom.cluster.snapshot import read_snapshot

        if live:
            flag, value = next(iter(live.items()))
            raise HeadroomConfigError(
                flag, str(value), "no value with --snapshot: read a listing file or a cluster"
            )
        return read_snapshot(*args.snapshot)
    from cdk8s_headroom.cluster.live_listing import DEFAULT_REQUEST_TIMEOUT, ClusterSource

    return ClusterSource(
        kubeconfig=args.kubeconfig,
        context=args.context,
        request_timeout=args.request_timeout or DEFAULT_REQUEST_TIMEOUT,
    ).read()


def _validate(args: argparse.Namespace) -> int:
    from cdk8s_headroom.validate.models import ValidatorError
    from cdk8s_headroom.validate.report import run

    try:
        return run(args.path)
    except ValidatorError as error:  # a validator broken, not a bad object
        print(f"cdk8s-headroom validate: error: {' '.join(str(error).split())}", file=sys.stderr)
        return 2


def _add_burst(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--burst",
        action="append",
        default=[],
        metavar="NAME=COUNT",
        help="how many pods of burst Deployment NAME arrive (default: its replicas)",
    )


def _add_common(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--kubernetes-version",
        metavar="X.Y",
        help="the release whose scheduler rules apply (default: for plan and status, the "
        f"nodes' kubeletVersion; otherwise {NEWEST_VALIDATED})",
    )
    command.add_argument("--plot", type=Path, metavar="PNG", help="draw capacity per node")
    command.add_argument("--json", action="store_true", help="print the result as JSON")


def _add_snapshot(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--snapshot",
        action="append",
        metavar="PATH",
        help="kubectl get nodes,pods,priorityclasses,poddisruptionbudgets -A -o json "
        "(JSON or YAML): a file, a folder (read recursively) or - for stdin; give it "
        "again for more files, such as kubectl get events -A -o json (default: read "
        "the cluster of --context through kubectl)",
    )
    command.add_argument(
        "--kubeconfig",
        type=Path,
        metavar="PATH",
        help="the kubeconfig to read the cluster with (default: kubectl's: $KUBECONFIG, "
        "then ~/.kube/config; in a pod, its service account)",
    )
    command.add_argument(
        "--context",
        metavar="NAME",
        help="the kubeconfig context to read (default: its current context)",
    )
    command.add_argument(
        "--request-timeout",
        metavar="DURATION",
        help="each request's bound, as kubectl's (default: 30s)",
    )
    command.add_argument(
        "--max-pending",
        default="0",
        metavar="N",
        help="exit 1 when more target nodes than N wait for their slice (default: 0)",
    )


def _simulate_arguments(simulate: argparse.ArgumentParser) -> None:
    simulate.add_argument("--scenario", type=Path, help="a scenario file (JSON or YAML)")
    simulate.add_argument("--manifests", type=Path, help="the synthesized manifests (dist/)")
    simulate.add_argument("--cluster", type=Path, help="the cluster file (YAML or JSON)")
    _add_burst(simulate)
    _add_common(simulate)
    simulate.set_defaults(run=_simulate)


def _plan_arguments(plan: argparse.ArgumentParser) -> None:
    plan.add_argument(
        "--manifests", type=Path, required=True, help="the synthesized manifests (dist/)"
    )
    _add_snapshot(plan)
    _add_burst(plan)
    plan.add_argument(
        "--at",
        metavar="TIME",
        help="the time whose windows are in force, with its offset, e.g. "
        "2026-12-07T09:00:00+01:00 (default: now)",
    )
    _add_common(plan)
    plan.set_defaults(run=_plan)


def _status_arguments(status: argparse.ArgumentParser) -> None:
    _add_snapshot(status)
    status.add_argument(
        "--watch",
        action="store_true",
        help="judge again every --interval and print what changes; ends on Ctrl-C or "
        "--timeout with the last verdict's status, or with 1 as soon as the verdict "
        "crosses --max-pending",
    )
    status.add_argument(
        "--interval", metavar="DURATION", help="with --watch, the time between reads (default: 10s)"
    )
    status.add_argument(
        "--timeout", metavar="DURATION", help="with --watch, stop after this long (default: never)"
    )
    status.add_argument(
        "--until-settled",
        action="store_true",
        help="with --watch, end with 0 as soon as the verdict holds (with --timeout, 1 if "
        "it does not by then): wait for a headroom after kubectl apply",
    )
    status.add_argument(
        "--manifests",
        type=Path,
        help="the synthesized manifests: name the headrooms and their target nodes "
        "(default: read from the reserver pods)",
    )
    _add_common(status)
    status.set_defaults(run=_status)


def _validate_arguments(validate: argparse.ArgumentParser) -> None:
    validate.add_argument("path", type=Path, metavar="PATH", help="the manifests (e.g. dist)")
    validate.set_defaults(run=_validate)


COMMANDS: dict[str, tuple[str, str, Callable[[argparse.ArgumentParser], None]]] = {
    "simulate": (
        "what the scheduler does with the headroom: placements, evictions, P1-P3",
        "A what-if of kube-scheduler's fit and preemption decisions. With --scenario, "
        "the decision for one pod; with --manifests and --cluster, the reservers' "
        "establishment, the burst arrivals, the recreations and a verdict on P1-P3.",
        _simulate_arguments,
    ),
    "plan": (
        "what kubectl apply of the manifests does on a cluster, from a kubectl snapshot",
        "Per reserver DaemonSet of the manifests: the target nodes, where it runs right "
        "after apply, where it waits and why; the classes that can still preempt it; "
        "conflicts with the cluster's classes; the burst what-if and P1-P3; the time "
        "window in force at --at for room held in windows. Exit 1 "
        "when a reserver's selector matches no node, a promise breaks, a class "
        "conflicts, or more nodes wait than --max-pending; the last line (stderr) "
        "says which.",
        _plan_arguments,
    ),
    "status": (
        "is the headroom there: held, in use, eroded and missing slices",
        "Per headroom (pods labelled app.kubernetes.io/component=headroom-reserver): "
        "nodes where the slice is held, in use by a burst, eroded by other pods (and "
        "by which), or missing a reserver; the time window in force, by its pods; "
        "recent Preempted events. Exit 1 when no "
        "headroom is found, a headroom's selector matches no node, or more nodes are "
        "eroded or missing than --max-pending; the last line (stderr) says which.",
        _status_arguments,
    ),
    "validate": (
        "would the API server accept these manifests: schemas, Pod Security, checkov",
        "One line per object of PATH (a folder, read recursively, or a file): the strict "
        "schemas of Kubernetes and of the CRDs the project emits, the API server's rules "
        "on requests, limits and schedules, Pod Security restricted, and checkov when it "
        "is installed. Exit 0 when every object passes, 1 when one fails or a file "
        "cannot be read, 2 when PATH cannot be read.",
        _validate_arguments,
    ),
    "gitops": (gitops.HELP, gitops.DESCRIPTION, gitops.add_arguments),
}
"""Each command: its help line, its description, and what declares its arguments."""


class _PrintVersion(argparse.Action):
    """``--version``: the version of the package as installed. Looked up only when asked:
    importing importlib.metadata costs more than a one-pod scenario's start-up."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the installed version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import version

        print(f"{parser.prog} {version('cdk8s-headroom')}")
        parser.exit()


def _parser(chosen: str | None = None) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The command line, and the ``chosen`` command's own parser (the top level's when
    no command is chosen). Every command is listed, but only the ``chosen`` one declares
    its arguments: argparse formats each argument's help as it is added, and declaring
    all of them would cost a one-pod scenario a few milliseconds of its start-up."""
    parser = argparse.ArgumentParser(
        prog="cdk8s-headroom", description="Tools for the node reserved headroom pattern."
    )
    parser.add_argument("--version", action=_PrintVersion)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    own = parser
    for name, (help_line, description, arguments) in COMMANDS.items():
        command = commands.add_parser(name, help=help_line, description=description)
        if name == chosen:
            arguments(command)
            own = command
    return parser, own


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command; invalid input prints the message, not a traceback, and exits 2."""
    argv = sys.argv[1:] if argv is None else list(argv)
    # The command is the first word that is no option: the top level takes only --help
    # and --version.
    chosen = next((word for word in argv if not word.startswith("-")), None)
    parser, own = _parser(chosen)
    args, extra = parser.parse_known_args(argv)
    if extra:
        # argparse leaves a command's extra words to the top level, which would show
        # its own usage; the chosen command's usage is the one that helps.
        own.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        result: int = args.run(args)
        sys.stdout.flush()
    except HeadroomConfigError as error:
        print(f"cdk8s-headroom {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader left (`... | head`): as other command-line tools, stop quietly.
        # Python would flush stdout again at exit and print the error there.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return result
