"""Reading the cluster itself: the listing that ``plan`` and ``status`` otherwise read
from a ``kubectl get ... -o json`` file, taken from a kubeconfig context.

The read runs kubectl, the tool every kubeconfig is written for: it finds the
kubeconfig and context as the user's other commands do (``--kubeconfig``, then
``$KUBECONFIG``, then ``~/.kube/config``; in a pod, the service account), runs the
credential plugins that managed clusters use (``aws eks get-token``,
``gke-gcloud-auth-plugin``, OIDC), lists in pages of 500 at one resourceVersion, and says
what went wrong in its own words, which the message passes on.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cdk8s_headroom.cluster.snapshot import Snapshot, load_snapshot
from cdk8s_headroom.vocabulary.durations import flag_duration
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

LISTED = (
    "nodes",
    "pods",
    "priorityclasses.scheduling.k8s.io",
    "poddisruptionbudgets.policy",
    "daemonsets.apps",
)
"""What plan and status read, in all namespaces: the listing docs/plan-status.md asks
for, and the DaemonSets, whose controller's own counts status shows beside its
verdicts."""

BUFFERS = ("capacitybuffers.autoscaling.x-k8s.io",)
"""Read where the cluster serves them (the CRD of Karpenter or Cluster Autoscaler):
status shows each buffer's provisioned replicas and conditions."""

PREEMPTED_EVENTS = ("events", "--field-selector", "reason=Preempted")
"""The scheduler's ``Preempted`` events, which status reports: only those, since a
cluster keeps thousands of other events for an hour."""

READ_VERBS = ("get", "list")
"""What a user needs on ``LISTED`` and events, cluster-wide (docs/plan-status.md,
"Reading the cluster")."""

_KLOG_LINE = re.compile(r"^[IWEF][0-9]{4} ")

REQUESTS_PER_READ = 40
"""How many request timeouts a whole read may take before it is stopped: kubectl bounds
each request, not the pages of a large cluster together (30,000 pods are 60 pages), and
a credential plugin that waits for someone is never answered (its input is empty)."""

DEFAULT_REQUEST_TIMEOUT = "30s"
WAITS_FOR_EVER = "waits for ever, as kubectl's default does"


@dataclass(frozen=True, kw_only=True)
class ClusterSource:
    """Where ``plan`` and ``status`` read the cluster from.

    Attributes:
        kubeconfig: the kubeconfig file (default: kubectl's: ``$KUBECONFIG``, then
            ``~/.kube/config``, then the pod's service account).
        context: the context (default: the kubeconfig's current context).
        request_timeout: each request's bound, as kubectl's ``--request-timeout``
            (default: ``30s``).
        kubectl: the kubectl to run (default: ``kubectl`` on ``PATH``).
        chunk_size: objects per page, as kubectl's ``--chunk-size`` (default: 500,
            kubectl's own): the pages of one list are read at the resourceVersion of
            the first, so pods that come and go while it is read are seen as they
            were then, each once.
    """

    kubeconfig: Path | None = None
    context: str | None = None
    request_timeout: str = DEFAULT_REQUEST_TIMEOUT
    kubectl: str = "kubectl"
    chunk_size: int = 500

    def __post_init__(self) -> None:
        flag_duration(self.request_timeout, field="--request-timeout", zero=WAITS_FOR_EVER)
        if isinstance(self.chunk_size, bool) or not 0 < self.chunk_size <= 10_000:
            raise HeadroomConfigError("chunk_size", self.chunk_size, "a number from 1 to 10000")
        if self.context is not None and not self.context.strip():
            raise HeadroomConfigError("--context", self.context, "the name of a context")

    @property
    def named(self) -> str:
        """The source as messages name it."""
        if self.context is not None:
            return self.context
        return "the current context" + (f" of {self.kubeconfig}" if self.kubeconfig else "")

    def _seconds(self) -> float | None:
        request = flag_duration(
            self.request_timeout, field="--request-timeout", zero=WAITS_FOR_EVER
        )
        return request * REQUESTS_PER_READ if request else None

    def _kubectl(self) -> list[str]:
        """kubectl with the kubeconfig and context chosen."""
        command = [self.kubectl]
        if self.kubeconfig is not None:
            command += ["--kubeconfig", str(self.kubeconfig)]
        if self.context is not None:
            command += ["--context", self.context]
        return command

    def _command(self, *what: str) -> list[str]:
        return [
            *self._kubectl(),
            "--request-timeout",
            self.request_timeout,
            "get",
            *what,
            "--chunk-size",
            str(self.chunk_size),
            "--all-namespaces",
            "--output",
            "json",
        ]

    def _fail(self, allowed: str) -> HeadroomConfigError:
        """An error that names the context read: given, or the kubeconfig's current one."""
        return HeadroomConfigError("--context", self.context or self._current_context(), allowed)

    def _current_context(self) -> str | None:
        """The kubeconfig's current context, to name in a message (``None`` when it has
        none, or kubectl cannot say)."""
        try:
            done = subprocess.run(
                [*self._kubectl(), "config", "current-context"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() or None if done.returncode == 0 else None

    def _refusal(self, said: str) -> HeadroomConfigError:
        """kubectl's error, with what the user can do about it."""
        # kubectl's summary is its last lines; the lines before, in klog's format
        # (E1205 11:51:53.740492 ...), repeat each retry of the same failure.
        lines = [
            line.strip()
            for line in said.splitlines()
            if line.strip() and not _KLOG_LINE.match(line)
        ]
        quoted = " ".join(lines[-2:]) if lines else "(nothing)"
        if len(quoted) > 400:
            quoted = quoted[:400] + "…"
        if "forbidden" in said.lower():
            return self._fail(
                f"a context whose user may {' and '.join(READ_VERBS)} "
                f"{', '.join(name.split('.')[0] for name in LISTED)} and events in all "
                'namespaces (docs/plan-status.md, "Reading the cluster", gives the '
                f"ClusterRole); kubectl said: {quoted}"
            )
        if "context" in said and ("not found" in said or "does not exist" in said):
            return self._fail(f"a context of the kubeconfig; kubectl said: {quoted}")
        return self._fail(
            f"a context whose API server answers within --request-timeout "
            f"{self.request_timeout}; kubectl said: {quoted}"
        )

    def read(self) -> Snapshot:
        """The listing, the Preempted events and the CapacityBuffers, read at once
        (kubectl commands side by side), as a snapshot.

        Raises:
            HeadroomConfigError: kubectl is missing, the context is unknown, the server
                does not answer, a list of ``LISTED`` is forbidden, or the cluster has
                no nodes.
        """
        self._check_kubeconfig()
        running = [
            self._run(",".join(LISTED)),
            self._run(*PREEMPTED_EVENTS),
            self._run(*BUFFERS),
        ]
        warnings = []
        try:
            items = _items(self._wait(running[0]))
            # The events and the buffers only add to status's report: a user who may not
            # list them still gets every verdict, and is told what is missing; a cluster
            # without the CapacityBuffer CRD simply has no buffers.
            for what, started in (
                ("Preempted events", running[1]),
                ("CapacityBuffers", running[2]),
            ):
                try:
                    items += _items(self._wait(started))
                except HeadroomConfigError as refused:
                    said = str(refused).split("kubectl said: ", 1)[-1]
                    if "doesn't have a resource type" in said:
                        continue
                    if "forbidden" not in said.lower():
                        raise
                    warnings.append(f"{what} not read: {said}")
        finally:
            for process, _ in running:
                if process.poll() is None:
                    process.kill()
                    process.communicate()
        source = f"kubectl get ({self.named})"
        snapshot = load_snapshot(
            ((source, item) for item in items), named=f"--context {self.named}"
        )
        snapshot.warnings.extend(warnings)
        return snapshot

    def _check_kubeconfig(self) -> None:
        """Without a kubeconfig kubectl asks ``localhost:8080``, and its refusal would
        blame that server: say that there is no kubeconfig instead."""
        if self.kubeconfig is not None:
            if not self.kubeconfig.is_file():
                raise HeadroomConfigError(
                    "--kubeconfig", str(self.kubeconfig), "a kubeconfig file that exists"
                )
            return
        if os.environ.get("KUBECONFIG") or os.environ.get("KUBERNETES_SERVICE_HOST"):
            return
        if not (Path.home() / ".kube" / "config").is_file():
            raise HeadroomConfigError(
                "--kubeconfig",
                None,
                "a kubeconfig: none was given, $KUBECONFIG is unset and ~/.kube/config "
                "does not exist; or a listing file with --snapshot",
            )

    def _run(self, *what: str) -> tuple[subprocess.Popen[bytes], float | None]:
        try:
            process = subprocess.Popen(
                self._command(*what),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except FileNotFoundError:
            raise self._fail(
                f"kubectl on PATH ({self.kubectl!r} was not found), which plan and status "
                "run to read a cluster; or a listing file with --snapshot"
            ) from None
        return process, self._seconds()

    def _wait(self, running: tuple[subprocess.Popen[bytes], float | None]) -> bytes:
        process, seconds = running
        try:
            out, err = process.communicate(timeout=seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise self._fail(
                f"a context whose API server answers: the read took longer than "
                f"{REQUESTS_PER_READ} times --request-timeout {self.request_timeout}"
            ) from None
        if process.returncode != 0:
            raise self._refusal(err.decode(errors="replace"))
        return out


def reader_rules() -> list[dict[str, list[str]]]:
    """The ClusterRole rules a read-only user of plan and status needs: ``READ_VERBS``
    on what ``LISTED`` names and on events, by API group (docs/plan-status.md)."""
    groups: dict[str, list[str]] = {}
    for name in (*LISTED, PREEMPTED_EVENTS[0], *BUFFERS):
        resource, _, group = name.partition(".")
        groups.setdefault(group, []).append(resource)
    return [
        {"apiGroups": [group], "resources": resources, "verbs": list(READ_VERBS)}
        for group, resources in groups.items()
    ]


def _items(output: bytes) -> list[object]:
    """The objects of kubectl's ``-o json`` List (each with its kind and apiVersion)."""
    listing = json.loads(output)
    items = listing.get("items") if isinstance(listing, dict) else None
    return list(items) if isinstance(items, list) else []
