"""The live tier's pins (e2e/modules): each release's control plane pins k8s.io/kubernetes
and every staging module at the matching published version, and the releases are the
ones the project's version rules name. Runs without Go: it reads the go.mod files."""

from __future__ import annotations

import re

from cdk8s_headroom.simulate.versions import NEWEST_VALIDATED
from e2e import build


def _replaces(go_mod: str) -> dict[str, str]:
    block = go_mod.split("replace (", 1)[1].split(")", 1)[0]
    pairs = re.findall(r"^\s*(\S+) => (\S+) (\S+)$", block, re.MULTILINE)
    assert all(source == target for source, target, _ in pairs)
    return {source: version for source, _, version in pairs}


def test_the_live_tier_runs_the_newest_validated_release_and_an_older_one() -> None:
    releases = build.releases()

    assert releases[0] == str(NEWEST_VALIDATED)
    minors = [int(release.split(".")[1]) for release in releases]
    assert len(releases) == 2 and minors[1] < minors[0]


def test_each_release_pins_every_staging_module_at_its_own_published_version() -> None:
    for release in build.releases():
        module = build.kubernetes_module(release)
        go_mod = (module.path / "go.mod").read_text()
        version = build._required_version(module.path / "go.mod", "k8s.io/kubernetes")
        replaces = _replaces(go_mod)

        assert version.startswith(f"v{release}.")
        staging = f"v0.{version.removeprefix('v1.')}"
        assert replaces, release
        assert set(replaces.values()) == {staging}, release
        assert {"k8s.io/api", "k8s.io/client-go", "k8s.io/apiserver"} <= set(replaces)


def test_the_components_report_the_release_they_were_built_from() -> None:
    for release in build.releases():
        module = build.kubernetes_module(release)
        version = build._required_version(module.path / "go.mod", "k8s.io/kubernetes")

        assert f"-X k8s.io/component-base/version.gitVersion={version}" in module.version_flags


def test_the_health_helper_pins_the_gitops_tools_and_the_newest_release() -> None:
    go_mod = (build.HEALTH.path / "go.mod").read_text()

    assert "github.com/argoproj/argo-cd/gitops-engine/v3 v3.6.2" in go_mod
    assert "sigs.k8s.io/cli-utils v0.37.2" in go_mod
    newest = (build.kubernetes_module(build.releases()[0]).path / "go.mod").read_text()
    assert _replaces(go_mod) == _replaces(newest)
    assert build.HEALTH.toolchain == build.NEWER_TOOLCHAIN


def test_kube_state_metrics_is_pinned_and_reports_its_version_and_client_go() -> None:
    go_mod = build.KUBE_STATE_METRICS.path / "go.mod"
    version = build._required_version(go_mod, "k8s.io/kube-state-metrics/v2")
    client_go = build._required_version(go_mod, "k8s.io/client-go")

    assert version == "v2.20.0"
    assert build.KUBE_STATE_METRICS.version_flags == (
        f"-X github.com/prometheus/common/version.Version={version}",
        f"-X k8s.io/kube-state-metrics/v2/pkg/app.ClientGoVersion={client_go}",
    )
    assert build.KUBE_STATE_METRICS.toolchain == "local"  # it asks for Go 1.26.0


def test_karpenter_is_pinned_at_the_release_the_design_names_with_go_1_27() -> None:
    go_mod = build.KARPENTER.path / "go.mod"

    assert build._required_version(go_mod, "sigs.k8s.io/karpenter") == "v1.14.3"
    assert "tool sigs.k8s.io/karpenter/kwok" in go_mod.read_text()
    assert build.KARPENTER.toolchain == build.NEWER_TOOLCHAIN


def test_the_karpenter_checks_run_on_a_release_karpenter_is_made_for() -> None:
    newest = build.karpenter_newest_kubernetes()
    releases = [tuple(int(n) for n in r.split(".")) for r in build.releases()]

    assert newest == (1, 35)
    assert [r for r in releases if r <= newest]
