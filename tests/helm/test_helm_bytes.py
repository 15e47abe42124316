"""What `helm template` writes, byte for byte, for every value set of the Helm tests.

The parity tests compare the objects a rendering parses into; these hold the bytes, so
that generating more of the chart (issue 37) cannot change the YAML users diff, nor where
a refusal says it failed (``headroom.yaml:1:10``), unnoticed. A rendering is on record
as a digest of its files, with the chart's version left out, so that a release does not
change every digest. Refresh only on purpose, with the reason in the commit:
`pytest tests/helm/test_helm_bytes.py --snapshot-update`. To see what changed in a case,
render it with the chart before and after the change and diff the two.
"""

from __future__ import annotations

import hashlib

import helm_python as helm
import yaml
from syrupy.assertion import SnapshotAssertion

from scripts.helm_render import CHART, render
from tests.helm.helm_cases import BUFFER_CASES, PARITY_CASES
from tests.helm.helm_error_cases import CASES as REFUSAL_CASES


def _version() -> str:
    return str(yaml.safe_load((CHART / "Chart.yaml").read_text())["version"])


def _digest(files: dict[str, str]) -> str:
    version = _version()
    text = "".join(f"--- {path}\n{body}" for path, body in sorted(files.items()))
    return hashlib.sha256(text.replace(version, "<version>").encode()).hexdigest()


def test_every_value_set_renders_the_bytes_on_record(
    chart: helm.Chart, snapshot: SnapshotAssertion
) -> None:
    digests = {
        name: _digest(render(chart, overrides, release=release, namespace=release))
        for name, release, overrides in [*PARITY_CASES, *BUFFER_CASES]
    }
    assert digests == snapshot


def test_every_refusal_reads_as_on_record(chart: helm.Chart, snapshot: SnapshotAssertion) -> None:
    # The whole message, with the template line and column Helm names
    refusals = {}
    for name, overrides, _, _ in REFUSAL_CASES:
        try:
            render(chart, overrides)
        except helm.HelmError as error:
            refusals[name] = str(error).replace(_version(), "<version>")
        else:
            refusals[name] = "rendered"
    assert refusals == snapshot
