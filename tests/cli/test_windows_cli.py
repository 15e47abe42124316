"""`plan --at` and `status` name the time window in force (docs/schedules.md): plan by
the clock, status by the windows' pods in the cluster."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import HeadroomSchedule, HeadroomWindow, NodeHeadroom
from cdk8s_headroom.cli import main
from cdk8s_headroom.vocabulary.labels import WINDOW_LABEL
from tests.cluster.kubectl_objects import kubectl_node, reserver_pod

SCHEDULE = HeadroomSchedule(
    [HeadroomWindow("0 8 * * mon-fri", 600, "business"), HeadroomWindow("0 20 * * *", 60)],
    time_zone="Europe/Berlin",
)


@pytest.fixture(scope="module")
def manifests(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("dist")
    app = cdk8s.App(outdir=str(folder))
    headroom = NodeHeadroom(
        cdk8s.Chart(app, "headroom"),
        "headroom",
        cpu="500m",
        memory="512Mi",
        schedule=SCHEDULE,
        scheduled_nodes=2,
    )
    api = headroom.add_burst_workload(
        "api", image="registry.example/api:1", cpu="250m", memory="256Mi"
    )
    with pytest.warns(UserWarning):  # a buffer on a shared pool: P1 does not hold for it
        headroom.add_capacity_buffer(api, replicas=2, schedule=SCHEDULE)
    app.synth()
    return folder


def snapshot(tmp_path: Path, *pods: dict[str, Any]) -> Path:
    path = tmp_path / "snapshot.json"
    items = [kubectl_node("node-a"), kubectl_node("node-b"), *pods]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def window_pod(name: str, node: str, window: str) -> dict[str, Any]:
    """A pod of a window's Job: the reserver's labels and the window's, owned by a Job."""
    pod = reserver_pod(name, node)
    pod["metadata"]["labels"] = {
        **pod["metadata"]["labels"],
        "app": "headroom-reserver",
        WINDOW_LABEL: window,
    }
    pod["metadata"]["ownerReferences"] = [
        {**copy.deepcopy(pod["metadata"]["ownerReferences"][0]), "kind": "Job", "name": "j"}
    ]
    del pod["spec"]["affinity"]
    return pod


def test_plan_at_a_time_in_a_window_names_it_and_what_it_holds(
    manifests: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Monday 2026-12-07 09:30 in Berlin: business is open.
    argv = ["plan", "--manifests", str(manifests), "--snapshot", str(snapshot(tmp_path))]
    main([*argv, "--at", "2026-12-07T09:30:00+01:00"])
    out = capsys.readouterr().out
    assert "Time windows at Mon 2026-12-07 09:30" in out
    assert (
        "default/headroom-reserver (slices): window business (Mon 2026-12-07 08:00 to "
        "Mon 2026-12-07 18:00) CET in force: 2 pod(s) hold their room" in out
    )
    assert "default/api-buffer (buffer): window business" in out


def test_plan_outside_the_windows_says_nothing_is_held_and_which_opens_next(
    manifests: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["plan", "--manifests", str(manifests), "--snapshot", str(snapshot(tmp_path))]
    main([*argv, "--at", "2026-12-05T12:00Z", "--json"])
    holders = json.loads(capsys.readouterr().out)["windows"]["holders"]
    assert [(h["owner"], h["in_force"], h["next"]["name"]) for h in holders] == [
        ("headroom-reserver", None, "window-2"),
        ("api-buffer", None, "window-2"),
    ]
    assert holders[0]["next"]["opens"] == "2026-12-05T20:00:00+01:00"


def test_plan_refuses_a_time_without_its_offset(
    manifests: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["plan", "--manifests", str(manifests), "--snapshot", str(snapshot(tmp_path))]
    assert main([*argv, "--at", "2026-12-05T12:00"]) == 2
    assert "--at: invalid value '2026-12-05T12:00'; a time with its UTC offset" in (
        capsys.readouterr().err
    )


def test_status_reads_the_window_in_force_from_its_pods_not_as_a_daemonset(
    manifests: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pods = [window_pod("r-1", "node-a", "business"), window_pod("r-2", "node-b", "business")]
    argv = ["status", "--snapshot", str(snapshot(tmp_path, *pods)), "--manifests", str(manifests)]
    code = main([*argv, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["headrooms"] == []
    holders = {h["owner"]: h for h in data["windows"]["holders"]}
    assert holders["headroom-reserver"]["in_force"]["name"] == "business"
    assert (holders["headroom-reserver"]["pods"], holders["headroom-reserver"]["bound"]) == (2, 2)
    assert holders["api-buffer"]["in_force"] is None  # no pods: nothing held
    assert code == 0


class _SundayNight(datetime):
    """status's clock (it has no --at): Sunday 2026-12-06 03:00 in Berlin, when no
    window of SCHEDULE is open."""

    @classmethod
    def now(cls, tz: tzinfo | None = None) -> _SundayNight:
        return cls(2026, 12, 6, 2, 0, tzinfo=timezone.utc)


def test_status_with_only_windows_and_none_in_force_is_no_failure(
    manifests: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # By the wall clock this failed from 20:00 to 21:00 in Berlin and in business hours,
    # when a window of SCHEDULE is open: the test's premise is a time outside them
    monkeypatch.setattr("cdk8s_headroom.cluster.status.datetime", _SundayNight)
    argv = ["status", "--snapshot", str(snapshot(tmp_path)), "--manifests", str(manifests)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Time windows at Sun 2026-12-06 02:00 UTC" in out
    assert "(slices): no window in force, nothing held; next " in out
