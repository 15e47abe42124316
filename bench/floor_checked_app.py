"""The fair floor for `python main.py`: the same objects, without the library, checked
and published as main.py publishes them.

A plain cdk8s app re-emits dist/'s objects (each an ``ApiObject`` whose body is given as
JSON patches, in a chart named as its file, so the files and their order are the same;
``cdk8s.Include`` would parse the YAML in Node, slower than main.py), and the staged folder
goes through the same publication (``files.publish.promote`` with ``scripts/promote.py``'s
CHECKS: the folder, strict schemas, Pod Security). What is left between this and
main.py is the library itself: its import, its constructs and their checks.

    CDK8S_OUTDIR=/tmp/out python bench/floor_checked_app.py
"""

import os
import sys
import tempfile
from pathlib import Path

import cdk8s
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "constructs")]

from cdk8s_headroom.files.publish import promote  # noqa: E402
from scripts.promote import CHECKS  # noqa: E402

target = Path(os.environ.get("CDK8S_OUTDIR", tempfile.mkdtemp()))
with tempfile.TemporaryDirectory(dir=target.parent) as staging:
    app = cdk8s.App(outdir=staging)
    charts: list[cdk8s.Chart] = []
    for file in sorted((ROOT / "dist").glob("*.k8s.yaml")):
        chart = cdk8s.Chart(app, file.name.removesuffix(".k8s.yaml").split("-", 1)[1])
        for index, document in enumerate(yaml.load_all(file.read_text(), Loader=yaml.CSafeLoader)):
            meta = document["metadata"]
            body = cdk8s.ApiObject(
                chart,
                f"object-{index}",
                api_version=document["apiVersion"],
                kind=document["kind"],
                metadata=cdk8s.ApiObjectMetadata(
                    name=meta["name"],
                    namespace=meta.get("namespace"),
                    labels=meta.get("labels"),
                    annotations=meta.get("annotations"),
                ),
            )
            for key, value in document.items():
                if key not in ("apiVersion", "kind", "metadata"):
                    body.add_json_patch(cdk8s.JsonPatch.add(f"/{key}", value))
        if charts:  # as main.py's: cdk8s numbers the files of dependent charts
            chart.add_dependency(charts[-1])
        charts.append(chart)
    app.synth()
    promote(Path(staging), target, checks=CHECKS)
