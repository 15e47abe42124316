"""`plan` and `status` without `--snapshot`: the listing read through kubectl, here a
stand-in that answers as kubectl does (its List, its refusals on stderr, its exit
status), so the reading and the messages are checked on every machine. The real kubectl
and API server are in tests/live/test_cluster_reads.py."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest
import yaml

from cdk8s_headroom.cli import main
from cdk8s_headroom.cluster import live_listing
from cdk8s_headroom.cluster.live_listing import reader_rules
from tests.conftest import ROOT

AFTER = ROOT / "docs" / "examples" / "snapshot-after.json"

FAKE_KUBECTL = f"""#!{sys.executable}
import json, os, sys, time
args = sys.argv[1:]
with open(os.environ["FAKE_KUBECTL_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
mode = os.environ.get("FAKE_KUBECTL_MODE", "ok")
if args[-2:] == ["config", "current-context"]:
    sys.exit(print("current"))
if args[-3:] != ["--all-namespaces", "--output", "json"]:
    sys.exit("unexpected command")
events = "events" in args
buffers = "capacitybuffers.autoscaling.x-k8s.io" in args
if buffers and mode == "no-buffers":
    sys.stderr.write("error: the server doesn't have a resource type capacitybuffers\\n")
    sys.exit(1)
if mode == "hang":
    time.sleep(60)
if mode == "forbidden-pods" and not events:
    sys.stderr.write('Error from server (Forbidden): pods is forbidden: User "u" cannot '
                     'list resource "pods" in API group "" at the cluster scope\\n')
    sys.exit(1)
if mode in ("forbidden-pods", "forbidden-events") and events:
    sys.stderr.write('Error from server (Forbidden): events is forbidden: User "u" cannot '
                     'list resource "events" in API group "" at the cluster scope\\n')
    sys.exit(1)
listing = json.load(open(os.environ["FAKE_KUBECTL_LISTING"]))
kind = "Event" if events else "CapacityBuffer" if buffers else None
apart = ("Event", "CapacityBuffer")
items = [i for i in listing["items"] if i["kind"] == kind or (not kind and i["kind"] not in apart)]
print(json.dumps({{"apiVersion": "v1", "kind": "List", "items": items}}))
"""


@pytest.fixture
def kubectl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A kubectl on PATH that lists docs/examples/snapshot-after.json; its log holds
    each command line it got."""
    folder = tmp_path / "bin"
    folder.mkdir()
    program = folder / "kubectl"
    program.write_text(FAKE_KUBECTL)
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\n")
    log = tmp_path / "kubectl.log"
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_KUBECTL_LOG", str(log))
    monkeypatch.setenv("FAKE_KUBECTL_LISTING", str(AFTER))
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    return log


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _refused(err: str, field: str) -> str:
    assert err.count("\n") == 1, err
    prefix = f"cdk8s-headroom status: error: {field}: invalid value "
    assert err.startswith(prefix), err
    return err[len(prefix) :]


def test_status_from_the_context_equals_status_from_the_listing_file(
    kubectl: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from_file = _run(capsys, "status", "--snapshot", str(AFTER), "--json")
    from_cluster = _run(capsys, "status", "--context", "prod", "--json")

    assert from_cluster[0] == from_file[0]
    assert json.loads(from_cluster[1]) == json.loads(from_file[1])
    assert json.loads(from_cluster[1])["events"]  # the Preempted events were read too


def test_the_read_asks_kubectl_for_the_listing_and_the_preempted_events(
    kubectl: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "other-kubeconfig"
    config.write_text("apiVersion: v1\nkind: Config\n")
    _run(capsys, "status", "--kubeconfig", str(config), "--context", "prod")
    _run(capsys, "status", "--request-timeout", "5s")

    commands = [json.loads(line) for line in kubectl.read_text().splitlines()]
    chosen = ["--kubeconfig", str(config), "--context", "prod", "--request-timeout", "30s"]
    tail = ["--chunk-size", "500", "--all-namespaces", "--output", "json"]
    listing = (
        "nodes,pods,priorityclasses.scheduling.k8s.io,poddisruptionbudgets.policy,daemonsets.apps"
    )
    buffers = "capacitybuffers.autoscaling.x-k8s.io"
    assert sorted(commands) == sorted(
        [
            [*chosen, "get", listing, *tail],
            [*chosen, "get", "events", "--field-selector", "reason=Preempted", *tail],
            [*chosen, "get", buffers, *tail],
            # no flags: kubectl's own defaults ($KUBECONFIG, its current context)
            ["--request-timeout", "5s", "get", listing, *tail],
            [
                "--request-timeout",
                "5s",
                "get",
                "events",
                "--field-selector",
                "reason=Preempted",
                *tail,
            ],
            ["--request-timeout", "5s", "get", buffers, *tail],
        ]
    )


def test_a_user_who_may_not_list_events_gets_the_verdicts_and_a_warning(
    kubectl: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_KUBECTL_MODE", "forbidden-events")

    code, out, _ = _run(capsys, "status", "--json")

    report = json.loads(out)
    assert code in (0, 1) and report["headrooms"] and report["events"] == []
    assert any(
        w.startswith("Preempted events not read: Error from server (Forbidden): events")
        for w in report["warnings"]
    )


def test_a_user_who_may_not_list_pods_is_told_which_rights_are_missing(
    kubectl: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_KUBECTL_MODE", "forbidden-pods")

    code, out, err = _run(capsys, "status", "--context", "prod")

    assert (code, out) == (2, "")
    assert _refused(err, "--context") == (
        "'prod'; a context whose user may get and list nodes, pods, priorityclasses, "
        "poddisruptionbudgets, daemonsets and events in all namespaces (docs/plan-status.md, "
        '"Reading the cluster", gives the ClusterRole); kubectl said: Error from server '
        '(Forbidden): pods is forbidden: User "u" cannot list resource "pods" in API group "" '
        "at the cluster scope\n"
    )


def test_a_read_that_does_not_end_is_stopped(
    kubectl: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_KUBECTL_MODE", "hang")
    monkeypatch.setattr(live_listing, "REQUESTS_PER_READ", 1)

    code, _, err = _run(capsys, "status", "--context", "prod", "--request-timeout", "1s")

    assert code == 2
    assert "the read took longer than 1 times --request-timeout 1s" in _refused(err, "--context")


def test_without_kubectl_the_message_says_what_to_install_or_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "kubeconfig"))

    code, _, err = _run(capsys, "status", "--context", "prod")

    assert code == 2
    assert "kubectl on PATH ('kubectl' was not found)" in _refused(err, "--context")
    assert "or a listing file with --snapshot" in err


def test_without_any_kubeconfig_the_message_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))

    code, _, err = _run(capsys, "status")

    assert code == 2
    assert _refused(err, "--kubeconfig") == (
        "null; a kubeconfig: none was given, $KUBECONFIG is unset and ~/.kube/config does "
        "not exist; or a listing file with --snapshot\n"
    )


@pytest.mark.parametrize(
    ("argv", "field", "value"),
    [
        (["--request-timeout", "3q"], "--request-timeout", "'3q'"),
        (["--request-timeout=-1s"], "--request-timeout", "'-1s'"),
        (["--snapshot", str(AFTER), "--context", "prod"], "--context", "'prod'"),
        (["--snapshot", str(AFTER), "--request-timeout", "5s"], "--request-timeout", "'5s'"),
        (["--kubeconfig", "/no/such/kubeconfig"], "--kubeconfig", "'/no/such/kubeconfig'"),
    ],
)
def test_flags_of_the_read_are_checked_before_kubectl_runs(
    kubectl: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    field: str,
    value: str,
) -> None:
    code, out, err = _run(capsys, "status", *argv)

    assert (code, out) == (2, "")
    assert _refused(err, field).startswith(f"{value}; ")
    assert not kubectl.exists()  # refused before any kubectl ran


def test_the_clusterrole_the_docs_show_is_the_one_the_read_needs() -> None:
    page = (ROOT / "docs" / "plan-status.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", page, re.S)
    (role,) = [
        y
        for y in map(yaml.safe_load, blocks)
        if isinstance(y, dict) and y.get("kind") == "ClusterRole"
    ]
    assert role["rules"] == reader_rules()


def test_a_cluster_without_the_capacitybuffer_crd_has_no_buffers_and_no_warning(
    kubectl: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_KUBECTL_MODE", "no-buffers")

    code, out, _ = _run(capsys, "status", "--json")

    report = json.loads(out)
    assert code in (0, 1) and report["headrooms"]
    assert report["buffers"] == [] and not any("CapacityBuffer" in w for w in report["warnings"])
