"""The monitoring stack a cluster already has, beside a live cluster: kube-state-metrics
(built from its pinned module by ``e2e/build.py``) watching the cluster's API server,
and Prometheus (``/usr/bin/prometheus``, from Debian's ``prometheus`` package, which
also gives promtool) scraping it and evaluating a rule file, both on loopback.

The scrape and the rule evaluation run every second, so an alert's ``for:`` (shortened
through ``HeadroomAlerts``' props) decides how long a test waits, not the intervals.
Everything the stack writes but its logs lives in one temporary folder, removed by
:meth:`Monitoring.stop` with both processes; the logs go where the caller says (the
cluster's log folder, so a failed test keeps them with the components' logs).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import yaml

from e2e.cluster import ClusterError, LiveCluster, Manifest

T = TypeVar("T")
PROMETHEUS = Path("/usr/bin/prometheus")
KSM_JOB = "kube-state-metrics"
INTERVAL = "1s"
"""Scrape and rule-evaluation interval."""
KSM_RESOURCES = ("daemonsets", "deployments", "pods")
"""The collectors whose series the alert rules read (vocabulary/alert_rules.py)."""
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class MonitoringError(ClusterError):
    """kube-state-metrics or Prometheus did not start or answer; names which and why."""


@dataclass(frozen=True)
class AlertRule:
    """One alerting rule as Prometheus evaluates it (``/api/v1/rules``).

    Attributes:
        name: the alert's name.
        state: ``inactive``, ``pending`` (its expression holds, for less than its
            ``for:``) or ``firing``.
        hold_seconds: its ``for:``.
        evaluated_at: when Prometheus last evaluated it (Unix seconds).
        active_since: when its oldest alert became active (Unix seconds), if any.
    """

    name: str
    state: str
    hold_seconds: float
    evaluated_at: float
    active_since: float | None


class Monitoring:
    """kube-state-metrics and Prometheus, started with :meth:`start` and always ended
    with :meth:`stop`."""

    def __init__(self, workdir: Path, logs: Path) -> None:
        self.workdir = workdir
        self.logs = logs
        self.ports: dict[str, int] = {}
        self._processes: dict[str, subprocess.Popen[bytes]] = {}

    @classmethod
    def start(
        cls,
        cluster: LiveCluster,
        kube_state_metrics: Path,
        rule_groups: Sequence[Mapping[str, Any]],
        *,
        logs: Path,
    ) -> Monitoring:
        """Starts kube-state-metrics on ``cluster``'s API server and Prometheus scraping
        it with ``rule_groups`` (``PrometheusRule.spec.groups``, what the Prometheus
        Operator writes into a rule file), and waits until Prometheus has scraped it."""
        stack = cls(Path(tempfile.mkdtemp(prefix="headroom-monitoring-")), logs)
        try:
            stack._start(cluster, kube_state_metrics, rule_groups)
        except BaseException:
            stack.stop()
            raise
        return stack

    def _start(
        self,
        cluster: LiveCluster,
        kube_state_metrics: Path,
        rule_groups: Sequence[Mapping[str, Any]],
    ) -> None:
        for name in ("metrics", "telemetry", "prometheus"):
            self.ports[name] = free_port()
        kubeconfig = self.workdir / "kubeconfig"
        shutil.copyfile(cluster.kubeconfig, kubeconfig)
        self._run(
            "kube-state-metrics",
            str(kube_state_metrics),
            f"--kubeconfig={kubeconfig}",
            f"--resources={','.join(KSM_RESOURCES)}",
            "--host=127.0.0.1",
            f"--port={self.ports['metrics']}",
            "--telemetry-host=127.0.0.1",
            f"--telemetry-port={self.ports['telemetry']}",
        )
        rules = self.workdir / "rules.yaml"
        rules.write_text(yaml.safe_dump({"groups": [dict(group) for group in rule_groups]}))
        config = self.workdir / "prometheus.yml"
        config.write_text(yaml.safe_dump(self._config(rules)))
        self._run(
            "prometheus",
            str(PROMETHEUS),
            f"--config.file={config}",
            f"--storage.tsdb.path={self.workdir / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{self.ports['prometheus']}",
        )
        self.wait_for(
            lambda: self.query(f'up{{job="{KSM_JOB}"}} == 1'),
            what="Prometheus scraping kube-state-metrics",
        )

    def _config(self, rules: Path) -> Manifest:
        # kube-prometheus scrapes kube-state-metrics with honorLabels: its series carry
        # their objects' `namespace`, kept as kube-state-metrics wrote it
        return {
            "global": {
                "scrape_interval": INTERVAL,
                "scrape_timeout": INTERVAL,
                "evaluation_interval": INTERVAL,
            },
            "rule_files": [str(rules)],
            "scrape_configs": [
                {
                    "job_name": KSM_JOB,
                    "honor_labels": True,
                    "static_configs": [{"targets": [f"127.0.0.1:{self.ports['metrics']}"]}],
                }
            ],
        }

    def _run(self, name: str, *command: str) -> None:
        self.logs.mkdir(parents=True, exist_ok=True)
        with open(self.logs / f"{name}.log", "ab") as log:
            self._processes[name] = subprocess.Popen(
                command,
                cwd=self.workdir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def stop(self) -> None:
        """Ends both processes (SIGTERM, then SIGKILL after 30 s) and removes the folder."""
        try:
            for process in self._processes.values():
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
            for process in self._processes.values():
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=30)
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)

    # -- Prometheus' HTTP API -----------------------------------------------------------
    def _api(self, path: str, **params: str) -> Any:
        self._check_running()
        query = urllib.parse.urlencode(params)
        url = f"http://127.0.0.1:{self.ports['prometheus']}/api/v1/{path}?{query}"
        try:
            with _NO_PROXY.open(url, timeout=10) as response:
                body = json.loads(response.read())
        except OSError as error:
            return {"status": "unreachable", "error": str(error)}
        return body

    def _check_running(self) -> None:
        for name, process in self._processes.items():
            if process.poll() is not None:
                tail = (self.logs / f"{name}.log").read_text(errors="replace").splitlines()[-20:]
                raise MonitoringError(f"{name} exited {process.returncode}:\n" + "\n".join(tail))

    def query(self, promql: str) -> list[Manifest]:
        """The instant vector of ``promql`` now (empty while Prometheus is not up)."""
        body = self._api("query", query=promql)
        if body.get("status") != "success":
            return []
        result: list[Manifest] = body["data"]["result"]
        return result

    def alert_rules(self) -> dict[str, AlertRule]:
        """Every alerting rule, by alert name, as last evaluated."""
        body = self._api("rules", type="alert")
        if body.get("status") != "success":
            return {}
        found = {}
        for group in body["data"]["groups"]:
            for rule in group["rules"]:
                starts = [_unix(alert["activeAt"]) for alert in rule.get("alerts", [])]
                found[rule["name"]] = AlertRule(
                    rule["name"],
                    rule["state"],
                    float(rule["duration"]),
                    _unix(rule["lastEvaluation"]),
                    min(starts) if starts else None,
                )
        return found

    def alert_rules_after(self, moment: float, *, timeout: float = 60) -> dict[str, AlertRule]:
        """The rules once each has been evaluated after ``moment`` (Unix seconds), so
        their states judge series at least as new as what was seen then."""

        def evaluated() -> dict[str, AlertRule] | None:
            rules = self.alert_rules()
            if rules and all(rule.evaluated_at > moment for rule in rules.values()):
                return rules
            return None

        return self.wait_for(evaluated, timeout=timeout, what="an evaluation of every rule")

    def wait_for(
        self, condition: Callable[[], T | None], *, timeout: float = 120, what: str = "a condition"
    ) -> T:
        """Polls ``condition`` until it returns something true, as
        :meth:`LiveCluster.wait_for` does; a stopped process ends the wait at once."""
        deadline = time.monotonic() + timeout
        delay = 0.1
        while True:
            result = condition()
            if result:
                return result
            if time.monotonic() > deadline:
                self._check_running()
                raise MonitoringError(f"timed out after {timeout:.0f} s waiting for {what}")
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


def free_port() -> int:
    """A loopback port free now. The process that binds it starts a moment later; a
    port taken meanwhile makes that process exit, which its log says."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _unix(timestamp: str) -> float:
    """Unix seconds of an RFC 3339 time as Prometheus writes it (nanoseconds, ``Z``)."""
    whole, _, rest = timestamp.removesuffix("Z").partition(".")
    fraction = float(f"0.{rest}") if rest else 0.0
    return datetime.fromisoformat(whole + "+00:00").timestamp() + fraction
