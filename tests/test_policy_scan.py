"""checkov's Kubernetes policies: dist/ passes, every skip is needed and explained, the
Pod Security checker covers what checkov lets through, checkov runs within bounds of
memory and time, and its server (``checkov_server.py``) reports what its command does."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from cdk8s_headroom import PodSecurityControl
from cdk8s_headroom.files.documents import SourcedObject, parse_objects
from cdk8s_headroom.validate import checkov as policies
from cdk8s_headroom.validate.checkov import (
    CHECKOV_CONFIG,
    CheckovError,
    CheckovFailure,
    CheckovScan,
    checkov_failures,
    run_checkov,
)
from cdk8s_headroom.validate.report import load_folder
from cdk8s_headroom.vocabulary.pod_security import check_object
from tests.conftest import ROOT
from tests.vocabulary.test_pod_security import main, pod_context, restricted_pod

SKIPS = yaml.safe_load(CHECKOV_CONFIG.read_text())["skip-check"]


def test_dist_passes_checkov_with_the_listed_skips() -> None:
    assert run_checkov(ROOT / "dist") == []


def test_the_skip_list_names_exactly_the_checks_dist_fails_without_it() -> None:
    failing = {f.check_id for f in run_checkov(ROOT / "dist", config=None)}
    assert failing == set(SKIPS)


def test_every_skipped_check_states_why_it_does_not_apply() -> None:
    lines = CHECKOV_CONFIG.read_text().splitlines()
    for check in SKIPS:
        (line,) = [line for line in lines if re.match(rf"\s*-\s*{check}\b", line)]
        reason = line.partition("#")[2].strip()
        assert len(reason.split()) >= 8, f"{check} has no reason: {line!r}"


def deployment(name: str, template: dict[str, Any]) -> dict[str, Any]:
    template["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": "100m", "memory": "64Mi"},
        "limits": {"cpu": "100m", "memory": "64Mi"},
    }
    template["spec"]["containers"][0]["image"] = "nginx@sha256:" + "a" * 64
    template["spec"]["automountServiceAccountToken"] = False
    template["metadata"]["labels"] = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "apps"},
        "spec": {"selector": {"matchLabels": {"app": name}}, "template": template},
    }


def blind_spots() -> dict[str, tuple[dict[str, Any], set[PodSecurityControl]]]:
    """Pod templates that break one control each, in ways checkov does not flag."""
    host_path = restricted_pod()
    host_path["spec"]["volumes"].append({"name": "h", "hostPath": {"path": "/var/run"}})
    nfs = restricted_pod()
    nfs["spec"]["volumes"].append({"name": "n", "nfs": {"server": "fs", "path": "/"}})
    unmasked = restricted_pod()
    main(unmasked)["procMount"] = "Unmasked"
    sysctl = restricted_pod()
    pod_context(sysctl)["sysctls"] = [{"name": "kernel.msgmax", "value": "65536"}]
    apparmor = restricted_pod()
    pod_context(apparmor)["appArmorProfile"] = {"type": "Unconfined"}
    control = PodSecurityControl
    return {
        "host-path": (host_path, {control.HOST_PATH_VOLUMES, control.VOLUME_TYPES}),
        "nfs": (nfs, {control.VOLUME_TYPES}),
        "proc-mount": (unmasked, {control.PROC_MOUNT}),
        "sysctl": (sysctl, {control.SYSCTLS}),
        "apparmor": (apparmor, {control.APPARMOR}),
    }


def test_the_pod_security_check_catches_what_checkov_lets_through(tmp_path: Path) -> None:
    spots = blind_spots()
    documents = {"baseline": deployment("baseline", restricted_pod())}
    documents |= {name: deployment(name, template) for name, (template, _) in spots.items()}
    (tmp_path / "apps.yaml").write_text(yaml.safe_dump_all(list(documents.values())))
    objects = load_folder(tmp_path)
    failures = dict(zip([o.name for o in objects], checkov_failures(objects), strict=True))

    def checkov_ids(name: str) -> set[str]:
        return {f.check_id for f in failures[name].failures}

    for name, (_, controls) in spots.items():
        assert checkov_ids(name) == checkov_ids("baseline"), name
        assert {v.control for v in check_object(documents[name]).violations} == controls


# --- checkov within bounds of memory and time --------------------------------------------


def _deployments(args: int, copies: int) -> bytes:
    """A List of one Deployment with ``args`` container arguments, aliased ``copies``
    times: a small file that checkov holds as ``args * copies`` values."""
    arguments = ", ".join(f"a{i}" for i in range(args))
    deployment = (
        "{apiVersion: apps/v1, kind: Deployment, metadata: {name: big, namespace: apps}, "
        "spec: {selector: {matchLabels: {app: big}}, template: {metadata: {labels: {app: big}}, "
        f"spec: {{containers: [{{name: c, image: i, args: [{arguments}]}}]}}}}}}}}"
    )
    items = [f"- &big {deployment}", *["- *big"] * (copies - 1)]
    return ("apiVersion: v1\nkind: List\nitems:\n" + "\n".join(items) + "\n").encode()


Run = tuple[list[int], str | None]
"""One run of checkov by ``checkov_failures``: the objects' indices, and its error."""


def record_runs(monkeypatch: pytest.MonkeyPatch) -> list[Run]:
    """The runs ``checkov_failures`` makes from now on, each still a real checkov run."""
    runs: list[Run] = []
    real = policies._checkov_run

    def recorded(objects: Sequence[SourcedObject], indices: list[int]) -> list[CheckovFailure]:
        try:
            failures = real(objects, indices)
        except CheckovError as error:
            runs.append((list(indices), str(error)))
            raise
        runs.append((list(indices), None))
        return failures

    monkeypatch.setattr(policies, "_checkov_run", recorded)
    return runs


# The address space checkov needs for a run: the lowest CHECKOV_MEMORY_BYTES that passes,
# found by bisection with the pinned checkov in its server (one OpenBLAS thread and one
# malloc arena, so the same on every machine and under any load; three runs at each
# bound passed). dist/'s Namespace: 272 to 274 MiB. _deployments(6000, 1): 477 to
# 479 MiB; _deployments(6000, 2), two objects: 685 to 687 MiB. Each limit below leaves
# 75 MiB or more on either side. A run that runs out of memory ends as it reaches the
# limit, and one that passes costs what its objects need: the lower both, the shorter
# the test.


def test_an_object_checkov_runs_out_of_memory_on_fails_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(policies, "CHECKOV_MEMORY_BYTES", 350 * 2**20)
    small = load_folder(ROOT / "dist")[0]
    (big,) = parse_objects(_deployments(6000, 1), "big.yaml")
    runs = record_runs(monkeypatch)

    scans = checkov_failures([small, big])

    out_of_memory = "checkov ran out of memory (more than 350 MiB)"
    assert runs == [([0, 1], out_of_memory), ([0], None), ([1], out_of_memory)]
    assert scans == [CheckovScan(), CheckovScan(problem=out_of_memory)]


def test_objects_too_many_for_one_checkov_run_are_scanned_in_halves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Together they need more than the limit, each half less: none is refused.
    monkeypatch.setattr(policies, "CHECKOV_MEMORY_BYTES", 580 * 2**20)
    objects = parse_objects(_deployments(6000, 2), "big.yaml")
    runs = record_runs(monkeypatch)

    scans = checkov_failures(objects)

    assert runs == [
        ([0, 1], "checkov ran out of memory (more than 580 MiB)"),
        ([0], None),
        ([1], None),
    ]
    assert [scan.problem for scan in scans] == [None] * 2
    assert all(scan.failures for scan in scans)  # the policies did run on each


def record_kills(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The process groups killed from now on (each still killed)."""
    killed: list[int] = []
    real = os.killpg

    def recorded(group: int, number: int) -> None:
        killed.append(group)
        real(group, number)

    monkeypatch.setattr(os, "killpg", recorded)
    return killed


def living_members(group: int) -> list[int]:
    """The processes of ``group`` that are not yet dead (zombies awaiting their reaping
    are dead), from /proc/PID/stat: the state is the field after the name, the group
    the third (proc(5))."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # it ended meanwhile
            continue
        if int(fields[2]) == group and fields[0] not in ("Z", "X"):
            members.append(int(stat.parent.name))
    return members


def assert_ends(group: int) -> None:
    """Every process of ``group`` ends: SIGKILL is delivered as each is next scheduled,
    and the ones checkov forked die after the run itself was reaped."""
    deadline = time.monotonic() + 10
    while living_members(group) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert living_members(group) == []


def test_a_checkov_run_over_its_time_is_killed_and_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    item = load_folder(ROOT / "dist")[0]
    assert checkov_failures([item]) == [CheckovScan()]  # with time for the server to start
    server = policies._server_for(find_checkov_or_fail())
    monkeypatch.setattr(policies, "CHECKOV_TIMEOUT_SECONDS", 0.5)
    (slow,) = parse_objects(_deployments(6000, 1), "slow.yaml")  # 3 to 6 s a run
    killed = record_kills(monkeypatch)

    assert checkov_failures([slow]) == [
        CheckovScan(problem="checkov ran out of time (more than 0.5 s)")
    ]

    (group,) = killed
    assert_ends(group)  # the run, and the processes checkov forked
    monkeypatch.setattr(policies, "CHECKOV_TIMEOUT_SECONDS", 600)
    assert checkov_failures([item]) == [CheckovScan()]
    assert policies._server_for(find_checkov_or_fail()) is server  # it outlived the kill


def find_checkov_or_fail() -> Path:
    checkov = policies.find_checkov()
    assert checkov is not None, "checkov is not installed"
    return checkov


def checkov_command(folder: Path) -> Path:
    """checkov behind a shell script: not a Python script, so it runs as a command."""
    script = folder / "checkov"
    script.write_text(f'#!/bin/sh\nexec "{find_checkov_or_fail()}" "$@"\n')
    script.chmod(0o755)
    return script


def test_a_checkov_command_over_its_time_is_killed_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = checkov_command(tmp_path)
    monkeypatch.setattr(policies, "find_checkov", lambda: command)
    monkeypatch.setattr(policies, "CHECKOV_TIMEOUT_SECONDS", 0.5)  # it takes 3 s to start
    killed = record_kills(monkeypatch)

    assert checkov_failures(load_folder(ROOT / "dist")[:1]) == [
        CheckovScan(problem="checkov ran out of time (more than 0.5 s)")
    ]

    (group,) = killed
    assert_ends(group)
    assert policies._server_for(command) is None


def test_a_run_in_the_checkov_server_reports_what_the_checkov_command_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    through_server = run_checkov(ROOT / "dist", config=None)
    command = checkov_command(tmp_path)
    monkeypatch.setattr(policies, "find_checkov", lambda: command)

    through_command = run_checkov(ROOT / "dist", config=None)

    assert through_command  # dist fails the checks that the skip list names
    assert through_server == through_command


def test_an_interrupted_run_is_killed_and_closing_its_server_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another path to the same checkov: a server of its own, not the one the tests share.
    link = tmp_path / "checkov"
    link.symlink_to(find_checkov_or_fail())
    monkeypatch.setattr(policies, "find_checkov", lambda: link)
    server = policies._server_for(link)
    assert server is not None
    replies = server._reply

    def interrupted_after_the_pid(deadline: float) -> str:
        monkeypatch.setattr(server, "_reply", interrupt)
        return replies(deadline)

    def interrupt(deadline: float) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(server, "_reply", interrupted_after_the_pid)
    killed = record_kills(monkeypatch)

    with pytest.raises(KeyboardInterrupt):
        run_checkov(ROOT / "dist")

    (group,) = killed
    assert_ends(group)
    assert server.broken  # its run's status is still to come: the next run gets another
    policies._close_server(link)
    with pytest.raises(ProcessLookupError):
        os.kill(server.pid, 0)


def test_a_checkov_server_is_kept_until_it_breaks_or_the_environment_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[FakeServer] = []

    class FakeServer:
        def __init__(self, python: Path, script: Path) -> None:
            self.environment = policies._import_environment(policies._environment())
            self.broken = False
            self.closed = False
            started.append(self)

        def close(self, *, kill: bool = False) -> None:
            self.closed = True

    monkeypatch.setattr(policies, "_CheckovServer", FakeServer)
    monkeypatch.setattr(policies, "_servers", {})
    checkov = find_checkov_or_fail()

    policies._server_for(checkov)
    policies._server_for(checkov)
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "another test")  # read by no module of checkov
    policies._server_for(checkov)
    assert len(started) == 1
    # checkov/common/output/record.py reads it as it is imported
    monkeypatch.setenv("CHECKOV_OUTPUT_CODE_LINE_LIMIT", "1")
    policies._server_for(checkov)
    assert len(started) == 2 and started[0].closed
    started[1].broken = True
    policies._server_for(checkov)
    assert len(started) == 3 and started[1].closed
    policies.close_servers()
    assert started[2].closed
    assert policies._servers == {}


def test_a_checkov_server_is_kept_when_a_variable_checkov_does_not_read_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[object] = []

    class FakeServer:
        def __init__(self, python: Path, script: Path) -> None:
            self.environment = policies._import_environment(policies._environment())
            self.broken = False
            started.append(self)

        def close(self, *, kill: bool = False) -> None:
            pass

    monkeypatch.setattr(policies, "_CheckovServer", FakeServer)
    monkeypatch.setattr(policies, "_servers", {})
    checkov = tmp_path / "checkov"  # a Python script, as pip writes checkov's
    checkov.write_text(f"#!{sys.executable}\n")

    policies._server_for(checkov)
    # a variable no module of checkov reads, named nowhere in the library
    monkeypatch.setenv("HEADROOM_UNREAD_BY_CHECKOV", "changed")
    policies._server_for(checkov)
    assert len(started) == 1
    # checkov/secrets/runner.py reads it as it is imported
    monkeypatch.setenv("CHECKOV_MAX_FILE_SIZE", "1")
    policies._server_for(checkov)
    assert len(started) == 2


@pytest.mark.parametrize(
    "last_line",
    ["MemoryError", "RuntimeError: can't start new thread"],
    ids=["allocation", "thread-stack"],
)
def test_a_run_that_ends_as_python_does_at_its_memory_limit_is_reported_out_of_memory(
    monkeypatch: pytest.MonkeyPatch, last_line: str
) -> None:
    # Under RLIMIT_AS, CPython ends with MemoryError when an allocation fails and with
    # "can't start new thread" when a thread's stack cannot be mapped (Modules/
    # _threadmodule.c, thread_PyThread_start_new_thread); checkov starts threads to parse.
    monkeypatch.setattr(policies, "CHECKOV_MEMORY_BYTES", 350 * 2**20)
    stderr = f"Traceback (most recent call last):\n  ...\n{last_line}\n"

    error = policies._no_report(1, stderr)

    assert str(error) == "checkov ran out of memory (more than 350 MiB)"


def test_a_run_that_ends_otherwise_is_reported_with_its_last_line() -> None:
    error = policies._no_report(1, "Traceback ...\nKeyError: 'metadata'\n")

    assert str(error) == "checkov could not scan it: KeyError: 'metadata'"
