"""Karpenter NodePools the headroom can target, for any Karpenter provider.

A ``KarpenterNodePool`` emits a ``karpenter.sh/v1`` NodePool. Its node class decides
the flavour: an ``EC2NodeClass`` (``karpenter.k8s.aws``, Karpenter on EC2; reference
one with ``NodeClassRef.ec2()`` or create one with ``Ec2NodeClass``), the EKS Auto
Mode ``NodeClass`` (``eks.amazonaws.com``, ``NodeClassRef.eks_auto_mode()``), the
``KWOKNodeClass`` of Karpenter's KWOK provider (``NodeClassRef.kwok()``), or another
provider's class (``NodeClassRef(group, kind, name)``). The pool
implements ``INodePool``: headrooms and burst workloads select its nodes by the label
``karpenter.sh/nodepool``, which Karpenter and Auto Mode both put on the nodes.

Default pool, with the source of each value:

- requirements ``instance-category In [c, m, r]``, ``kubernetes.io/arch In [amd64]``,
  and on EC2 ``instance-generation Gt 2`` and ``kubernetes.io/os In [linux]``: the
  NodePool of Karpenter's "Getting Started with Karpenter" guide (karpenter.sh docs,
  also ``examples/v1/general-purpose.yaml`` in aws/karpenter-provider-aws);
- ``karpenter.sh/capacity-type In [on-demand, spot]``: the ``default`` NodePool of the
  seed repository, aws-samples/karpenter-blueprints (``cluster/terraform/karpenter.tf``);
  the Karpenter guide allows on-demand only;
- ``expireAfter: 720h``, ``limits: {cpu: 1000}``, ``consolidationPolicy:
  WhenEmptyOrUnderutilized``, ``consolidateAfter: 1m``: the Karpenter guide (the
  blueprints pool sets the same policy and 1m, and neither limits nor expireAfter);
- EC2NodeClass ``amiSelectorTerms: [{alias: al2023@latest}]`` and subnet and
  security-group selector terms on the tag ``karpenter.sh/discovery``: both sources;
- on EKS Auto Mode: ``eks.amazonaws.com/instance-generation Gt 4`` and
  ``expireAfter: 336h``, the built-in pools' generation 5 and later and the node
  lifetime Auto Mode applies by default (EKS user guide, "Create a Node Pool for EKS
  Auto Mode" and "Enable or Disable Built-in NodePools"). Auto Mode does not support
  ``kubernetes.io/os``, so that requirement is left out;
- on KWOK and other providers: the guide's provider-neutral requirements only (arch,
  OS, capacity type), since instance categories and generations are EC2's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.core.construct import HeadroomConstruct
from cdk8s_headroom.core.rendered import RenderedApiObject
from cdk8s_headroom.karpenter.disruption import ConsolidationPolicy, DisruptionBudget, check_budget
from cdk8s_headroom.karpenter.durations import DurationLike, parse_duration
from cdk8s_headroom.karpenter.node_class import Ec2NodeClass, NodeClassRef
from cdk8s_headroom.karpenter.pool_ref import KarpenterNodePoolRef, NodePoolFlavour
from cdk8s_headroom.karpenter.requirements import (
    check_label_against,
    check_requirement,
    check_requirement_count,
    check_template_labels,
    requirement_json,
)
from cdk8s_headroom.vocabulary import names, node_labels
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.labels import PART_OF
from cdk8s_headroom.vocabulary.node_pools import KARPENTER_NODEPOOL_LABEL
from cdk8s_headroom.vocabulary.node_sizes import NodeSize, smallest_node
from cdk8s_headroom.vocabulary.placement import NodeSelectorOperator, NodeSelectorRequirement, Taint
from cdk8s_headroom.vocabulary.quantity import (
    QuantityLike,
    parse_quantity,
    positive_quantity,
    quantity_text,
)
from cdk8s_headroom.vocabulary.quantity_arithmetic import Resource, amount
from cdk8s_headroom.vocabulary.rules import QUANTITY_SYNTAX

AUTO_MODE_MAX_EXPIRE_AFTER_HOURS = 336
"""The longest ``expireAfter`` accepted for EKS Auto Mode pools.

336h is the node lifetime Auto Mode applies when a pool sets none. The EKS user guide
also states a hard maximum node lifetime of 21 days (504h). Staying within the default
is a choice of this project (its issue 4), not an Auto Mode limit: nodes, and the
slices they hold, are then replaced at least as often as on Auto Mode's own pools.
"""

NODE_ROOM_ANNOTATION = "headroom.cdk8s.io/node-room"
"""The pool template's annotation that records the room each headroom needs on a node
(``NodeHeadroom(drift_on_change=True)``): a JSON object by ``<namespace>/<reserver>``."""

AUTO_MODE_BUILTIN_POOLS = node_labels.AUTO_MODE_BUILTIN_POOLS
"""The NodePools EKS Auto Mode creates and manages; reference them, never emit them."""


class KarpenterNodePool(HeadroomConstruct):
    """A ``karpenter.sh/v1`` NodePool, for Karpenter on EC2 or for EKS Auto Mode.

    The node class decides the flavour (``flavour``). The pool is an ``INodePool``:
    pass it as ``NodeHeadroom(node_pool=...)`` and the reserver and every burst
    workload select its nodes by ``karpenter.sh/nodepool: <name>`` and tolerate its
    taints. Under ``PriorityModel.DEDICATED_POOL`` the headroom adds its taint to the
    pool. The spec is rendered at synthesis, so ``add_requirement`` and ``add_taint``
    calls made later still reach the output.

    Args:
        node_class: ``NodeClassRef.ec2(name)``, an ``Ec2NodeClass`` this app emits,
            ``NodeClassRef.eks_auto_mode(name)``, ``NodeClassRef.kwok(name)`` or another
            provider's ``NodeClassRef(group, kind, name)``. Default:
            ``NodeClassRef.ec2()``, the EC2NodeClass ``default`` of Karpenter's
            getting-started guide.
        name: the NodePool's name, a DNS-1123 label. Default: the construct id.
        labels: labels on the pool's nodes (``spec.template.metadata.labels``). Keys
            that Karpenter, EC2, Auto Mode or the kubelet set (``karpenter.sh/*`` but
            ``capacity-type``, ``karpenter.k8s.aws/*``, ``eks.amazonaws.com/*``, the
            ``kubernetes.io`` and ``k8s.io`` domains but well-known labels and
            ``node.kubernetes.io/*``) are refused, as are values that contradict a
            requirement. Default: none.
        requirements: the pool's requirements, each checked as ``add_requirement``
            checks it. Default: the flavour's getting-started requirements (module
            docstring). Pass an empty list for none.
        taints: taints on the pool's nodes. Default: none.
        limits: the most resources the pool's nodes may hold in total, e.g.
            ``{"cpu": "1000", "memory": "1000Gi"}``. Default: ``{"cpu": "1000"}``. Pass
            ``{}`` for no limits.
        consolidation_policy: default:
            ``ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED``.
        consolidate_after: how long a node stays empty or underutilized before
            consolidation, or ``"Never"``. Default: ``"1m"``.
        expire_after: the nodes' maximum lifetime, or ``"Never"``. Default: ``"720h"``;
            on EKS Auto Mode ``"336h"``, which is also the longest accepted there.
        weight: the pool's priority among pools matching the same pods, 1-100.
            Default: none.
        budgets: how many nodes Karpenter may disrupt at once, per reason and
            schedule (``DisruptionBudget`` s, at most 50; ``add_disruption_budget``
            adds more). Default: none, so Karpenter's ``nodes: 10%``.
        termination_grace_period: how long Karpenter drains a node before it deletes
            the pods left, PDBs and ``karpenter.sh/do-not-disrupt`` included, e.g.
            ``"24h"`` (not ``"Never"``). Default: none, Karpenter waits for ever.
        node_cpu: the CPU capacity of the smallest node the pool launches, e.g.
            ``"4"``: a lower bound beside what the requirements' instance labels say
            (AWS ``instance-cpu``, ``instance-size``; KWOK's ``instance-cpu``). Declare
            it for a provider whose labels the project does not read (Azure's
            ``karpenter.azure.com/sku-cpu``...), so slices and buffers are checked
            against it. Default: none, from the requirements only.
        node_memory: the memory capacity of that node, e.g. ``"16Gi"``. Default: none,
            from the requirements only.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        node_class: NodeClassRef | Ec2NodeClass | None = None,
        name: str | None = None,
        labels: Mapping[str, str] | None = None,
        requirements: Sequence[NodeSelectorRequirement] | None = None,
        taints: Sequence[Taint] = (),
        limits: Mapping[str, QuantityLike] | None = None,
        consolidation_policy: ConsolidationPolicy = ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED,
        consolidate_after: DurationLike = "1m",
        expire_after: DurationLike | None = None,
        weight: int | None = None,
        budgets: Sequence[DisruptionBudget] = (),
        termination_grace_period: DurationLike | None = None,
        node_cpu: QuantityLike | None = None,
        node_memory: QuantityLike | None = None,
    ) -> None:
        if node_class is None:
            node_class = NodeClassRef.ec2()
        if isinstance(node_class, Ec2NodeClass):
            node_class = node_class.ref
        if not isinstance(node_class, NodeClassRef):
            raise HeadroomConfigError(
                "node_class",
                node_class,
                "NodeClassRef.ec2(name), an Ec2NodeClass, NodeClassRef.eks_auto_mode(name), "
                "NodeClassRef.kwok(name) or NodeClassRef(group, kind, name)",
            )
        self.node_class = node_class
        self.flavour = node_class.flavour
        self.name = names.dns_label(id if name is None else name, field="name")
        if self.auto_mode and self.name in AUTO_MODE_BUILTIN_POOLS:
            raise HeadroomConfigError(
                "name",
                self.name,
                f"a name other than the built-in Auto Mode pools {AUTO_MODE_BUILTIN_POOLS}, "
                "which EKS manages: target one with "
                f"KarpenterNodePool.from_name({shown(self.name)}) instead of emitting it",
            )
        self.declared_node = declared_node_size(node_cpu, node_memory)
        self._labels = check_template_labels(labels, self.flavour)
        if requirements is None:
            requirements = default_requirements(self.flavour)
        if isinstance(requirements, (str, bytes)) or not isinstance(requirements, Sequence):
            raise HeadroomConfigError(
                "requirements", requirements, "a sequence of NodeSelectorRequirement objects"
            )
        self._requirements: list[NodeSelectorRequirement] = []
        for requirement in requirements:
            if not isinstance(requirement, NodeSelectorRequirement):
                raise HeadroomConfigError(
                    "requirements", requirement, "NodeSelectorRequirement objects"
                )
            requirement = check_requirement(requirement, self.flavour)
            check_requirement_count(len(self._requirements) + 1)
            self._check_sizes(
                [*self._requirements, requirement], field=f"requirements[{requirement.key}]"
            )
            self._requirements.append(requirement)
        # Labels are judged against the requirements here, and the label is blamed:
        # the requirements may be defaults the user never wrote.
        for key, value in self._labels.items():
            check_label_against(key, value, self._requirements, field=f"labels[{key}]")
        self._taints: list[Taint] = []
        if isinstance(taints, (str, bytes)) or not isinstance(taints, Sequence):
            raise HeadroomConfigError("taints", taints, "a sequence of Taint objects")
        for taint in taints:
            self._check_taint(taint)
            if taint not in self._taints:
                self._taints.append(taint)
        self.limits = _limits({"cpu": "1000"} if limits is None else limits)
        if not isinstance(consolidation_policy, ConsolidationPolicy):
            raise HeadroomConfigError(
                "consolidation_policy",
                consolidation_policy,
                "ConsolidationPolicy.WHEN_EMPTY or ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED",
            )
        self.consolidation_policy = consolidation_policy
        self.consolidate_after, _ = parse_duration(consolidate_after, field="consolidate_after")
        if expire_after is None:
            expire_after = f"{AUTO_MODE_MAX_EXPIRE_AFTER_HOURS}h" if self.auto_mode else "720h"
        self.expire_after, lifetime = parse_duration(expire_after, field="expire_after")
        if self.auto_mode and (
            lifetime is None or lifetime > AUTO_MODE_MAX_EXPIRE_AFTER_HOURS * 3600
        ):
            raise HeadroomConfigError(
                "expire_after",
                self.expire_after,
                f"at most {AUTO_MODE_MAX_EXPIRE_AFTER_HOURS}h on EKS Auto Mode: its default "
                "node lifetime, which this library keeps Auto Mode pools within",
            )
        self.weight = (
            None if weight is None else names.int32(weight, field="weight", minimum=1, maximum=100)
        )
        if isinstance(budgets, (str, bytes)) or not isinstance(budgets, Sequence):
            raise HeadroomConfigError("budgets", budgets, "a list of DisruptionBudget objects")
        self._budgets: list[DisruptionBudget] = []
        for budget in budgets:
            self._budgets.append(check_budget(budget, count=len(self._budgets)))
        self.termination_grace_period = None
        if termination_grace_period is not None:
            if termination_grace_period == "Never":
                raise HeadroomConfigError(
                    "termination_grace_period",
                    termination_grace_period,
                    'a duration such as "1h" or "24h"; leave it None to wait for ever',
                )
            self.termination_grace_period, _ = parse_duration(
                termination_grace_period, field="termination_grace_period"
            )
        self._slice_checks: list[Callable[[NodeSize], None]] = []
        self._node_room: dict[str, Callable[[], Mapping[str, str]]] = {}

        super().__init__(scope, id)
        self.resource = RenderedApiObject(
            self,
            "Resource",
            api_version="karpenter.sh/v1",
            kind="NodePool",
            metadata=cdk8s.ApiObjectMetadata(
                name=self.name, labels={"app.kubernetes.io/part-of": PART_OF}
            ),
            render=self._render,
        )

    @staticmethod
    def from_name(
        pool_name: str,
        *,
        taints: Sequence[Taint] = (),
        requirements: Sequence[NodeSelectorRequirement] = (),
        limits: Mapping[str, QuantityLike] | None = None,
        node_cpu: QuantityLike | None = None,
        node_memory: QuantityLike | None = None,
    ) -> KarpenterNodePoolRef:
        """A NodePool that exists already (Karpenter or Auto Mode), without emitting it.

        Declare what the headroom needs to know about it: its taints (required under
        ``PriorityModel.DEDICATED_POOL``: the pool must carry the dedicated taint), the
        requirements that bound its instance sizes, and its limits.

        Args:
            pool_name: the NodePool's name, e.g. ``general-purpose`` on Auto Mode.
            taints: default: none.
            requirements: default: none (node size unknown).
            limits: default: ``None``, not declared (worst case unknown).
            node_cpu: the CPU capacity of its smallest node, as for a
                ``KarpenterNodePool``. Default: none, from the requirements only.
            node_memory: the memory capacity of its smallest node. Default: none.
        """
        declared = None if limits is None else tuple(_limits(limits).items())
        return KarpenterNodePoolRef(
            pool_name,
            taints=tuple(taints),
            requirements=tuple(requirements),
            limits=declared,
            declared_node=declared_node_size(node_cpu, node_memory),
        )

    @property
    def auto_mode(self) -> bool:
        return self.flavour is NodePoolFlavour.EKS_AUTO_MODE

    @property
    def pool_name(self) -> str:
        return self.name

    @property
    def node_selector(self) -> Mapping[str, str]:
        """``karpenter.sh/nodepool: <name>``: the label Karpenter and Auto Mode set."""
        return {KARPENTER_NODEPOOL_LABEL: self.name}

    @property
    def taints(self) -> tuple[Taint, ...]:
        return tuple(self._taints)

    @property
    def labels(self) -> dict[str, str]:
        return dict(self._labels)

    @property
    def requirements(self) -> tuple[NodeSelectorRequirement, ...]:
        return tuple(self._requirements)

    def instance_label(self, name: str) -> str:
        """The key of the instance label ``name`` on this pool's provider, e.g.
        ``instance_label("instance-cpu")`` is ``karpenter.k8s.aws/instance-cpu`` on EC2
        and ``karpenter.kwok.sh/instance-cpu`` on KWOK, so one app runs on both.

        Raises:
            HeadroomConfigError: (on ``node_class``) for a provider whose instance labels
                this project does not know: write its keys out.
        """
        prefix = self.flavour.label_prefix
        if prefix is None:
            raise HeadroomConfigError(
                "node_class",
                f"{self.node_class.group}/{self.node_class.kind}",
                "a provider whose instance labels the project knows (EC2, EKS Auto Mode, "
                f"KWOK) for instance_label({shown(name)}); on another provider write the "
                "label key out",
            )
        return f"{prefix}{names.text(name, field='instance_label')}"

    @property
    def smallest_node(self) -> NodeSize:
        """The lower bound of the capacity of the nodes the requirements allow."""
        return smallest_node(
            self._requirements,
            field="requirements",
            auto_mode=self.auto_mode,
            declared=self.declared_node,
        )

    @property
    def limit_amounts(self) -> Mapping[str, Fraction]:
        return {
            key: parse_quantity(value, field=f"limits[{key}]") for key, value in self.limits.items()
        }

    def add_requirement(
        self,
        key: str,
        operator: NodeSelectorOperator,
        values: Sequence[str] = (),
        *,
        min_values: int | None = None,
    ) -> NodeSelectorRequirement:
        """Adds a requirement (ANDed with the others), e.g.
        ``add_requirement("karpenter.k8s.aws/instance-cpu", NodeSelectorOperator.IN, ["4", "8"])``.

        ``min_values`` (Karpenter's ``minValues``) keeps a spot pool flexible: every
        node claim offers at least that many distinct values of the key, e.g. 5
        instance families. Default: ``None``.

        Refused: an operator that is not a ``NodeSelectorOperator``, no values for
        ``IN``/``NOT_IN``, keys Karpenter restricts, the other flavour's instance keys,
        unknown ``instance-category`` or ``capacity-type`` values, a contradiction
        with the pool's labels, and sizes too small for a headroom slice already on
        the pool.
        """
        field = f"requirements[{key}]"
        names.member(operator, NodeSelectorOperator, field=f"{field}.operator")
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise HeadroomConfigError(f"{field}.values", values, "a sequence of strings")
        if operator in (NodeSelectorOperator.IN, NodeSelectorOperator.NOT_IN) and not values:
            raise HeadroomConfigError(
                f"{field}.values", list(values), f"at least one value for operator {operator.value}"
            )
        try:
            requirement = NodeSelectorRequirement(key, operator, tuple(values), min_values)
        except HeadroomConfigError as error:
            raise HeadroomConfigError(
                f"{field}.{error.field.rpartition('.')[2]}", error.value, error.allowed
            ) from error
        requirement = check_requirement(requirement, self.flavour)
        check_requirement_count(len(self._requirements) + 1)
        candidate = [*self._requirements, requirement]
        for label, value in self._labels.items():
            check_label_against(label, value, [requirement], field=field)
        new_size = smallest_node(
            candidate, field=field, auto_mode=self.auto_mode, declared=self.declared_node
        )
        for check in self._slice_checks:
            try:
                check(new_size)
            except HeadroomConfigError as error:
                raise HeadroomConfigError(
                    field,
                    list(values),
                    f"sizes whose smallest node still holds every headroom slice on the "
                    f"pool ({error.field}: {error.allowed})",
                ) from error
        self._requirements.append(requirement)
        return requirement

    @property
    def budgets(self) -> tuple[DisruptionBudget, ...]:
        """The pool's disruption budgets (empty: Karpenter's ``nodes: 10%``)."""
        return tuple(self._budgets)

    def add_disruption_budget(self, budget: DisruptionBudget) -> DisruptionBudget:
        """Limits how many nodes Karpenter disrupts at once, e.g.
        ``add_disruption_budget(DisruptionBudget(nodes=BudgetNodes.count(1),
        reasons=[DisruptionReason.DRIFTED]))``."""
        self._budgets.append(check_budget(budget, count=len(self._budgets)))
        return budget

    def add_taint(self, taint: Taint) -> None:
        """Taints the pool's nodes; pods that target the pool tolerate it."""
        self._check_taint(taint)
        if taint not in self._taints:
            self._taints.append(taint)

    def watch_slice(self, check: Callable[[NodeSize], None]) -> None:
        """Runs ``check`` on the smallest node now and whenever a requirement changes it.

        ``NodeHeadroom`` registers its fit check here, so a requirement added later
        that shrinks the nodes below the slice is refused where it is added.
        """
        check(self.smallest_node)
        self._slice_checks.append(check)

    def add_node_room(self, owner: str, room: Callable[[], Mapping[str, str]]) -> None:
        """Writes what ``owner`` needs on every node (``room()``, read at synthesis) into
        the template's annotation ``headroom.cdk8s.io/node-room``.

        Karpenter's drift hash covers the template, annotations included, so a change
        of that room marks the pool's nodes drifted, and Karpenter replaces them at the
        pace of the pool's budgets (``DisruptionReason.DRIFTED``). ``NodeHeadroom``
        calls it with ``drift_on_change=True``.
        """
        self._node_room[owner] = room

    def _check_taint(self, taint: object) -> None:
        if not isinstance(taint, Taint):
            raise HeadroomConfigError("taints", taint, "Taint objects, e.g. Taint('key', 'value')")

    def _check_sizes(self, requirements: Sequence[NodeSelectorRequirement], *, field: str) -> None:
        smallest_node(requirements, field=field, auto_mode=self.auto_mode)

    def _render(self) -> dict[str, Any]:
        template_spec: dict[str, Any] = {
            "expireAfter": self.expire_after,
            "nodeClassRef": self.node_class.to_json(),
            "requirements": [requirement_json(r) for r in self._requirements],
        }
        if self._taints:
            template_spec["taints"] = [t.to_manifest() for t in self._taints]
        if self.termination_grace_period is not None:
            template_spec["terminationGracePeriod"] = self.termination_grace_period
        template: dict[str, Any] = {"spec": template_spec}
        metadata: dict[str, Any] = {}
        if self._labels:
            metadata["labels"] = dict(self._labels)
        if self._node_room:
            rooms = {owner: dict(room()) for owner, room in self._node_room.items()}
            metadata["annotations"] = {
                NODE_ROOM_ANNOTATION: json.dumps(rooms, sort_keys=True, separators=(",", ":"))
            }
        if metadata:
            template["metadata"] = metadata
        disruption: dict[str, Any] = {
            "consolidateAfter": self.consolidate_after,
            "consolidationPolicy": self.consolidation_policy.value,
        }
        if self._budgets:
            disruption["budgets"] = [budget.to_json() for budget in self._budgets]
        spec: dict[str, Any] = {"disruption": disruption, "template": template}
        if self.limits:
            spec["limits"] = dict(self.limits)
        if self.weight is not None:
            spec["weight"] = self.weight
        return {"spec": spec}


def default_requirements(flavour: NodePoolFlavour) -> list[NodeSelectorRequirement]:
    """The getting-started requirements of a flavour (sources in the module docstring)."""
    in_ = NodeSelectorOperator.IN
    requirements = [
        NodeSelectorRequirement("kubernetes.io/arch", in_, ("amd64",)),
        NodeSelectorRequirement("karpenter.sh/capacity-type", in_, ("on-demand", "spot")),
    ]
    prefix = flavour.label_prefix
    if flavour not in (NodePoolFlavour.KARPENTER_EC2, NodePoolFlavour.EKS_AUTO_MODE):
        requirements.insert(1, NodeSelectorRequirement("kubernetes.io/os", in_, ("linux",)))
        return requirements
    requirements.append(NodeSelectorRequirement(f"{prefix}instance-category", in_, ("c", "m", "r")))
    if flavour is NodePoolFlavour.EKS_AUTO_MODE:
        requirements.append(
            NodeSelectorRequirement(f"{prefix}instance-generation", NodeSelectorOperator.GT, ("4",))
        )
    else:
        requirements.insert(1, NodeSelectorRequirement("kubernetes.io/os", in_, ("linux",)))
        requirements.append(
            NodeSelectorRequirement(f"{prefix}instance-generation", NodeSelectorOperator.GT, ("2",))
        )
    return requirements


def _limits(value: Mapping[str, QuantityLike]) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise HeadroomConfigError(
            "limits", value, 'a mapping of resource names to quantities, e.g. {"cpu": "1000"}'
        )
    limits: dict[str, str] = {}
    for resource in sorted(value, key=str):
        field = f"limits[{resource}]"
        names.label_key(resource, field=field)
        if parse_quantity(value[resource], field=field) < 0:
            raise HeadroomConfigError(field, value[resource], "a quantity of zero or more")
        limits[resource] = quantity_text(value[resource], field=field, grammar=QUANTITY_SYNTAX)
    return limits


def declared_node_size(cpu: QuantityLike | None, memory: QuantityLike | None) -> NodeSize | None:
    """The smallest node a user declares (``node_cpu``, ``node_memory``), or ``None``:
    in whole milli-cores and bytes, rounded up, as the kubelet reports a node's capacity
    (and as the chart counts it, ``helm/node_fit.py``)."""
    if cpu is None and memory is None:
        return None
    amounts: list[Fraction | None] = []
    for field, value, resource in (
        ("node_cpu", cpu, Resource.CPU),
        ("node_memory", memory, Resource.MEMORY),
    ):
        if value is None:
            amounts.append(None)
            continue
        text = positive_quantity(value, field=field)[0]
        amounts.append(Fraction(amount(text, resource), 10**resource.value))
    return NodeSize(cpu=amounts[0], memory=amounts[1])
