"""Requests as kube-scheduler counts them, read from kubectl JSON.

Each test follows ``PodRequests`` in ``k8s.io/component-helpers/resource/helpers.go``
(the scheduler's NodeResourcesFit calls it with ``UseStatusResources``) for one rule.
The pods are the reserver of docs/examples/snapshot-after.json (``kubectl get pods -o
json``) with the fields the rule reads.
"""

from __future__ import annotations

from typing import Any

from cdk8s_headroom.cluster.not_modelled import NotModelled
from cdk8s_headroom.cluster.snapshot import Snapshot, load_snapshot
from cdk8s_headroom.simulate.model import Resources
from tests.cluster.kubectl_objects import kubectl_node, reserver_pod

MI = 2**20


def _read(pod: dict[str, Any]) -> Snapshot:
    return load_snapshot([("nodes.json", kubectl_node("n1")), ("pods.json", pod)])


def _requests(pod: dict[str, Any]) -> Resources:
    (read,) = _read(pod).bound
    return read.requests


def _container(name: str, cpu: str, memory: str, **extra: Any) -> dict[str, Any]:
    return {
        "image": "registry.k8s.io/pause:3.10",
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "resources": {"requests": {"cpu": cpu, "memory": memory}},
        **extra,
    }


def _pod(**spec: Any) -> dict[str, Any]:
    pod = reserver_pod("p", "n1")
    pod["spec"].update(spec)
    return pod


def test_containers_are_summed() -> None:
    """``AggregateContainerRequests``: ``addResourceList`` over ``spec.containers``."""
    pod = _pod(containers=[_container("a", "500m", "512Mi"), _container("b", "250m", "256Mi")])

    assert _requests(pod) == Resources(750, 768 * MI)


def test_an_init_container_counts_when_larger_than_the_containers() -> None:
    """``AggregateContainerRequests``: ``maxResourceList(reqs, initContainerReqs)``, per
    resource: the init container's cpu, the containers' memory."""
    pod = _pod(
        containers=[_container("app", "500m", "512Mi")],
        initContainers=[_container("migrate", "2", "128Mi")],
    )

    assert _requests(pod) == Resources(2000, 512 * MI)


def test_a_sidecar_adds_to_the_containers_and_to_every_later_init_container() -> None:
    """``AggregateContainerRequests``: a restartable init container (``restartPolicy:
    Always``) is added to the containers' sum and to each init container after it."""
    pod = _pod(
        containers=[_container("app", "500m", "512Mi")],
        initContainers=[
            _container("proxy", "100m", "64Mi", restartPolicy="Always"),
            _container("migrate", "1", "128Mi"),
        ],
    )

    # containers + sidecar = 600m / 576Mi; migrate + sidecar = 1100m / 192Mi.
    assert _requests(pod) == Resources(1100, 576 * MI)


def test_overhead_is_added_to_the_requests() -> None:
    """``PodRequests``: ``addResourceList(reqs, pod.Spec.Overhead)`` last."""
    pod = _pod(overhead={"cpu": "250m", "memory": "120Mi"})

    assert _requests(pod) == Resources(750, 632 * MI)


def test_pod_level_requests_replace_the_containers_sum_resource_by_resource() -> None:
    """``PodRequests``: with ``IsPodLevelRequestsSet``, each pod-level request replaces
    that resource's aggregate (memory here is the containers'), then overhead is added."""
    pod = _pod(
        containers=[_container("a", "500m", "512Mi"), _container("b", "500m", "512Mi")],
        resources={"requests": {"cpu": "3"}, "limits": {"cpu": "3"}},
        overhead={"cpu": "100m"},
    )

    assert _requests(pod) == Resources(3100, 1024 * MI)


def test_a_pod_level_limit_alone_stands_for_the_request() -> None:
    """The API server defaults a pod-level request from its limit, as it does a
    container's, so ``PodRequests`` sees the limit."""
    pod = _pod(resources={"limits": {"memory": "2Gi"}})

    assert _requests(pod) == Resources(500, 2048 * MI)


def _resizing(spec_cpu: str, allocated: str, actuated: str, **status: Any) -> dict[str, Any]:
    pod = _pod(containers=[_container("pause", spec_cpu, "512Mi")])
    (container_status,) = pod["status"]["containerStatuses"]
    container_status["allocatedResources"] = {"cpu": allocated, "memory": "512Mi"}
    container_status["resources"] = {
        "requests": {"cpu": actuated, "memory": "512Mi"},
        "limits": {"cpu": actuated, "memory": "512Mi"},
    }
    pod["status"].update(status)
    return pod


def test_an_upsize_in_progress_counts_the_new_spec() -> None:
    """``determineContainerReqs``: the larger of spec, ``cs.Resources.Requests`` and
    ``cs.AllocatedResources``; spec says 2 while 500m is allocated and running."""
    pod = _resizing("2", "500m", "500m")
    pod["status"]["conditions"].append(
        {"type": "PodResizePending", "status": "True", "reason": "Deferred"}
    )

    assert _requests(pod) == Resources(2000, 512 * MI)


def test_a_downsize_not_yet_actuated_counts_what_the_container_runs_with() -> None:
    """``determineContainerReqs``: spec went down to 250m; the kubelet allocated it but
    the runtime still runs the container at 1, so 1 is counted."""
    pod = _resizing("250m", "250m", "1")
    pod["status"]["conditions"].append({"type": "PodResizeInProgress", "status": "True"})

    assert _requests(pod) == Resources(1000, 512 * MI)


def test_an_infeasible_resize_leaves_the_spec_out() -> None:
    """``determineContainerReqs`` with ``IsPodResizeInfeasible``: the larger of actuated
    and allocated only; the 8-cpu spec that cannot fit its node is not counted."""
    pod = _resizing("8", "500m", "500m")
    pod["status"]["conditions"].append(
        {"type": "PodResizePending", "status": "True", "reason": "Infeasible"}
    )

    assert _requests(pod) == Resources(500, 512 * MI)


def test_a_pending_resize_is_listed_as_not_modelled_with_kep_5836() -> None:
    """KEP-5836 (1.37 alpha, 1.38 beta) lets a pending resize preempt lower-priority
    pods; the simulator does not, so it names the pod."""
    pod = _resizing("2", "500m", "500m")
    pod["status"]["conditions"].append(
        {"type": "PodResizePending", "status": "True", "reason": "Deferred"}
    )
    infeasible = _resizing("8", "500m", "500m")
    infeasible["metadata"]["name"] = "q"
    infeasible["status"]["conditions"].append(
        {"type": "PodResizePending", "status": "True", "reason": "Infeasible"}
    )

    snapshot = load_snapshot(
        [("nodes.json", kubectl_node("n1")), ("pods.json", pod), ("pods.json", infeasible)]
    )

    assert snapshot.not_modelled[NotModelled.RESIZE_PREEMPTION] == ["node-headroom/p"]
    assert "KEP-5836" in NotModelled.RESIZE_PREEMPTION.value


def test_a_pod_that_reports_no_status_resources_counts_its_spec() -> None:
    """``AggregateContainerRequests``: ``cs.Resources == nil`` keeps spec (kubelets
    before in-place resize report none)."""
    pod = _pod(containers=[_container("pause", "750m", "512Mi")])

    assert "resources" not in pod["status"]["containerStatuses"][0]
    assert _requests(pod) == Resources(750, 512 * MI)
