"""Which nodes a DaemonSet puts a pod on: its targets, as the DaemonSet controller
decides them, not the scheduler.

kubernetes/kubernetes ``pkg/controller/daemon/daemon_controller.go``,
``NodeShouldRunDaemonPod`` (with ``predicates`` and ``NewPod``): a node should run a
daemon pod when the pod's node selector and required node affinity match it and it has
no ``NoSchedule`` or ``NoExecute`` taint the pod does not tolerate, the pod carrying the
tolerations the controller adds (``pkg/controller/daemon/util/daemonset_util.go``,
``AddOrUpdateDaemonPodTolerations``). ``desiredNumberScheduled`` counts exactly those
nodes. On any other node the controller creates no pod, so nothing is pending there.
A pod already on such a node keeps running (``shouldContinueRunning``) unless the node
fails the selector or has an untolerated ``NoExecute`` taint; the controller counts it
in ``numberMisscheduled``, and deletes it in the second case.

``plan``, ``status`` and the simulator all take their targets from ``daemon_targets``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from cdk8s_headroom.simulate.model import Node
from cdk8s_headroom.simulate.scheduler import selects, untolerated_taints
from cdk8s_headroom.vocabulary.placement import (
    Placement,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)


def _exists(key: str, effect: TaintEffect) -> Toleration:
    return Toleration(f"node.kubernetes.io/{key}", TolerationOperator.EXISTS, "", effect)


DAEMON_POD_TOLERATIONS = (
    # Node problems must not evict daemon pods (the node lifecycle controller's
    # taint-based eviction)...
    _exists("not-ready", TaintEffect.NO_EXECUTE),
    _exists("unreachable", TaintEffect.NO_EXECUTE),
    # ... and the node conditions that TaintNodesByCondition turns into taints must
    # not keep them off.
    _exists("disk-pressure", TaintEffect.NO_SCHEDULE),
    _exists("memory-pressure", TaintEffect.NO_SCHEDULE),
    _exists("pid-pressure", TaintEffect.NO_SCHEDULE),
    _exists("unschedulable", TaintEffect.NO_SCHEDULE),
)
"""The tolerations ``AddOrUpdateDaemonPodTolerations`` adds to every daemon pod. A
NotReady node's ``not-ready:NoSchedule`` taint is not among them: such a node is no
target (an existing pod stays)."""

NODE_CONDITION_TAINTS = {
    "node.kubernetes.io/not-ready": (
        "the node is not Ready (a new node is, until the node lifecycle controller sees "
        "it Ready: minutes for many nodes at once); it clears when the node turns Ready"
    ),
    "node.kubernetes.io/unreachable": (
        "the node controller hears nothing from the kubelet (Ready Unknown); it clears "
        "when the kubelet reports again"
    ),
    "node.kubernetes.io/unschedulable": ("the node is cordoned; it clears on kubectl uncordon"),
    "node.kubernetes.io/disk-pressure": (
        "the kubelet reports DiskPressure; it clears when the condition does"
    ),
    "node.kubernetes.io/memory-pressure": (
        "the kubelet reports MemoryPressure; it clears when the condition does"
    ),
    "node.kubernetes.io/pid-pressure": (
        "the kubelet reports PIDPressure; it clears when the condition does"
    ),
    "node.kubernetes.io/network-unavailable": (
        "the node's network is not set up yet (NetworkUnavailable); it clears when the "
        "network plugin or route controller has set it up"
    ),
    "node.kubernetes.io/out-of-service": (
        "an administrator marked the node out of service (non-graceful shutdown); it "
        "clears when they remove it once the node is back"
    ),
}
"""The taints Kubernetes' controllers put on a node for a condition of the node, what
each means and when it clears (kubernetes ``pkg/apis/core/well_known_taints.go``).
They come and go with the node's state: tolerating one would put reservers on nodes
that are not really fit, so the advice never asks for it; the DaemonSet controller
targets the node once the taint clears."""

HOST_NETWORK_TOLERATION = _exists("network-unavailable", TaintEffect.NO_SCHEDULE)
"""Added only to pods with ``hostNetwork: true``, which need no pod network."""


def daemon_pod_tolerations(
    tolerations: Sequence[Toleration], *, host_network: bool = False
) -> tuple[Toleration, ...]:
    """A daemon pod's tolerations: the template's, then the controller's."""
    added = (HOST_NETWORK_TOLERATION,) if host_network else ()
    return (*tolerations, *DAEMON_POD_TOLERATIONS, *added)


def daemon_pod_placement(template: Placement, *, host_network: bool = False) -> Placement:
    """Where the controller's ``NewPod`` may run: the template's node selector and
    required node affinity, and its tolerations with the controller's."""
    return Placement(
        template.node_selector,
        template.affinity,
        daemon_pod_tolerations(template.tolerations, host_network=host_network),
    )


class Exclusion(Enum):
    """Why the controller puts no daemon pod on a node."""

    SELECTOR = "selector"
    """The node selector or the required node affinity does not match the node."""
    TAINT = "taint"
    """The node has a NoSchedule or NoExecute taint the pod does not tolerate."""


@dataclass(frozen=True)
class NotTargeted:
    """A node the DaemonSet puts no pod on, and why."""

    node: str
    reason: Exclusion
    taints: tuple[Taint, ...] = ()
    """For ``TAINT``: every untolerated NoSchedule and NoExecute taint, in the node's
    order; a toleration for each adds the node."""

    @property
    def keeps_running(self) -> bool:
        """``shouldContinueRunning``: a daemon pod already on the node stays (and is
        misscheduled); false when the selector fails or a NoExecute taint is not
        tolerated, where the controller deletes it."""
        return self.reason is Exclusion.TAINT and all(
            taint.effect is not TaintEffect.NO_EXECUTE for taint in self.taints
        )

    @property
    def detail(self) -> str:
        """One line: what excludes the node."""
        if self.reason is Exclusion.SELECTOR:
            return "the node selector and required node affinity do not match its labels"
        listed = ", ".join(str(taint) for taint in self.taints)
        return f"untolerated taint {listed}"

    @property
    def advice(self) -> str:
        """What would add the node, for a taint; empty for the selector (the pool
        chosen on purpose)."""
        return self.advice_for("it")

    def advice_for(self, nodes: str) -> str:
        """``advice``, naming the node(s) as ``nodes`` ("it", "them"): a toleration for
        each taint of the cluster's own, and for a controller's condition taint
        (``NODE_CONDITION_TAINTS``) what it means and that it clears, never a toleration."""
        if self.reason is Exclusion.SELECTOR:
            return ""
        parts = [
            f"{key}: {NODE_CONDITION_TAINTS[key]}, and then the DaemonSet controller "
            "targets the node (do not tolerate it)"
            for key in dict.fromkeys(t.key for t in self.taints if t.key in NODE_CONDITION_TAINTS)
        ]
        wanted = ", ".join(
            _toleration_text(taint)
            for taint in self.taints
            if taint.key not in NODE_CONDITION_TAINTS
        )
        if wanted:
            parts.append(f"to target {nodes}, add tolerations=[{wanted}] to the headroom")
        return "; ".join(parts)

    def to_json(self) -> dict[str, object]:
        return {
            "node": self.node,
            "reason": self.reason.value,
            "taints": [taint.to_manifest() for taint in self.taints],
            "detail": self.detail,
            "advice": self.advice,
        }


def _toleration_text(taint: Taint) -> str:
    """The toleration of exactly ``taint`` (``Taint.toleration``) as a NodeHeadroom
    prop item, e.g. ``Toleration("type", value="hound", effect=TaintEffect.NO_SCHEDULE)``.
    Written from the taint's fields: a taint read from a node is not validated again."""
    value = f', value="{taint.value}"' if taint.value else ""
    return f'Toleration("{taint.key}"{value}, effect=TaintEffect.{taint.effect.name})'


@dataclass(frozen=True)
class DaemonTargets:
    """The nodes a DaemonSet puts a pod on, and the others with the reason."""

    nodes: tuple[Node, ...]
    not_targeted: tuple[NotTargeted, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(node.name for node in self.nodes)

    def excluded(self) -> dict[str, NotTargeted]:
        """The not-targeted nodes by name."""
        return {item.node: item for item in self.not_targeted}


def should_run(placement: Placement, node: Node) -> NotTargeted | None:
    """``NodeShouldRunDaemonPod`` for a daemon pod of ``placement`` (the controller's
    tolerations included, see ``daemon_pod_placement``): None when the node should run
    it, else why not."""
    if not selects(placement, node):
        return NotTargeted(node.name, Exclusion.SELECTOR)
    taints = tuple(untolerated_taints(placement.tolerations, node.taints))
    if taints:
        return NotTargeted(node.name, Exclusion.TAINT, taints)
    return None


def daemon_targets(placement: Placement, nodes: Iterable[Node]) -> DaemonTargets:
    """The nodes, in their order, split into targets and not-targeted ones: one pass."""
    targets: list[Node] = []
    others: list[NotTargeted] = []
    for node in nodes:
        excluded = should_run(placement, node)
        if excluded is None:
            targets.append(node)
        else:
            others.append(excluded)
    return DaemonTargets(tuple(targets), tuple(others))


SHOWN_NOT_TARGETED = 5
"""The nodes the table names per reason of exclusion (--json lists them all)."""


def render_not_targeted(nodes: Iterable[NotTargeted]) -> list[str]:
    """The not-targeted nodes, one line per reason (the selector, or the same taints),
    with the advice that would add them."""
    groups: dict[str, list[NotTargeted]] = {}
    for node in nodes:
        groups.setdefault(node.detail, []).append(node)
    lines = []
    for detail, members in groups.items():
        names = ", ".join(node.node for node in members[:SHOWN_NOT_TARGETED])
        more = len(members) - SHOWN_NOT_TARGETED
        names += f" and {more} more" if more > 0 else ""
        hint = members[0].advice_for("it" if len(members) == 1 else "them")
        advice = f"; {hint}" if hint else ""
        lines.append(f"  not targeted ({len(members)}) {names}: {detail}{advice}")
    return lines
