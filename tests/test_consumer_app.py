"""Another team's cdk8s app composing the library: two pools, one chart, no collisions."""

from typing import Any

import cdk8s

from cdk8s_headroom import HeadroomPriorityClasses, NodeHeadroom, NodePoolRef, validate_app
from tests.conftest import find, find_all, pod_spec


def test_two_headrooms_for_two_pools_share_classes_without_name_collisions() -> None:
    # GIVEN another team's app, with its own chart and labels
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "platform", labels={"team": "platform"})
    classes = HeadroomPriorityClasses(chart, "classes")

    # WHEN it composes a headroom per pool, each with a burst workload
    for pool, size in (("web", "500m"), ("batch", "2")):
        headroom = NodeHeadroom(
            chart,
            f"{pool}-headroom",
            cpu=size,
            memory="1Gi",
            node_pool=NodePoolRef.karpenter(pool),
            namespace=pool,
            priority_classes=classes,
        )
        headroom.add_burst_workload(
            f"{pool}-burst", image=f"ghcr.io/acme/{pool}:1", cpu=size, memory="1Gi"
        )
    validate_app(app)
    objects: list[dict[str, Any]] = list(chart.to_json())

    # THEN every object has its own name, classes are emitted once, pools stay apart
    keys = [(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in objects]
    assert len(keys) == len(set(keys))
    assert len(find_all(objects, "PriorityClass")) == 3
    for pool in ("web", "batch"):
        reserver = find(objects, "DaemonSet", f"headroom-reserver-{pool}")
        burst = find(objects, "Deployment", f"{pool}-burst")
        assert reserver["metadata"]["namespace"] == burst["metadata"]["namespace"] == pool
        assert pod_spec(reserver)["nodeSelector"] == {"karpenter.sh/nodepool": pool}
        assert pod_spec(burst)["nodeSelector"] == {"karpenter.sh/nodepool": pool}
        assert reserver["metadata"]["labels"]["team"] == "platform"
