"""The measured figures of README.md and docs/ are bench/results.md's (bench/figures.py).

A doc quotes a figure between ``<!-- bench:KEY -->`` markers, which ``make bench``
rewrites after writing the results; a figure changed by hand, a marker naming no figure
of the results, or a time or ratio typed outside markers fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import figures

RESULTS = """\
# Benchmarks

## Simulator benchmark

| nodes | pods | per arrival (ms) | total (s) |
|---|---|---|---|
| 100 | 3000 | 0.30 | 0.040 |
| 1000 | 30000 | 0.40 | 0.200 |

## Plan and status on a large snapshot

A generated `kubectl get -o json` snapshot: 1000 nodes, 30000 pods, 176 MiB.
"""

DOC = (
    "1,000 nodes took <!-- bench:simulate-s-total-1000 -->0.200<!-- /bench --> s, "
    "<!-- bench:simulate-ms-per-arrival-1000 -->0.40<!-- /bench --> ms per arrival.\n"
)


@pytest.mark.parametrize("doc", figures.DOCUMENTS, ids=lambda path: path.name)
def test_every_marked_figure_is_the_one_bench_results_holds(doc: Path) -> None:
    assert figures.mismatches(doc.read_text(), figures.RESULTS.read_text()) == []


@pytest.mark.parametrize("doc", figures.DOCUMENTS, ids=lambda path: path.name)
def test_no_time_or_ratio_is_typed_outside_markers(doc: Path) -> None:
    assert figures.unmarked(doc.read_text()) == []


def test_every_figure_bench_knows_is_quoted_by_a_doc() -> None:
    quoted = {
        marker[1]
        for doc in figures.DOCUMENTS
        for marker in figures.MARKER.finditer(doc.read_text())
    }
    assert sorted(set(figures.FIGURES) - quoted) == []


def test_the_figures_are_read_from_their_section_row_and_column() -> None:
    assert figures.figure("simulate-ms-per-arrival-100", RESULTS) == "0.30"
    assert figures.figure("simulate-ms-per-arrival-1000", RESULTS) == "0.40"
    assert figures.figure("snapshot-mib", RESULTS) == "176"


def test_a_doc_that_quotes_the_results_has_no_mismatch() -> None:
    assert figures.mismatches(DOC, RESULTS) == []


def test_a_figure_changed_by_hand_is_reported() -> None:
    doc = DOC.replace(">0.40<", ">0.35<")

    assert figures.mismatches(doc, RESULTS) == [
        "simulate-ms-per-arrival-1000: the doc says '0.35', bench/results.md says '0.40'"
    ]


def test_a_marker_naming_no_figure_is_reported() -> None:
    doc = "<!-- bench:simulate-ms-per-arrival-500 -->0.35<!-- /bench --> ms"

    (problem,) = figures.mismatches(doc, RESULTS)
    assert problem.startswith("simulate-ms-per-arrival-500: not a figure of bench/figures.py")


def test_a_figure_whose_section_is_missing_from_the_results_is_reported() -> None:
    results = RESULTS.split("## Plan and status")[0]
    doc = "<!-- bench:snapshot-mib -->176<!-- /bench --> MiB"

    assert figures.mismatches(doc, results) == [
        "snapshot-mib: bench/results.md has no such figure "
        "(no section '## Plan and status on a large snapshot')"
    ]


def test_a_time_typed_by_hand_is_reported_and_a_marked_one_is_not() -> None:
    doc = DOC + "It took 2.6 ms per arrival, 1.4x faster; grace period 0 s.\n"

    assert figures.unmarked(doc) == ["2.6 ms", "1.4x"]


def test_rewriting_puts_the_results_figures_between_the_markers() -> None:
    stale = DOC.replace(">0.40<", ">5.60<").replace(">0.200<", ">0.676<")

    assert figures.rewrite(stale, RESULTS) == DOC
