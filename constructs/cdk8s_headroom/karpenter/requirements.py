"""What a NodePool's template may say about its nodes: the requirements that choose
instances, and the labels, which Karpenter adds as requirements too. Plain Python."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cdk8s_headroom.karpenter.pool_ref import KNOWN_INSTANCE_LABEL_PREFIXES, NodePoolFlavour
from cdk8s_headroom.vocabulary import names
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.node_pools import KARPENTER_NODEPOOL_LABEL
from cdk8s_headroom.vocabulary.node_sizes import KWOK_INSTANCE_LABELS, KWOK_LABEL_PREFIX
from cdk8s_headroom.vocabulary.placement import NodeSelectorOperator, NodeSelectorRequirement

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

MAX_REQUIREMENTS = 100
"""The most requirements a NodePool template holds (the CRD's ``maxItems``)."""

MAX_TEMPLATE_LABELS = 100
"""The most labels a NodePool template holds (the CRD's ``maxProperties``)."""

_RESERVED_LABEL_DOMAINS = (
    "karpenter.sh",
    "karpenter.k8s.aws",
    "eks.amazonaws.com",
    KWOK_LABEL_PREFIX.removesuffix("/"),
)
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

_OS_LABELS = ("kubernetes.io/os", "node.kubernetes.io/windows-build")
"""The OS labels, which EKS Auto Mode (Linux only) does not support."""


def check_requirement(
    requirement: NodeSelectorRequirement, flavour: NodePoolFlavour
) -> NodeSelectorRequirement:
    """``requirement`` if a pool of ``flavour`` may hold it: a key Karpenter allows, the
    flavour's own instance labels, and known instance categories and capacity types."""
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
    own = flavour.label_prefix
    other = next((p for p in KNOWN_INSTANCE_LABEL_PREFIXES if p != own and key.startswith(p)), None)
    if other is not None:
        hint = (
            f"use {own}{key.removeprefix(other)}"
            if own
            else "use the instance labels of the pool's own provider"
        )
        raise HeadroomConfigError(
            field,
            list(requirement.values),
            f"the {flavour.name} instance labels: {hint} ({other}* labels are not set on "
            "these nodes)",
        )
    if key.startswith(KWOK_LABEL_PREFIX) and key not in KWOK_INSTANCE_LABELS:
        raise HeadroomConfigError(
            field,
            list(requirement.values),
            f"a KWOK instance label: {', '.join(KWOK_INSTANCE_LABELS)} (Karpenter's KWOK "
            "provider restricts the rest of its domain)",
        )
    if flavour is NodePoolFlavour.EKS_AUTO_MODE and key in _OS_LABELS:
        raise HeadroomConfigError(
            field,
            list(requirement.values),
            "no OS requirement on EKS Auto Mode, which runs Linux only and does not "
            "support this label",
        )
    listed = requirement.operator in (NodeSelectorOperator.IN, NodeSelectorOperator.NOT_IN)
    if listed and own is not None and key == f"{own}instance-category":
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


def check_requirement_count(count: int) -> None:
    """Refuses a template of ``count`` requirements, more than Karpenter's schema holds."""
    if count > MAX_REQUIREMENTS:
        raise HeadroomConfigError(
            "requirements", count, f"at most {MAX_REQUIREMENTS} requirements (Karpenter)"
        )


def check_template_labels(
    labels: Mapping[str, str] | None, flavour: NodePoolFlavour
) -> dict[str, str]:
    """The labels of a pool's template (``spec.template.metadata.labels``), sorted: keys
    Karpenter, EC2, EKS or the kubelet set themselves are refused."""
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
                "eks.amazonaws.com/*, karpenter.kwok.sh/* and the kubernetes.io and "
                "k8s.io domains (but well-known labels and node.kubernetes.io/*) are theirs "
                "(karpenter.sh/nodepool is the pool's name); use a requirement to "
                "choose instances",
            )
        if flavour is NodePoolFlavour.EKS_AUTO_MODE and key in _OS_LABELS:
            raise HeadroomConfigError(
                f"labels[{key}]", checked[key], "no OS labels on EKS Auto Mode (Linux only)"
            )
    return checked


def check_label_against(
    key: str, value: str, requirements: Sequence[NodeSelectorRequirement], *, field: str
) -> None:
    """Refuses a label ``key: value`` that one of ``requirements`` excludes."""
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


def _in_domain(domain: str, domains: Sequence[str]) -> bool:
    return any(domain == d or domain.endswith(f".{d}") for d in domains)


def requirement_json(requirement: NodeSelectorRequirement) -> dict[str, Any]:
    """The requirement as it appears in the template's ``requirements``."""
    body: dict[str, Any] = {"key": requirement.key, "operator": requirement.operator.value}
    if requirement.values:
        body["values"] = list(requirement.values)
    if requirement.min_values is not None:
        body["minValues"] = requirement.min_values
    return body
