"""The limits the docs state are the code's: docs/simulate.md says which files are
refused, and the numbers there are ``files.documents``' constants."""

from __future__ import annotations

from cdk8s_headroom.files.file_bytes import MAX_FILE_BYTES
from cdk8s_headroom.files.parsing import MAX_DEPTH
from tests.conftest import ROOT


def _binary_size(size: int) -> str:
    for unit, power in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size % 2**power == 0:
            return f"{size // 2**power} {unit}"
    return f"{size} bytes"


def test_docs_simulate_states_the_file_size_and_depth_limits_of_the_readers() -> None:
    text = " ".join((ROOT / "docs" / "simulate.md").read_text().split())
    assert f"a file larger than {_binary_size(MAX_FILE_BYTES)}," in text
    assert f"nesting deeper than {MAX_DEPTH} levels" in text
