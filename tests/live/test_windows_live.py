"""Room held in a time window, on the live cluster: the real CronJob controller starts
the window's Job on time, the real Job controller and scheduler put its pods (the slices,
one per node, and the buffer's placeholders) on the nodes, and the Job controller
deletes them when ``activeDeadlineSeconds`` (the window's length) has passed
(kubernetes ``pkg/controller/cronjob/cronjob_controllerv2.go`` ``syncCronJob``,
``pkg/controller/job/job_controller.go`` ``pastActiveDeadline``). ``plan`` and
``status`` name the window in force, and nothing once it has closed.

The schedule is compressed: a one-minute window that opens at the next whole minute.

What stands in for the real thing, and why: a reserver runs ``pause``, which never
exits. KWOK runs no container; its default pod stages (kwok v0.7.0
``kustomize/stage/pod/fast``, which ``pkg/kwok/cmd/root.go`` ``getDefaultPodStages``
loads) complete every pod a Job owns as soon as it runs (``pod-complete.yaml`` selects
``ownerReferences.kind: Job``): the window's Job would end at once and hold nothing.
So this test runs its own cluster whose pod stages are that same set, read from the
pinned module, with one change: ``pod-complete`` skips pods annotated
``NEVER_COMPLETES``, which the test, and only the test, puts on the window's pod
template. Those pods then run as ``pause`` would, and what ends them is the Job
controller's deadline, as in a real cluster. Every other pod, and every other test's
cluster, keeps KWOK's defaults.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import cdk8s
import pytest
import yaml

from cdk8s_headroom import HeadroomSchedule, HeadroomWindow, NodeHeadroom
from cdk8s_headroom.cli import main
from cdk8s_headroom.vocabulary.labels import WINDOW_LABEL
from e2e.build import BuildError, ReleaseBinaries, health_binary, kwok_file
from e2e.cluster import ClusterError, LiveCluster, NodeShape

NAMESPACE = "windows"
NEVER_COMPLETES = "e2e.cdk8s-headroom.io/never-completes"
FAST_POD_STAGES = "kustomize/stage/pod/fast"


def _pod_stages() -> list[str]:
    """KWOK's default pod stages, ``pod-complete`` skipping pods that never complete."""
    stages = []
    for name in ("pod-ready", "pod-complete", "pod-delete"):
        stage = yaml.safe_load(kwok_file(f"{FAST_POD_STAGES}/{name}.yaml").read_text())
        if name == "pod-complete":
            stage["spec"]["selector"]["matchExpressions"].append(
                {"key": f'.metadata.annotations["{NEVER_COMPLETES}"]', "operator": "DoesNotExist"}
            )
        stages.append(yaml.safe_dump(stage))
    return stages


@pytest.fixture(scope="module")
def window_cluster(live_binaries: ReleaseBinaries) -> Iterator[LiveCluster]:
    try:
        live = LiveCluster.start(live_binaries, name="headroom-windows", stages=_pod_stages())
    except ClusterError as error:
        pytest.fail(str(error))
    try:
        yield live
    finally:
        live.stop()


LEAD = timedelta(seconds=8)
"""What the window's opening leaves before it: the CronJob must exist before then (the
CronJob controller starts no run scheduled before the object's creation), and the
cluster is listed with nothing held. Synthesizing, applying and listing took 0.3-0.4 s
on the 2-core machine under a load of 2.5; every second of lead is a second the test
waits, on average."""


def _next_minute() -> datetime:
    """The next whole minute at least ``LEAD`` away."""
    now = datetime.now(timezone.utc)
    start = now.replace(second=0, microsecond=0) + timedelta(minutes=1)
    return start if start - now >= LEAD else start + timedelta(minutes=1)


def _synth(folder: Path, opens: datetime) -> Path:
    schedule = HeadroomSchedule(
        [HeadroomWindow(f"{opens.minute} {opens.hour} * * *", 1, "live")], time_zone="Etc/UTC"
    )
    app = cdk8s.App(outdir=str(folder))
    headroom = NodeHeadroom(
        cdk8s.Chart(app, "windows"),
        "headroom",
        cpu="500m",
        memory="512Mi",
        namespace=NAMESPACE,
        schedule=schedule,
        scheduled_nodes=2,
    )
    api = headroom.add_burst_workload(
        "api", image="registry.example/api:1", cpu="250m", memory="256Mi", replicas=0
    )
    with pytest.warns(UserWarning):  # a buffer on a shared pool: P1 does not hold for it
        headroom.add_capacity_buffer(api, replicas=2, schedule=schedule)
    app.synth()
    return folder


def _kwok_pause(folder: Path) -> Path:
    """The manifests, each window's pod template annotated ``NEVER_COMPLETES``."""
    changed = folder.parent / "kwok"
    changed.mkdir()
    for path in sorted(folder.glob("*.yaml")):
        documents = [d for d in yaml.safe_load_all(path.read_text()) if d]
        for document in documents:
            if document["kind"] == "CronJob":
                metadata = document["spec"]["jobTemplate"]["spec"]["template"]["metadata"]
                metadata["annotations"] = {
                    **metadata.get("annotations", {}),
                    NEVER_COMPLETES: "",
                }
        (changed / path.name).write_text(yaml.safe_dump_all(documents))
    return changed


@pytest.fixture(scope="module")
def health_helper(live_binaries: ReleaseBinaries) -> Path:
    try:
        return health_binary(log=False)
    except BuildError as error:
        pytest.fail(f"the GitOps health helper did not build: {error}")


def _gitops_verdicts(helper: Path, cluster: LiveCluster) -> dict[str, dict[str, Any]]:
    """The tools' own verdicts on the windows' CronJobs (e2e/modules/health: kstatus's
    ``Compute``, gitops-engine's ``GetResourceHealth``), with the status fields Argo
    CD's CronJob check reads (argo-cd ``resource_customizations/batch/CronJob/
    health.lua``, a Lua script outside gitops-engine)."""
    listing = cluster.get_json("cronjobs", "-n", NAMESPACE)["items"]
    done = subprocess.run(
        [str(helper)],
        input=json.dumps({"apiVersion": "v1", "kind": "List", "items": listing}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    verdicts = {v["name"]: v for v in json.loads(done.stdout)}
    for obj in listing:
        verdicts[obj["metadata"]["name"]]["status"] = obj.get("status", {})
    return verdicts


def _judged_healthy(verdicts: dict[str, dict[str, Any]]) -> None:
    """Flux (kstatus) reads each CronJob as Current; gitops-engine has no CronJob rule of
    its own, and Argo CD's Lua reads one whose Jobs never succeeded (they end at their
    deadline: no ``lastSuccessfulTime``) as Healthy."""
    assert len(verdicts) == 2
    for name, verdict in verdicts.items():
        assert verdict["kstatus"] == "Current", name
        assert verdict["argocd"] == "", name
        assert "lastSuccessfulTime" not in verdict["status"], name


def _window_pods(cluster: LiveCluster) -> list[dict[str, Any]]:
    pods = cluster.get_json("pods", "-n", NAMESPACE, "-l", WINDOW_LABEL)["items"]
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


def _listing(cluster: LiveCluster, path: Path) -> Path:
    listing = cluster.kubectl(
        "get", "nodes,pods,priorityclasses,poddisruptionbudgets", "-A", "-o", "json"
    )
    path.write_text(listing.stdout)
    return path


def _windows(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    report = json.loads(out)
    return {h["owner"]: h for h in report["windows"]["holders"]}


def test_slices_and_a_buffer_are_held_in_their_window_and_released_after_it(
    window_cluster: LiveCluster,
    health_helper: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cluster = window_cluster
    cluster.add_nodes([NodeShape("window-0"), NodeShape("window-1")])
    cluster.kubectl("create", "namespace", NAMESPACE)
    opens = _next_minute()
    manifests = _synth(tmp_path / "dist", opens)
    cluster.kubectl("apply", "-f", str(_kwok_pause(manifests)))

    # Before the window: nothing is held yet, and plan at the opening names it.
    before_listing = _listing(cluster, tmp_path / "before.json")
    assert _window_pods(cluster) == []
    assert datetime.now(timezone.utc) < opens, f"the window opened before it was listed: {LEAD=}"
    before = _windows(
        capsys,
        "plan",
        "--manifests",
        str(manifests),
        "--snapshot",
        str(before_listing),
        "--at",
        opens.isoformat(),
    )
    assert before["headroom-reserver"]["in_force"]["name"] == "live"

    def held() -> list[dict[str, Any]] | None:
        pods = _window_pods(cluster)
        running = [p for p in pods if p["status"].get("phase") == "Running"]
        return running if len(running) == 4 else None

    running = cluster.wait_for(held, timeout=150, what="the window's 4 pods Running")
    slices = [p for p in running if p["metadata"]["labels"]["app"] == "headroom-reserver"]
    assert sorted(p["spec"]["nodeName"] for p in slices) == ["window-0", "window-1"]

    during = _windows(
        capsys,
        "status",
        "--snapshot",
        str(_listing(cluster, tmp_path / "during.json")),
        "--manifests",
        str(manifests),
    )
    for owner in ("headroom-reserver", "api-buffer"):
        assert during[owner]["in_force"]["name"] == "live"
        assert (during[owner]["pods"], during[owner]["bound"]) == (2, 2)
    _judged_healthy(_gitops_verdicts(health_helper, cluster))

    # After the window: the Job controller deletes the pods at the deadline.
    cluster.wait_for(
        lambda: _window_pods(cluster) == [], timeout=100, what="the window's pods deleted"
    )
    after = _windows(
        capsys,
        "status",
        "--snapshot",
        str(_listing(cluster, tmp_path / "after.json")),
        "--manifests",
        str(manifests),
    )
    assert {owner: h["in_force"] for owner, h in after.items()} == {
        "headroom-reserver": None,
        "api-buffer": None,
    }
    assert after["headroom-reserver"]["next"]["name"] == "live"
    # The failed Jobs are gone (failedJobsHistoryLimit: 0), and the CronJobs still read
    # healthy: nothing for a GitOps tool to report or revert.
    cluster.wait_for(
        lambda: cluster.get_json("jobs", "-n", NAMESPACE)["items"] == [],
        timeout=30,
        what="the window's Jobs removed",
    )
    _judged_healthy(_gitops_verdicts(health_helper, cluster))
