"""Several models in one cluster: one set of classes serves GUARDED and DEDICATED_POOL pools."""

from __future__ import annotations

import warnings
from pathlib import Path

import cdk8s
import pytest

from cdk8s_headroom import (
    DEFAULT_DEDICATED_TAINT,
    HeadroomConfigError,
    HeadroomPriorityClasses,
    KarpenterNodePool,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
    synth,
)
from cdk8s_headroom.core.app_checks import problems
from cdk8s_headroom.files.publish import load_manifests
from tests.conftest import find, find_all, pod_spec


def mixed_cluster(app: cdk8s.App) -> None:
    chart = cdk8s.Chart(app, "cluster")
    classes = HeadroomPriorityClasses(chart, "classes", model=PriorityModel.GUARDED)
    NodeHeadroom(
        chart,
        "web",
        cpu="500m",
        memory="512Mi",
        model=PriorityModel.GUARDED,
        node_pool=NodePoolRef.karpenter("web"),
        priority_classes=classes,
    )
    batch = NodeHeadroom(
        chart,
        "batch",
        cpu="1",
        memory="1Gi",
        model=PriorityModel.DEDICATED_POOL,
        node_pool=KarpenterNodePool.from_name("batch", taints=[DEFAULT_DEDICATED_TAINT]),
        priority_classes=classes,
    )
    batch.add_burst_workload("jobs", image="ghcr.io/acme/jobs:1", cpu="1", memory="1Gi")


def test_a_guarded_and_a_dedicated_pool_share_one_set_of_classes(tmp_path: Path) -> None:
    # GIVEN one GUARDED set of classes for a GUARDED pool and a DEDICATED_POOL pool
    app = cdk8s.App(outdir=str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # both models keep their promises: no warning
        mixed_cluster(app)

    # WHEN it is synthesized with plain app.synth()
    app.synth()

    # THEN the cluster gets the classes once, with one globalDefault, used by both pools
    objects = [document for _, document in load_manifests(tmp_path)]
    classes = find_all(objects, "PriorityClass")
    assert sorted(c["metadata"]["name"] for c in classes) == [
        "burst-critical",
        "default-no-preempt",
        "headroom-reserve",
    ]
    assert [c["metadata"]["name"] for c in classes if c.get("globalDefault", False)] == [
        "default-no-preempt"
    ]
    web = pod_spec(find(objects, "DaemonSet", "headroom-reserver-web"))
    batch = pod_spec(find(objects, "DaemonSet", "headroom-reserver-batch"))
    assert web["priorityClassName"] == batch["priorityClassName"] == "headroom-reserve"
    assert "tolerations" not in web
    assert [t["key"] for t in batch["tolerations"]] == ["headroom.cdk8s.io/burst"]
    jobs = pod_spec(find(objects, "Deployment", "jobs"))
    assert jobs["priorityClassName"] == "burst-critical"
    assert [t["key"] for t in jobs["tolerations"]] == ["headroom.cdk8s.io/burst"]


@pytest.mark.parametrize(
    ("headroom_model", "classes_model"),
    [
        (PriorityModel.GUARDED, PriorityModel.DEDICATED_POOL),
        (PriorityModel.SEED, PriorityModel.GUARDED),
        (PriorityModel.GUARDED, PriorityModel.SEED),
    ],
)
def test_classes_that_cannot_serve_the_headrooms_model_are_refused(
    chart: cdk8s.Chart, headroom_model: PriorityModel, classes_model: PriorityModel
) -> None:
    classes = HeadroomPriorityClasses(chart, "classes", model=classes_model)
    with pytest.raises(HeadroomConfigError) as raised:
        NodeHeadroom(
            chart, "h", cpu="1", memory="1Gi", model=headroom_model, priority_classes=classes
        )
    assert raised.value.field == "priority_classes"
    assert f"serves this headroom's ({headroom_model})" in str(raised.value)
    assert "GUARDED classes serve GUARDED and DEDICATED_POOL headrooms" in str(raised.value)


def test_two_sets_of_classes_collide_with_a_hint_about_classes_not_pools() -> None:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "cluster")
    NodeHeadroom(chart, "web", cpu="1", memory="1Gi", node_pool=NodePoolRef.karpenter("web"))
    NodeHeadroom(
        chart,
        "batch",
        cpu="1",
        memory="1Gi",
        model=PriorityModel.DEDICATED_POOL,
        node_pool=KarpenterNodePool.from_name("batch", taints=[DEFAULT_DEDICATED_TAINT]),
    )
    messages = [str(problem) for problem in problems(app)]
    assert len(messages) == 2  # headroom-reserve and burst-critical; one default class
    for message in messages:
        assert "a name no other PriorityClass has" in message
        assert "share one HeadroomPriorityClasses between headrooms (priority_classes=)" in message
        assert "pool" not in message.split("both use it;")[1]


def test_two_reservers_of_one_name_get_a_hint_about_the_reservers_name() -> None:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "cluster")
    classes = HeadroomPriorityClasses(chart, "classes")
    for id in ("a", "b"):
        NodeHeadroom(chart, id, cpu="1", memory="1Gi", namespace="ns", priority_classes=classes)
    with pytest.raises(HeadroomConfigError) as raised:
        synth(app)
    assert "a name no other DaemonSet in namespace 'ns' has" in str(raised.value)
    assert "give one another reserver_name=" in str(raised.value)
