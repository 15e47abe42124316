"""The simulator reads CapacityBuffers: placeholders hold room on their pool's nodes at
establishment, and a burst pod takes that room without preemption."""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import cdk8s
import pytest
import yaml

from cdk8s_headroom import (
    DEFAULT_DEDICATED_TAINT,
    CapacityBufferForm,
    HeadroomConfigError,
    HeadroomWarning,
    NodeHeadroom,
    NodePoolRef,
    PriorityModel,
)
from cdk8s_headroom.cli import main
from cdk8s_headroom.simulate import Role, load_cluster, manifests_from_objects, run_whatif
from cdk8s_headroom.simulate.manifests import Manifests

POOL = "burst"
TAINT = {"key": "headroom.cdk8s.io/burst", "value": "true", "effect": "NoSchedule"}


def buffered_app(*, dedicated: bool, slices: bool = False, **buffer: Any) -> list[dict[str, Any]]:
    chart = cdk8s.Chart(cdk8s.App(), "c")
    model = PriorityModel.DEDICATED_POOL if dedicated else PriorityModel.GUARDED
    taints = [DEFAULT_DEDICATED_TAINT] if dedicated else []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeadroomWarning)
        headroom = NodeHeadroom(
            chart,
            "h",
            cpu="500m" if slices else None,
            memory="512Mi" if slices else None,
            model=model,
            node_pool=NodePoolRef.karpenter(POOL, taints=taints),
        )
        workload = headroom.add_burst_workload(
            "api", image="example/api:1", cpu="500m", memory="512Mi", replicas=4
        )
        headroom.add_capacity_buffer(workload, **(buffer or {"replicas": 3}))
    return list(chart.to_json())


def cluster(*, nodes: int = 2, tainted: bool, busy_cpu: str = "3") -> Any:
    node: dict[str, Any] = {
        "name": "node",
        "count": nodes,
        "allocatable": {"cpu": "4", "memory": "16Gi", "pods": 110},
        "labels": {"karpenter.sh/nodepool": POOL},
    }
    if tainted:
        node["taints"] = [TAINT]
    pods = [
        {
            "name": f"busy-{index}",
            "nodeName": f"node-{index}",
            "requests": {"cpu": busy_cpu, "memory": "1Gi"},
        }
        for index in range(1, nodes + 1)
    ]
    return load_cluster({"nodes": [node], "pods": pods})


def read(objects: list[dict[str, Any]]) -> Manifests:
    return manifests_from_objects([("app", objects)])


def test_a_pod_template_buffer_is_read_with_the_templates_shape_and_count() -> None:
    (buffer,) = read(buffered_app(dedicated=True, replicas=3)).buffers
    assert (buffer.name, buffer.namespace, buffer.units) == ("api-buffer", "default", 3)
    assert (buffer.template.requests.cpu, buffer.template.requests.memory) == (500, 512 * 2**20)
    assert dict(buffer.template.placement.node_selector) == {"karpenter.sh/nodepool": POOL}
    assert [t.key for t in buffer.template.placement.tolerations] == [TAINT["key"]]


@pytest.mark.parametrize(
    ("props", "units"),
    [
        ({"form": CapacityBufferForm.SCALABLE, "percentage": 30}, 2),
        ({"form": CapacityBufferForm.SCALABLE, "percentage": 1}, 1),
        ({"limits": {"cpu": "1700m"}}, 3),
        ({"replicas": 5, "limits": {"memory": "1Gi"}}, 2),
    ],
)
def test_the_count_is_the_autoscalers(props: dict[str, Any], units: int) -> None:
    (buffer,) = read(buffered_app(dedicated=True, **props)).buffers
    assert buffer.units == units


def test_placeholders_hold_room_at_establishment_and_a_burst_takes_it_without_preemption() -> None:
    report = run_whatif(
        read(buffered_app(dedicated=True, replicas=2)),
        cluster(tainted=True, busy_cpu="3500m"),
        {"api": 1},
    )
    assert [e.decision.node for e in report.buffers] == ["node-1", "node-2"]
    assert report.before["node-1"][Role.BUFFER].cpu == 500
    (arrival,) = report.arrivals
    assert arrival.victims == ()
    assert [p.name for p in arrival.took_buffer] == ["api-buffer-1"]
    verdicts = {v.promise: v for v in report.verdicts}
    assert verdicts["P2"].holds is True
    assert "1 took buffer room without preemption" in verdicts["P2"].reason
    assert verdicts["P1"].holds is True
    (refill,) = report.refills
    assert refill.decision.node is None  # the autoscaler adds a node for it


def test_on_a_shared_pool_ordinary_pods_can_take_the_buffers_room() -> None:
    report = run_whatif(read(buffered_app(dedicated=False)), cluster(tainted=False), {"api": 0})
    p1 = next(v for v in report.verdicts if v.promise == "P1")
    assert p1.holds is False
    assert "ordinary pods can take the room buffer placeholders hold (api-buffer-1 on node-1" in (
        p1.reason
    )


def test_placeholders_that_find_no_room_wait_for_nodes_the_autoscaler_adds() -> None:
    report = run_whatif(
        read(buffered_app(dedicated=True, replicas=5)),
        cluster(tainted=True, busy_cpu="3500m"),
        {"api": 0},
    )
    held = [e.decision.node for e in report.buffers]
    assert held == ["node-1", "node-2", None, None, None]
    assert "2/5 placeholders hold room on the nodes, 3 need new nodes" in report.render()


def test_slices_and_a_buffer_on_one_pool_are_simulated_together() -> None:
    report = run_whatif(
        read(buffered_app(dedicated=True, slices=True, replicas=1)),
        cluster(tainted=True, busy_cpu="3"),
        {"api": 2},
    )
    assert len(report.establishment) == 2 and len(report.buffers) == 1
    first, _ = report.arrivals
    assert first.took_buffer and not first.victims
    assert "P2 holds" in report.render()


def test_a_buffer_whose_pod_template_is_missing_is_an_error_naming_the_reference() -> None:
    objects = [o for o in buffered_app(dedicated=True) if o["kind"] != "PodTemplate"]
    with pytest.raises(HeadroomConfigError) as raised:
        read(objects)
    assert raised.value.field.endswith("CapacityBuffer default/api-buffer.spec.podTemplateRef")


def test_a_buffer_that_breaks_the_apis_rules_is_an_error() -> None:
    objects = copy.deepcopy(buffered_app(dedicated=True))
    buffer = next(o for o in objects if o["kind"] == "CapacityBuffer")
    del buffer["spec"]["replicas"]
    with pytest.raises(HeadroomConfigError, match="replicas or limits must also be set"):
        read(objects)


def test_a_scalable_reference_to_another_kind_is_not_read() -> None:
    objects = copy.deepcopy(
        buffered_app(dedicated=True, form=CapacityBufferForm.SCALABLE, replicas=1)
    )
    buffer = next(o for o in objects if o["kind"] == "CapacityBuffer")
    buffer["spec"]["scalableRef"]["kind"] = "StatefulSet"
    with pytest.raises(HeadroomConfigError, match="a Deployment"):
        read(objects)


def test_simulate_json_lists_the_buffers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifests = tmp_path / "dist"
    manifests.mkdir()
    (manifests / "0000-c.k8s.yaml").write_text(
        yaml.safe_dump_all(buffered_app(dedicated=True, replicas=2))
    )
    cluster_file = tmp_path / "cluster.yaml"
    cluster_file.write_text(
        yaml.safe_dump(
            {
                "nodes": [
                    {
                        "name": "node-1",
                        "allocatable": {"cpu": "4", "memory": "16Gi"},
                        "labels": {"karpenter.sh/nodepool": POOL},
                        "taints": [TAINT],
                    }
                ],
                "pods": [{"name": "busy", "nodeName": "node-1", "requests": {"cpu": "3"}}],
            }
        )
    )
    argv = ["simulate", "--manifests", str(manifests), "--cluster", str(cluster_file), "--json"]
    assert main([*argv, "--burst", "api=1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["buffers"]["held"] == 2
    assert report["arrivals"][0]["took_buffer_room_of"] == ["api-buffer-2"]
