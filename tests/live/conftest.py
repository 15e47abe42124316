"""The live tier: a real control plane per release, built from pinned modules
(``e2e/build.py``) and started on loopback by kwokctl (``e2e/cluster.py``).

Every test here is marked ``live`` and asks for the ``live`` pytest-xdist group, so that
one worker would start each release's cluster once. pytest-xdist 3.8 groups by adding
``@live`` to ``item._nodeid``, which pytest 9 no longer reads (``Node.nodeid`` comes
from ``_id``): the group has no effect, and each worker that runs a live test starts
its own cluster per release, side by side (measured: two workers, both clusters
running at once, the suite green). Their creations take turns (``LiveCluster.start``),
since kwokctl's free ports could collide. Each test leaves the cluster as it found it
(``_fresh_cluster``). Without Go the tier is skipped with one line that says how to get
it; under CI (``CI`` set) a missing Go fails instead, so CI never passes without it.
When a live test fails, the components' logs are kept in ``build/live-logs/<release>/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e import build
from e2e.cluster import ClusterError, LiveCluster, listening_ports, processes_under
from e2e.karpenter import Karpenter
from tests.conftest import ROOT

LIVE_DIR = Path(__file__).resolve().parent
LOGS = ROOT / "build" / "live-logs"
_failures: dict[str, int] = {}
"""Failed live tests per release, so a cluster's teardown knows to keep its logs."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if LIVE_DIR in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.live)
            item.add_marker(pytest.mark.xdist_group("live"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    release = getattr(item, "callspec", None) and item.callspec.params.get("live_release")
    if report.failed and release:
        _failures[release] = _failures.get(release, 0) + 1
        report.sections.append(
            ("live cluster", f"the components' logs are kept in {LOGS / release}")
        )
    return report


def _releases() -> tuple[str, ...]:
    """Every release the tier builds, or those of ``HEADROOM_LIVE_RELEASES`` ("1.37")."""
    chosen = os.environ.get("HEADROOM_LIVE_RELEASES")
    if not chosen:
        return build.releases()
    return tuple(r.strip() for r in chosen.split(",") if r.strip())


@pytest.fixture(scope="session", params=_releases())
def live_release(request: pytest.FixtureRequest) -> str:
    release: str = request.param
    return release


@pytest.fixture(scope="session")
def live_binaries(live_release: str) -> build.ReleaseBinaries:
    if not build.go_available():
        if os.environ.get("CI"):
            pytest.fail(f"CI runs the live tier, and Go is missing: {build.HOW_TO_GET_GO}")
        pytest.skip(f"live tier skipped: {build.HOW_TO_GET_GO}")
    try:
        return build.release_binaries(live_release, log=False)
    except build.BuildError as error:
        pytest.fail(f"the live tier's control plane did not build: {error}")


@pytest.fixture(scope="session")
def cluster(live_binaries: build.ReleaseBinaries) -> Iterator[LiveCluster]:
    release = live_binaries.release
    before = _failures.get(release, 0)
    try:
        live = LiveCluster.start(live_binaries)
    except ClusterError as error:
        pytest.fail(str(error))
    try:
        yield live
    finally:
        if _failures.get(release, 0) > before:
            live.keep_logs(LOGS / release)
        live.stop()
    # nothing of the cluster is left: no process, no folder
    assert processes_under(live.workdir) == []
    assert not live.workdir.exists()


_not_emptied: dict[str, str] = {}
"""Per release, the test after which a reset did not finish."""


@pytest.fixture(autouse=True)
def _fresh_cluster(request: pytest.FixtureRequest) -> Iterator[None]:
    """Removes what a test created, so the next one starts from an empty cluster.

    After a reset that did not finish, the next test's setup tries once more, briefly,
    and fails naming the test it follows and what is left: each later test would
    otherwise wait out a whole reset of its own (120 s) on a cluster that is not empty,
    and a run that met one stuck object reported every later test as its own failure."""
    if "cluster" not in request.fixturenames:
        yield
        return
    cluster: LiveCluster = request.getfixturevalue("cluster")
    release = cluster.binaries.release
    if release in _not_emptied:
        try:
            cluster.reset(timeout=10)
        except ClusterError as error:
            pytest.fail(f"the cluster is not empty since {_not_emptied[release]}: {error}")
        del _not_emptied[release]
    yield
    try:
        cluster.reset()
    except ClusterError:
        _not_emptied[release] = request.node.nodeid
        raise


@pytest.fixture(scope="session")
def karpenter_binary(live_binaries: build.ReleaseBinaries) -> Path:
    newest = build.karpenter_newest_kubernetes()
    release = tuple(int(n) for n in live_binaries.release.split("."))
    if release > newest:
        made_for = f"{newest[0]}.{newest[1]}"
        pytest.skip(
            f"Karpenter {build.karpenter_version()} is made for Kubernetes up to {made_for} "
            f"(its client-go), not {live_binaries.release}: its checks run on the live "
            "tier's older release"
        )
    try:
        return build.karpenter_binary(log=False)
    except build.BuildError as error:
        pytest.fail(f"Karpenter (its kwok command) did not build: {error}")


@pytest.fixture(scope="module")
def karpenter_process(karpenter_binary: Path, cluster: LiveCluster) -> Iterator[Karpenter]:
    """One Karpenter per test module, with the KWOK provider and the ``CapacityBuffer``
    gate, its log beside the components' (kept when a test fails); afterwards no
    process, port, folder or CRD of it is left."""
    running = Karpenter.start(cluster, karpenter_binary, log=cluster.logs_dir / "karpenter.log")
    try:
        yield running
    finally:
        running.stop()
    assert running.pid is not None and not Path(f"/proc/{running.pid}").exists()
    assert not running.workdir.exists()
    assert not set(running.ports.values()) & listening_ports()
    names = {c["metadata"]["name"] for c in cluster.get_json("crd")["items"]}
    assert not names & set(running.crds)


@pytest.fixture
def karpenter(karpenter_process: Karpenter) -> Iterator[Karpenter]:
    """The module's Karpenter; after the test it terminates every node it launched,
    before the cluster's reset (``_fresh_cluster`` is set up first, so torn down last)."""
    yield karpenter_process
    karpenter_process.release_nodes()
