"""The measured figures the docs quote, read from bench/results.md.

A doc never types a measured figure: it quotes one between markers, as
``<!-- bench:simulate-ms-per-arrival-1000 -->0.35<!-- /bench --> ms``, where the key
names one entry of ``FIGURES``, which says where bench/results.md holds it. ``make
bench`` (``run.py``) rewrites every marked figure after writing the results
(``rewrite_docs``), and tests/test_doc_figures.py fails when a marked figure differs
from the results file (``mismatches``), or when a timing or ratio is typed outside
markers (``unmarked``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results.md"
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))

MARKER = re.compile(r"<!-- bench:([a-z0-9-]+) -->(.*?)<!-- /bench -->")
UNMARKED = re.compile(r"\b\d[\d.,]*\s?(?:ms|µs)\b|\b\d+\.\d+\s?x\b")
"""What reads as a measured time or ratio ("2.6 ms", "1.4x"): outside markers, typed by
hand."""


@dataclass(frozen=True)
class Cell:
    """A table cell: the row whose first column is ``row``, in the column ``column``."""

    section: str
    row: str
    column: str

    def read(self, text: str) -> str:
        header: list[str] | None = None
        for line in text.splitlines():
            if not line.startswith("|"):
                header = None  # a table ends; the next one has a header of its own
                continue
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
            elif cells[0] == self.row and self.column in header:
                return cells[header.index(self.column)]
        raise LookupError(f"no row {self.row!r} with a column {self.column!r}")


@dataclass(frozen=True)
class Phrase:
    """The figure ``(...)`` of the first match of ``pattern`` in the section's prose."""

    section: str
    pattern: str

    def read(self, text: str) -> str:
        found = re.search(self.pattern, text)
        if found is None:
            raise LookupError(f"no text matching {self.pattern!r}")
        return found[1]


SIMULATOR = "Simulator benchmark"
SNAPSHOT = "Plan and status on a large snapshot"

FIGURES: dict[str, Cell | Phrase] = {
    "simulate-ms-per-arrival-100": Cell(SIMULATOR, "100", "per arrival (ms)"),
    "simulate-ms-per-arrival-1000": Cell(SIMULATOR, "1000", "per arrival (ms)"),
    "simulate-s-total-1000": Cell(SIMULATOR, "1000", "total (s)"),
    "snapshot-mib": Phrase(SNAPSHOT, r"30000 pods, (\d+) MiB"),
}


def sections(results: str) -> dict[str, str]:
    """The results' ``## `` sections, by title."""
    found: dict[str, str] = {}
    for part in re.split(r"^## ", results, flags=re.MULTILINE)[1:]:
        title, _, body = part.partition("\n")
        found[title.strip()] = body
    return found


def figure(key: str, results: str) -> str:
    """The figure ``key`` names, as bench/results.md writes it."""
    where = FIGURES[key]
    body = sections(results).get(where.section)
    if body is None:
        raise LookupError(f"no section '## {where.section}'")
    return where.read(body)


def mismatches(doc: str, results: str) -> list[str]:
    """Each marked figure of ``doc`` that differs from ``results``, or that names no
    figure the results hold, said in one line."""
    found = []
    for marker in MARKER.finditer(doc):
        key, shown = marker[1], marker[2]
        if key not in FIGURES:
            found.append(f"{key}: not a figure of bench/figures.py; known: {sorted(FIGURES)}")
            continue
        try:
            measured = figure(key, results)
        except LookupError as error:
            found.append(f"{key}: bench/results.md has no such figure ({error})")
            continue
        if shown != measured:
            found.append(f"{key}: the doc says {shown!r}, bench/results.md says {measured!r}")
    return found


def unmarked(doc: str) -> list[str]:
    """The times and ratios of ``doc`` typed outside markers."""
    return UNMARKED.findall(MARKER.sub("", doc))


def rewrite(doc: str, results: str) -> str:
    """``doc`` with every marked figure as ``results`` holds it."""
    return MARKER.sub(
        lambda marker: f"<!-- bench:{marker[1]} -->{figure(marker[1], results)}<!-- /bench -->",
        doc,
    )


def rewrite_docs(results: str) -> list[Path]:
    """Rewrites the marked figures of README.md and docs/*.md; returns the files changed."""
    changed = []
    for path in DOCUMENTS:
        text = path.read_text()
        new = rewrite(text, results)
        if new != text:
            path.write_text(new)
            changed.append(path)
    return changed
