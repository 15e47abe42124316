"""Kubernetes releases, and the scheduler rules that differ between them.

The simulator follows one release's kube-scheduler. Where a rule changed, the decision
depends on the cluster's version, so the release is an input (``--kubernetes-version``)
rather than an assumption. ``shared/preemption/ALGORITHM.md`` §7 lists the changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.names import INT32_MAX, int_text

_VERSION = re.compile(r"v?([0-9]+)\.([0-9]+)(?:\.[0-9]+)?(?:[-+].*)?")


@dataclass(frozen=True, order=True)
class KubernetesVersion:
    """A Kubernetes minor release, e.g. ``1.37``; patch releases do not change rules."""

    major: int
    minor: int

    @classmethod
    def parse(cls, text: object, *, field: str) -> KubernetesVersion:
        """``1.38``, ``v1.38.2`` or a kubelet's ``v1.13.11-gke.14``."""
        match = _VERSION.fullmatch(text.strip()) if isinstance(text, str) else None
        if match is None:
            raise HeadroomConfigError(
                field, text, 'a Kubernetes version such as "1.37" or "v1.38.2"'
            )
        return cls(*(int_text(match[i], field=field, minimum=0, maximum=INT32_MAX) for i in (1, 2)))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def pdb_empty_selector_matches_all(self) -> bool:
        """From 1.38 (kubernetes PR 141785), preemption's PDB check keeps only
        ``selector.Matches(labels)``: a PDB with ``selector: {}`` covers every pod of
        its namespace, and pods without labels are no longer skipped. Earlier releases
        skip both (ALGORITHM.md §5)."""
        return self >= EMPTY_PDB_SELECTOR_MATCHES_ALL


NEWEST_VALIDATED = KubernetesVersion(1, 37)
"""The newest release the project validates its output against (the newest schemas
kubernetes-validate ships; a test keeps the two equal). The simulator's default when
nothing says which release the cluster runs."""

EMPTY_PDB_SELECTOR_MATCHES_ALL = KubernetesVersion(1, 38)
"""The first release with kubernetes PR 141785 ("Fix Scheduler Preemption Ignoring
Empty PDB Selectors")."""
