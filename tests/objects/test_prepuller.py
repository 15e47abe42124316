"""The image pre-puller: burst images pulled without touching the reserver, for any image."""

import json
from pathlib import Path
from typing import Any

import cdk8s
import pytest
from cdk8s import Testing as K8sTesting

from cdk8s_headroom import (
    HeadroomConfigError,
    HeadroomPriorityClasses,
    KarpenterNodePool,
    NodeHeadroom,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    PriorityModel,
    Toleration,
    TolerationOperator,
)
from cdk8s_headroom.core.app_checks import validate_app
from cdk8s_headroom.objects.prepuller import NOOP, PREPULL_TOOLS_IMAGE, ImagePrepuller
from cdk8s_headroom.vocabulary.pod_security import check_object
from tests.conftest import Manifest, find, iter_containers, pod_spec

PAUSE = "registry.k8s.io/pause:3.10"


def synthesized(*images: str, **props: Any) -> list[Manifest]:
    chart = K8sTesting.chart()
    props.setdefault("cpu", "1")
    props.setdefault("memory", "1Gi")
    headroom = NodeHeadroom(chart, "headroom", prepull_burst_images=True, **props)
    for index, image in enumerate(images):
        headroom.add_burst_workload(f"burst-{index}", image=image, cpu="500m", memory="512Mi")
    return list(K8sTesting.synth(chart))


def template_bytes(objects: list[Manifest], name: str) -> bytes:
    template = find(objects, "DaemonSet", name)["spec"]["template"]
    return json.dumps(template, sort_keys=True).encode()


def test_changing_a_burst_image_leaves_the_reserver_pod_template_byte_identical() -> None:
    # GIVEN a release of the burst image WHEN the app is synthesized again
    before = synthesized("ghcr.io/acme/api:1.2", "ghcr.io/acme/worker:3")
    after = synthesized("ghcr.io/acme/api:1.3", "ghcr.io/acme/worker:3")
    # THEN the reservers are not replaced: their template is the same, byte for byte,
    # and only the pre-puller's changes
    assert template_bytes(before, "headroom-reserver") == template_bytes(after, "headroom-reserver")
    assert template_bytes(before, "headroom-reserver-prepull") != template_bytes(
        after, "headroom-reserver-prepull"
    )


def written_daemonset(outdir: Path, image: str, name: str) -> str:
    """The text of DaemonSet ``name`` in the YAML that synthesis writes to ``outdir``."""
    app = cdk8s.App(outdir=str(outdir))
    chart = cdk8s.Chart(app, "headroom")
    headroom = NodeHeadroom(chart, "headroom", cpu="1", memory="1Gi", prepull_burst_images=True)
    headroom.add_burst_workload("api", image=image, cpu="500m", memory="512Mi")
    app.synth()
    (written,) = outdir.glob("*.yaml")
    documents = written.read_text().split("\n---\n")
    (text,) = [
        d
        for d in documents
        if d.startswith("apiVersion: apps/v1\nkind: DaemonSet\n") and f"\n  name: {name}\n" in d
    ]
    return text


def test_an_image_release_leaves_the_written_reserver_document_byte_identical(
    tmp_path: Path,
) -> None:
    # What GitOps diffs and kubectl applies: the YAML text itself, not a re-serialization.
    before = written_daemonset(tmp_path / "before", "ghcr.io/acme/api:1.2", "headroom-reserver")
    after = written_daemonset(tmp_path / "after", "ghcr.io/acme/api:1.3", "headroom-reserver")

    assert before == after
    assert "ghcr.io/acme/api" not in before
    assert written_daemonset(
        tmp_path / "again", "ghcr.io/acme/api:1.3", "headroom-reserver-prepull"
    ) != written_daemonset(tmp_path / "first", "ghcr.io/acme/api:1.2", "headroom-reserver-prepull")


def test_each_burst_image_runs_the_copied_static_noop_so_no_shell_is_needed() -> None:
    objects = synthesized(
        "gcr.io/distroless/static-debian12:nonroot", "ghcr.io/acme/api:1.2", "ghcr.io/acme/api:1.2"
    )
    spec = pod_spec(find(objects, "DaemonSet", "headroom-reserver-prepull"))
    noop, *pulls = spec["initContainers"]
    assert noop["image"] == PREPULL_TOOLS_IMAGE
    assert noop["command"] == ["/bin/cp", "/bin/busybox", NOOP]
    assert [(c["name"], c["image"]) for c in pulls] == [
        ("pull-0", "gcr.io/distroless/static-debian12:nonroot"),
        ("pull-1", "ghcr.io/acme/api:1.2"),
    ]
    for pull in pulls:
        assert pull["command"] == [NOOP]
        assert pull["imagePullPolicy"] == "IfNotPresent"
        assert pull["volumeMounts"] == [
            {"name": "noop", "mountPath": "/headroom-prepull", "readOnly": True}
        ]
    assert noop["volumeMounts"] == [{"name": "noop", "mountPath": "/headroom-prepull"}]
    assert spec["volumes"] == [{"name": "noop", "emptyDir": {"sizeLimit": "4Mi"}}]


def test_the_prepuller_keeps_running_on_pause_and_requests_nothing_a_slice_could_lose() -> None:
    spec = pod_spec(find(synthesized("nginx:1.27"), "DaemonSet", "headroom-reserver-prepull"))
    assert [c["image"] for c in spec["containers"]] == [PAUSE]
    for container in iter_containers(spec):
        assert container["resources"] == {
            "requests": {"cpu": "0", "memory": "0"},
            "limits": {"cpu": "10m", "memory": "16Mi"},
        }
    assert spec["terminationGracePeriodSeconds"] == 0


def test_the_prepuller_pod_meets_restricted_pod_security() -> None:
    prepuller = find(synthesized("nginx:1.27"), "DaemonSet", "headroom-reserver-prepull")
    verdict = check_object(prepuller)
    assert verdict.violations == ()
    assert pod_spec(prepuller)["automountServiceAccountToken"] is False


def test_the_prepuller_runs_where_the_reserver_runs_and_with_its_class() -> None:
    chart = K8sTesting.chart()
    pool = KarpenterNodePool(chart, "burst")
    headroom = NodeHeadroom(
        chart,
        "headroom",
        cpu="1",
        memory="1Gi",
        model=PriorityModel.DEDICATED_POOL,
        node_pool=pool,
        prepull_burst_images=True,
        node_selector={"example.com/tier": "web"},
        node_affinity=[
            NodeSelectorRequirement("topology.kubernetes.io/zone", NodeSelectorOperator.EXISTS)
        ],
        tolerations=[Toleration(key="example.com/spot", operator=TolerationOperator.EXISTS)],
    )
    headroom.add_burst_workload("api", image="nginx:1.27", cpu="1", memory="1Gi")
    objects = list(K8sTesting.synth(chart))
    reserver = pod_spec(find(objects, "DaemonSet", "headroom-reserver-burst"))
    prepuller = pod_spec(find(objects, "DaemonSet", "headroom-reserver-burst-prepull"))
    for key in ("nodeSelector", "affinity", "tolerations", "priorityClassName"):
        assert prepuller[key] == reserver[key], key
    assert prepuller["priorityClassName"] == "headroom-reserve"


def test_no_prepuller_without_a_burst_workload() -> None:
    objects = synthesized()
    assert [o["metadata"]["name"] for o in objects if o["kind"] == "DaemonSet"] == [
        "headroom-reserver"
    ]


def test_a_reserver_name_too_long_for_the_prepuller_is_an_error(chart: cdk8s.Chart) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        NodeHeadroom(
            chart, "h", cpu="1", memory="1Gi", prepull_burst_images=True, reserver_name="r" * 60
        )
    assert raised.value.field == "reserver_name"
    assert "at most 55 characters" in str(raised.value)


@pytest.mark.parametrize(
    ("props", "field"),
    [
        ({"images": "nginx"}, "prepull.images"),
        ({"images": ["Not An Image"]}, "prepull.images"),
        ({"tools_image": ""}, "prepull.tools_image"),
        ({"name": "Bad_Name"}, "prepull.name"),
    ],
)
def test_bad_prepuller_props_raise_naming_the_field(
    chart: cdk8s.Chart, props: dict[str, Any], field: str
) -> None:
    props.setdefault("name", "pull")
    with pytest.raises(HeadroomConfigError) as raised:
        ImagePrepuller(chart, "p", priority_class_name="headroom-reserve", **props)
    assert raised.value.field == field


def test_the_simulator_leaves_the_prepuller_out() -> None:
    from cdk8s_headroom.simulate.manifests import manifests_from_objects

    manifests = manifests_from_objects([("headroom.yaml", synthesized("nginx:1.27"))])
    assert [w.name for w in manifests.daemonsets] == ["headroom-reserver"]
    assert any("headroom-reserver-prepull" in n for n in manifests.not_simulated)


def test_the_prepullers_images_come_from_a_mirror_when_given() -> None:
    objects = synthesized(
        "ghcr.io/acme/api:1.2",
        prepull_tools_image="mirror.example.com/library/busybox:1.37.0-musl",
        prepull_pause_image="mirror.example.com/pause:3.10",
    )
    spec = pod_spec(find(objects, "DaemonSet", "headroom-reserver-prepull"))
    assert spec["initContainers"][0]["image"] == "mirror.example.com/library/busybox:1.37.0-musl"
    assert [c["image"] for c in spec["containers"]] == ["mirror.example.com/pause:3.10"]


def test_the_prepullers_images_default_to_busybox_and_pause() -> None:
    spec = pod_spec(
        find(synthesized("ghcr.io/acme/api:1.2"), "DaemonSet", "headroom-reserver-prepull")
    )
    assert spec["initContainers"][0]["image"] == PREPULL_TOOLS_IMAGE
    assert [c["image"] for c in spec["containers"]] == [PAUSE]


@pytest.mark.parametrize("prop", ["prepull_tools_image", "prepull_pause_image"])
def test_a_bad_prepuller_image_is_refused_by_name(prop: str) -> None:
    chart = K8sTesting.chart()
    with pytest.raises(HeadroomConfigError) as raised:
        NodeHeadroom(
            chart, "h", cpu="1", memory="1Gi", prepull_burst_images=True, **{prop: "Bad Image!"}
        )
    assert raised.value.field == prop
    assert "'Bad Image!'" in str(raised.value)
    assert chart.node.children == []


def test_a_standalone_prepuller_must_reference_a_class_the_app_knows() -> None:
    # GIVEN a pre-puller on its own, whose class the app neither emits nor declares
    chart = K8sTesting.chart()
    ImagePrepuller(chart, "p", name="pull", priority_class_name="nowhere", images=["nginx:1"])

    # WHEN the whole-app checks run, as they do for the reserver and burst workloads
    with pytest.raises(HeadroomConfigError) as raised:
        validate_app(chart.node.root)

    # THEN they refuse the class by the pre-puller's path
    assert raised.value.field.endswith("p.priority_class_name")
    assert raised.value.value == "nowhere"


def test_a_toleration_added_after_construction_reaches_the_prepuller() -> None:
    # GIVEN a pre-puller, and a toleration added once it is in the tree
    chart = K8sTesting.chart()
    HeadroomPriorityClasses(chart, "classes")
    prepuller = ImagePrepuller(chart, "p", name="pull", priority_class_name="headroom-reserve")
    toleration = Toleration("gpu", TolerationOperator.EXISTS)
    prepuller.add_toleration(toleration)

    # WHEN the chart is synthesized
    objects = list(K8sTesting.synth(chart))

    # THEN the DaemonSet's pods tolerate it
    pod = pod_spec(find(objects, "DaemonSet", "pull"))
    assert pod["tolerations"] == [{"key": "gpu", "operator": "Exists"}]
