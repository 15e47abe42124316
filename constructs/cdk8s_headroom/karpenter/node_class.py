"""A NodePool's node class: a reference to one of any Karpenter provider
(``NodeClassRef``), and the ``karpenter.k8s.aws/v1`` EC2NodeClass this app can emit
(``Ec2NodeClass``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.core.construct import HeadroomConstruct
from cdk8s_headroom.core.rendered import RenderedApiObject
from cdk8s_headroom.karpenter.pool_ref import NodePoolFlavour
from cdk8s_headroom.vocabulary import names
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.labels import PART_OF

_AMI_FAMILIES = ("al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025")
_IAM_ROLE_NAME = re.compile(r"^[\w+=,.@-]{1,64}$")


_KIND = re.compile(r"^[A-Z][A-Za-z0-9]{0,62}$")

KNOWN_NODE_CLASS_KINDS = {
    NodePoolFlavour.KARPENTER_EC2: "EC2NodeClass",
    NodePoolFlavour.EKS_AUTO_MODE: "NodeClass",
    NodePoolFlavour.KWOK: "KWOKNodeClass",
}
"""The node class kind of each provider this project knows, by flavour."""


@dataclass(frozen=True)
class NodeClassRef:
    """A NodePool's ``nodeClassRef``: the node class of any Karpenter provider.

    Build it with ``ec2()``, ``eks_auto_mode()`` or ``kwok()``, or name another
    provider's class, e.g. ``NodeClassRef("karpenter.azure.com", "AKSNodeClass",
    "default")``. The group decides the pool's flavour (``NodePoolFlavour``): which
    instance labels its requirements may use and the project reads node sizes from;
    for another provider declare the sizes (``KarpenterNodePool(node_cpu=...,
    node_memory=...)``).

    Args:
        group: the node class's API group, a DNS subdomain.
        kind: the node class's kind, e.g. ``AKSNodeClass``; for the groups this project
            knows, their kind (``EC2NodeClass``, ``NodeClass``, ``KWOKNodeClass``).
        name: the node class's name.
    """

    group: str
    kind: str
    name: str

    def __post_init__(self) -> None:
        names.dns_subdomain(self.group, field="node_class.group")
        known = KNOWN_NODE_CLASS_KINDS.get(NodePoolFlavour.of_group(self.group))
        if not isinstance(self.kind, str) or not _KIND.match(self.kind):
            raise HeadroomConfigError(
                "node_class.kind", self.kind, "a kind in CamelCase, e.g. AKSNodeClass"
            )
        if known is not None and self.kind != known:
            raise HeadroomConfigError(
                "node_class.kind",
                f"{self.group}/{self.kind}",
                f"{self.group}/{known}, the node class of that provider",
            )
        names.dns_subdomain(self.name, field="node_class.name")

    @staticmethod
    def ec2(name: str = "default") -> NodeClassRef:
        """An existing ``karpenter.k8s.aws/v1`` EC2NodeClass. Default name: ``default``."""
        return NodeClassRef(NodePoolFlavour.KARPENTER_EC2.value, "EC2NodeClass", name)

    @staticmethod
    def eks_auto_mode(name: str = "default") -> NodeClassRef:
        """An EKS Auto Mode ``eks.amazonaws.com`` NodeClass. Default: ``default``, the
        class Auto Mode creates with its built-in pools."""
        return NodeClassRef(NodePoolFlavour.EKS_AUTO_MODE.value, "NodeClass", name)

    @staticmethod
    def kwok(name: str = "default") -> NodeClassRef:
        """A ``karpenter.kwok.sh/v1alpha1`` KWOKNodeClass of Karpenter's KWOK provider,
        which launches fake nodes (tests, demos). Default name: ``default``."""
        return NodeClassRef(NodePoolFlavour.KWOK.value, "KWOKNodeClass", name)

    @property
    def flavour(self) -> NodePoolFlavour:
        return NodePoolFlavour.of_group(self.group)

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


def _string_map(value: Mapping[str, str] | None, *, field: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise HeadroomConfigError(field, value, "a mapping of strings to strings")
    return dict(sorted(value.items()))
