"""Every fenced Python block of the README and of the pages under docs/ runs."""

import re

import pytest

from tests.conftest import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

BLOCKS = [
    (document.relative_to(ROOT).as_posix(), block)
    for document in DOCUMENTS
    for block in re.findall(r"```python\n(.*?)```", document.read_text(), re.DOTALL)
]
"""(page, code) of each block, in page order."""


def test_the_readme_has_python_examples() -> None:
    assert [page for page, _ in BLOCKS if page == "README.md"]


@pytest.mark.parametrize(
    ("page", "block"),
    BLOCKS,
    ids=[f"{page}-block-{i}" for i, (page, _) in enumerate(BLOCKS)],
)
def test_a_python_block_of_the_docs_runs(page: str, block: str) -> None:
    exec(compile(block, page, "exec"), {"__name__": "readme"})
