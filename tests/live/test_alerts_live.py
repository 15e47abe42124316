"""HeadroomAlerts on real series: kube-state-metrics (v2.20.0, built from its pinned
module) watches the live cluster, Prometheus (Debian's 2.42) scrapes it every second
and evaluates the rule file of the PrometheusRule that the construct synthesizes (its
``spec.groups``, which the Prometheus Operator writes into a rule file), each ``for:``
shortened to ``HOLD`` through the construct's props.

The series are kube-state-metrics' own (``internal/store/daemonset.go``:
``kube_daemonset_status_desired_number_scheduled``,
``kube_daemonset_status_number_available``; ``deployment.go``:
``kube_deployment_status_replicas_available``; ``pod.go``: ``kube_pod_status_phase``,
``kube_pod_owner``). How ``for:`` acts is Prometheus' (``rules/alerting.go``,
``AlertingRule.Eval``): an alert is pending from the first evaluation where its
expression holds, firing once it has held for the rule's hold duration, and gone at
the first evaluation where it does not.

On two pool nodes of 2 CPUs, each holding a 1-CPU slice and one ordinary pod of 1 CPU,
the headroom goes through six states, and each time the alerts firing are exactly the
ones that match it, the others never firing in between:

1. installed, every slice held: none (what the install passes through is shorter than
   ``for:``);
2. a burst takes a slice (its reserver, preempted, waits): ``HeadroomSlicesLow`` only,
   since a running burst explains the waiting reserver;
3. the burst leaves and the reserver takes its slice back: none;
4. the pool is cordoned and a burst arrives, which waits: ``HeadroomBurstPodPending``;
5. no node carries the pool label: ``HeadroomNoTargetNodes`` (``HeadroomSlicesLow``'s
   0/0 is no sample);
6. erosion: a waiting ordinary pod takes the slice freed on a node, whose reserver,
   recreated, waits: ``HeadroomSlicesEroded`` and ``HeadroomSlicesLow``.

A buffer held in a time window is watched through its placeholder pods: when the real
CronJob controller opens the window on a pool with no node, each placeholder that waits
``HOLD`` seconds fires ``HeadroomBufferPodPending``, and nothing else fires.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import cdk8s
import pytest

from cdk8s_headroom import (
    HeadroomAlerts,
    HeadroomSchedule,
    HeadroomWarning,
    HeadroomWindow,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
    headroom_charts,
)
from cdk8s_headroom.vocabulary.labels import COMPONENT_LABEL, RESERVER_COMPONENT
from e2e import build
from e2e.cluster import LiveCluster, Manifest, NodeShape, listening_ports, processes_under
from e2e.monitoring import PROMETHEUS, AlertRule, Monitoring
from e2e.promises import ORDINARY_NAMESPACE, ordinary_pods

NAMESPACE = "alerts"
POOL = "alerts"
POOL_LABEL = "karpenter.sh/nodepool"
NODES = ("pool-0", "pool-1")
SLICE_CPU = "1"
HOLD = 5
"""Every rule's ``for:``, in seconds: longer than what an install or a preemption
passes through on a loaded 2-core machine (measured over ``ALERTS`` on both releases,
two workers and four clusters running: every pending alert that was not to fire, one
evaluation), short enough to wait for four times."""
IMAGE = "registry.k8s.io/pause:3.10"
NO_TARGET = "HeadroomNoTargetNodes"
SLICES_LOW = "HeadroomSlicesLow"
ERODED = "HeadroomSlicesEroded"
BURST_PENDING = "HeadroomBurstPodPending"


def _headroom() -> tuple[list[Manifest], Manifest, NodeHeadroom]:
    """The library's objects (but the PrometheusRule), the PrometheusRule, the headroom."""
    app = cdk8s.App()
    charts = headroom_charts(app, namespace=NAMESPACE, model=PriorityModel.GUARDED)
    headroom = NodeHeadroom(
        charts.workloads,
        "headroom",
        cpu=SLICE_CPU,
        memory="1Gi",
        node_pool=NodePoolRef(POOL, label_key=POOL_LABEL),
        namespace=charts.namespace.name,
        priority_classes=charts.priority_classes,
    )
    headroom.add_burst_workload("burst", image=IMAGE, cpu=SLICE_CPU, memory="1Gi", replicas=0)
    HeadroomAlerts(
        charts.workloads,
        "alerts",
        headroom=headroom,
        slices_low_for=f"{HOLD}s",
        erosion_for=f"{HOLD}s",
        burst_start_budget=f"{HOLD}s",
    )
    objects = [o for chart in app.charts for o in chart.to_json()]
    (rule,) = [o for o in objects if o["kind"] == "PrometheusRule"]
    return [o for o in objects if o["kind"] != "PrometheusRule"], rule, headroom


BUFFER_POOL = "buffers"
BUFFER_PENDING = "HeadroomBufferPodPending"
PLACEHOLDERS = 2


def _windowed_buffer() -> tuple[list[Manifest], Manifest]:
    """A headroom without slices whose burst workload's buffer is held in a window of one
    minute, every minute, on a pool with no node: the library's objects (but the
    PrometheusRule), and the PrometheusRule."""
    app = cdk8s.App()
    charts = headroom_charts(app, namespace=NAMESPACE, model=PriorityModel.GUARDED)
    headroom = NodeHeadroom(
        charts.workloads,
        "buffered",
        node_pool=NodePoolRef(BUFFER_POOL, label_key=POOL_LABEL),
        namespace=charts.namespace.name,
        priority_classes=charts.priority_classes,
    )
    burst = headroom.add_burst_workload("burst", image=IMAGE, cpu="1", memory="1Gi", replicas=0)
    with warnings.catch_warnings():  # the buffer on a pool that admits ordinary pods
        warnings.simplefilter("ignore", HeadroomWarning)
        headroom.add_capacity_buffer(
            burst,
            replicas=PLACEHOLDERS,
            schedule=HeadroomSchedule([HeadroomWindow("* * * * *", 1, "minute")]),
        )
    HeadroomAlerts(
        charts.workloads,
        "alerts",
        headroom=headroom,
        erosion_for=f"{HOLD}s",
        burst_start_budget=f"{HOLD}s",
    )
    objects = [o for chart in app.charts for o in chart.to_json()]
    (rule,) = [o for o in objects if o["kind"] == "PrometheusRule"]
    return [o for o in objects if o["kind"] != "PrometheusRule"], rule


@pytest.fixture(scope="session")
def kube_state_metrics(live_binaries: build.ReleaseBinaries) -> Path:
    try:
        return build.kube_state_metrics_binary(log=False)
    except build.BuildError as error:
        pytest.fail(f"kube-state-metrics did not build: {error}")


def _monitoring(
    cluster: LiveCluster, kube_state_metrics: Path, rule: Manifest
) -> Iterator[Monitoring]:
    """The stack on ``cluster`` evaluating ``rule``, its logs beside the components'
    (kept on failure); afterwards no process, port or folder of it is left."""
    if not PROMETHEUS.exists():
        missing = f"{PROMETHEUS} is missing: Debian's package `prometheus` (make promtool)"
        if os.environ.get("CI"):
            pytest.fail(f"CI runs the live tier's alerts test, and {missing}")
        pytest.skip(f"live alerts test skipped: {missing}")
    stack = Monitoring.start(
        cluster, kube_state_metrics, rule["spec"]["groups"], logs=cluster.logs_dir
    )
    try:
        yield stack
    finally:
        stack.stop()
    assert processes_under(stack.workdir) == []
    assert not stack.workdir.exists()
    assert not set(stack.ports.values()) & listening_ports()


@pytest.fixture
def monitoring(cluster: LiveCluster, kube_state_metrics: Path) -> Iterator[Monitoring]:
    """The stack on the rules of ``_headroom``."""
    yield from _monitoring(cluster, kube_state_metrics, _headroom()[1])


@pytest.fixture
def windowed_buffer(live_binaries: build.ReleaseBinaries, cluster: LiveCluster) -> Iterator[None]:
    """The objects of ``_windowed_buffer`` applied on a cluster whose one node is outside
    the buffer's pool, on the newest release only: what it adds to the other alerts'
    test is the rule's path through the same builds of kube-state-metrics and
    Prometheus, while a window's CronJob, Job and pods on every release are
    test_windows_live's (a run here costs a minute of the suite).

    They are applied before the stack starts (``buffer_monitoring``), so it starts while
    the window's minute comes. Afterwards the CronJob goes with its Jobs and their
    placeholders: left to the reset, a placeholder makes the namespace controller wait
    out half its 30 s grace period (``estimateGracefulTerminationForPods``), a reset of
    11-20 s in place of 6."""
    newest = build.releases()[0]
    if live_binaries.release != newest:
        pytest.skip(
            f"a windowed buffer's alert runs on {newest} only: the same kube-state-metrics "
            "and Prometheus on every release; the windows on each are test_windows_live's"
        )
    cluster.add_nodes([NodeShape("elsewhere", cpu="4")])
    cluster.apply(_windowed_buffer()[0])
    yield
    cluster.kubectl("delete", "cronjobs", "--all", "-n", NAMESPACE, "--cascade=foreground")


@pytest.fixture
def buffer_monitoring(
    windowed_buffer: None, cluster: LiveCluster, kube_state_metrics: Path
) -> Iterator[Monitoring]:
    """The stack on the rules of ``_windowed_buffer``, started once they are applied."""
    yield from _monitoring(cluster, kube_state_metrics, _windowed_buffer()[1])


def _pods(cluster: LiveCluster, namespace: str) -> list[Manifest]:
    items: list[Manifest] = cluster.get_json("pods", "-n", namespace)["items"]
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def _phases(pods: list[Manifest], component: str | None = None) -> list[str]:
    return sorted(
        p["status"].get("phase", "")
        for p in pods
        if component is None or p["metadata"]["labels"].get(COMPONENT_LABEL) == component
    )


def _reservers(cluster: LiveCluster) -> list[str]:
    return _phases(_pods(cluster, NAMESPACE), RESERVER_COMPONENT)


def _waiting_unschedulable(pod: Manifest) -> bool:
    return pod["status"].get("phase") == "Pending" and any(
        c.get("reason") == "Unschedulable" for c in pod["status"].get("conditions", [])
    )


class _Watch:
    """The alerts of one headroom, judged phase by phase."""

    def __init__(self, monitoring: Monitoring, headroom: NodeHeadroom) -> None:
        assert headroom.reserver is not None
        self.monitoring = monitoring
        self.reserver = headroom.reserver.name
        self.since = time.time()

    def quiet(self) -> set[str]:
        """Once Prometheus has the series of a headroom whose every slice is held (a
        reserver available per node, nothing Pending), no rule is pending or firing; a
        phase starts there. Returns the alerts that fired since the previous phase
        began."""
        held = (
            f'kube_daemonset_status_number_available{{namespace="{NAMESPACE}",'
            f'daemonset="{self.reserver}"}} == {len(NODES)} and on () '
            f'(count(kube_pod_status_phase{{namespace="{NAMESPACE}",phase="Pending"}} == 1)'
            " or vector(0)) == 0"
        )
        self.monitoring.wait_for(
            lambda: self.monitoring.query(held), what="the series of every slice held"
        )
        rules = self.monitoring.alert_rules_after(time.time())
        assert {name: rule.state for name, rule in rules.items()} == dict.fromkeys(
            (NO_TARGET, SLICES_LOW, ERODED, BURST_PENDING), "inactive"
        )
        fired = self.seen("firing")
        self.since = max(rule.evaluated_at for rule in rules.values())
        return fired

    def fires(self, *expected: str) -> None:
        """Waits until the ``expected`` alerts fire; then every other rule is inactive,
        no other alert fired since the phase began, and each expected one was pending
        for ``HOLD`` seconds first."""

        def firing() -> dict[str, AlertRule] | None:
            rules = self.monitoring.alert_rules()
            if rules and all(rules[name].state == "firing" for name in expected):
                return rules
            return None

        rules = self.monitoring.wait_for(
            firing, timeout=HOLD + 120, what=f"{', '.join(expected)} firing"
        )
        states = {name: rule.state for name, rule in rules.items()}
        assert states == {name: "firing" if name in expected else "inactive" for name in states}
        for name in expected:
            rule = rules[name]
            assert rule.hold_seconds == HOLD
            assert rule.active_since is not None
            assert rule.evaluated_at - rule.active_since >= HOLD, name
        assert self.seen("firing") == set(expected)
        assert self.seen("pending") >= set(expected)

    def seen(self, state: str) -> set[str]:
        """The alerts in ``state`` at any evaluation since the phase began (the
        ``ALERTS`` series Prometheus writes for pending and firing alerts)."""
        window = max(int(time.time() - self.since), 1)
        found = self.monitoring.query(
            f'max_over_time(ALERTS{{alertstate="{state}",headroom="{self.reserver}"}}[{window}s])'
        )
        return {sample["metric"]["alertname"] for sample in found}


def _label_pool(cluster: LiveCluster, nodes: Sequence[str], *, on: bool) -> None:
    change = f"{POOL_LABEL}={POOL}" if on else f"{POOL_LABEL}-"
    cluster.kubectl("label", "node", *nodes, change, "--overwrite")


def test_each_alert_fires_on_the_live_series_of_the_state_it_names_and_no_other(
    cluster: LiveCluster, monitoring: Monitoring
) -> None:
    objects, _, headroom = _headroom()
    watch = _Watch(monitoring, headroom)
    cluster.add_nodes(NodeShape(n, cpu="2", labels={POOL_LABEL: POOL}) for n in NODES)

    # 1. installed: the reservers, then ordinary pods in the rest of each node
    cluster.apply(objects)
    cluster.wait_for(
        lambda: _reservers(cluster) == ["Running"] * 2, what="a reserver Running per node"
    )
    cluster.apply(ordinary_pods(2))
    cluster.wait_for(
        lambda: _phases(_pods(cluster, ORDINARY_NAMESPACE)) == ["Running"] * 2,
        what="an ordinary pod Running per node",
    )
    assert watch.quiet() == set()  # what the install passes through is shorter than for:

    # 2. a burst takes a slice: low, not eroded
    cluster.kubectl("scale", "deployment", "burst", "-n", NAMESPACE, "--replicas=1")
    cluster.wait_for(
        lambda: _reservers(cluster) == ["Pending", "Running"],
        what="a reserver preempted by the burst, waiting",
    )
    watch.fires(SLICES_LOW)

    # 3. the burst leaves: its reserver takes the slice back
    cluster.kubectl("scale", "deployment", "burst", "-n", NAMESPACE, "--replicas=0")
    assert watch.quiet() == {SLICES_LOW}

    # 4. a burst that cannot start: the pool is cordoned
    cluster.kubectl("cordon", *NODES)
    cluster.kubectl("scale", "deployment", "burst", "-n", NAMESPACE, "--replicas=1")
    watch.fires(BURST_PENDING)
    cluster.kubectl("scale", "deployment", "burst", "-n", NAMESPACE, "--replicas=0")
    cluster.kubectl("uncordon", *NODES)
    assert watch.quiet() == {BURST_PENDING}

    # 5. the pool has no node
    _label_pool(cluster, NODES, on=False)
    watch.fires(NO_TARGET)
    _label_pool(cluster, NODES, on=True)
    assert watch.quiet() == {NO_TARGET}

    # 6. erosion: an ordinary pod waits, takes the slice freed on pool-0 while the node
    # is out of the pool, and the reserver recreated when it comes back waits
    cluster.kubectl("scale", "deployment", "ordinary", "-n", ORDINARY_NAMESPACE, "--replicas=3")
    cluster.wait_for(
        lambda: any(_waiting_unschedulable(p) for p in _pods(cluster, ORDINARY_NAMESPACE)),
        what="an ordinary pod waiting",
    )
    _label_pool(cluster, NODES[:1], on=False)
    cluster.wait_for(
        lambda: _phases(_pods(cluster, ORDINARY_NAMESPACE)) == ["Running"] * 3,
        what=f"the waiting ordinary pod in the slice freed on {NODES[0]}",
    )
    _label_pool(cluster, NODES[:1], on=True)
    cluster.wait_for(
        lambda: any(
            _waiting_unschedulable(p)
            for p in _pods(cluster, NAMESPACE)
            if p["metadata"]["labels"].get(COMPONENT_LABEL) == RESERVER_COMPONENT
        ),
        what=f"the reserver recreated on {NODES[0]} waiting",
    )
    watch.fires(ERODED, SLICES_LOW)


def test_a_windowed_buffers_placeholders_waiting_for_a_node_fire_once_per_pod(
    cluster: LiveCluster, buffer_monitoring: Monitoring
) -> None:
    # The CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go) starts the
    # window's Job at the next minute, named <cronjob>-<minutes> (getJobName); its
    # placeholder pods wait, since no node is in the buffer's pool, and each one fires
    # HeadroomBufferPodPending once it has waited HOLD seconds, as the rules'
    # owner_name pattern finds them among kube-state-metrics' kube_pod_owner series
    def waiting_placeholders() -> list[Manifest] | None:
        pods = [
            p
            for p in _pods(cluster, NAMESPACE)
            if p["metadata"].get("ownerReferences", [{}])[0].get("kind") == "Job"
        ]
        return (
            pods if len(pods) == PLACEHOLDERS and all(map(_waiting_unschedulable, pods)) else None
        )

    pods = cluster.wait_for(
        waiting_placeholders, timeout=150, what="the window's placeholder pods waiting"
    )
    assert pods is not None  # wait_for returns only what is true
    (job,) = {p["metadata"]["ownerReferences"][0]["name"] for p in pods}

    def firing() -> list[Manifest] | None:
        found = buffer_monitoring.query(f'ALERTS{{alertstate="firing",namespace="{NAMESPACE}"}}')
        return found if len(found) == PLACEHOLDERS else None

    alerts = buffer_monitoring.wait_for(
        firing, timeout=HOLD + 60, what=f"{BUFFER_PENDING} firing for each placeholder"
    )
    assert alerts is not None
    assert {a["metric"]["alertname"] for a in alerts} == {BUFFER_PENDING}
    assert {a["metric"]["pod"] for a in alerts} == {p["metadata"]["name"] for p in pods}
    cronjob, minutes = job.rsplit("-", 1)
    assert cronjob.endswith("-minute") and minutes.isdigit()
    rule = buffer_monitoring.alert_rules()[BUFFER_PENDING]
    assert rule.hold_seconds == HOLD
    assert rule.active_since is not None and rule.evaluated_at - rule.active_since >= HOLD
