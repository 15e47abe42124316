"""A what-if of kube-scheduler's fit and preemption decisions (see docs/simulate.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cdk8s_headroom._exports import lazy_module

# Re-exported lazily: NodeHeadroom's synth-time promise check needs only the scheduler
# model, and loading the file readers, the report and the plotting glue with it would
# add to every `python main.py` (see bench/results.md, "main.py over the floor").
if TYPE_CHECKING:
    from cdk8s_headroom.simulate.cluster import ClusterFile as ClusterFile
    from cdk8s_headroom.simulate.cluster import load_cluster as load_cluster
    from cdk8s_headroom.simulate.cluster import read_cluster as read_cluster
    from cdk8s_headroom.simulate.fields import UnsupportedInputError as UnsupportedInputError
    from cdk8s_headroom.simulate.manifests import Manifests as Manifests
    from cdk8s_headroom.simulate.manifests import manifests_from_objects as manifests_from_objects
    from cdk8s_headroom.simulate.manifests import read_manifests as read_manifests
    from cdk8s_headroom.simulate.model import DisruptionBudget as DisruptionBudget
    from cdk8s_headroom.simulate.model import Node as Node
    from cdk8s_headroom.simulate.model import Pod as Pod
    from cdk8s_headroom.simulate.model import Resources as Resources
    from cdk8s_headroom.simulate.model import Role as Role
    from cdk8s_headroom.simulate.plot import plot_report as plot_report
    from cdk8s_headroom.simulate.promises import BrokenPromise as BrokenPromise
    from cdk8s_headroom.simulate.promises import check_promises as check_promises
    from cdk8s_headroom.simulate.promises import describe_broken as describe_broken
    from cdk8s_headroom.simulate.report import WhatIfReport as WhatIfReport
    from cdk8s_headroom.simulate.report import parse_bursts as parse_bursts
    from cdk8s_headroom.simulate.report import run_whatif as run_whatif
    from cdk8s_headroom.simulate.scenario import Scenario as Scenario
    from cdk8s_headroom.simulate.scenario import decide as decide
    from cdk8s_headroom.simulate.scenario import load_scenario as load_scenario
    from cdk8s_headroom.simulate.scenario import read_scenario as read_scenario
    from cdk8s_headroom.simulate.scheduler import Candidate as Candidate
    from cdk8s_headroom.simulate.scheduler import ClusterState as ClusterState
    from cdk8s_headroom.simulate.scheduler import Decision as Decision
    from cdk8s_headroom.simulate.scheduler import apply as apply
    from cdk8s_headroom.simulate.scheduler import schedule as schedule
    from cdk8s_headroom.simulate.whatif import Event as Event
    from cdk8s_headroom.simulate.whatif import Simulation as Simulation
    from cdk8s_headroom.simulate.whatif import Step as Step
    from cdk8s_headroom.simulate.whatif import Verdict as Verdict
    from cdk8s_headroom.simulate.whatif import judge_p1 as judge_p1
    from cdk8s_headroom.simulate.whatif import judge_p2 as judge_p2
    from cdk8s_headroom.simulate.whatif import judge_p3 as judge_p3
    from cdk8s_headroom.simulate.workloads import ClassRegistry as ClassRegistry
    from cdk8s_headroom.simulate.workloads import PodTemplate as PodTemplate
    from cdk8s_headroom.simulate.workloads import Workload as Workload
    from cdk8s_headroom.vocabulary.placement import Placement as Placement

__getattr__, __dir__ = lazy_module(__name__, __file__)
