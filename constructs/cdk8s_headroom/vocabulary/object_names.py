"""The names the library gives what it makes, as patterns (``places.fill``).

Each name is decided here once: the constructs fill these patterns, and the Helm chart
fills the same ones from ``files/library.json`` (``names``); a name whose pattern
depends on a part only some objects have is a recipe (``recipes``), which the chart
runs compiled (``helm.recipes``).
"""

from __future__ import annotations

from cdk8s_headroom.vocabulary.recipes import Choose, Take, evaluate, fill_with

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


RESERVER_NAME = Choose("pool", fill_with(RESERVER_ON_POOL, pool=Take("pool")), RESERVER)
"""A headroom's reserver name when none is given, of its ``pool`` (``None``: every
node), declared once: ``reserver`` evaluates it, and ``make chart`` compiles it into
``node-headroom.recipe.reserverName``."""

BUFFER_NAME = Choose(
    "zone",
    fill_with(ZONED_BUFFER, workload=Take("workload"), zone=Take("zone")),
    fill_with(BUFFER, workload=Take("workload")),
)
"""A burst ``workload``'s CapacityBuffer's name, of its ``zone`` (``None``: any zone),
declared once: ``capacity_buffer.buffer_name`` evaluates it, and ``make chart``
compiles it into ``node-headroom.recipe.bufferName``."""


def reserver(pool: str | None) -> str:
    """A headroom's reserver name when none is given (``RESERVER_NAME``)."""
    return str(evaluate(RESERVER_NAME, {"pool": pool}))
