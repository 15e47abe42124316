"""A namespace for the headroom workloads, with Pod Security admission enforced."""

from __future__ import annotations

import cdk8s
from constructs import Construct

from cdk8s_headroom.core.construct import HeadroomConstruct
from cdk8s_headroom.core.rendered import RenderedApiObject
from cdk8s_headroom.vocabulary import names, rules
from cdk8s_headroom.vocabulary.labels import FIRST_SYNC_WAVE, PART_OF


class HeadroomNamespace(HeadroomConstruct):
    """A Namespace whose Pod Security admission enforces the ``restricted`` profile.

    The library's pod templates meet that profile, so enforcing it costs nothing and
    stops anyone from adding a privileged pod next to the headroom.

    Args:
        name: the namespace's name, a DNS-1123 label, none of ``rules.SHARED_NAMESPACES``.
    """

    def __init__(self, scope: Construct, id: str, *, name: str) -> None:
        self.name = names.dns_label(name, field="namespace")
        rules.OWN_NAMESPACE.check("namespace", name)
        super().__init__(scope, id)
        profile = "restricted"
        self.resource = RenderedApiObject(
            self,
            "Resource",
            api_version="v1",
            kind="Namespace",
            render=dict,
            metadata=cdk8s.ApiObjectMetadata(
                name=self.name,
                annotations=FIRST_SYNC_WAVE,
                labels={
                    "app.kubernetes.io/part-of": PART_OF,
                    "pod-security.kubernetes.io/enforce": profile,
                    "pod-security.kubernetes.io/audit": profile,
                    "pod-security.kubernetes.io/warn": profile,
                },
            ),
        )

    def restricted_namespace(self) -> str:
        return self.name
