"""Every install path on a real API server: `dist/` with kubectl (client-side and
server-side apply), every example with the CRDs it needs, the GitOps wiring, and the
Helm chart (install, upgrade, upgrade under `--wait`, uninstall).

What a real API server judges that no file can: admission (Pod Security ``restricted``
as kube-apiserver ships it, the CRDs' schemas and CEL rules, defaulting), and what
``kubectl apply`` sees as a change. A field the API server does not store (an
``omitempty`` false, such as PriorityClass ``globalDefault: false``) is sent again by
every client-side apply (kubectl ``apply.go``'s three-way patch between the last-applied
annotation and the live object), so "apply again, nothing changes" is checked with
kubectl's own verdict (``unchanged``), with ``kubectl diff`` (what GitOps tools and CI
diff steps run), and with every object's ``generation``.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import warnings
from pathlib import Path
from typing import Any

import cdk8s
import helm_python as helm
import pytest
import yaml

from cdk8s_headroom import HeadroomWarning, validate_app
from cdk8s_headroom.vocabulary.labels import COMPONENT_LABEL, RESERVER_COMPONENT
from e2e.cluster import LiveCluster, NodeShape
from scripts.helm_render import CHART
from tests.conftest import ROOT, SHARED, Manifest
from tests.helm.helm_cases import BERLIN_WINDOWS, readme_buffers_values
from tests.karpenter.test_karpenter_examples import EXAMPLES
from tests.live.crds import install_crds

DIST = ROOT / "dist"
CRDS = SHARED / "crds"
needs_shared_crds = pytest.mark.skipif(
    not CRDS.exists(), reason=f"the upstream CRDs are not in {CRDS} (../shared is absent)"
)


def _documents(folder: Path) -> list[Manifest]:
    return [
        doc
        for file in sorted(folder.glob("*.yaml"))
        for doc in yaml.safe_load_all(file.read_text())
        if doc
    ]


def _state(cluster: LiveCluster, folder: Path) -> dict[tuple[str, str, str], Any]:
    """Per object: its generation and every field but status and the server's
    bookkeeping, with the field managers that wrote it (not the status writers)."""
    state = {}
    for item in cluster.get_json("-f", str(folder))["items"]:
        metadata = dict(item["metadata"])
        managers = [
            m for m in metadata.pop("managedFields", []) if m.get("subresource") != "status"
        ]
        for bookkeeping in ("resourceVersion", "creationTimestamp", "uid"):
            metadata.pop(bookkeeping, None)
        body = {k: v for k, v in item.items() if k not in ("status", "metadata")}
        key = (item["kind"], metadata.get("namespace", ""), metadata["name"])
        state[key] = (metadata, body, managers)
    return state


def _apply_twice_and_delete(cluster: LiveCluster, folder: Path, *, server_side: bool) -> str:
    """Applies ``folder`` twice and deletes it, asserting on each step; returns the
    first apply's warnings (stderr) for the caller's own checks."""
    flags = ["--server-side"] if server_side else []
    first = cluster.kubectl("apply", "-f", str(folder), *flags)
    assert "would violate PodSecurity" not in first.stderr, first.stderr
    before = _state(cluster, folder)

    second = cluster.kubectl("apply", "-f", str(folder), *flags)

    if not server_side:
        # kubectl's own verdict per object: "unchanged", never "configured"
        changed = [line for line in second.stdout.splitlines() if not line.endswith(" unchanged")]
        assert changed == [], f"a second apply changed: {changed}"
    assert _state(cluster, folder) == before
    diff = cluster.kubectl("diff", "-f", str(folder), *flags, check=False)
    assert diff.returncode == 0, f"kubectl diff after apply: {diff.stdout}{diff.stderr}"

    cluster.kubectl("delete", "-f", str(folder), "--wait=true")
    left = cluster.kubectl("get", "-f", str(folder), "--ignore-not-found", "-o", "name")
    assert left.stdout.strip() == ""
    return first.stderr


@pytest.mark.parametrize("server_side", [False, True], ids=["client-side", "server-side"])
def test_dist_applies_twice_without_a_change_and_deletes_without_a_trace(
    cluster: LiveCluster, server_side: bool
) -> None:
    cluster.add_nodes([NodeShape("install-node")])
    cluster.kubectl("apply", "-f", str(DIST), *(["--server-side"] if server_side else []))
    # the reservers pass Pod Security restricted at admission and run
    reserver = cluster.wait_for(
        lambda: [
            p
            for p in cluster.get_json("pods", "-n", "node-headroom")["items"]
            if p["status"].get("phase") == "Running"
            and p["metadata"]["labels"].get(COMPONENT_LABEL) == RESERVER_COMPONENT
        ],
        what="a reserver Running on install-node",
    )
    assert reserver[0]["spec"]["nodeName"] == "install-node"

    _apply_twice_and_delete(cluster, DIST, server_side=server_side)


def _synthesize_example(name: str, outdir: Path) -> list[Manifest]:
    app = cdk8s.App(outdir=str(outdir))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)  # the examples' own warnings
        importlib.import_module(f"examples.{name}").build(app)
        validate_app(app)
    app.synth()
    return _documents(outdir)


@needs_shared_crds
@pytest.mark.parametrize("name", EXAMPLES)
def test_an_example_with_its_crds_applies_twice_without_a_change(
    cluster: LiveCluster, name: str, tmp_path: Path
) -> None:
    objects = _synthesize_example(name, tmp_path)
    install_crds(cluster, objects)

    _apply_twice_and_delete(cluster, tmp_path, server_side=False)


@needs_shared_crds
@pytest.mark.parametrize("tool", ["argocd", "flux", "fleet"])
def test_the_gitops_wiring_is_accepted_by_the_tools_crds(
    cluster: LiveCluster, tool: str, tmp_path: Path
) -> None:
    from cdk8s_headroom.cli.commands import main as cli

    out = tmp_path / "wiring.yaml"
    with out.open("w") as handle, contextlib.redirect_stdout(handle):
        status = cli(["gitops", tool, "--repo-url", "https://git.example.com/platform.git"])
    assert status == 0
    objects = _documents(tmp_path)
    assert objects, "the gitops command printed no object"
    install_crds(cluster, objects)
    # their controllers do not run here: the API server's schema and CEL checks decide
    cluster.kubectl("create", "namespace", "argocd")
    cluster.kubectl("create", "namespace", "flux-system")

    _apply_twice_and_delete(cluster, tmp_path, server_side=False)


# -- the chart ----------------------------------------------------------------------
def _helm(cluster: LiveCluster, namespace: str) -> helm.Config:
    return helm.Config(kubeconfig_path=cluster.kubeconfig, namespace=namespace)


def _release_objects(cluster: LiveCluster, namespace: str, release: str) -> list[str]:
    listing = cluster.kubectl(
        "get",
        "daemonsets,deployments,horizontalpodautoscalers,priorityclasses,cronjobs",
        "-A",
        "-l",
        f"app.kubernetes.io/instance={release}",
        "-o",
        "name",
    )
    return sorted(listing.stdout.split())


def _full_nodes(cluster: LiveCluster, count: int) -> None:
    """Nodes too full for a reserver: a reserver that cannot preempt waits there."""
    cluster.add_nodes(NodeShape(f"full-{i}", cpu="100m", memory="64Mi") for i in range(count))


CHART_VALUE_SETS = {
    "defaults": {},
    "blueprint": yaml.safe_load((CHART / "ci" / "blueprint-values.yaml").read_text()),
    "alerts": {"alerts": {"enabled": True}},
    # The real API server judges each window's CronJob: its schedule and its timeZone
    # (validateScheduleFormat, validateTimeZone, with the embedded time/tzdata)
    "windows": {"reservation": {"schedule": BERLIN_WINDOWS, "scheduledNodes": 1}},
}


@needs_shared_crds
@pytest.mark.parametrize("values", list(CHART_VALUE_SETS), ids=list(CHART_VALUE_SETS))
def test_the_chart_installs_upgrades_to_the_readme_buffers_and_uninstalls(
    cluster: LiveCluster, values: str
) -> None:
    overrides = CHART_VALUE_SETS[values]
    # every CRD the value sets use: PrometheusRule (alerts), CapacityBuffer (buffers)
    install_crds(
        cluster,
        [
            {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule"},
            {"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer"},
        ],
    )
    cluster.add_nodes([NodeShape("chart-node")])
    config = _helm(cluster, "web")

    installed = config.install(
        str(CHART),
        "web",
        overrides,
        namespace="web",
        create_namespace=True,
        timeout=120,
        wait="watcher",
    )
    assert installed["status"] == "deployed"
    assert _release_objects(cluster, "web", "web")
    if values == "alerts":
        assert cluster.get_json("prometheusrules", "-n", "web")["items"]
    if values == "windows":
        cron_jobs = cluster.get_json("cronjobs", "-n", "web")["items"]
        assert {(c["metadata"]["name"], c["spec"]["timeZone"]) for c in cron_jobs} == {
            ("web-headroom-reserver-business", "Europe/Berlin"),
            ("web-headroom-reserver-window-2", "Europe/Berlin"),
        }
        assert not cluster.get_json("daemonsets", "-n", "web")["items"]

    upgraded = config.upgrade(
        str(CHART), "web", readme_buffers_values(), namespace="web", timeout=120
    )
    assert upgraded["status"] == "deployed"
    buffers = cluster.get_json("capacitybuffers", "-n", "web")["items"]
    assert [b["metadata"]["name"] for b in buffers] == ["web-api-buffer"]
    assert not cluster.get_json("daemonsets", "-n", "web")["items"]  # no slices

    config.uninstall("web", timeout=120, wait="watcher")
    assert _release_objects(cluster, "web", "web") == []
    assert not cluster.get_json("capacitybuffers", "-n", "web")["items"]


def test_the_chart_installs_and_upgrades_under_wait_while_reservers_wait(
    cluster: LiveCluster,
) -> None:
    """Defect: Helm 4's `--wait` (the kstatus watcher) times out on a DaemonSet whose
    reservers wait on full nodes, normal operation here (cli-utils
    ``pkg/kstatus/status/core.go`` ``daemonsetConditions``). The chart's README says to
    use ``--wait=legacy``, Helm 3's readiness check (helm ``pkg/kube/ready.go``
    ``daemonSetReady``: an ``OnDelete`` DaemonSet has nothing to wait for), which still
    waits for the burst Deployments."""
    cluster.add_nodes([NodeShape("room-0")])
    _full_nodes(cluster, 2)
    config = _helm(cluster, "web")
    blueprint = CHART_VALUE_SETS["blueprint"]

    installed = config.install(
        str(CHART),
        "web",
        blueprint,
        namespace="web",
        create_namespace=True,
        timeout=60,
        wait="legacy",
    )
    assert installed["status"] == "deployed"
    reserver = _named(cluster, "daemonsets", "web", "web-headroom-reserver")
    assert reserver["status"]["desiredNumberScheduled"] == 3
    assert reserver["status"].get("numberAvailable", 0) < 3  # the full nodes' wait
    burst = _one(cluster, "deployments", "web")
    assert burst["status"].get("availableReplicas") == burst["spec"]["replicas"]

    upgraded = config.upgrade(
        str(CHART),
        "web",
        {**blueprint, "reservation": {"cpu": "1", "memory": "1Gi"}},
        namespace="web",
        timeout=60,
        wait="legacy",
    )
    assert upgraded["status"] == "deployed"

    # what the README warns of: the kstatus watcher reads the same headroom InProgress
    with pytest.raises(helm.HelmError, match="DaemonSet"):
        config.upgrade(str(CHART), "web", blueprint, namespace="web", timeout=10, wait="watcher")
    config.uninstall("web", timeout=60)


def _named(cluster: LiveCluster, resource: str, namespace: str, name: str) -> Manifest:
    (item,) = cluster.get_json(resource, name, "-n", namespace)["items"]
    return item


def _one(cluster: LiveCluster, resource: str, namespace: str) -> Manifest:
    items: list[Manifest] = cluster.get_json(resource, "-n", namespace)["items"]
    assert len(items) == 1, json.dumps([i["metadata"]["name"] for i in items])
    return items[0]
