"""`simulate --scenario` judged by the real kube-scheduler (issue 33).

A batch of generated scenarios (``e2e/scenarios.py``) runs side by side on one
``LiveCluster``: each on nodes of its own, in a namespace of its own. The bound pods are
created with ``spec.nodeName`` in waves one second apart, so the scheduler starts from
the scenario's placement; each preemptor is created behind a scheduling gate. The live
objects are then listed and read back into a scenario file (start times as KWOK set
them, each budget's ``disruptionsAllowed`` as the disruption controller counted it,
requests as the API server admitted them, through ``cluster.snapshot``, the reader of
``plan`` and ``status``). Then the preemptors are released one at a time, and the
scheduler's decision is read back: the node it binds to or nominates, the pods it
preempted (``Preempted`` events, ``pkg/scheduler/framework/preemption/preemption.go``
``prepareCandidate``), or unschedulable with its message.

The same scenario file goes through ``cdk8s-headroom simulate --scenario``. They agree
when they name the same node and victims, or both leave the pod unschedulable, or where
the scheduler breaks a tie at random, when the scheduler's answer is one of the equally
good ones (``answers``; ``e2e/differential_answers.py`` holds the side without a
cluster).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cdk8s_headroom.cli import main as cli_main
from cdk8s_headroom.simulate.versions import KubernetesVersion
from e2e.cluster import ClusterError, LiveCluster, Manifest, processes_under
from e2e.differential_answers import Answer, answers, scenario_from_listing, simulate_answer
from e2e.scenarios import (
    DISRUPTION_TARGET,
    WAVES,
    GeneratedScenario,
    batches,
    cluster_objects,
    namespace_manifest,
    rfc3339,
)

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "simulate" / "vectors"
"""Where disagreements are kept, one file per release, in the format of the upstream
preemption vectors (``shared/preemption/*.json``) that ``tests/simulate`` reads."""


# -- the live side ------------------------------------------------------------------------


@dataclass
class LiveDecision:
    answer: Answer
    bound: bool
    message: str
    round_seconds: float
    """From releasing the preemptor to reading the decision back."""
    scheduler_seconds: float | None
    """From releasing the preemptor to the scheduler's first event on it (the events
    API's ``eventTime`` has microseconds)."""


@dataclass
class Outcome:
    scenario: GeneratedScenario
    release: str
    file: dict[str, Any]
    live: LiveDecision
    simulated: Answer
    alternatives: set[Answer]
    simulate_seconds: float

    @property
    def agrees(self) -> bool:
        return self.live.answer == self.simulated or self.live.answer in self.alternatives

    @property
    def exact(self) -> bool:
        return self.live.answer == self.simulated

    def vector(self) -> dict[str, Any]:
        """The disagreement as a regression vector (the upstream vectors' format)."""
        return {
            **self.file,
            "name": f"differential {self.scenario.key} ({self.scenario.corner.value})",
            "source": (
                f"e2e/differential.py, seed {self.scenario.seed}, scenario "
                f"{self.scenario.index}, kube-scheduler {self.release}"
            ),
            "expected": {
                "node": self.live.answer.node,
                "victims": sorted(self.live.answer.victims),
            },
            "notes": [
                f"kube-scheduler {self.release}: {self.live.message}",
                f"simulate: {json.dumps(self.simulated.to_json())}",
                "equally good answers by the model: "
                + json.dumps(sorted((a.to_json() for a in self.alternatives), key=json.dumps)),
            ],
        }


_PREEMPTED = re.compile(r"Preempted by (?:pod )?(?P<uid>[0-9a-f-]{36})")


def _micro_time(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _kwok_pids(cluster: LiveCluster) -> list[int]:
    """The KWOK controller's processes (kwokctl runs a copy of the binary, so it is
    found by its name under the cluster's folder)."""
    found = []
    for pid in processes_under(cluster.workdir):
        with contextlib.suppress(OSError):
            program = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
            if Path(program.decode()).name in ("kwok", "kwok-controller"):
                found.append(pid)
    return found


@contextlib.contextmanager
def kubelets_paused(cluster: LiveCluster) -> Iterator[None]:
    """KWOK stopped: a deleted pod stays terminating (no kubelet confirms it)."""
    pids = _kwok_pids(cluster)
    if not pids:
        raise RuntimeError("no KWOK controller process found under the cluster's folder")
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def _bound(pod: Manifest) -> bool:
    return bool(pod["spec"].get("nodeName"))


def _unschedulable(pod: Manifest) -> bool:
    """The scheduler tried and failed (a gated pod's reason is SchedulingGated)."""
    return any(
        c["type"] == "PodScheduled" and c.get("reason") == "Unschedulable"
        for c in pod["status"].get("conditions", [])
    )


class BatchRun:
    """One batch of scenarios on ``cluster``."""

    def __init__(self, cluster: LiveCluster, scenarios: Sequence[GeneratedScenario]) -> None:
        self.cluster = cluster
        self.scenarios = list(scenarios)
        self.version = KubernetesVersion.parse(cluster.binaries.release, field="release")

    def _pods_of(self, namespaces: Iterable[str]) -> list[Manifest]:
        wanted = set(namespaces)
        return [
            p
            for p in self.cluster.get_json("pods", "-A")["items"]
            if p["metadata"]["namespace"] in wanted
        ]

    def set_up(self) -> None:
        cluster = self.cluster
        cluster.add_nodes([n.shape() for s in self.scenarios for n in s.nodes])
        cluster.apply(
            [namespace_manifest(s.namespace) for s in self.scenarios]
            + [b for s in self.scenarios for b in s.budget_manifests()]
        )
        namespaces = [s.namespace for s in self.scenarios]
        for wave in range(WAVES):
            pods = [s.pod_manifest(p) for s in self.scenarios for p in s.pods if p.wave == wave]
            if pods:
                cluster.apply(pods)
            names = {(p["metadata"]["namespace"], p["metadata"]["name"]) for p in pods}

            def started(names: set[tuple[str, str]] = names) -> bool:
                return all(
                    p["status"].get("startTime")
                    for p in self._pods_of(namespaces)
                    if (p["metadata"]["namespace"], p["metadata"]["name"]) in names
                )

            cluster.wait_for(started, what=f"wave {wave} of the bound pods started")
            # the next wave starts in a later second
            time.sleep(1.05 - (time.time() % 1.0))
        cluster.apply([s.preemptor_manifest(gated=True) for s in self.scenarios])
        self._wait_for_budgets()

    def _wait_for_budgets(self) -> None:
        wanted = {s.namespace for s in self.scenarios if s.budgets}

        def counted() -> bool:
            for pdb in self.cluster.get_json("pdb", "-A")["items"]:
                if pdb["metadata"]["namespace"] not in wanted:
                    continue
                status = pdb.get("status", {})
                if status.get("observedGeneration") != pdb["metadata"]["generation"]:
                    return False
            return True

        self.cluster.wait_for(counted, what="every budget counted by the disruption controller")

    def listing(self) -> list[Manifest]:
        cluster = self.cluster
        items: list[Manifest] = []
        for kind in ("nodes", "priorityclasses"):
            items += cluster.get_json(kind)["items"]
        for kind in ("pods", "poddisruptionbudgets"):
            items += cluster.get_json(kind, "-A")["items"]
        return items

    def release(self, scenario: GeneratedScenario, *, timeout: float = 60) -> LiveDecision:
        """Removes the preemptor's gate and waits for the scheduler's decision."""
        cluster = self.cluster
        ns = scenario.namespace
        name = scenario.preemptor.name
        before = {e["metadata"]["uid"] for e in cluster.get_json("events", "-n", ns)["items"]}
        standing = {
            p["metadata"]["name"]
            for p in cluster.get_json("pods", "-n", ns)["items"]
            if not p["metadata"].get("deletionTimestamp") and p["metadata"]["name"] != name
        }
        start = time.time()
        cluster.kubectl(
            "patch", "pod", name, "-n", ns, "--type=json",
            "-p", '[{"op": "remove", "path": "/spec/schedulingGates"}]',
        )  # fmt: skip

        def decided() -> Manifest | None:
            pod = self._pod(ns, name)
            return pod if _bound(pod) or _unschedulable(pod) else None

        found = cluster.wait_for(decided, timeout=timeout, what=f"a decision for {ns}/{name}")
        assert found is not None
        pod = found
        uid = pod["metadata"]["uid"]
        nominated = pod["status"].get("nominatedNodeName")
        if nominated and nominated != scenario.preemptor.nominated_node and not _bound(pod):
            # It preempted. The victims' deletion and their events follow the nomination
            # (asynchronously from 1.34), and the pod binds once they are gone.
            with contextlib.suppress(ClusterError):
                cluster.wait_for(
                    lambda: self._victims(ns, uid, before, standing),
                    timeout=60,
                    what=f"the victims of {ns}/{name} deleted",
                )
            if not scenario.terminating:  # KWOK is paused for those: none is ever gone
                with contextlib.suppress(ClusterError):
                    cluster.wait_for(
                        lambda: _bound(self._pod(ns, name)),
                        timeout=60,
                        what=f"{ns}/{name} bound after preemption",
                    )
            pod = self._pod(ns, name)
        victims = self._victims(ns, uid, before, standing)
        round_seconds = time.time() - start
        node = pod["spec"].get("nodeName") or pod["status"].get("nominatedNodeName") or None
        if scenario.terminating and not victims and not pod["spec"].get("nodeName"):
            node = None  # the nomination we set; the scheduler waits
        message = next(
            (
                c.get("message", "")
                for c in pod["status"].get("conditions", [])
                if c["type"] == "PodScheduled"
            ),
            "",
        )
        if pod["spec"].get("nodeName"):
            message = f"bound to {pod['spec']['nodeName']}" + (
                f" after preempting {', '.join(sorted(victims))}" if victims else ""
            )
        return LiveDecision(
            Answer(node, frozenset(victims)),
            bool(pod["spec"].get("nodeName")),
            message,
            round_seconds,
            self._scheduler_seconds(ns, name, start),
        )

    def _pod(self, namespace: str, name: str) -> Manifest:
        pod: Manifest
        (pod,) = self.cluster.get_json("pod", name, "-n", namespace)["items"]
        return pod

    def _victims(self, namespace: str, uid: str, before: set[str], standing: set[str]) -> set[str]:
        """The pods the preemptor preempted: named by a new ``Preempted`` event, or of
        its namespace, standing before it was released and deleted since (only the
        preemptor preempts in its namespace)."""
        found = set()
        for event in self.cluster.get_json("events", "-n", namespace)["items"]:
            if event["metadata"]["uid"] in before or event.get("reason") != "Preempted":
                continue
            match = _PREEMPTED.search(event.get("message", ""))
            if match and match["uid"] == uid:
                found.add(event["involvedObject"]["name"])
        still = {
            p["metadata"]["name"]
            for p in self.cluster.get_json("pods", "-n", namespace)["items"]
            if not p["metadata"].get("deletionTimestamp")
        }
        return found | (standing - still)

    def _scheduler_seconds(self, namespace: str, name: str, released: float) -> float | None:
        times = [
            _micro_time(e["eventTime"])
            for e in self.cluster.get_json("events.events.k8s.io", "-n", namespace)["items"]
            if e.get("regarding", {}).get("name") == name
            and e.get("reportingController") == "default-scheduler"
            and e.get("eventTime")
        ]
        times = [t for t in times if t >= released - 0.5]
        return max(0.0, min(times) - released) if times else None

    def hold_terminating(self, scenario: GeneratedScenario) -> None:
        """NOMINATED_WITH_TERMINATING_VICTIM, with KWOK paused: the victim is deleted
        and marked as the scheduler marks its victims, and the preemptor, still gated,
        is nominated to the victim's node."""
        cluster = self.cluster
        ns = scenario.namespace
        assert scenario.terminating and scenario.preemptor.nominated_node
        condition = {**DISRUPTION_TARGET, "lastTransitionTime": rfc3339(datetime.now(timezone.utc))}
        cluster.kubectl(
            "patch", "pod", scenario.terminating, "-n", ns, "--subresource=status",
            "--type=strategic", "-p", json.dumps({"status": {"conditions": [condition]}}),
        )  # fmt: skip
        cluster.kubectl("delete", "pod", scenario.terminating, "-n", ns, "--wait=false")
        cluster.kubectl(
            "patch", "pod", scenario.preemptor.name, "-n", ns, "--subresource=status",
            "--type=merge", "-p",
            json.dumps({"status": {"nominatedNodeName": scenario.preemptor.nominated_node}}),
        )  # fmt: skip


def run_simulate(scenario: Mapping[str, Any], version: KubernetesVersion, folder: Path) -> float:
    """``cdk8s-headroom simulate --scenario FILE --json --kubernetes-version``'s whole
    run in this process, timed: reading the file, deciding, printing."""
    path = folder / f"{scenario['name']}.json"
    path.write_text(json.dumps(scenario))
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = cli_main(
            ["simulate", "--scenario", str(path), "--json", "--kubernetes-version", str(version)]
        )
    elapsed = time.perf_counter() - start
    if code != 0:
        raise RuntimeError(f"simulate --scenario {path} exited {code}")
    return elapsed


def run_batch(
    cluster: LiveCluster, scenarios: Sequence[GeneratedScenario], folder: Path
) -> list[Outcome]:
    """Runs ``scenarios`` side by side on ``cluster`` and compares each with simulate."""
    run = BatchRun(cluster, scenarios)
    run.set_up()
    outcomes = []
    ordinary = [s for s in scenarios if not s.terminating]
    held = [s for s in scenarios if s.terminating]
    listing = run.listing()
    for scenario in ordinary:
        outcomes.append(_decide_and_compare(run, scenario, listing, folder))
    if held:
        with kubelets_paused(cluster):
            for scenario in held:
                run.hold_terminating(scenario)
            listing = run.listing()
            for scenario in held:
                outcomes.append(_decide_and_compare(run, scenario, listing, folder))
    return outcomes


def _decide_and_compare(
    run: BatchRun, scenario: GeneratedScenario, listing: list[Manifest], folder: Path
) -> Outcome:
    file = scenario_from_listing(
        listing, namespace=scenario.namespace, preemptor=scenario.preemptor.name
    )
    live = run.release(scenario)
    seconds = run_simulate(file, run.version, folder)
    return Outcome(
        scenario,
        run.cluster.binaries.release,
        file,
        live,
        simulate_answer(file, run.version),
        answers(file, run.version),
        seconds,
    )


@dataclass
class Tally:
    release: str
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def agreed(self) -> int:
        return sum(1 for o in self.outcomes if o.agrees)

    @property
    def share(self) -> float:
        return self.agreed / len(self.outcomes) if self.outcomes else 0.0


def prepare(cluster: LiveCluster) -> None:
    """What every batch shares: the classes and the RuntimeClass."""
    cluster.apply(cluster_objects())


def run(
    cluster: LiveCluster,
    scenarios: Sequence[GeneratedScenario],
    folder: Path,
    *,
    batch_nodes: int = 120,
    report: Callable[[Outcome], None] | None = None,
) -> Tally:
    """Every scenario, in batches of at most ``batch_nodes`` nodes, the cluster reset
    between batches."""
    tally = Tally(cluster.binaries.release)
    for number, batch in enumerate(batches(scenarios, nodes=batch_nodes)):
        if number:
            cluster.reset()
        prepare(cluster)
        for outcome in run_batch(cluster, batch, folder):
            tally.outcomes.append(outcome)
            if report is not None:
                report(outcome)
    return tally


def record_vectors(release: str, disagreements: Iterable[Outcome]) -> Path:
    """Adds each disagreement not yet kept to ``VECTORS/differential-<release>.json``,
    its ``reasoning`` saying what is left to do."""
    path = VECTORS / f"differential-{release}.json"
    kept = json.loads(path.read_text()) if path.exists() else []
    names = {vector["name"] for vector in kept}
    for outcome in disagreements:
        vector = outcome.vector()
        if vector["name"] not in names:
            kept.append({**vector, "reasoning": "to do: fix the simulator or explain the limit"})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(kept, indent=1) + "\n")
    return path
