"""How a reserver DaemonSet replaces its pods after a template change (plain Python)."""

from __future__ import annotations

from enum import Enum

from cdk8s_headroom.vocabulary.priority_models import PreemptionPolicy


class UpdateStrategy(Enum):
    """A DaemonSet's ``spec.updateStrategy.type``."""

    ON_DELETE = "OnDelete"
    """A pod is replaced only when it is deleted: roll by deleting pods (docs/gitops.md).

    For a reserver that cannot preempt (``preemptionPolicy: Never``, GUARDED and
    DEDICATED_POOL) two things follow. A template change no longer deletes every
    reserver: under GUARDED a deleted reserver's room goes to pending ordinary pods
    before the new reserver is scheduled, so a rolling update would hand slices away
    across the pool. And Argo CD reads the DaemonSet ``Healthy`` whatever its counts
    (argoproj/gitops-engine ``pkg/health/health_daemonset.go``,
    ``getAppsv1DaemonSetHealth``), so reservers waiting for room, which is normal
    operation, do not read as a stuck rollout."""

    ROLLING_UPDATE = "RollingUpdate"
    """The DaemonSet controller replaces pods node by node, as the seed blueprint does."""

    @staticmethod
    def for_reserver(preemption_policy: PreemptionPolicy) -> UpdateStrategy:
        """``ON_DELETE`` for a reserver that waits for room (``Never``), else the
        blueprint's ``ROLLING_UPDATE`` (SEED's reserver preempts to get its slice back)."""
        if preemption_policy is PreemptionPolicy.NEVER:
            return UpdateStrategy.ON_DELETE
        return UpdateStrategy.ROLLING_UPDATE
