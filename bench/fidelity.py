"""`make fidelity`: `simulate --scenario` against the live kube-scheduler of each
release the live tier builds, on many random scenarios (issue 33).

    python bench/fidelity.py --seed 33 --count 500 [--release 1.37]

For each release: a cluster is started, ``--count`` scenarios of ``--seed``
(``e2e/scenarios.py``) run side by side in batches (``e2e/differential.py``), and each
decision is compared with the simulator's, tie-aware. Prints, and writes into
bench/results.md (its section "Differential fidelity", replaced on each run):

- agreement per release, in scenarios and per cent (goal: at least 99.5 %);
- speed: the median over scenarios of simulate's whole run (``cdk8s-headroom simulate
  --scenario FILE --json``, in process: reading, deciding, printing) over the live round
  for the same scenario on a cluster already up (releasing the preemptor to reading
  its decision back); goal at most 1/20. Beside it the scheduler's own decision time
  (releasing the preemptor to its first scheduler event, whose ``eventTime`` has
  microseconds) and a command's run as a new process (interpreter start included).

Every disagreement is added to tests/simulate/vectors/differential-<release>.json.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from e2e import build  # noqa: E402
from e2e.cluster import LiveCluster  # noqa: E402
from e2e.differential import Tally, record_vectors, run  # noqa: E402
from e2e.scenario_generator import generate_many  # noqa: E402

RESULTS = ROOT / "bench" / "results.md"
HEADING = "## Differential fidelity (`make fidelity`)"
PROCESS_SAMPLE = 5


def _process_seconds(folder: Path) -> float:
    """``cdk8s-headroom simulate --scenario`` as a new process, median of a few files."""
    files = sorted(folder.glob("*.json"))[:PROCESS_SAMPLE]
    times = []
    for path in files:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "cdk8s_headroom", "simulate", "--scenario", str(path), "--json"],
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times) if times else float("nan")


def _row(tally: Tally, process: float, seconds: float) -> str:
    outcomes = tally.outcomes
    ratio = statistics.median(o.simulate_seconds / o.live.round_seconds for o in outcomes)
    scheduler = [o.live.scheduler_seconds for o in outcomes if o.live.scheduler_seconds is not None]
    return (
        f"| {tally.release} | {tally.agreed} of {len(outcomes)} ({100 * tally.share:.1f} %) "
        f"| {sum(o.exact for o in outcomes)} | "
        f"{1000 * statistics.median(o.simulate_seconds for o in outcomes):.1f} ms | "
        f"{1000 * statistics.median(o.live.round_seconds for o in outcomes):.0f} ms | "
        f"1/{1 / ratio:.0f} | "
        f"{1000 * statistics.median(scheduler):.0f} ms | {1000 * process:.0f} ms | "
        f"{seconds / 60:.1f} min |"
    )


def _write(section: str) -> None:
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmarks\n"
    text = re.sub(rf"\n{re.escape(HEADING)}\n.*?(?=\n## |\Z)", "", text, flags=re.DOTALL)
    RESULTS.write_text(text.rstrip("\n") + "\n\n" + section)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/fidelity.py", description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--release", action="append", choices=build.releases())
    args = parser.parse_args(argv)
    rows = []
    short = False
    for release in args.release or build.releases():
        binaries = build.release_binaries(release)
        cluster = LiveCluster.start(binaries, name=f"fidelity-{release.replace('.', '')}")
        started = time.monotonic()
        try:
            with tempfile.TemporaryDirectory() as scratch:
                folder = Path(scratch)
                tally = run(cluster, list(generate_many(args.seed, args.count)), folder)
                process = _process_seconds(folder)
        finally:
            cluster.stop()
        disagreements = [o for o in tally.outcomes if not o.agrees]
        if disagreements:
            print(f"fidelity: {record_vectors(release, disagreements)}", file=sys.stderr)
        short = short or tally.share < 0.995
        rows.append(_row(tally, process, time.monotonic() - started))
        print(rows[-1], flush=True)
    section = (
        f"{HEADING}\n\n"
        f"Seed {args.seed}, {args.count} scenarios per release (`e2e/scenarios.py`), on a "
        "live control plane per release (`e2e/differential.py`). Agreement: the same node "
        "and victims or both unschedulable, or one of the answers the scheduler may reach "
        "by breaking a tie (goal ≥ 99.5 %); exact: the simulator's own answer. Speed: the "
        "median of simulate's run in process over the live round of the same scenario "
        "(goal ≤ 1/20), beside the scheduler's own decision time and the command as a new "
        "process.\n\n"
        "| release | agreement | exact | simulate | live round | simulate / live | "
        "scheduler | command (process) | wall |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n" + "\n".join(rows) + "\n"
    )
    _write(section)
    print(section)
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
