"""Library field names, and the value paths of the chart that map to them.

The library names props (``headroom_value``); a chart user sets values
(``priorityClasses.headroom.value``). Messages and descriptions taken from the library
are spelled in the user's words with these tables.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

FIELDS = {
    "model": "model",
    "headroom_class_name": "priorityClasses.headroom.name",
    "headroom_value": "priorityClasses.headroom.value",
    "burst_class_name": "priorityClasses.burst.name",
    "burst_value": "priorityClasses.burst.value",
    "create_default_class": "priorityClasses.default.create",
    "default_class_name": "priorityClasses.default.name",
    "default_value": "priorityClasses.default.value",
    "cpu": "reservation.cpu",
    "memory": "reservation.memory",
    "name": "reserverName",
    "namespace": "namespace.name",
    "node_pool": "nodePool.name",
    "node_pool.pool_name": "nodePool.name",
    "node_pool.label_key": "nodePool.labelKey",
    "node_selector": "nodeSelector",
    "node_affinity": "nodeAffinity",
    "tolerations": "tolerations",
    "labels": "labels",
    "task.images": "task.prepullImages",
    "task.pause_image": "images.pause",
    "task.container_name": "task.containerName",
    "task.run_as_user": "task.runAsUser",
    "task.scratch_paths": "task.scratchPaths",
}
BURST_FIELDS = {
    "cpu": "resources.requests.cpu",
    "memory": "resources.requests.memory",
    "cpu_limit": "resources.limits.cpu",
    "memory_limit": "resources.limits.memory",
    "container_name": "containerName",
    "image_pull_policy": "imagePullPolicy",
    "run_as_user": "runAsUser",
    "max_replicas": "autoscaling.maxReplicas",
    "target_cpu_utilization": "autoscaling.targetCPUUtilization",
    "node_pool": "nodePool.name",
}


def translate_text(text: str, table: Mapping[str, str] | None = None) -> str:
    """Spells the snake_case prop names a library text mentions as value paths."""
    known = {**FIELDS, **(table or {})}
    words = sorted((name for name in known if "_" in name), key=len, reverse=True)
    pattern = r"\b(" + "|".join(map(re.escape, words)) + r")\b"
    return re.sub(pattern, lambda match: known[match[1]], text)
