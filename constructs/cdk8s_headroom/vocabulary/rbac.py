"""Kubernetes RBAC's words: its API, and who a binding grants a role to. Plain Python."""

from __future__ import annotations

from enum import Enum

API_GROUP = "rbac.authorization.k8s.io"
API_VERSION = f"{API_GROUP}/v1"


class SubjectKind(Enum):
    """Who a ClusterRoleBinding grants its role to (``rbac.authorization.k8s.io/v1``
    ``Subject.kind``)."""

    USER = "User"
    GROUP = "Group"
    SERVICE_ACCOUNT = "ServiceAccount"

    @property
    def api_group(self) -> str | None:
        """The subject's ``apiGroup``: RBAC's for a user or a group, none for a service
        account (the core group), as ``kubectl create clusterrolebinding`` writes them."""
        return None if self is SubjectKind.SERVICE_ACCOUNT else API_GROUP

    @property
    def namespaced(self) -> bool:
        """Whether the subject lives in a namespace: a service account does, users and
        groups are the authenticator's and do not."""
        return self is SubjectKind.SERVICE_ACCOUNT
