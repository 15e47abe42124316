"""Karpenter NodePools the headroom can target: Karpenter on EC2, and EKS Auto Mode.

A ``KarpenterNodePool`` emits a ``karpenter.sh/v1`` NodePool. Its node class decides
the flavour: an ``EC2NodeClass`` (``karpenter.k8s.aws``, Karpenter on EC2; reference
one with ``NodeClassRef.ec2()`` or create one with ``Ec2NodeClass``), or the EKS Auto
Mode ``NodeClass`` (``eks.amazonaws.com``, ``NodeClassRef.eks_auto_mode()``). The pool
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
  ``kubernetes.io/os``, so that requirement is left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.objects.construct import HeadroomConstruct
from cdk8s_headroom.objects.rendered import RenderedApiObject
from cdk8s_headroom.vocabulary import names, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.labels import PART_OF
from cdk8s_headroom.vocabulary.node_pools import KARPENTER_NODEPOOL_LABEL, NodePoolRef
from cdk8s_headroom.vocabulary.node_sizes import INSTANCE_LABEL_PREFIXES, NodeSize, smallest_node
from cdk8s_headroom.vocabulary.placement import NodeSelectorOperator, NodeSelectorRequirement, Taint
from cdk8s_headroom.vocabulary.quantity import QuantityLike, parse_quantity, quantity_text
from cdk8s_headroom.vocabulary.rules import QUANTITY_SYNTAX

DurationLike = str | cdk8s.Duration
"""A Karpenter duration: a string such as ``"1m"``, ``"720h"``, ``"1h30m"`` or ``"Never"``,
or a ``cdk8s.Duration`` of whole seconds."""

KNOWN_INSTANCE_CATEGORIES = frozenset(
    {
        "a", "c", "d", "dl", "f", "g", "gr", "h", "hpc", "i", "im", "inf", "is",
        "m", "mac", "p", "r", "t", "trn", "u", "vt", "x", "z",
    }
)  # fmt: skip
"""EC2 instance categories: the letters of an instance family before its generation
(``c`` of c7i, ``inf`` of inf2, ``hpc`` of hpc7g), as Karpenter's ``instance-category``
label and Auto Mode's ``eks.amazonaws.com/instance-category`` carry them."""

CAPACITY_TYPES = ("on-demand", "spot", "reserved")
"""Values of ``karpenter.sh/capacity-type`` (``reserved``: capacity reservations)."""

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

AUTO_MODE_BUILTIN_POOLS = rules.AUTO_MODE_BUILTIN_POOLS
"""The NodePools EKS Auto Mode creates and manages; reference them, never emit them."""

_DURATION = re.compile(r"^(?:(\d+)(s|m|h))+$")
_BUDGET_DURATION = re.compile(r"^(?:\d+h|\d+m|\d+h\d+m)$")
_BUDGET_NODES = re.compile(r"^(?:(?:100|[0-9]{1,2})%|[0-9]+)$")
_DURATION_PART = re.compile(r"(\d+)(s|m|h)")
_SECONDS = {"s": 1, "m": 60, "h": 3600}
_AMI_FAMILIES = ("al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025")
_IAM_ROLE_NAME = re.compile(r"^[\w+=,.@-]{1,64}$")
_RESERVED_LABEL_DOMAINS = ("karpenter.sh", "karpenter.k8s.aws", "eks.amazonaws.com")
_KUBERNETES_LABELS = (
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "node.kubernetes.io/instance-type",
    "node.kubernetes.io/windows-build",
    "topology.kubernetes.io/region",
    "topology.kubernetes.io/zone",
)
"""Well-known labels a NodePool may set in the ``kubernetes.io`` domain, whose other
keys the kubelet and Karpenter reserve (but the ``node.kubernetes.io`` and
``node-restriction.kubernetes.io`` subdomains, which exist for node labels)."""


class NodePoolFlavour(Enum):
    """Who runs the pool's nodes, named by the API group of its node class."""

    KARPENTER_EC2 = "karpenter.k8s.aws"
    """Karpenter on EC2: an ``EC2NodeClass``; instance labels ``karpenter.k8s.aws/*``."""
    EKS_AUTO_MODE = rules.AUTO_MODE_DOMAIN
    """EKS Auto Mode: its ``NodeClass``; instance labels ``eks.amazonaws.com/*``."""

    @property
    def label_prefix(self) -> str:
        """The prefix of the instance labels (``instance-category``, ``instance-cpu``...)."""
        return f"{self.value}/"


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


MAX_REQUIREMENTS = 100
"""The most requirements a NodePool template holds (the CRD's ``maxItems``)."""

MAX_TEMPLATE_LABELS = 100
"""The most labels a NodePool template holds (the CRD's ``maxProperties``)."""

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
            self, "duration", _budget_duration(self.duration, field="budgets.duration")
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


_CRON_MACROS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_CRON_FIELDS: tuple[tuple[str, int, int, tuple[str, ...]], ...] = (
    ("minute", 0, 59, ()),
    ("hour", 0, 23, ()),
    ("day of month", 1, 31, ()),
    ("month", 1, 12, _MONTHS),
    ("day of week", 0, 6, _WEEKDAYS),
)
_CRON_PART = re.compile(r"^(?:(?P<any>[*?])|(?P<low>\w+)(?:-(?P<high>\w+))?)(?:/(?P<step>\d+))?$")


def check_cron(value: object, *, field: str) -> str:
    """A cron expression as Karpenter parses budget schedules (robfig/cron's standard
    parser: five fields or a macro, no time zone, no ``@every``)."""
    allowed = (
        "a cron expression of five fields (minute 0-59, hour 0-23, day of month 1-31, "
        "month 1-12 or jan-dec, day of week 0-6 or sun-sat), each *, ?, a value, a range "
        f"a-b, a step /n or a list of those, e.g. '0 9 * * mon-fri'; or one of "
        f"{', '.join(_CRON_MACROS)}"
    )
    if not isinstance(value, str):
        raise HeadroomConfigError(field, value, allowed)
    if value in _CRON_MACROS:
        return value
    fields = value.split(" ")
    if len(fields) != len(_CRON_FIELDS):
        raise HeadroomConfigError(field, value, allowed)
    for text, (name, low, high, words) in zip(fields, _CRON_FIELDS, strict=True):
        for part in text.split(","):
            if not _cron_part_ok(part, low, high, words):
                raise HeadroomConfigError(
                    field, value, f"{allowed} (the {name} field {text!r} is not)"
                )
    return value


def _cron_part_ok(part: str, low: int, high: int, words: tuple[str, ...]) -> bool:
    match = _CRON_PART.match(part)
    if match is None or match["step"] == "0":
        return False
    if match["any"]:
        return True

    def number(text: str) -> int | None:
        if text.isdigit():
            return int(text)
        lowered = text.lower()
        return words.index(lowered) + low if lowered in words else None

    start = number(match["low"])
    end = start if match["high"] is None else number(match["high"])
    return start is not None and end is not None and low <= start <= end <= high


@dataclass(frozen=True)
class NodeClassRef:
    """A NodePool's ``nodeClassRef``. Build it with ``ec2()`` or ``eks_auto_mode()``.

    Args:
        group: the node class's API group; it decides the flavour.
        kind: ``EC2NodeClass`` or ``NodeClass``.
        name: the node class's name.
    """

    group: str
    kind: str
    name: str

    def __post_init__(self) -> None:
        kinds = {"karpenter.k8s.aws": "EC2NodeClass", "eks.amazonaws.com": "NodeClass"}
        if kinds.get(self.group) != self.kind:
            raise HeadroomConfigError(
                "node_class",
                f"{self.group}/{self.kind}",
                "NodeClassRef.ec2(name) (karpenter.k8s.aws/EC2NodeClass) or "
                "NodeClassRef.eks_auto_mode(name) (eks.amazonaws.com/NodeClass)",
            )
        names.dns_subdomain(self.name, field="node_class.name")

    @staticmethod
    def ec2(name: str = "default") -> NodeClassRef:
        """An existing ``karpenter.k8s.aws/v1`` EC2NodeClass. Default name: ``default``."""
        return NodeClassRef("karpenter.k8s.aws", "EC2NodeClass", name)

    @staticmethod
    def eks_auto_mode(name: str = "default") -> NodeClassRef:
        """An EKS Auto Mode ``eks.amazonaws.com`` NodeClass. Default: ``default``, the
        class Auto Mode creates with its built-in pools."""
        return NodeClassRef("eks.amazonaws.com", "NodeClass", name)

    @property
    def flavour(self) -> NodePoolFlavour:
        return NodePoolFlavour(self.group)

    def to_json(self) -> dict[str, str]:
        return {"group": self.group, "kind": self.kind, "name": self.name}


class Ec2NodeClass(HeadroomConstruct):
    """A ``karpenter.k8s.aws/v1`` EC2NodeClass: the AMI, IAM role and network of nodes.

    Subnets and security groups are discovered by a tag, as in Karpenter's getting
    started guide: tag them ``karpenter.sh/discovery=<cluster name>``.

    Args:
        role: the nodes' IAM role name (not its ARN); Karpenter creates the instance
            profile.
        discovery_tag_value: the value of the discovery tag on the subnets and
            security groups, by convention the cluster's name.
        name: default: ``default``, the name Karpenter's guides use.
        ami_alias: ``<family>@<version>``. Default: ``al2023@latest``. Pin a version
            (``al2023@v20240807``) to roll new AMIs out on your own schedule.
        discovery_tag_key: default: ``karpenter.sh/discovery``.
        tags: extra tags on the instances. Default: none.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        role: str,
        discovery_tag_value: str,
        name: str = "default",
        ami_alias: str = "al2023@latest",
        discovery_tag_key: str = "karpenter.sh/discovery",
        tags: Mapping[str, str] | None = None,
    ) -> None:
        if not isinstance(role, str) or role.startswith("arn:") or not _IAM_ROLE_NAME.match(role):
            raise HeadroomConfigError(
                "role", role, "an IAM role name (not an ARN): 1-64 letters, digits or +=,.@_-"
            )
        self.role = role
        self.name = names.dns_subdomain(name, field="name")
        family, _, version = (
            ami_alias.partition("@") if isinstance(ami_alias, str) else ("", "", "")
        )
        if family not in _AMI_FAMILIES or not re.match(r"^(latest|v\d{8})$", version):
            raise HeadroomConfigError(
                "ami_alias",
                ami_alias,
                f"<family>@<version> with a family of {', '.join(_AMI_FAMILIES)} and a "
                "version 'latest' or 'vYYYYMMDD', e.g. 'al2023@latest'",
            )
        self.ami_alias = ami_alias
        self.discovery_tag_key = names.label_key(discovery_tag_key, field="discovery_tag_key")
        if not isinstance(discovery_tag_value, str) or not discovery_tag_value.strip():
            raise HeadroomConfigError(
                "discovery_tag_value", discovery_tag_value, "a non-empty tag value"
            )
        self.discovery_tag_value = discovery_tag_value
        self.tags = _string_map(tags, field="tags")

        super().__init__(scope, id)
        self.resource = RenderedApiObject(
            self,
            "Resource",
            api_version="karpenter.k8s.aws/v1",
            kind="EC2NodeClass",
            metadata=cdk8s.ApiObjectMetadata(
                name=self.name, labels={"app.kubernetes.io/part-of": PART_OF}
            ),
            render=self._render,
        )

    @property
    def ref(self) -> NodeClassRef:
        """The reference a NodePool uses."""
        return NodeClassRef.ec2(self.name)

    def _render(self) -> dict[str, Any]:
        discovery = [{"tags": {self.discovery_tag_key: self.discovery_tag_value}}]
        spec: dict[str, Any] = {
            "amiSelectorTerms": [{"alias": self.ami_alias}],
            "role": self.role,
            "securityGroupSelectorTerms": discovery,
            "subnetSelectorTerms": [dict(term) for term in discovery],
        }
        if self.tags:
            spec["tags"] = dict(self.tags)
        return {"spec": spec}


@dataclass(frozen=True)
class KarpenterNodePoolRef(NodePoolRef):
    """A Karpenter or Auto Mode NodePool that exists already (``KarpenterNodePool.from_name``).

    It selects nodes by ``karpenter.sh/nodepool``, like ``NodePoolRef.karpenter``, and
    also knows the sizes and limits you declare, for the fit check and the summary.

    Args:
        pool_name: the NodePool's name.
        taints: the taints its nodes carry. Default: none.
        requirements: its requirements, as far as they bound instance sizes. Default:
            none (node size unknown).
        limits: its ``limits`` as (resource, quantity) pairs. Default: ``None``, not
            declared.
    """

    requirements: tuple[NodeSelectorRequirement, ...] = ()
    limits: tuple[tuple[str, str], ...] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "requirements", tuple(self.requirements))
        for requirement in self.requirements:
            if not isinstance(requirement, NodeSelectorRequirement):
                raise HeadroomConfigError(
                    "node_pool.requirements", requirement, "NodeSelectorRequirement objects"
                )
        # Surfaces requirements that exclude every instance now, not at synth.
        smallest_node(self.requirements, field="node_pool.requirements")

    @property
    def smallest_node(self) -> NodeSize:
        return smallest_node(self.requirements, field="node_pool.requirements")

    @property
    def limit_amounts(self) -> Mapping[str, Fraction] | None:
        if self.limits is None:
            return None
        return {key: parse_quantity(value, field=f"limits[{key}]") for key, value in self.limits}


class KarpenterNodePool(HeadroomConstruct):
    """A ``karpenter.sh/v1`` NodePool, for Karpenter on EC2 or for EKS Auto Mode.

    The node class decides the flavour (``flavour``). The pool is an ``INodePool``:
    pass it as ``NodeHeadroom(node_pool=...)`` and the reserver and every burst
    workload select its nodes by ``karpenter.sh/nodepool: <name>`` and tolerate its
    taints. Under ``PriorityModel.DEDICATED_POOL`` the headroom adds its taint to the
    pool. The spec is rendered at synthesis, so ``add_requirement`` and ``add_taint``
    calls made later still reach the output.

    Args:
        node_class: ``NodeClassRef.ec2(name)``, an ``Ec2NodeClass`` this app emits, or
            ``NodeClassRef.eks_auto_mode(name)``. Default: ``NodeClassRef.ec2()``, the
            EC2NodeClass ``default`` of Karpenter's getting-started guide.
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
    ) -> None:
        if node_class is None:
            node_class = NodeClassRef.ec2()
        if isinstance(node_class, Ec2NodeClass):
            node_class = node_class.ref
        if not isinstance(node_class, NodeClassRef):
            raise HeadroomConfigError(
                "node_class",
                node_class,
                "NodeClassRef.ec2(name), an Ec2NodeClass or NodeClassRef.eks_auto_mode(name)",
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
                f"KarpenterNodePool.from_name({self.name!r}) instead of emitting it",
            )
        self._labels = self._check_label_keys(labels)
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
            requirement = self._check_requirement(requirement)
            self._check_requirement_count(len(self._requirements) + 1)
            self._check_sizes(
                [*self._requirements, requirement], field=f"requirements[{requirement.key}]"
            )
            self._requirements.append(requirement)
        # Labels are judged against the requirements here, and the label is blamed:
        # the requirements may be defaults the user never wrote.
        for key, value in self._labels.items():
            self._check_label_against(key, value, self._requirements, field=f"labels[{key}]")
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
        self.consolidate_after, _ = _duration(consolidate_after, field="consolidate_after")
        if expire_after is None:
            expire_after = f"{AUTO_MODE_MAX_EXPIRE_AFTER_HOURS}h" if self.auto_mode else "720h"
        self.expire_after, lifetime = _duration(expire_after, field="expire_after")
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
            self._check_budget(budget)
            self._budgets.append(budget)
        self.termination_grace_period = None
        if termination_grace_period is not None:
            if termination_grace_period == "Never":
                raise HeadroomConfigError(
                    "termination_grace_period",
                    termination_grace_period,
                    'a duration such as "1h" or "24h"; leave it None to wait for ever',
                )
            self.termination_grace_period, _ = _duration(
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
        """
        declared = None if limits is None else tuple(_limits(limits).items())
        return KarpenterNodePoolRef(
            pool_name,
            taints=tuple(taints),
            requirements=tuple(requirements),
            limits=declared,
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

    @property
    def smallest_node(self) -> NodeSize:
        """The lower bound of the capacity of the nodes the requirements allow."""
        return smallest_node(self._requirements, field="requirements", auto_mode=self.auto_mode)

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
        requirement = self._check_requirement(requirement)
        self._check_requirement_count(len(self._requirements) + 1)
        candidate = [*self._requirements, requirement]
        for label, value in self._labels.items():
            self._check_label_against(label, value, [requirement], field=field)
        new_size = smallest_node(candidate, field=field, auto_mode=self.auto_mode)
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
        self._check_budget(budget)
        self._budgets.append(budget)
        return budget

    def _check_budget(self, budget: object) -> None:
        if not isinstance(budget, DisruptionBudget):
            raise HeadroomConfigError(
                "budgets",
                budget,
                "DisruptionBudget objects, e.g. DisruptionBudget(nodes=BudgetNodes.percent(10))",
            )
        if len(self._budgets) >= MAX_BUDGETS:
            raise HeadroomConfigError(
                "budgets", len(self._budgets) + 1, f"at most {MAX_BUDGETS} budgets (Karpenter)"
            )

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

    @staticmethod
    def _check_requirement_count(count: int) -> None:
        if count > MAX_REQUIREMENTS:
            raise HeadroomConfigError(
                "requirements", count, f"at most {MAX_REQUIREMENTS} requirements (Karpenter)"
            )

    def _check_label_keys(self, labels: Mapping[str, str] | None) -> dict[str, str]:
        checked = names.labels(labels, field="labels")
        if len(checked) > MAX_TEMPLATE_LABELS:
            raise HeadroomConfigError(
                "labels", len(checked), f"at most {MAX_TEMPLATE_LABELS} labels (Karpenter)"
            )
        for key in checked:
            domain = key.rpartition("/")[0]
            reserved = key in (KARPENTER_NODEPOOL_LABEL, "kubernetes.io/hostname") or (
                key != "karpenter.sh/capacity-type" and _in_domain(domain, _RESERVED_LABEL_DOMAINS)
            )
            kubernetes = (
                _in_domain(domain, ("kubernetes.io", "k8s.io"))
                and key not in _KUBERNETES_LABELS
                and not _in_domain(domain, ("node.kubernetes.io", "node-restriction.kubernetes.io"))
            )
            if reserved or kubernetes:
                raise HeadroomConfigError(
                    f"labels[{key}]",
                    checked[key],
                    "a label Karpenter, EC2, EKS and the kubelet do not set themselves: "
                    "karpenter.sh/* (but capacity-type), karpenter.k8s.aws/*, "
                    "eks.amazonaws.com/* and the kubernetes.io and k8s.io domains (but "
                    "well-known labels and node.kubernetes.io/*) are theirs "
                    "(karpenter.sh/nodepool is the pool's name); use a requirement to "
                    "choose instances",
                )
            if self.auto_mode and key in ("kubernetes.io/os", "node.kubernetes.io/windows-build"):
                raise HeadroomConfigError(
                    f"labels[{key}]", checked[key], "no OS labels on EKS Auto Mode (Linux only)"
                )
        return checked

    def _check_requirement(self, requirement: NodeSelectorRequirement) -> NodeSelectorRequirement:
        key = requirement.key
        field = f"requirements[{key}]"
        domain = key.rpartition("/")[0]
        if key in (KARPENTER_NODEPOOL_LABEL, "kubernetes.io/hostname") or (
            _in_domain(domain, ("karpenter.sh",)) and key != "karpenter.sh/capacity-type"
        ):
            raise HeadroomConfigError(
                field,
                list(requirement.values),
                "a key Karpenter allows in requirements: karpenter.sh/* (but capacity-type) "
                "and kubernetes.io/hostname are restricted (karpenter.sh/nodepool is the "
                "pool's own name)",
            )
        own = self.flavour.label_prefix
        other = next(p for p in INSTANCE_LABEL_PREFIXES if p != own)
        if key.startswith(other):
            raise HeadroomConfigError(
                field,
                list(requirement.values),
                f"the {self.flavour.name} instance labels: use {own}{key.removeprefix(other)} "
                f"({other}* labels are not set on these nodes)",
            )
        if self.auto_mode and key in ("kubernetes.io/os", "node.kubernetes.io/windows-build"):
            raise HeadroomConfigError(
                field,
                list(requirement.values),
                "no OS requirement on EKS Auto Mode, which runs Linux only and does not "
                "support this label",
            )
        listed = requirement.operator in (NodeSelectorOperator.IN, NodeSelectorOperator.NOT_IN)
        if listed and key == f"{own}instance-category":
            unknown = [v for v in requirement.values if v not in KNOWN_INSTANCE_CATEGORIES]
            if unknown:
                raise HeadroomConfigError(
                    f"{field}.values",
                    unknown,
                    f"EC2 instance categories: {', '.join(sorted(KNOWN_INSTANCE_CATEGORIES))}",
                )
        if listed and key == "karpenter.sh/capacity-type":
            unknown = [v for v in requirement.values if v not in CAPACITY_TYPES]
            if unknown:
                raise HeadroomConfigError(
                    f"{field}.values", unknown, f"capacity types: {', '.join(CAPACITY_TYPES)}"
                )
        return requirement

    def _check_sizes(self, requirements: Sequence[NodeSelectorRequirement], *, field: str) -> None:
        smallest_node(requirements, field=field, auto_mode=self.auto_mode)

    @staticmethod
    def _check_label_against(
        key: str, value: str, requirements: Sequence[NodeSelectorRequirement], *, field: str
    ) -> None:
        for requirement in requirements:
            if requirement.key != key or requirement.matches(value):
                continue
            values = f" {list(requirement.values)}" if requirement.values else ""
            raise HeadroomConfigError(
                field,
                value,
                f"a label value the pool's requirement {key} {requirement.operator.value}"
                f"{values} allows: Karpenter adds labels as requirements, and these "
                "contradict, so the pool could launch no node",
            )

    def _render(self) -> dict[str, Any]:
        template_spec: dict[str, Any] = {
            "expireAfter": self.expire_after,
            "nodeClassRef": self.node_class.to_json(),
            "requirements": [_requirement_json(r) for r in self._requirements],
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
    prefix = flavour.label_prefix
    in_ = NodeSelectorOperator.IN
    requirements = [
        NodeSelectorRequirement("kubernetes.io/arch", in_, ("amd64",)),
        NodeSelectorRequirement("karpenter.sh/capacity-type", in_, ("on-demand", "spot")),
        NodeSelectorRequirement(f"{prefix}instance-category", in_, ("c", "m", "r")),
    ]
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


def _in_domain(domain: str, domains: Sequence[str]) -> bool:
    return any(domain == d or domain.endswith(f".{d}") for d in domains)


def _requirement_json(requirement: NodeSelectorRequirement) -> dict[str, Any]:
    body: dict[str, Any] = {"key": requirement.key, "operator": requirement.operator.value}
    if requirement.values:
        body["values"] = list(requirement.values)
    if requirement.min_values is not None:
        body["minValues"] = requirement.min_values
    return body


def _string_map(value: Mapping[str, str] | None, *, field: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise HeadroomConfigError(field, value, "a mapping of strings to strings")
    return dict(sorted(value.items()))


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


def _budget_duration(value: DurationLike, *, field: str) -> str:
    """A budget's duration: hours and minutes only (cron has no seconds), at least 1m."""
    allowed = (
        'a duration of at least a minute in hours and minutes, e.g. "30m", "8h" or "1h30m", '
        "or a cdk8s.Duration of whole minutes"
    )
    if isinstance(value, cdk8s.Duration):
        millis = int(value.to_milliseconds())
        if millis <= 0 or millis % 60000:
            raise HeadroomConfigError(field, f"{millis}ms", allowed)
        hours, minutes = divmod(millis // 60000, 60)
        return (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "")
    if not isinstance(value, str) or not _BUDGET_DURATION.match(value):
        raise HeadroomConfigError(field, value, allowed)
    if not any(int(n) for n, _ in _DURATION_PART.findall(value)):
        raise HeadroomConfigError(field, value, allowed)
    return value


def _duration(value: DurationLike, *, field: str) -> tuple[str, int | None]:
    """The Karpenter text of a duration and its seconds (``None`` for ``Never``)."""
    allowed = (
        'a duration in hours, minutes and seconds such as "30s", "1m", "720h" or "1h30m", '
        '"Never", or a cdk8s.Duration of whole seconds'
    )
    if isinstance(value, cdk8s.Duration):
        millis = int(value.to_milliseconds())
        if millis % 1000:
            raise HeadroomConfigError(field, f"{millis}ms", allowed)
        seconds = millis // 1000
        for suffix, size in (("h", 3600), ("m", 60)):
            if seconds and seconds % size == 0:
                return f"{seconds // size}{suffix}", seconds
        return f"{seconds}s", seconds
    if value == "Never":
        return value, None
    if not isinstance(value, str) or not _DURATION.match(value):
        raise HeadroomConfigError(field, value, allowed)
    seconds = sum(int(n) * _SECONDS[unit] for n, unit in _DURATION_PART.findall(value))
    return value, seconds
