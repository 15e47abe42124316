"""The names the library gives what it makes, as patterns (``places.fill``).

Each name is decided here once: the constructs fill these patterns, and the Helm chart
fills the same ones from ``files/library.json`` (``names``).
"""

from __future__ import annotations

from cdk8s_headroom.vocabulary.places import fill

RESERVER = "headroom-reserver"
"""The reserver DaemonSet of a headroom on every node."""
RESERVER_ON_POOL = "headroom-reserver-{pool}"
"""The reserver of a headroom on a pool: the pool's name follows, so that the headrooms
of two pools do not collide (and it can outgrow a DNS label)."""
SIZED_RESERVER = "{reserver}-{type}"
"""The reserver of one node size, for a slice given as a share of each node: its type's
name follows as the end of a DNS label (``NodeType.suffix``)."""
PREPULL_SUFFIX = "-prepull"
PREPULLER = "{reserver}" + PREPULL_SUFFIX
"""The image pre-puller DaemonSet beside a reserver."""
BUFFER = "{workload}-buffer"
"""A burst workload's CapacityBuffer (and its PodTemplate)."""
ZONED_BUFFER = BUFFER + "-{zone}"
"""A buffer kept in one zone (``zone``): one per zone spreads the room."""
ALERTS = "{headroom}-alerts"
"""A headroom's PrometheusRule."""
READER = "headroom-reader"
"""The ClusterRole that lets a user run plan and status on the cluster, and its binding
(docs/plan-status.md, "Reading the cluster")."""
SCRATCH_VOLUME = "scratch-{index}"
"""The emptyDir volume of a container's ``index``-th writable path."""
PREPULL_INIT = "prepull-{index}"
"""The reserver's init container that pulls its ``index``-th image."""
PREPULL_INIT_PREFIX = PREPULL_INIT.removesuffix("{index}")
PULL_INIT = "pull-{index}"
"""The pre-puller's init container that pulls its ``index``-th burst image."""


def reserver(pool: str | None) -> str:
    """A headroom's reserver name when none is given."""
    return str(fill(RESERVER_ON_POOL, {"pool": pool})) if pool else RESERVER
