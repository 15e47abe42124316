"""Extended resources in a kubectl listing: a node's ``status.allocatable`` and a pod's
requests (``nvidia.com/gpu``...), read as kube-scheduler counts them (whole units, a
missing request taking the limit), so ``plan`` and ``status`` see a GPU reserver's
device as the simulator does (``simulate/node_fit.py``)."""

from __future__ import annotations

from cdk8s_headroom.cluster.snapshot import load_snapshot
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
