"""Shared helpers: synthesize a chart into plain dicts and pick objects out of it."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import cdk8s

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

Manifest = dict[str, Any]

NODE_TMPDIR = pytest.StashKey[Path]()
"""The temporary folder of this run's Node process, removed when the run ends."""


def pytest_configure(config: pytest.Config) -> None:
    # cdk8s's Testing.app() (under K8sTesting.chart()) makes a folder in Node's temporary
    # folder for every app, about 460 a run, and never removes one. Node reads TMPDIR from
    # the environment jsii starts it with, at the first import of cdk8s: so that import is
    # made here, with a folder of this run's own as TMPDIR. Python's temporary folder is
    # read first, so that it stays where it was.
    tempfile.gettempdir()
    folder = Path(tempfile.mkdtemp(prefix="cdk8s-headroom-tests-"))
    config.stash[NODE_TMPDIR] = folder
    # The strict schemas' verdicts are kept between runs (validate.verdict_cache): the
    # suite keeps its own, in this run's folder, never the user's.
    os.environ["HEADROOM_SCHEMA_CACHE"] = str(folder / "schema-verdicts")
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(folder)
    try:
        import cdk8s  # noqa: F401
    finally:
        if before is None:
            del os.environ["TMPDIR"]
        else:
            os.environ["TMPDIR"] = before


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line when tests skipped because ``SHARED`` is absent (a fresh clone), so the
    skips are not taken for a pass; README.md's Layout says what the folder holds."""
    skipped = [
        report
        for report in terminalreporter.stats.get("skipped", [])
        if str(SHARED) in str(report.longrepr)
    ]
    if skipped and not SHARED.is_dir():
        terminalreporter.write_line(
            f"{len(skipped)} tests skipped: {SHARED} is absent (the upstream CRDs, the "
            "preemption vectors and real clusters' listings they read; CI has it: see "
            "README.md, Layout)"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(config.stash[NODE_TMPDIR], ignore_errors=True)


@pytest.fixture
def chart() -> cdk8s.Chart:
    """An empty chart in a fresh test app."""
    from cdk8s import Testing as K8sTesting

    return K8sTesting.chart()


def chart_with_classes() -> cdk8s.Chart:
    """A test chart with the GUARDED PriorityClasses, for workloads built on their own:
    synthesis refuses a pod template whose class the app neither emits nor declares."""
    from cdk8s import Testing as K8sTesting

    from cdk8s_headroom import HeadroomPriorityClasses

    chart = K8sTesting.chart()
    HeadroomPriorityClasses(chart, "classes")
    return chart


@pytest.fixture
def synth() -> Callable[[cdk8s.Chart], list[Manifest]]:
    from cdk8s import Testing as K8sTesting

    def _synth(chart: cdk8s.Chart) -> list[Manifest]:
        return list(K8sTesting.synth(chart))

    return _synth


def find(objects: list[Manifest], kind: str, name: str | None = None) -> Manifest:
    """The one object of ``kind`` (and ``name``); fails when there is not exactly one."""
    matches = [
        o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)
    ]
    assert len(matches) == 1, f"expected one {kind} {name or ''}, found {len(matches)}"
    return matches[0]


def find_all(objects: list[Manifest], kind: str) -> list[Manifest]:
    return [o for o in objects if o["kind"] == kind]


def pod_spec(workload: Manifest) -> Manifest:
    spec: Manifest = workload["spec"]["template"]["spec"]
    return spec


def iter_containers(spec: Manifest) -> Iterator[Manifest]:
    yield from spec.get("initContainers", [])
    yield from spec["containers"]


def refuse_listing(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Makes listing ``folder`` fail as the OS refuses an unreadable folder. Tests may run
    as root, whom chmod cannot stop, so the refusal is simulated."""
    real_scandir = os.scandir

    def refuse(path: Any) -> Any:
        if Path(path) == folder:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
