"""Writing the chart folder and its reproducible package."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import tarfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from cdk8s_headroom import __doc__ as library_doc
from cdk8s_headroom import __version__
from cdk8s_headroom.files.publish import swap_in
from cdk8s_headroom.helm.library import LIBRARY_JSON, library_json, library_tpl
from cdk8s_headroom.helm.values import CHART_NAME, schema_json, values_table, values_yaml
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

TEMPLATES = Path(__file__).parent / "templates"
README_HEAD = Path(__file__).parent / "chart_readme.md"
"""The chart README's prose, before the table of values; ``{summary}`` is the library's."""
"""The chart's Go templates: the rules' generic checks and the objects (``_helpers.tpl``),
the manifests (``headroom.yaml``) and ``NOTES.txt``."""

KUBE_VERSION = ">=1.27.0-0"
"""The oldest Kubernetes the objects are validated for (cdk8s-plus-27's API)."""


def chart_files(chart_defaults: Mapping[str, Any]) -> dict[str, str]:
    """Every file of the chart, by its path in the chart folder."""
    metadata = {
        "apiVersion": "v2",
        "name": CHART_NAME,
        "description": _summary(),
        "type": "application",
        "version": __version__,
        "appVersion": __version__,
        "kubeVersion": KUBE_VERSION,
        "keywords": ["headroom", "priorityclass", "preemption", "daemonset", "karpenter"],
    }
    return {
        "Chart.yaml": yaml.safe_dump(metadata, sort_keys=False, width=88),
        "README.md": README_HEAD.read_text().format(summary=_summary())
        + values_table(chart_defaults),
        "values.yaml": values_yaml(chart_defaults),
        "values.schema.json": schema_json(),
        "templates/_library.tpl": library_tpl(),
        LIBRARY_JSON: library_json(chart_defaults),
        # The hand-written templates, copied as they are.
        **{f"templates/{p.name}": p.read_text() for p in sorted(TEMPLATES.iterdir())},
    }


def _summary() -> str:
    paragraphs = (library_doc or "").strip().split("\n\n")
    return " ".join(paragraphs[-1].split())


def _check_staged(folder: Path, chart_defaults: Mapping[str, Any]) -> None:
    """The staged chart reads back: its values are the defaults it was written with."""
    read_back = yaml.safe_load((folder / "values.yaml").read_text())
    if read_back != chart_defaults:
        raise HeadroomConfigError(
            "values.yaml", str(folder), "a values.yaml that reads back as the chart's defaults"
        )
    json.loads((folder / "values.schema.json").read_text())


def write_chart(target: Path, chart_defaults: Mapping[str, Any]) -> None:
    """Writes the chart into ``target`` whole, or leaves it as it was.

    As ``output.promote`` does for dist/: the chart is written to a staging folder
    beside ``target``, checked, then swapped in (``output.swap_in``).
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.staging")
    shutil.rmtree(staging, ignore_errors=True)

    def write_and_check(folder: Path) -> None:
        for relative, text in chart_files(chart_defaults).items():
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        _check_staged(folder, chart_defaults)

    swap_in(staging, target, write_and_check)


def package_chart(chart: Path, destination: Path) -> Path:
    """Packs the chart folder into ``<destination>/<name>-<version>.tgz``, reproducibly.

    ``helm package`` stamps each entry with the file's mtime and the gzip header with
    the time of packing; here entries are sorted, owned by root, dated 0, with fixed
    modes, and the gzip header carries no name or time: the same chart gives the same
    bytes.
    """
    chart = Path(chart)
    metadata = yaml.safe_load((chart / "Chart.yaml").read_text())
    archive = Path(destination) / f"{metadata['name']}-{metadata['version']}.tgz"
    archive.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(p for p in chart.rglob("*") if p.is_file()):
            data = path.read_bytes()
            info = tarfile.TarInfo(f"{metadata['name']}/{path.relative_to(chart).as_posix()}")
            info.size = len(data)
            info.mtime = 0
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    staging = archive.with_name(f".{archive.name}.{os.getpid()}")
    with (
        staging.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as zipped,
    ):
        zipped.write(buffer.getvalue())
    staging.replace(archive)
    return archive
