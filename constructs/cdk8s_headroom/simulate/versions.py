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

    @classmethod
    def parse_reported(cls, text: str, *, field: str) -> KubernetesVersion | None:
        """A node's ``kubeletVersion``: its release, or ``None`` when the text names no
        release at all (KWOK's ``kwok-0.7.0``, virtual-kubelet's); a text in a
        version's form with a bad number is still refused."""
        if _VERSION.fullmatch(text.strip()) is None:
            return None
        return cls.parse(text, field=field)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def pdb_empty_selector_matches_all(self) -> bool:
        """From 1.38 (kubernetes PR 141785), preemption's PDB check keeps only
        ``selector.Matches(labels)``: a PDB with ``selector: {}`` covers every pod of
        its namespace, and pods without labels are no longer skipped. Earlier releases
        skip both (ALGORITHM.md §5)."""
        return self >= EMPTY_PDB_SELECTOR_MATCHES_ALL

    @property
    def balanced_allocation_scores_the_change(self) -> bool:
        """From 1.36 (kubernetes PR 135573), NodeResourcesBalancedAllocation scores the
        change in a node's balance that the pod brings, ``50 + (50 + with - without) / 2``;
        earlier releases score the balance with the pod alone."""
        return self >= BALANCED_ALLOCATION_SCORES_THE_CHANGE


NEWEST_VALIDATED = KubernetesVersion(1, 37)
"""The newest release the project validates its output against (the newest schemas
kubernetes-validate ships; a test keeps the two equal). The simulator's default when
nothing says which release the cluster runs."""

EMPTY_PDB_SELECTOR_MATCHES_ALL = KubernetesVersion(1, 38)
"""The first release with kubernetes PR 141785 ("Fix Scheduler Preemption Ignoring
Empty PDB Selectors")."""


BALANCED_ALLOCATION_SCORES_THE_CHANGE = KubernetesVersion(1, 36)
"""The first release with kubernetes PR 135573 ("Update scoring function for balanced
allocation to consider change to the node's balance")."""


@dataclass(frozen=True)
class Rule:
    """A scheduler rule the simulator follows, and the release it came in."""

    name: str
    release: KubernetesVersion
    """The first release in which the rule holds on a cluster with default settings."""
    how: str
    """How the release decides it: by ``--kubernetes-version``, or by the fields the
    listing holds (the API server drops the fields of a disabled feature on write,
    ``dropDisabledPodFields`` in ``pkg/api/pod/util.go``, so a field present in a
    listing is one its cluster honours)."""
    source: str
    """The upstream file and function the simulator follows."""


RULES: tuple[Rule, ...] = (
    Rule(
        "priority and preemption (scheduling.k8s.io/v1, GA)",
        KubernetesVersion(1, 14),
        "all releases modelled",
        "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go",
    ),
    Rule(
        "pod overhead added to requests (beta, on by default)",
        KubernetesVersion(1, 18),
        "spec.overhead in the listing",
        "k8s.io/component-helpers/resource/helpers.go PodRequests",
    ),
    Rule(
        "sidecar (restartable init) containers counted with the containers (beta, on)",
        KubernetesVersion(1, 29),
        "initContainers[].restartPolicy: Always in the listing",
        "k8s.io/component-helpers/resource/helpers.go AggregateContainerRequests",
    ),
    Rule(
        "in-place resize: the larger of spec, allocatedResources and actuated resources "
        "(beta and on by default from 1.33, GA in 1.35)",
        KubernetesVersion(1, 33),
        "status.containerStatuses[].resources in the listing",
        "k8s.io/component-helpers/resource/helpers.go determineContainerReqs",
    ),
    Rule(
        "pod-level resources replace the containers' sum (beta, on by default)",
        KubernetesVersion(1, 34),
        "spec.resources in the listing",
        "k8s.io/component-helpers/resource/helpers.go PodRequests",
    ),
    Rule(
        "NodeResourcesBalancedAllocation scores the change in a node's balance",
        BALANCED_ALLOCATION_SCORES_THE_CHANGE,
        "--kubernetes-version",
        "pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go "
        "balancedResourceScorer",
    ),
    Rule(
        "a PDB with an empty selector covers every pod of its namespace",
        EMPTY_PDB_SELECTOR_MATCHES_ALL,
        "--kubernetes-version",
        "pkg/scheduler/framework/preemption/util.go FilterVictimsWithPDBViolation",
    ),
)
"""The rules that changed between releases, oldest first (docs/plan-status.md prints
the same table)."""

OLDEST_MODELLED = RULES[0].release
"""The oldest release the simulator models: before 1.14 priority and preemption were
beta (1.11 to 1.13) or alpha and off (1.8 to 1.10), and the preemption rules read
upstream (shared/preemption/ALGORITHM.md) are not those of such releases."""


def rules_release(version: KubernetesVersion) -> KubernetesVersion:
    """The release whose rules decide for a cluster of ``version``: its own, or the
    oldest modelled when it is older (``release_warnings`` then says so)."""
    return max(version, OLDEST_MODELLED)


def release_warnings(version: KubernetesVersion) -> list[str]:
    """A warning when ``version`` is older than every release modelled."""
    if version >= OLDEST_MODELLED:
        return []
    return [
        f"Kubernetes {version} is older than the oldest release modelled "
        f"({OLDEST_MODELLED}): it is judged by the rules of {OLDEST_MODELLED}, "
        "which may differ from its scheduler's"
    ]
