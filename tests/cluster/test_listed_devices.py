"""Extended resources in a kubectl listing: a node's ``status.allocatable`` and a pod's
requests (``nvidia.com/gpu``...), read as kube-scheduler counts them (whole units, a
missing request taking the limit), so ``plan`` and ``status`` see a GPU reserver's
device as the simulator does (``simulate/node_fit.py``)."""

from __future__ import annotations

from cdk8s_headroom.cluster.snapshot import load_snapshot
from cdk8s_headroom.cluster.status import status
from cdk8s_headroom.simulate.versions import KubernetesVersion
from tests.cluster.kubectl_objects import kubectl_node, reserver_pod


def test_a_nodes_devices_and_a_reservers_device_limit_are_read() -> None:
    node = kubectl_node("gpu-1")
    node["status"]["allocatable"]["nvidia.com/gpu"] = "2"
    pod = reserver_pod("headroom-reserver-abcde", "gpu-1")
    resources = pod["spec"]["containers"][0]["resources"]
    resources["limits"]["nvidia.com/gpu"] = "1"  # no request: the limit stands in
    resources.get("requests", {}).pop("nvidia.com/gpu", None)

    snapshot = load_snapshot([("nodes.json", node), ("pods.json", pod)])

    (listed,) = snapshot.nodes
    assert listed.allocatable.extended == (("nvidia.com/gpu", 2),)
    (reserver,) = snapshot.bound
    assert reserver.requests.extended == (("nvidia.com/gpu", 1),)


def test_native_resources_beside_cpu_and_memory_stay_unread() -> None:
    node = kubectl_node("n")  # hugepages-1Gi, hugepages-2Mi, ephemeral-storage
    (listed,) = load_snapshot([("nodes.json", node)]).nodes
    assert listed.allocatable.extended == ()


def test_a_pod_that_took_the_reservers_device_is_blamed_for_the_erosion() -> None:
    # The node has CPU and memory to spare; its one GPU is held by a training pod that
    # asks for nothing else, so the reserver (1 GPU beside its slice) waits. status must
    # blame that pod: the scheduler's fit (node_fit.fits, noderesources/fit.go
    # fitsRequest) counts the device, so cpu and memory alone would blame nobody.
    node = kubectl_node("gpu-1")
    node["status"]["allocatable"]["nvidia.com/gpu"] = "1"
    reserver = reserver_pod("headroom-reserver-abcde", "gpu-1", bound=False)
    resources = reserver["spec"]["containers"][0]["resources"]
    resources["requests"]["nvidia.com/gpu"] = "1"
    resources["limits"]["nvidia.com/gpu"] = "1"
    train = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "train-0", "namespace": "ml", "uid": "train-0"},
        "spec": {
            "nodeName": "gpu-1",
            "containers": [{"name": "train", "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
        },
        "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"},
    }

    report = status(
        load_snapshot([("nodes.json", node), ("pods.json", reserver), ("pods.json", train)]),
        version=KubernetesVersion(1, 34),
        version_from="test",
    )

    (headroom,) = report.headrooms
    (eroded,) = headroom.eroded
    assert (eroded.node, eroded.taken_by) == ("gpu-1", ("ml/train-0",))
