"""``cdk8s-headroom gitops``: the wiring objects as YAML to apply, valid for the tools'
schemas, and one line for bad input."""

from __future__ import annotations

import pytest
import yaml

from cdk8s_headroom.cli import main
from scripts.validation import validate_models
from tests.conftest import ROOT

REPO = "https://github.com/example/platform.git"


@pytest.mark.parametrize(
    ("tool", "kinds"),
    [
        ("argocd", ["Application"]),
        ("flux", ["GitRepository", "Kustomization"]),
        ("fleet", ["ApplicationSet"]),
    ],
)
def test_each_tool_gets_its_objects_and_they_validate_strictly(
    tool: str, kinds: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["gitops", tool, "--repo-url", REPO, "--manifests", str(ROOT / "dist")])

    objects = list(yaml.safe_load_all(capsys.readouterr().out))
    assert code == 0
    assert [o["kind"] for o in objects] == kinds
    assert [r.errors for r in validate_models(objects)] == [()] * len(kinds)


def test_the_flux_kustomization_checks_the_manifests_burst_deployments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["gitops", "flux", "--repo-url", REPO, "--manifests", str(ROOT / "dist")])

    kustomization = list(yaml.safe_load_all(capsys.readouterr().out))[1]
    assert kustomization["spec"]["healthChecks"] == [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": "demo-burst",
            "namespace": "node-headroom",
        }
    ]


def test_a_bad_url_exits_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["gitops", "argocd", "--repo-url", "example.com/platform"])

    (line,) = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert line.startswith("cdk8s-headroom gitops: error: repo_url: invalid value")
