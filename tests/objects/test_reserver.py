"""The reserver DaemonSet: Guaranteed QoS, grace period 0, hardening, tasks, targeting."""

from typing import Any

import cdk8s
import pytest

from cdk8s_headroom import (
    DEFAULT_DEDICATED_TAINT,
    HeadroomConfigError,
    HeadroomReserver,
    KarpenterNodePool,
    NodeHeadroom,
    NodePoolRef,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    PriorityModel,
    ReserverTask,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
    UpdateStrategy,
)
from tests.conftest import chart_with_classes, find, find_all, iter_containers, pod_spec


@pytest.fixture
def chart() -> cdk8s.Chart:
    """The workloads here reference the GUARDED classes."""
    return chart_with_classes()


def reserver(chart: Any, synth: Any, **props: Any) -> dict[str, Any]:
    props.setdefault("cpu", "500m")
    props.setdefault("memory", "512Mi")
    HeadroomReserver(chart, "reserver", **props)
    return find(synth(chart), "DaemonSet")


def test_requests_equal_limits_for_guaranteed_qos(chart: Any, synth: Any) -> None:
    ds = reserver(chart, synth, cpu="750m", memory="1Gi")
    for container in iter_containers(pod_spec(ds)):
        resources = container["resources"]
        assert resources["requests"] == resources["limits"] == {"cpu": "750m", "memory": "1Gi"}


def test_grace_period_is_zero_so_the_slice_frees_at_once(chart: Any, synth: Any) -> None:
    assert pod_spec(reserver(chart, synth))["terminationGracePeriodSeconds"] == 0


def test_defaults_name_namespace_class_and_pause_task(chart: Any, synth: Any) -> None:
    ds = reserver(chart, synth)
    assert ds["metadata"]["name"] == "headroom-reserver"
    assert ds["metadata"]["namespace"] == "default"
    spec = pod_spec(ds)
    assert spec["priorityClassName"] == "headroom-reserve"
    assert [c["image"] for c in spec["containers"]] == ["registry.k8s.io/pause:3.10"]
    assert "initContainers" not in spec
    assert ds["spec"]["selector"]["matchLabels"] == {"app": "headroom-reserver"}
    assert ds["spec"]["template"]["metadata"]["labels"]["app"] == "headroom-reserver"
    # a Never reserver waits for room as normal operation: OnDelete (UpdateStrategy)
    assert ds["spec"]["updateStrategy"] == {"type": "OnDelete"}


def test_the_update_strategy_follows_whether_the_reserver_can_preempt() -> None:
    def strategy(model: PriorityModel) -> Any:
        app = cdk8s.App()
        chart = cdk8s.Chart(app, "c")
        pool = (
            KarpenterNodePool.from_name("burst", taints=[DEFAULT_DEDICATED_TAINT])
            if model is PriorityModel.DEDICATED_POOL
            else None
        )
        headroom = NodeHeadroom(chart, "h", cpu="500m", memory="512Mi", model=model, node_pool=pool)
        assert headroom.reserver is not None
        return headroom.reserver.resource.to_json()["spec"]["updateStrategy"]["type"]

    assert strategy(PriorityModel.GUARDED) == "OnDelete"
    assert strategy(PriorityModel.DEDICATED_POOL) == "OnDelete"
    assert strategy(PriorityModel.SEED) == "RollingUpdate"  # the blueprint's, and it preempts


def test_a_standalone_reserver_takes_an_update_strategy_member_only() -> None:
    chart = cdk8s.Chart(cdk8s.App(), "c")
    rolling = HeadroomReserver(
        chart, "r", cpu="1", memory="1Gi", update_strategy=UpdateStrategy.ROLLING_UPDATE
    )

    assert rolling.resource.to_json()["spec"]["updateStrategy"] == {"type": "RollingUpdate"}
    with pytest.raises(HeadroomConfigError, match="update_strategy: invalid value 'OnDelete'"):
        HeadroomReserver(chart, "s", cpu="1", memory="1Gi", update_strategy="OnDelete")  # type: ignore[arg-type]


def test_pod_meets_restricted_pod_security(chart: Any, synth: Any) -> None:
    spec = pod_spec(reserver(chart, synth, task=ReserverTask.prepull(["nginx:1.27"])))
    assert spec["automountServiceAccountToken"] is False
    pod_context = spec["securityContext"]
    assert pod_context["runAsNonRoot"] is True
    assert pod_context["runAsUser"] > 0
    assert pod_context["seccompProfile"] == {"type": "RuntimeDefault"}
    for container in iter_containers(spec):
        context = container["securityContext"]
        assert context["allowPrivilegeEscalation"] is False
        assert context["capabilities"] == {"drop": ["ALL"]}
        assert context["readOnlyRootFilesystem"] is True
        assert context["runAsNonRoot"] is True
        assert context["runAsUser"] > 0
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        assert key not in spec


def test_pause_runs_as_the_user_the_pause_image_is_built_for(chart: Any, synth: Any) -> None:
    spec = pod_spec(reserver(chart, synth))
    assert spec["securityContext"]["runAsUser"] == 65535
    assert "volumes" not in spec


def test_maintenance_task_gets_a_writable_tmp_on_a_read_only_root(chart: Any, synth: Any) -> None:
    spec = pod_spec(reserver(chart, synth, task=ReserverTask.maintenance()))
    container = spec["containers"][0]
    assert container["name"] == "background-job"
    assert container["command"] == ["/bin/sh", "-c"]
    assert 'find /tmp -name "*.tmp" -delete' in container["args"][0]
    assert container["volumeMounts"] == [{"mountPath": "/tmp", "name": "scratch-0"}]
    assert spec["volumes"] == [{"emptyDir": {}, "name": "scratch-0"}]


def test_prepull_pulls_each_image_in_an_init_container_then_pauses(chart: Any, synth: Any) -> None:
    task = ReserverTask.prepull(
        ["ghcr.io/acme/api:1.2", "ghcr.io/acme/worker:3", "ghcr.io/acme/api:1.2"]
    )
    spec = pod_spec(reserver(chart, synth, task=task))
    init = spec["initContainers"]
    assert [c["image"] for c in init] == ["ghcr.io/acme/api:1.2", "ghcr.io/acme/worker:3"]
    assert all(c["command"] == ["/bin/sh", "-c", "true"] for c in init)
    assert all(c["imagePullPolicy"] == "IfNotPresent" for c in init)
    assert spec["containers"][0]["image"] == "registry.k8s.io/pause:3.10"


def test_prepull_images_added_after_construction_reach_the_output(chart: Any, synth: Any) -> None:
    construct = HeadroomReserver(chart, "reserver", cpu="1", memory="1Gi")
    construct.add_prepull_image("nginx:1.27")
    spec = pod_spec(find(synth(chart), "DaemonSet"))
    assert [c["image"] for c in spec["initContainers"]] == ["nginx:1.27"]


def test_tolerations_added_after_construction_reach_the_output(chart: Any, synth: Any) -> None:
    construct = HeadroomReserver(
        chart, "reserver", cpu="1", memory="1Gi", node_pool=NodePoolRef.karpenter("gpu")
    )
    construct.add_toleration(Toleration(key="spot", operator=TolerationOperator.EXISTS))
    construct.add_toleration(Toleration(key="spot", operator=TolerationOperator.EXISTS))

    spec = pod_spec(find(synth(chart), "DaemonSet"))

    assert spec["tolerations"] == [{"key": "spot", "operator": "Exists"}]
    assert spec["nodeSelector"] == {"karpenter.sh/nodepool": "gpu"}


def test_add_toleration_takes_a_toleration_object(chart: Any) -> None:
    construct = HeadroomReserver(chart, "reserver", cpu="1", memory="1Gi")

    with pytest.raises(HeadroomConfigError, match="toleration: invalid value 'spot'"):
        construct.add_toleration("spot")  # type: ignore[arg-type]


def test_custom_task_runs_the_users_container(chart: Any, synth: Any) -> None:
    task = ReserverTask.custom(
        image="ghcr.io/acme/log-shipper:2",
        command=["/shipper"],
        args=["--once"],
        container_name="shipper",
        run_as_user=1000,
        scratch_paths=["/tmp", "/var/cache/shipper"],
    )
    spec = pod_spec(reserver(chart, synth, task=task))
    container = spec["containers"][0]
    assert (container["name"], container["command"], container["args"]) == (
        "shipper",
        ["/shipper"],
        ["--once"],
    )
    assert spec["securityContext"]["runAsUser"] == 1000
    assert [m["mountPath"] for m in container["volumeMounts"]] == ["/tmp", "/var/cache/shipper"]


def test_targets_a_pool_by_its_label_and_tolerates_its_taints(chart: Any, synth: Any) -> None:
    pool = NodePoolRef.karpenter("burst-pool", taints=[Taint("dedicated", "burst")])
    spec = pod_spec(
        reserver(
            chart,
            synth,
            node_pool=pool,
            node_selector={"kubernetes.io/arch": "amd64"},
            tolerations=[Toleration(key="spot", operator=TolerationOperator.EXISTS)],
            node_affinity=[
                NodeSelectorRequirement(
                    "karpenter.k8s.aws/instance-size", NodeSelectorOperator.NOT_IN, ("nano",)
                )
            ],
        )
    )
    assert spec["nodeSelector"] == {
        "karpenter.sh/nodepool": "burst-pool",
        "kubernetes.io/arch": "amd64",
    }
    assert spec["tolerations"] == [
        {"effect": "NoSchedule", "key": "dedicated", "operator": "Equal", "value": "burst"},
        {"key": "spot", "operator": "Exists"},
    ]
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"] == [
        {
            "matchExpressions": [
                {"key": "karpenter.k8s.aws/instance-size", "operator": "NotIn", "values": ["nano"]}
            ]
        }
    ]


def test_without_a_pool_it_runs_on_every_node_like_the_seed(chart: Any, synth: Any) -> None:
    spec = pod_spec(reserver(chart, synth))
    for key in ("nodeSelector", "tolerations", "affinity"):
        assert key not in spec


@pytest.mark.parametrize(
    ("props", "field"),
    [
        ({"cpu": "500mm"}, "cpu"),
        ({"cpu": "-1"}, "cpu"),
        ({"cpu": ""}, "cpu"),
        ({"memory": "1.5.0"}, "memory"),
        ({"cpu": "0"}, "cpu"),
        ({"memory": "0Mi"}, "memory"),
        ({"name": "Headroom"}, "name"),
        ({"namespace": "kube_system"}, "namespace"),
        ({"priority_class_name": "system-node-critical"}, "priority_class_name"),
        ({"task": "pause"}, "task"),
        ({"node_selector": {"bad key!": "x"}}, "node_selector['bad key!']"),
        ({"node_pool": "maintenance-pool"}, "node_pool"),
        (
            {"node_selector": {"karpenter.sh/nodepool": "other"}, "node_pool": NodePoolRef("a")},
            "node_selector['karpenter.sh/nodepool']",
        ),
        ({"tolerations": [{"key": "a"}]}, "tolerations"),
    ],
)
def test_bad_reserver_props_raise_naming_the_field(
    chart: Any, synth: Any, props: dict[str, Any], field: str
) -> None:
    props.setdefault("cpu", "500m")
    props.setdefault("memory", "512Mi")
    with pytest.raises(HeadroomConfigError) as raised:
        HeadroomReserver(chart, "reserver", **props)
    assert raised.value.field == field
    assert find_all(synth(chart), "DaemonSet") == []


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: ReserverTask.pause(image="bad image"), "task.image"),
        (lambda: ReserverTask.prepull("nginx"), "task.images"),
        (lambda: ReserverTask.prepull(["nginx"], command=[]), "task.command"),
        (lambda: ReserverTask.custom(image="x", run_as_user=0), "task.run_as_user"),
        (lambda: ReserverTask.custom(image="x", scratch_paths=["tmp"]), "task.scratch_paths"),
        (lambda: Taint("k", "v", "NoSchedule"), "taint.effect"),  # type: ignore[arg-type]
        (
            lambda: Toleration(key="k", operator=TolerationOperator.EXISTS, value="v"),
            "toleration.value",
        ),
        (
            lambda: Toleration(key="k", toleration_seconds=5, effect=TaintEffect.NO_SCHEDULE),
            "toleration.toleration_seconds",
        ),
        (
            lambda: NodeSelectorRequirement("k", NodeSelectorOperator.IN, ()),
            "node_affinity[k].values",
        ),
        (
            lambda: NodeSelectorRequirement("k", NodeSelectorOperator.GT, ("x",)),
            "node_affinity[k].values",
        ),
        (lambda: NodeSelectorRequirement("k", "In", ("a",)), "node_affinity.operator"),  # type: ignore[arg-type]
    ],
)
def test_bad_task_and_targeting_values_raise_naming_the_field(build: Any, field: str) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        build()
    assert raised.value.field == field
