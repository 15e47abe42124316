"""dist/'s objects in a plain cdk8s app, without the library: what the fair floors of
`python main.py` build (bench/floor_plain_app.py, bench/floor_checked_app.py).

Each object is an ``ApiObject`` whose body is given as JSON patches, in a chart named as
its file, so the files and their order are the same as main.py's (``cdk8s.Include``
would parse the YAML in Node, slower than main.py). Only cdk8s and PyYAML are imported.
"""

from pathlib import Path

import cdk8s
import yaml

DIST = Path(__file__).resolve().parent.parent / "dist"


def add_dist_objects(app: cdk8s.App) -> None:
    """Adds one chart per file of dist/, holding that file's objects, to ``app``."""
    charts: list[cdk8s.Chart] = []
    for file in sorted(DIST.glob("*.k8s.yaml")):
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
