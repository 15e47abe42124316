"""PriorityClasses and pod templates, as admission turns them into pod priorities."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from cdk8s_headroom.simulate.model import Pod, Resources, Role
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.placement import Placement, Toleration
from cdk8s_headroom.vocabulary.priority_models import SYSTEM_PRIORITY_CLASSES, PriorityClassSpec

NO_CLASS = PriorityClassSpec("", 0)
"""What a pod without a class gets when no class is ``globalDefault``: priority 0,
PreemptLowerPriority."""


class ClassRegistry:
    """The PriorityClasses known to a simulation: emitted, declared, or system."""

    def __init__(self) -> None:
        self._classes: dict[str, PriorityClassSpec] = {
            spec.name: spec for spec in SYSTEM_PRIORITY_CLASSES
        }
        self._sources: dict[str, str] = {}

    def add(self, info: PriorityClassSpec, *, where: str) -> None:
        known = self._classes.get(info.name)
        if known is not None and known != info:
            origin = self._sources.get(info.name, "Kubernetes")
            raise HeadroomConfigError(
                where, info.name, f"a class name not already defined differently ({origin})"
            )
        self._classes[info.name] = info
        self._sources[info.name] = where

    def update(self, infos: Iterable[tuple[PriorityClassSpec, str]]) -> None:
        for info, where in infos:
            self.add(info, where=where)

    def names(self) -> list[str]:
        """Every known class name, system classes first."""
        return list(self._classes)

    @property
    def default(self) -> PriorityClassSpec:
        """The class of pods without ``priorityClassName``."""
        defaults = [info for info in self._classes.values() if info.global_default]
        if len(defaults) > 1:
            names = sorted(info.name for info in defaults)
            # Each class's source (a file and its path there), so that the message says
            # which file to change, not only which classes clash.
            origins = "; ".join(
                f"{name} at {self._sources.get(name, 'Kubernetes')}" for name in names
            )
            raise HeadroomConfigError(
                "globalDefault",
                names,
                f"at most one globalDefault PriorityClass in a cluster; these are: {origins}",
            )
        return defaults[0] if defaults else NO_CLASS

    def resolve(self, name: str | None, *, where: str) -> PriorityClassSpec:
        if not name:
            return self.default
        info = self._classes.get(name)
        if info is None:
            raise HeadroomConfigError(
                where,
                name,
                "a PriorityClass of the manifests, of the cluster file's priorityClasses, "
                f"or a system class; known: {sorted(self._classes)}",
            )
        return info


@dataclass(frozen=True)
class PodTemplate:
    """What the scheduler reads from a pod template, before admission."""

    namespace: str
    class_name: str | None
    requests: Resources
    placement: Placement = field(default_factory=Placement)
    labels: Mapping[str, str] = field(default_factory=dict)
    where: str = "priorityClassName"
    """Where the template's class is named, for error messages."""

    def instantiate(
        self,
        name: str,
        classes: ClassRegistry,
        *,
        role: Role,
        owner: str,
        pinned_node: str | None = None,
        extra_tolerations: tuple[Toleration, ...] = (),
    ) -> Pod:
        """A new, unscheduled pod of this template, with its class's priority."""
        info = classes.resolve(self.class_name, where=self.where)
        placement = Placement(
            self.placement.node_selector,
            self.placement.affinity,
            self.placement.tolerations + extra_tolerations,
            pinned_node,
        )
        return Pod(
            name=name,
            namespace=self.namespace,
            priority=info.value,
            preemption_policy=info.preemption_policy,
            requests=self.requests,
            labels=self.labels,
            placement=placement,
            role=role,
            owner=owner,
            class_name=info.name,
        )


@dataclass(frozen=True)
class Workload:
    """A DaemonSet or Deployment of the manifests."""

    kind: str
    name: str
    namespace: str
    replicas: int
    template: PodTemplate

    @property
    def ref(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


@dataclass(frozen=True)
class Buffer:
    """A ``CapacityBuffer`` of the manifests: ``units`` placeholders of ``template``'s
    shape, which the autoscaler keeps room for and nothing schedules."""

    name: str
    namespace: str
    template: PodTemplate
    units: int

    @property
    def ref(self) -> str:
        return f"CapacityBuffer {self.namespace}/{self.name}"
