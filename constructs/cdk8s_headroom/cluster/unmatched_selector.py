"""A reserver whose selector matches no node of the cluster, such as a typo'd pool name:
plan and status both fail the run on it, and name the selector and the label values
the nodes carry instead."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from cdk8s_headroom.simulate.daemon_targets import DaemonTargets, Exclusion
from cdk8s_headroom.simulate.model import Node
from cdk8s_headroom.vocabulary.placement import NodeSelectorRequirement, Placement

SHOWN_LABEL_VALUES = 10
"""The values of a label an unmatched selector names (``--json`` lists them all)."""


@dataclass(frozen=True)
class UnmatchedSelector:
    """A reserver whose node selector and required node affinity match no node of the
    snapshot, such as a typo'd pool name: no node ever gets its slice, so the run
    fails. Nodes the selector matches but a taint leaves out are not this: a toleration
    adds them, and they are reported as not targeted."""

    selector: str
    """The node selector and required node affinity, as one line."""
    labels: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]
    """Per node label key the selector names: the values the snapshot's nodes carry,
    with how many nodes carry each (none: no node has the key)."""
    nodes: int
    """The nodes of the snapshot."""

    @property
    def reason(self) -> str:
        """One line: the selector, and the labels the nodes have instead."""
        if not self.nodes:
            return f"the selector {self.selector} matches no node: the snapshot lists none"
        present = []
        for key, values in self.labels:
            if not values:
                present.append(f"no node has {key}")
                continue
            shown = ", ".join(f"{value} ({count})" for value, count in values[:SHOWN_LABEL_VALUES])
            more = len(values) - SHOWN_LABEL_VALUES
            present.append(
                f"the nodes have {key}: {shown}" + (f" and {more} more" if more > 0 else "")
            )
        have = "".join(f"; {part}" for part in present)
        return f"the selector {self.selector} matches none of the {self.nodes} nodes{have}"

    def to_json(self) -> dict[str, object]:
        return {
            "selector": self.selector,
            "labels": {key: dict(values) for key, values in self.labels},
            "nodes": self.nodes,
        }


def _requirement_text(requirement: NodeSelectorRequirement) -> str:
    values = f" ({', '.join(requirement.values)})" if requirement.values else ""
    return f"{requirement.key} {requirement.operator.value}{values}"


def selector_text(placement: Placement) -> str:
    """A pod's node selector and required node affinity as one line, in the manifests'
    words: ``nodeSelector karpenter.sh/nodepool=burst``, ``affinity zone In (a, b)``;
    terms are ORed."""
    parts = []
    if placement.node_selector:
        pairs = ", ".join(f"{key}={value}" for key, value in placement.node_selector)
        parts.append(f"nodeSelector {pairs}")
    if placement.affinity is not None:
        terms = [
            " and ".join(
                [_requirement_text(r) for r in term.expressions]
                + [f"field {_requirement_text(r)}" for r in term.fields]
            )
            or "(empty term)"
            for term in placement.affinity
        ]
        parts.append(f"affinity {' or '.join(terms) or '(no term)'}")
    return "; ".join(parts) or "(none: every node)"


def unmatched_selector(
    placement: Placement, targets: DaemonTargets, nodes: Sequence[Node]
) -> UnmatchedSelector | None:
    """``UnmatchedSelector`` when no node of ``nodes`` passes the selector of
    ``placement`` (its targets, and the nodes only taints leave out); else None."""
    if targets.nodes or any(item.reason is Exclusion.TAINT for item in targets.not_targeted):
        return None
    keys = [key for key, _ in placement.node_selector]
    for term in placement.affinity or ():
        keys += [requirement.key for requirement in term.expressions]
    labels = []
    for key in dict.fromkeys(keys):
        counts = Counter(node.labels[key] for node in nodes if key in node.labels)
        labels.append((key, tuple(sorted(counts.items()))))
    return UnmatchedSelector(selector_text(placement), tuple(labels), len(nodes))
