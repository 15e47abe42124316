"""``cdk8s-headroom validate``: whether a folder of manifests would be accepted.

Plain objects in, verdicts out (no construct): the strict schemas (``schemas``; the npm
validators of the CRDs the project emits: ``models``), what the API server refuses that
no schema says (``api_rules``), Pod Security ``restricted``, checkov's policies
(``checkov``), and the report of a folder (``report``).
"""
