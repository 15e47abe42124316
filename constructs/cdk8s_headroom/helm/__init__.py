"""The Helm chart, generated from the library's constructs and rules.

``write_chart`` writes ``charts/node-headroom/`` (``chart``); ``build`` and ``synthesize``
say what each value means in library calls (``values_to_app``), after the values' own
checks (``value_checks``); ``values_from_app`` reads an app back into values
(``app_to_values``).
"""

from cdk8s_headroom.helm.app_to_values import values_from_app
from cdk8s_headroom.helm.chart import KUBE_VERSION, chart_files, package_chart, write_chart
from cdk8s_headroom.helm.value_checks import ValuesError
from cdk8s_headroom.helm.values import CHART_NAME, VALUES, values_schema
from cdk8s_headroom.helm.values_to_app import Release, build, merge_values, synthesize

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
