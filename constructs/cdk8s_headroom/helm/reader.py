"""The reader: the ClusterRole a user needs to run ``plan`` and ``status`` on the cluster,
as the chart's ``reader`` values make it.

Its rules are ``reader_rules``, which the cluster read declares (docs/plan-status.md,
"Reading the cluster"); ``library.library_data`` reads what the templates place from a
reference made here.
"""

from __future__ import annotations

import cdk8s
from constructs import Construct

from cdk8s_headroom.cluster.live_listing import reader_rules
from cdk8s_headroom.objects.rendered import RenderedApiObject
from cdk8s_headroom.vocabulary import rbac
from cdk8s_headroom.vocabulary.labels import PART_OF


def add_reader(scope: Construct, *, name: str) -> None:
    """The ClusterRole ``name`` with ``reader_rules``."""
    metadata = cdk8s.ApiObjectMetadata(name=name, labels={"app.kubernetes.io/part-of": PART_OF})
    RenderedApiObject(
        scope,
        "reader",
        api_version=rbac.API_VERSION,
        kind="ClusterRole",
        metadata=metadata,
        render=lambda: {"rules": reader_rules()},
    )
