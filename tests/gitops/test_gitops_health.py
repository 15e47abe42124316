"""The headroom under GitOps: healthy in Argo CD and Flux while reservers wait for room,
unhealthy when a burst Deployment cannot roll out, and wiring that validates strictly.

The rules are Argo CD's and Flux's own, ported in ``tests/gitops/upstream_health.py``
(argoproj/gitops-engine ``pkg/health/health_daemonset.go`` ``getAppsv1DaemonSetHealth``
and ``health_deployment.go`` ``getAppsv1DeploymentHealth``; sigs.k8s.io/cli-utils
``pkg/kstatus/status/core.go`` ``daemonsetConditions`` and ``deploymentConditions``),
applied to the objects of the committed ``dist/`` with the statuses the DaemonSet and
Deployment controllers write.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from cdk8s_headroom.files.publish import load_manifests
from cdk8s_headroom.gitops.wiring import (
    FIRST_WAVE,
    SYNC_WAVE_ANNOTATION,
    argo_cd_application,
    argo_cd_application_set,
    burst_deployments,
    flux_git_repository,
    flux_kustomization,
)
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from scripts.validation import validate_models
from tests.conftest import ROOT
from tests.gitops.upstream_health import argo_daemonset_health, argo_deployment_health, kstatus

REPO = "https://github.com/example/platform.git"


def _dist() -> list[dict[str, Any]]:
    return [document for _, document in load_manifests(ROOT / "dist")]


def _reserver() -> dict[str, Any]:
    (reserver,) = [
        d
        for d in _dist()
        if d["kind"] == "DaemonSet"
        and d["metadata"]["labels"]["app.kubernetes.io/component"] == "headroom-reserver"
    ]
    return reserver


def _daemonset_status(obj: dict[str, Any], *, desired: int, waiting: int) -> dict[str, Any]:
    """The status the DaemonSet controller writes when ``waiting`` of ``desired`` pods
    are Pending (pkg/controller/daemon ``updateDaemonSetStatus``)."""
    live = copy.deepcopy(obj)
    live["metadata"]["generation"] = 1
    live["status"] = {
        "observedGeneration": 1,
        "desiredNumberScheduled": desired,
        "currentNumberScheduled": desired,
        "updatedNumberScheduled": desired,
        "numberAvailable": desired - waiting,
        "numberReady": desired - waiting,
        "numberUnavailable": waiting,
        "numberMisscheduled": 0,
    }
    return live


def _deployment_status(obj: dict[str, Any], *, stuck: bool) -> dict[str, Any]:
    live = copy.deepcopy(obj)
    replicas = int(live["spec"].get("replicas", 1))
    live["metadata"]["generation"] = 2
    if stuck:
        live["status"] = {
            "observedGeneration": 2,
            "replicas": replicas,
            "updatedReplicas": replicas,
            "availableReplicas": 0,
            "readyReplicas": 0,
            "unavailableReplicas": replicas,
            "conditions": [
                {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"},
                {
                    "type": "Progressing",
                    "status": "False",
                    "reason": "ProgressDeadlineExceeded",
                    "message": 'ReplicaSet "x" has timed out progressing.',
                },
            ],
        }
    else:
        live["status"] = {
            "observedGeneration": 2,
            "replicas": replicas,
            "updatedReplicas": replicas,
            "availableReplicas": replicas,
            "readyReplicas": replicas,
            "conditions": [
                {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
                {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"},
            ],
        }
    return live


def _burst() -> dict[str, Any]:
    (burst,) = [d for d in _dist() if d["kind"] == "Deployment"]
    return burst


def test_the_reserver_uses_the_on_delete_update_strategy() -> None:
    assert _reserver()["spec"]["updateStrategy"] == {"type": "OnDelete"}


def test_argo_cd_reads_a_headroom_with_4_of_10_reservers_waiting_as_healthy() -> None:
    live = _daemonset_status(_reserver(), desired=10, waiting=4)

    assert argo_daemonset_health(live)[0] == "Healthy"


def test_argo_cd_would_read_the_same_headroom_as_progressing_under_rolling_update() -> None:
    # why OnDelete: the same counts under the default strategy never read Healthy
    live = _daemonset_status(_reserver(), desired=10, waiting=4)
    live["spec"]["updateStrategy"] = {"type": "RollingUpdate"}

    assert argo_daemonset_health(live)[0] == "Progressing"


def test_kstatus_reads_a_waiting_reserver_as_in_progress_whatever_the_strategy() -> None:
    # why Flux needs wiring: kstatus has no strategy exception for DaemonSets
    live = _daemonset_status(_reserver(), desired=10, waiting=4)

    assert kstatus(live) == ("InProgress", "Available: 6/10")


def test_flux_waits_on_the_burst_deployments_and_not_on_the_reserver() -> None:
    kustomization = flux_kustomization(manifests=_dist())

    checks = kustomization["spec"]["healthChecks"]
    assert kustomization["spec"]["wait"] is False
    assert [(c["kind"], c["name"]) for c in checks] == [("Deployment", "demo-burst")]
    assert all(c["kind"] != "DaemonSet" for c in checks)


def test_with_4_of_10_reservers_waiting_both_tools_read_the_headroom_healthy() -> None:
    reserver = _daemonset_status(_reserver(), desired=10, waiting=4)
    burst = _deployment_status(_burst(), stuck=False)
    checked = {c["name"] for c in flux_kustomization(manifests=_dist())["spec"]["healthChecks"]}

    argo = {argo_daemonset_health(reserver)[0], argo_deployment_health(burst)[0]}
    flux = {kstatus(obj)[0] for obj in (reserver, burst) if obj["metadata"]["name"] in checked}

    assert argo == {"Healthy"}
    assert flux == {"Current"}  # every health check Current: the Kustomization is Ready


def test_a_burst_deployment_that_cannot_roll_out_reads_unhealthy_in_both_tools() -> None:
    burst = _deployment_status(_burst(), stuck=True)
    checked = {c["name"] for c in flux_kustomization(manifests=_dist())["spec"]["healthChecks"]}

    assert burst["metadata"]["name"] in checked
    assert argo_deployment_health(burst)[0] == "Degraded"
    assert kstatus(burst)[0] == "Failed"


def test_a_reserver_the_controller_has_not_observed_yet_is_progressing_in_argo_cd() -> None:
    # a DaemonSet that was not created (or not reconciled) is no false "Healthy"
    live = _daemonset_status(_reserver(), desired=10, waiting=0)
    live["metadata"]["generation"] = 2

    assert argo_daemonset_health(live)[0] == "Progressing"


def test_namespaces_and_priority_classes_sync_in_the_first_wave() -> None:
    first = {
        d["kind"]
        for d in _dist()
        if (d["metadata"].get("annotations") or {}).get(SYNC_WAVE_ANNOTATION) == FIRST_WAVE
    }
    others = [
        d["kind"]
        for d in _dist()
        if SYNC_WAVE_ANNOTATION in (d["metadata"].get("annotations") or {})
        and d["kind"] not in ("Namespace", "PriorityClass")
    ]

    assert first == {"Namespace", "PriorityClass"}
    assert others == []


def test_flux_depends_on_the_kustomizations_that_install_the_crds_used() -> None:
    rule = {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule", "metadata": {}}
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {}}

    plain = flux_kustomization(manifests=_dist())
    with_crds = flux_kustomization(
        manifests=[*_dist(), rule, pool], crd_providers={"karpenter.sh": "karpenter-crds"}
    )

    assert "dependsOn" not in plain["spec"]
    assert with_crds["spec"]["dependsOn"] == [{"name": "karpenter-crds"}]
    assert flux_kustomization(manifests=[rule])["spec"]["dependsOn"] == [
        {"name": "prometheus-operator"}
    ]


def test_the_application_set_gives_each_cluster_its_slice_from_its_labels() -> None:
    appset = argo_cd_application_set(repo_url=REPO)
    parameters = appset["spec"]["template"]["spec"]["source"]["helm"]["parameters"]

    assert appset["spec"]["generators"] == [
        {"clusters": {"selector": {"matchLabels": {"headroom.cdk8s.io/enabled": "true"}}}}
    ]
    assert parameters == [
        {
            "name": "reservation.cpu",
            "value": '{{index .metadata.labels "headroom.cdk8s.io/slice-cpu"}}',
        },
        {
            "name": "reservation.memory",
            "value": '{{index .metadata.labels "headroom.cdk8s.io/slice-memory"}}',
        },
    ]


def test_every_wiring_object_passes_the_argo_cd_and_flux_schemas_strictly() -> None:
    objects = [
        argo_cd_application(repo_url=REPO),
        argo_cd_application_set(repo_url=REPO),
        flux_git_repository(repo_url=REPO),
        flux_kustomization(manifests=_dist()),
    ]
    broken = copy.deepcopy(objects[0])
    broken["spec"]["syncPolicy"]["automated"]["pruneEverything"] = True

    results = validate_models([*objects, broken])

    assert [r.errors for r in results[:-1]] == [(), (), (), ()]
    assert any("pruneEverything" in error for error in results[-1].errors)


def test_the_burst_deployments_are_found_by_their_component_label() -> None:
    assert burst_deployments(_dist()) == [("node-headroom", "demo-burst")]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: argo_cd_application(repo_url="example.com/repo"), "repo_url"),
        (lambda: argo_cd_application(repo_url=REPO, path="../secrets"), "path"),
        (lambda: flux_git_repository(repo_url=REPO, name="Node_Headroom"), "name"),
        (
            lambda: argo_cd_application_set(
                repo_url=REPO, values_from_labels={"reservation.cpu": "not a label"}
            ),
            "values_from_labels['reservation.cpu']",
        ),
    ],
)
def test_bad_wiring_input_names_the_field(call: Any, field: str) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        call()

    assert str(raised.value).startswith(f"{field}: invalid value")


def test_the_wiring_is_plain_yaml_a_user_can_apply() -> None:
    text = yaml.safe_dump_all([argo_cd_application(repo_url=REPO)])

    assert yaml.safe_load(text)["spec"]["source"]["path"] == "dist"
