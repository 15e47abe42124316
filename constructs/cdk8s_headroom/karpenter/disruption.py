"""How Karpenter may disrupt a pool's nodes: consolidation, and disruption budgets
(``spec.disruption`` of a ``karpenter.sh/v1`` NodePool). Plain Python."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from cdk8s_headroom.karpenter.durations import DurationLike, budget_duration, check_cron
from cdk8s_headroom.vocabulary import names
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

_BUDGET_NODES = re.compile(r"^(?:(?:100|[0-9]{1,2})%|[0-9]+)$")


class ConsolidationPolicy(Enum):
    """Which nodes Karpenter may consolidate (``spec.disruption.consolidationPolicy``)."""

    WHEN_EMPTY = "WhenEmpty"
    WHEN_EMPTY_OR_UNDERUTILIZED = "WhenEmptyOrUnderutilized"


class DisruptionReason(Enum):
    """A method of disruption a budget can be limited to (``budgets[].reasons``)."""

    DRIFTED = "Drifted"
    """Nodes whose NodePool template (or node class) changed since they launched."""
    UNDERUTILIZED = "Underutilized"
    """Consolidation of nodes whose pods fit elsewhere (``WhenEmptyOrUnderutilized``)."""
    EMPTY = "Empty"
    """Consolidation of nodes without workload pods."""


MAX_BUDGETS = 50
"""The most budgets a NodePool's schema accepts."""


@dataclass(frozen=True)
class BudgetNodes:
    """How many of a pool's nodes may be disrupted at once. Build it with
    ``percent(n)`` or ``count(n)``; ``text`` is Karpenter's ``nodes`` string."""

    text: str

    @staticmethod
    def percent(value: int) -> BudgetNodes:
        """A share of the pool's nodes, 0-100 (``"10%"``); Karpenter rounds it up."""
        names.int32(value, field="budgets.nodes", minimum=0, maximum=100)
        return BudgetNodes(f"{value}%")

    @staticmethod
    def count(value: int) -> BudgetNodes:
        """A number of nodes, 0 or more (``"3"``); 0 blocks the disruption."""
        names.int32(value, field="budgets.nodes", minimum=0)
        return BudgetNodes(str(value))

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not _BUDGET_NODES.match(self.text):
            raise HeadroomConfigError(
                "budgets.nodes",
                self.text,
                "BudgetNodes.percent(0-100) or BudgetNodes.count(n), e.g. '10%' or '3'",
            )


@dataclass(frozen=True)
class BudgetSchedule:
    """When a budget is active: from each time ``cron`` fires, for ``duration``.

    Args:
        cron: a cron expression in UTC, as Kubernetes CronJobs write it: five fields
            (minute, hour, day of month, month, day of week), each ``*``, ``?``, a
            number or name, a range ``a-b``, a step ``/n`` or a list of those, e.g.
            ``"0 9 * * mon-fri"``; or a macro ``@yearly``, ``@annually``,
            ``@monthly``, ``@weekly``, ``@daily``, ``@midnight``, ``@hourly``. Time
            zones are not supported (Karpenter).
        duration: how long the budget stays active, in hours and minutes (``"8h"``,
            ``"30m"``, ``"1h30m"``) or a ``cdk8s.Duration`` of whole minutes, at
            least a minute: cron has no seconds.
    """

    cron: str
    duration: DurationLike

    def __post_init__(self) -> None:
        check_cron(self.cron, field="budgets.schedule")
        object.__setattr__(
            self, "duration", budget_duration(self.duration, field="budgets.duration")
        )


@dataclass(frozen=True)
class DisruptionBudget:
    """A limit on how many of the pool's nodes Karpenter disrupts at once
    (``spec.disruption.budgets``). Where several budgets are active, the most
    restrictive applies; a pool without budgets gets Karpenter's ``nodes: 10%``.

    Args:
        nodes: ``BudgetNodes.percent(n)`` or ``BudgetNodes.count(n)``.
        reasons: the ``DisruptionReason`` s the budget limits. Default: none, every
            reason (and expiry, which budgets do not block, stays unlimited).
        schedule: when the budget is active (``BudgetSchedule``). Default: always.
    """

    nodes: BudgetNodes
    reasons: tuple[DisruptionReason, ...] = ()
    schedule: BudgetSchedule | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.nodes, BudgetNodes):
            raise HeadroomConfigError(
                "budgets.nodes",
                self.nodes,
                "BudgetNodes.percent(0-100) or BudgetNodes.count(n), e.g. BudgetNodes.percent(10)",
            )
        if isinstance(self.reasons, (str, bytes)) or not isinstance(self.reasons, Sequence):
            raise HeadroomConfigError(
                "budgets.reasons", self.reasons, "a list of DisruptionReason members"
            )
        for reason in self.reasons:
            if not isinstance(reason, DisruptionReason):
                allowed = ", ".join(f"DisruptionReason.{r.name}" for r in DisruptionReason)
                raise HeadroomConfigError("budgets.reasons", reason, f"one of {allowed}")
        # A set in Karpenter's schema: each reason once.
        object.__setattr__(self, "reasons", tuple(dict.fromkeys(self.reasons)))
        if self.schedule is not None and not isinstance(self.schedule, BudgetSchedule):
            raise HeadroomConfigError(
                "budgets.schedule",
                self.schedule,
                "None or a BudgetSchedule(cron=..., duration=...), e.g. "
                "BudgetSchedule('0 9 * * mon-fri', '8h')",
            )

    def to_json(self) -> dict[str, Any]:
        """The budget as it appears in ``spec.disruption.budgets``."""
        body: dict[str, Any] = {"nodes": self.nodes.text}
        if self.reasons:
            body["reasons"] = [reason.value for reason in self.reasons]
        if self.schedule is not None:
            body["schedule"] = self.schedule.cron
            body["duration"] = self.schedule.duration
        return body


def check_budget(budget: object, *, count: int) -> DisruptionBudget:
    """``budget`` as one more budget of a pool that has ``count``: a ``DisruptionBudget``,
    and no more than Karpenter's schema accepts."""
    if not isinstance(budget, DisruptionBudget):
        raise HeadroomConfigError(
            "budgets",
            budget,
            "DisruptionBudget objects, e.g. DisruptionBudget(nodes=BudgetNodes.percent(10))",
        )
    if count >= MAX_BUDGETS:
        raise HeadroomConfigError(
            "budgets", count + 1, f"at most {MAX_BUDGETS} budgets (Karpenter)"
        )
    return budget
