"""The generated chart: its files, their sources, determinism, lint, packaging."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import cdk8s
import helm_python as helm
import pytest
import yaml

import cdk8s_headroom
import main
from cdk8s_headroom.helm import (
    KUBE_VERSION,
    ValuesError,
    chart_files,
    package_chart,
    values_from_app,
    write_chart,
)
from cdk8s_headroom.helm import chart as chart_module
from cdk8s_headroom.helm.values import VALUES
from scripts.helm_render import CHART, lint, load, objects, render
from tests.conftest import ROOT
from tests.helm.helm_cases import BUFFER_CASES, PARITY_CASES


@pytest.fixture(scope="module")
def app_values() -> dict[str, Any]:
    app = cdk8s.App()
    main.build(app)
    return values_from_app(app)


@pytest.fixture(scope="module")
def files(app_values: dict[str, Any]) -> dict[str, str]:
    return chart_files(app_values)


def test_the_committed_chart_equals_a_fresh_generation(files: dict[str, str]) -> None:
    committed = {
        p.relative_to(CHART).as_posix(): p.read_text() for p in CHART.rglob("*") if p.is_file()
    }
    assert sorted(committed) == sorted(files)
    for name, text in files.items():
        assert committed[name] == text, f"{name} is out of date: run `make chart`"


def test_two_generations_give_identical_bytes(tmp_path: Path, app_values: dict[str, Any]) -> None:
    write_chart(tmp_path / "a", app_values)
    write_chart(tmp_path / "b", app_values)

    def tree(folder: Path) -> dict[Path, bytes]:
        return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    assert tree(tmp_path / "a") == tree(tmp_path / "b")


def test_the_chart_has_the_files_helm_users_expect(files: dict[str, str]) -> None:
    for name in (
        "Chart.yaml",
        "values.yaml",
        "values.schema.json",
        "README.md",
        "templates/NOTES.txt",
        "templates/headroom.yaml",
    ):
        assert name in files


def test_chart_yaml_follows_the_package_version(files: dict[str, str]) -> None:
    metadata = yaml.safe_load(files["Chart.yaml"])
    # tomllib is 3.11+, and the project supports 3.10.
    pyproject = re.search(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert pyproject
    assert metadata["apiVersion"] == "v2"
    assert metadata["name"] == "node-headroom"
    assert metadata["version"] == cdk8s_headroom.__version__ == pyproject[1]
    assert metadata["kubeVersion"] == KUBE_VERSION == ">=1.27.0-0"


def test_the_chart_defaults_are_main_py_read_back_from_its_constructs(
    files: dict[str, str], app_values: dict[str, Any]
) -> None:
    assert yaml.safe_load(files["values.yaml"]) == app_values
    assert app_values["reservation"] == {"cpu": main.SLICE_CPU, "memory": main.SLICE_MEMORY}
    assert app_values["model"] == main.MODEL.value
    assert [w["name"] for w in app_values["burstWorkloads"]] == ["demo-burst"]


def test_every_value_is_in_the_schema_and_the_readme(files: dict[str, str]) -> None:
    schema = json.loads(files["values.schema.json"])
    readme = files["README.md"]
    for value in VALUES:
        node: Any = schema
        for part in value.path.split("."):
            if part.endswith("[]"):
                node = node["properties"][part[:-2]]["items"]
            else:
                node = node["properties"][part]
        assert node["description"] == value.description, value.path
        assert f"| `{value.path}` |" in readme, value.path


def test_the_values_documentation_speaks_helm_and_kubernetes(files: dict[str, str]) -> None:
    # No Python: no enum or class names, no factories, no snake_case props, no None.
    for name in ("values.yaml", "README.md", "templates/NOTES.txt"):
        text = files[name]
        for python in ("PriorityModel", "ReserverTask", "KarpenterNodePool", "NodeHeadroom",
                       "BurstWorkload", "()", "None", "True", "False"):  # fmt: skip
            assert python not in text, (name, python)
        assert not re.search(r"(?<!`)``(?!`)", text), name
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), name


def test_the_schema_holds_the_structure_and_the_templates_the_rules(files: dict[str, str]) -> None:
    schema = json.loads(files["values.schema.json"])
    assert schema["properties"]["model"]["enum"] == ["guarded", "dedicated-pool", "seed"]
    assert schema["additionalProperties"] is False
    # quantities: strings, or numbers (what --set passes); their grammar is a template's
    cpu = schema["properties"]["reservation"]["properties"]["cpu"]
    assert cpu["type"] == ["string", "number", "null"]  # null: no slices
    assert "pattern" not in files["values.schema.json"]
    library = files["files/library.json"]
    assert "system-.*" in library and "a name that does not start with 'system-'" in library


def test_the_default_values_pass_the_charts_schema() -> None:
    with helm.Chart.load(CHART) as loaded:
        loaded.validate_schema({})
        assert loaded.schema == json.loads((CHART / "values.schema.json").read_text())


def lint_findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Lint messages above INFO (Helm's only INFO here: "icon is recommended")."""
    return [message for message in report["messages"] if message["severity"] >= 2]


def test_helm_lint_strict_is_clean() -> None:
    report = lint()
    assert report["errors"] == []
    assert lint_findings(report) == []
    assert [m["error"] for m in report["messages"]] == ["icon is recommended"]


LINTED = PARITY_CASES[1:5] + BUFFER_CASES


@pytest.mark.parametrize(
    "overrides",
    [overrides for _, _, overrides in LINTED],
    ids=[case_id for case_id, _, _ in LINTED],
)
def test_helm_lint_strict_is_clean_with_other_values(overrides: dict[str, Any]) -> None:
    report = lint(CHART, overrides)
    assert report["errors"] == [] and lint_findings(report) == []


def test_a_failed_generation_leaves_the_chart_untouched(
    tmp_path: Path, app_values: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "node-headroom"
    write_chart(target, app_values)
    before = {p: p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file()}

    def broken(defaults: Any) -> dict[str, str]:
        files = chart_files(defaults)
        files["values.yaml"] = "reservation: {}\n"
        return files

    monkeypatch.setattr(chart_module, "chart_files", broken)
    with pytest.raises(cdk8s_headroom.HeadroomConfigError):
        write_chart(target, app_values)
    assert {p: p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file()} == before


def test_an_app_the_values_cannot_express_is_refused() -> None:
    app = cdk8s.App()
    main.build(app)
    chart = cdk8s.Chart(app, "other")
    cdk8s_headroom.NodeHeadroom(chart, "second", cpu="1", memory="1Gi", namespace="other")
    with pytest.raises(ValuesError, match="exactly one NodeHeadroom"):
        values_from_app(app)


def test_the_package_is_reproducible(tmp_path: Path) -> None:
    first = package_chart(CHART, tmp_path / "one").read_bytes()
    copy = tmp_path / "copy" / "node-headroom"
    for path in CHART.rglob("*"):
        if path.is_file():
            target = copy / path.relative_to(CHART)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
            os.utime(target, (1_700_000_000, 1_700_000_000))
    archive = package_chart(copy, tmp_path / "two")
    assert archive.name == f"node-headroom-{cdk8s_headroom.__version__}.tgz"
    assert archive.read_bytes() == first
    assert first[4:8] == b"\0\0\0\0"  # gzip header without a timestamp


def test_the_sync_check_reports_a_hand_edited_chart(tmp_path: Path) -> None:
    from scripts.check_sync import differences

    copy = tmp_path / "node-headroom"
    for path in CHART.rglob("*"):
        if path.is_file():
            target = copy / path.relative_to(CHART)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    assert differences(CHART, copy) == []
    (copy / "values.yaml").write_text("model: seed\n")
    (copy / "templates" / "extra.yaml").write_text("{}\n")
    assert differences(CHART, copy) == [
        "not generated any more: templates/extra.yaml",
        "differs: values.yaml",
    ]


def test_the_benchmark_reports_the_ratio_to_a_static_chart_of_the_same_objects() -> None:
    from bench.bench_helm import run

    section = run(repeat=1)
    assert section.startswith("## Helm chart render time")
    assert "| a static chart of the same objects: load + render + parse |" in section
    assert "Ratio of this chart's load + render to the static chart's" in section


def test_a_mirror_serves_the_pre_pullers_images_too() -> None:
    mirror = {"pause": "mirror.example.com/pause:3.10", "prepullTools": "mirror.example.com/bb:1"}
    overrides = {"prepullBurstImages": True, "images": mirror}
    with load() as chart:
        rendered = objects(render(chart, overrides))
    prepuller = next(d for d in rendered if d["metadata"]["name"].endswith("-prepull"))
    pod = prepuller["spec"]["template"]["spec"]
    assert [c["image"] for c in pod["containers"]] == [mirror["pause"]]
    assert pod["initContainers"][0]["image"] == mirror["prepullTools"]
