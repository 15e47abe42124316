"""A what-if of kube-scheduler's fit and preemption decisions (see docs/simulate.md)."""

from .model import DisruptionBudget, Node, Placement, Pod, Resources, Role
from .reading import UnsupportedInputError
from .scenario import Scenario, decide, load_scenario, read_scenario
from .scheduler import Candidate, ClusterState, Decision, apply, schedule

__all__ = [
    "Candidate",
    "ClusterState",
    "Decision",
    "DisruptionBudget",
    "Node",
    "Placement",
    "Pod",
    "Resources",
    "Role",
    "Scenario",
    "UnsupportedInputError",
    "apply",
    "decide",
    "load_scenario",
    "read_scenario",
    "schedule",
]
