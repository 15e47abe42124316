"""The Helm chart, generated from the library's constructs and rules.

``write_chart`` writes ``charts/node-headroom/``; ``build`` and ``synthesize`` say what
each value means in library calls; ``values_from_app`` reads an app back into values.
"""

from cdk8s_headroom.helm.chart import KUBE_VERSION, chart_files, package_chart, write_chart
from cdk8s_headroom.helm.mapping import (
    Release,
    ValuesError,
    build,
    merge_values,
    synthesize,
    values_from_app,
)
from cdk8s_headroom.helm.values import CHART_NAME, VALUES, values_schema

__all__ = [
    "CHART_NAME",
    "KUBE_VERSION",
    "VALUES",
    "Release",
    "ValuesError",
    "build",
    "chart_files",
    "merge_values",
    "package_chart",
    "synthesize",
    "values_from_app",
    "values_schema",
    "write_chart",
]
