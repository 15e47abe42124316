"""A what-if of kube-scheduler's fit and preemption decisions (see docs/simulate.md)."""

from .cluster import ClusterFile, load_cluster, read_cluster
from .manifests import Manifests, load_manifests, read_manifests
from .model import DisruptionBudget, Node, Placement, Pod, Resources, Role
from .plot import plot_report
from .promises import BrokenPromise, check_promises, describe_broken
from .reading import UnsupportedInputError
from .report import WhatIfReport, parse_bursts, run_whatif
from .scenario import Scenario, decide, load_scenario, read_scenario
from .scheduler import Candidate, ClusterState, Decision, apply, schedule
from .whatif import Event, Simulation, Step, Verdict, judge_p1, judge_p2, judge_p3
from .workloads import ClassRegistry, PodTemplate, PriorityClassInfo, Workload

__all__ = [
    "BrokenPromise",
    "Candidate",
    "ClassRegistry",
    "ClusterFile",
    "ClusterState",
    "Decision",
    "DisruptionBudget",
    "Event",
    "Manifests",
    "Node",
    "Placement",
    "Pod",
    "PodTemplate",
    "PriorityClassInfo",
    "Resources",
    "Role",
    "Scenario",
    "Simulation",
    "Step",
    "UnsupportedInputError",
    "Verdict",
    "WhatIfReport",
    "Workload",
    "apply",
    "check_promises",
    "decide",
    "describe_broken",
    "judge_p1",
    "judge_p2",
    "judge_p3",
    "load_cluster",
    "load_manifests",
    "load_scenario",
    "parse_bursts",
    "plot_report",
    "read_cluster",
    "read_manifests",
    "read_scenario",
    "run_whatif",
    "schedule",
]
