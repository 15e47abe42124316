"""PriorityModel.SEED reproduces the seed blueprint object for object."""

from pathlib import Path
from typing import Any

import cdk8s
import pytest
import yaml

from cdk8s_headroom import HeadroomWarning, NodeHeadroom, PriorityModel, ReserverTask
from tests.conftest import SHARED, find, pod_spec

SEED_MANIFESTS = SHARED / "seed" / "blueprint-manifests.yaml"


@pytest.fixture(scope="module")
def seed() -> list[dict[str, Any]]:
    if not SEED_MANIFESTS.exists():
        pytest.skip(f"the seed blueprint is not beside the repository ({SEED_MANIFESTS})")
    return [doc for doc in yaml.safe_load_all(Path(SEED_MANIFESTS).read_text()) if doc]


@pytest.fixture(scope="module")
def ours() -> list[dict[str, Any]]:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "seed")
    with pytest.warns(HeadroomWarning):
        headroom = NodeHeadroom(
            chart,
            "headroom",
            cpu="500m",
            memory="512Mi",
            model=PriorityModel.SEED,
            task=ReserverTask.maintenance(),
        )
    headroom.add_burst_workload(
        "demo-burst",
        image="public.ecr.aws/amazonlinux/amazonlinux:2",
        container_name="cpu-burn",
        cpu="500m",
        memory="512Mi",
        cpu_limit="800m",
        memory_limit="1Gi",
        command=["/bin/sh", "-c"],
        args=["while true; do sha1sum /dev/zero | head -c 1000000 > /dev/null; sleep 0.5; done"],
    )
    return list(chart.to_json())


def test_same_objects_by_kind_and_name(
    seed: list[dict[str, Any]], ours: list[dict[str, Any]]
) -> None:
    def key(o: dict[str, Any]) -> tuple[str, str]:
        return (o["kind"], o["metadata"]["name"])

    assert sorted(map(key, ours)) == sorted(map(key, seed))


def test_priority_classes_match(seed: list[dict[str, Any]], ours: list[dict[str, Any]]) -> None:
    for expected in (o for o in seed if o["kind"] == "PriorityClass"):
        actual = find(ours, "PriorityClass", expected["metadata"]["name"])
        for field in ("value", "preemptionPolicy", "description"):
            assert actual[field] == expected[field], field
        # The blueprint writes `globalDefault: false`; ours leaves it out, as the API
        # server stores it (PriorityClass.globalDefault is omitempty in
        # k8s.io/api/scheduling/v1/types.go), so that a second apply changes nothing.
        assert actual.get("globalDefault", False) == expected["globalDefault"]
        assert "globalDefault" not in actual or actual["globalDefault"] is True


def test_workloads_match_names_policies_resources_grace_period_and_commands(
    seed: list[dict[str, Any]], ours: list[dict[str, Any]]
) -> None:
    for expected in (o for o in seed if o["kind"] in ("DaemonSet", "Deployment")):
        actual = find(ours, expected["kind"], expected["metadata"]["name"])
        assert actual["apiVersion"] == expected["apiVersion"]
        assert actual["metadata"]["namespace"] == expected["metadata"]["namespace"]
        assert actual["metadata"]["labels"]["app"] == expected["metadata"]["labels"]["app"]
        assert actual["spec"]["selector"] == expected["spec"]["selector"]
        for field in ("updateStrategy", "replicas"):
            assert actual["spec"].get(field) == expected["spec"].get(field), field
        want, got = pod_spec(expected), pod_spec(actual)
        assert got["priorityClassName"] == want["priorityClassName"]
        assert got.get("terminationGracePeriodSeconds") == want.get("terminationGracePeriodSeconds")
        assert len(got["containers"]) == len(want["containers"]) == 1
        for field in ("name", "image", "command", "args", "resources"):
            assert got["containers"][0][field] == want["containers"][0][field], field
