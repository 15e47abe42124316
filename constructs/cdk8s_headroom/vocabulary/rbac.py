"""Kubernetes RBAC's words: its API. Plain Python."""

from __future__ import annotations

API_GROUP = "rbac.authorization.k8s.io"
API_VERSION = f"{API_GROUP}/v1"
