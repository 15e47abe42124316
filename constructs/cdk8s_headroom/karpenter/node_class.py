"""A NodePool's node class: a reference to one (``NodeClassRef``), and the
``karpenter.k8s.aws/v1`` EC2NodeClass this app can emit (``Ec2NodeClass``)."""

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


def _string_map(value: Mapping[str, str] | None, *, field: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise HeadroomConfigError(field, value, "a mapping of strings to strings")
    return dict(sorted(value.items()))
