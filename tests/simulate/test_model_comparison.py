"""scripts/compare_models.py: the committed table is what the script computes."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compare_models() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "compare_models", ROOT / "scripts" / "compare_models.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["compare_models"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rows(compare_models: ModuleType) -> dict[str, Any]:
    return {row.model.strip("`"): row for row in compare_models.compare()}


def test_the_committed_comparison_is_what_the_script_computes(
    compare_models: ModuleType, rows: dict[str, Any]
) -> None:
    expected = compare_models.render_document(list(rows.values()))

    assert (ROOT / "docs" / "model-comparison.md").read_text() == expected


def test_the_readme_table_matches_when_the_readme_has_the_markers(
    compare_models: ModuleType, rows: dict[str, Any]
) -> None:
    readme = ROOT / "README.md"
    if not readme.exists() or compare_models.BEGIN not in readme.read_text():
        pytest.skip("README.md has no model-comparison markers")
    text = readme.read_text()

    assert (
        compare_models.replace_section(text, compare_models.render_table(list(rows.values())))
        == text
    )


def test_seed_evicts_ordinary_pods_and_its_recreated_headroom_evicts_someone(
    rows: dict[str, Any],
) -> None:
    seed = rows["SEED"]

    assert seed.ordinary_evicted > 0
    assert seed.evicting_recreations > 0


@pytest.mark.parametrize("model", ["GUARDED", "DEDICATED_POOL"])
def test_guarded_models_take_every_slice_and_evict_no_ordinary_pod(
    rows: dict[str, Any], model: str
) -> None:
    row = rows[model]

    assert row.ordinary_evicted == 0
    assert row.evicting_recreations == 0
    assert row.bursts_placed == row.slices_consumed == 10


def test_only_the_dedicated_pool_keeps_the_second_wave_out_of_the_slices(
    rows: dict[str, Any],
) -> None:
    assert rows["DEDICATED_POOL"].second_wave_in_slices == 0
    assert rows["GUARDED"].second_wave_in_slices > 0


def test_replace_section_swaps_only_the_marked_text(compare_models: ModuleType) -> None:
    begin, end = compare_models.BEGIN, compare_models.END
    readme = f"intro\n{begin}\nold\n{end}\noutro\n"

    assert compare_models.replace_section(readme, "new\n") == f"intro\n{begin}\nnew\n{end}\noutro\n"
    assert compare_models.replace_section("no markers\n", "new\n") is None


def test_the_script_writes_the_document_and_refreshes_a_readme_with_markers(
    compare_models: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n{compare_models.BEGIN}\nstale\n{compare_models.END}\n")
    monkeypatch.setattr(compare_models, "ROOT", tmp_path)
    monkeypatch.setattr(compare_models, "README", readme)
    monkeypatch.setattr(compare_models, "DOC", tmp_path / "model-comparison.md")

    compare_models.main()

    assert "| `GUARDED` | 10/10 | 0 | 10 | 0 | 10/10 |" in readme.read_text()
    assert "stale" not in readme.read_text()
    assert (tmp_path / "model-comparison.md").read_text().startswith("<!-- Generated")


def test_a_buffer_gives_bursts_room_without_preemption_on_either_pool(
    rows: dict[str, Any], compare_models: ModuleType
) -> None:
    for name in (compare_models.BUFFER_SHARED, compare_models.BUFFER_DEDICATED):
        row = rows[name.strip("`")]
        assert row.bursts_placed == row.slices_consumed == 10
        assert row.ordinary_evicted == row.evicting_recreations == 0


def test_only_a_buffer_on_the_dedicated_pool_keeps_the_second_wave_out_of_its_room(
    rows: dict[str, Any], compare_models: ModuleType
) -> None:
    assert rows[compare_models.BUFFER_SHARED.strip("`")].second_wave_in_slices == 10
    assert rows[compare_models.BUFFER_DEDICATED.strip("`")].second_wave_in_slices == 0


def test_the_capacity_held_back_counts_slices_per_node_and_buffer_chunks(
    rows: dict[str, Any], compare_models: ModuleType
) -> None:
    assert rows["GUARDED"].held_back == "5 CPU, 5Gi (10 slices, one per node)"
    assert rows[compare_models.BUFFER_DEDICATED.strip("`")].held_back == (
        "5 CPU, 5Gi (10 buffer chunks)"
    )
