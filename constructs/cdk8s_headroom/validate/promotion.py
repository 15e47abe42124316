"""What every synthesis of dist/ must pass before it replaces the folder.

``main.py`` publishes with ``CHECKS`` (``cdk8s synth``, ``make synth`` and
``python main.py`` alike, through ``cdk8s_headroom.core.synthesis.publish_app``), and
``scripts/promote.py`` applies them to a folder staged some other way. Kept in the
package, below both, so that neither imports the other: ``scripts/chart.py`` imports
``main``.
"""

from __future__ import annotations

from cdk8s_headroom.files.publish import Check, check_pod_security
from cdk8s_headroom.validate.schemas import check_schemas

CHECKS: tuple[Check, ...] = (check_schemas, check_pod_security)
"""The strict schemas (Kubernetes 1.27 and the newest release known, Karpenter's own) and
Pod Security ``restricted``: a failed check leaves the target exactly as it was."""
