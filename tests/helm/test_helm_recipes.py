"""The chart's compiled recipes (``helm.recipes``) build what the library's ``evaluate``
builds from the same recipe and inputs, and the chart's pods are their recipes'
(objects/reserver.py ``RESERVER_POD``, ...)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import helm_python as helm
import pytest

from cdk8s_headroom.helm import manifests
from cdk8s_headroom.helm.reader import ROLE_REF, SUBJECT
from cdk8s_headroom.helm.recipes import (
    CONTAINER_CONTEXT,
    PROMETHEUS_RULE,
    RECIPES,
    WORKLOAD,
    compile_recipe,
)
from cdk8s_headroom.objects.burst import AUTOSCALER_SPEC, BURST_POD, DEPLOYMENT_FIELDS
from cdk8s_headroom.objects.capacity_buffer import BUFFER_POD, BUFFER_SPEC, buffer_name
from cdk8s_headroom.objects.prepuller import PREPULLER_POD
from cdk8s_headroom.objects.reserver import RESERVER_POD
from cdk8s_headroom.objects.workload import WORKLOAD_SPEC
from cdk8s_headroom.vocabulary import object_names, security_context
from cdk8s_headroom.vocabulary.alert_rules import HeadroomAlertRules, Watches
from cdk8s_headroom.vocabulary.object_names import BUFFER_NAME, RESERVER_NAME
from cdk8s_headroom.vocabulary.priority_models import (
    PRIORITY_CLASS,
    ModelClasses,
    PriorityModel,
    class_fields,
)
from cdk8s_headroom.vocabulary.rbac import API_GROUP as RBAC_GROUP
from cdk8s_headroom.vocabulary.recipes import (
    INDEX,
    Each,
    IfAny,
    IfGiven,
    JoinText,
    Take,
    evaluate,
    fill_with,
    join,
)
from scripts.helm_render import CHART, objects, render
from tests.helm.recipe_charts import compiled

RESERVER_INPUTS = {
    "priorityClassName": "headroom-reserve",
    "podSecurityContext": {"runAsUser": 65535},
    "containerSecurityContext": {"runAsUser": 65535},
    "initSecurityContext": {"runAsUser": 65534},
    "containerName": "pause",
    "image": "registry.k8s.io/pause:3.10",
    "command": [],
    "args": [],
    "cpu": "500m",
    "memory": "512Mi",
    "extendedResources": {},
    "prepullImages": [],
    "prepullCommand": ["/bin/sh", "-c", "true"],
    "scratchPaths": [],
    "hostPaths": [],
    "nodeSelector": None,
    "affinity": None,
    "tolerations": None,
}


@pytest.mark.parametrize(
    "inputs",
    [
        RESERVER_INPUTS,
        {
            **RESERVER_INPUTS,
            "command": ["/bin/sh", "-c"],
            "args": ["sleep infinity"],
            "prepullImages": ["a", "b"],
            "scratchPaths": ["/tmp", "/var/cache"],
            "hostPaths": security_context.host_mounts([("/var/log", "/log", False)]),
            "nodeSelector": {"karpenter.sh/nodepool": "burst"},
            "tolerations": [{"key": "k", "operator": "Exists"}],
            # a count as the chart's values may give it: a number, its text in the pod
            "extendedResources": {"nvidia.com/gpu": 1, "example.com/fpga": "2"},
        },
    ],
    ids=["pause", "every-field"],
)
def test_the_compiled_reserver_pod_is_what_the_library_evaluates(
    tmp_path: Path, inputs: dict[str, Any]
) -> None:
    assert compiled(tmp_path, RESERVER_POD, inputs) == evaluate(RESERVER_POD, inputs)


def test_the_charts_reserver_pod_without_the_inputs_it_never_gives_is_the_same(
    tmp_path: Path,
) -> None:
    # The chart's reserver recipe leaves out what reads only hostPaths (RECIPES' absent)
    absent = RECIPES["reserverPod"].absent
    inputs = {**RESERVER_INPUTS, "scratchPaths": ["/tmp"], "prepullImages": ["a"]}
    chart = compiled(tmp_path, RESERVER_POD, inputs, absent)
    assert chart == evaluate(RESERVER_POD, {**inputs, **{name: [] for name in absent}})


BURST_INPUTS = {
    "priorityClassName": "burst-critical",
    "podSecurityContext": {"runAsUser": 65534},
    "containerSecurityContext": {"runAsUser": 65534},
    "containerName": "api",
    "image": "x",
    "imagePullPolicy": "IfNotPresent",
    "command": None,
    "args": ["--serve"],
    "cpu": "250m",
    "memory": "256Mi",
    "cpuLimit": "1",
    "memoryLimit": "256Mi",
    "extendedResources": None,
    "zone": None,
    "nodeSelector": None,
    "affinity": {"nodeAffinity": {}},
    "tolerations": None,
}
DEVICES_AND_ZONE = {
    **BURST_INPUTS,
    "extendedResources": {"nvidia.com/gpu": 1},
    "zone": "eu-west-1a",
    "nodeSelector": {"karpenter.sh/nodepool": "burst", "topology.kubernetes.io/zone": "x"},
}
PREPULLER_INPUTS = {
    "priorityClassName": "headroom-reserve",
    "toolsImage": "busybox",
    "pauseImage": "pause",
    "images": ["a", "b"],
    "nodeSelector": {"karpenter.sh/nodepool": "burst"},
    "affinity": None,
    "tolerations": [{"key": "k", "operator": "Exists"}],
}


@pytest.mark.parametrize(
    ("recipe", "inputs"),
    [
        (BURST_POD, BURST_INPUTS),
        (BURST_POD, DEVICES_AND_ZONE),
        (PREPULLER_POD, PREPULLER_INPUTS),
        (BUFFER_POD, BURST_INPUTS),
        # a zone's buffer: its zone over the burst pod's selector's
        (BUFFER_POD, DEVICES_AND_ZONE),
    ],
    ids=["burst", "burst-devices", "prepuller", "buffer", "buffer-devices-zone"],
)
def test_the_compiled_pods_are_what_the_library_evaluates(
    tmp_path: Path, recipe: Any, inputs: dict[str, Any]
) -> None:
    assert compiled(tmp_path, recipe, inputs) == evaluate(recipe, inputs)


@pytest.mark.parametrize(
    "inputs",
    [
        {"podTemplate": "api-buffer", "deployment": None, "replicas": 2, "percentage": None},
        # a scalable buffer: a share of the Deployment's replicas, capped
        {
            "podTemplate": None,
            "deployment": "api",
            "replicas": None,
            "percentage": 50,
            "limits": {"cpu": "8", "memory": "16Gi"},
        },
        # limits alone, and a zero count kept
        {"podTemplate": None, "deployment": "api", "replicas": 0, "limits": {"cpu": "8"}},
    ],
    ids=["pod-template-replicas", "scalable-percentage-limits", "scalable-zero-limits"],
)
def test_the_compiled_buffer_spec_is_what_the_library_evaluates(
    tmp_path: Path, inputs: dict[str, Any]
) -> None:
    # objects/capacity_buffer.py BUFFER_SPEC: the ref of the one name given, and the
    # counts given (none, or empty limits, left out), as _render and the buffers' unit
    # give them
    inputs = {"percentage": None, "limits": {}, **inputs}
    spec = evaluate(BUFFER_SPEC, inputs)
    assert compiled(tmp_path, BUFFER_SPEC, inputs) == spec
    ref = "podTemplateRef" if inputs["podTemplate"] else "scalableRef"
    assert [key for key in spec if key.endswith("Ref")] == [ref]
    assert {"replicas", "percentage", "limits"} & set(spec) == {
        key for key in ("replicas", "percentage", "limits") if inputs[key] not in (None, {})
    }


SCALING_INPUTS = {"name": "api", "replicas": 2, "maxReplicas": None, "targetCPUUtilization": 80}


@pytest.mark.parametrize(
    "inputs",
    [
        SCALING_INPUTS,
        # a zero count stays, without an autoscaler
        {**SCALING_INPUTS, "replicas": 0},
        # an autoscaler owns the count
        {**SCALING_INPUTS, "maxReplicas": 6, "targetCPUUtilization": 70},
    ],
    ids=["replicas", "zero-replicas", "autoscaled"],
)
def test_the_compiled_burst_spec_is_what_the_library_evaluates(
    tmp_path: Path, inputs: dict[str, Any]
) -> None:
    # objects/burst.py DEPLOYMENT_FIELDS: the Deployment's replicas, unless an
    # autoscaler scales it, as _render and the bursts' unit give them
    spec = evaluate(DEPLOYMENT_FIELDS, inputs)
    assert compiled(tmp_path, DEPLOYMENT_FIELDS, inputs) == spec
    assert ("replicas" in spec) is (inputs["maxReplicas"] is None)


@pytest.mark.parametrize(
    "inputs",
    [
        {"count": 0, "name": "a", "owner": None},
        {"count": None, "name": "a", "owner": None},
        {"count": 1, "name": "a", "owner": 0},
        {"count": 1, "name": None, "owner": None},
    ],
    ids=["zero", "none", "owned-by-a-zero", "of-none"],
)
def test_a_compiled_if_given_unless_is_what_evaluate_gives(
    tmp_path: Path, inputs: dict[str, Any]
) -> None:
    # vocabulary/recipes.py IfGiven's unless: left out when that input is given, a zero
    # too; alone, and with of
    recipe = {
        "count": IfGiven(Take("count"), unless="owner"),
        "ref": IfGiven({"name": Take("name")}, of="name", unless="owner"),
    }
    assert compiled(tmp_path, recipe, inputs) == evaluate(recipe, inputs)


def test_the_charts_autoscaler_is_what_the_library_evaluates() -> None:
    # objects/burst.py AUTOSCALER_SPEC, laid out in the manifests (helm.manifests), of
    # the inputs the bursts' unit gives: the Deployment's name, the replicas and the
    # values' autoscaling
    burst = {
        "name": "api",
        "image": "x",
        "replicas": 2,
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
        "autoscaling": {"maxReplicas": 6, "targetCPUUtilization": 70},
    }

    rendered = objects(render(helm.Chart.load(CHART), {"burstWorkloads": [burst]}))
    by_kind = {d["kind"]: d for d in rendered}
    deployment, hpa = by_kind["Deployment"], by_kind["HorizontalPodAutoscaler"]

    name = deployment["metadata"]["name"]
    inputs = {"name": name, "replicas": 2, "maxReplicas": 6, "targetCPUUtilization": 70}
    assert hpa["spec"] == evaluate(AUTOSCALER_SPEC, inputs)
    assert "replicas" not in deployment["spec"]


GUARDED = ModelClasses.of(PriorityModel.GUARDED)


@pytest.mark.parametrize(
    ("spec", "name", "value"),
    [
        (GUARDED.headroom, None, None),
        (GUARDED.burst, "team-burst", 500000),
        # the global default class, a value of zero given over the model's
        (GUARDED.default, None, 0),
        (ModelClasses.of(PriorityModel.SEED).headroom, "seed-headroom", None),
    ],
    ids=["model-class", "name-and-value", "default-zero", "seed-name"],
)
def test_the_compiled_priority_class_is_what_the_library_evaluates(
    tmp_path: Path, spec: Any, name: str | None, value: int | None
) -> None:
    # priority_models.PRIORITY_CLASS: the model's class (its class_fields, with its
    # role, as the chart's data holds it), the name and value given over its own, as
    # ModelClasses.of and the chart's build give them
    assert spec is not None
    inputs = {"model": {"role": "r", **class_fields(spec)}, "name": name, "value": value}
    built = evaluate(PRIORITY_CLASS, inputs)
    assert compiled(tmp_path, PRIORITY_CLASS, inputs) == built
    given = {"name": name, "value": value}
    assert built == {**inputs["model"], **{k: v for k, v in given.items() if v is not None}}


@pytest.mark.parametrize(
    ("recipe", "inputs"),
    [
        (SUBJECT, {"kind": "User", "name": "u", "apiGroup": RBAC_GROUP, "namespace": None}),
        (SUBJECT, {"kind": "ServiceAccount", "name": "s", "apiGroup": None, "namespace": "n"}),
        (ROLE_REF, {"name": "headroom-reader"}),
    ],
    ids=["user", "service-account", "role-ref"],
)
def test_the_compiled_reader_recipes_are_what_the_library_evaluates(
    tmp_path: Path, recipe: Any, inputs: dict[str, Any]
) -> None:
    # helm/reader.py SUBJECT (no apiGroup or namespace where the kind has none) and
    # ROLE_REF, which add_reader evaluates and the generated reader unit runs
    assert compiled(tmp_path, recipe, inputs) == evaluate(recipe, inputs)


@pytest.mark.parametrize(
    "labels",
    [None, {"team": "data", "app": "mine"}],
    ids=["no-labels", "labels-and-a-clash"],
)
def test_the_compiled_workload_labels_and_contexts_are_what_the_library_evaluates(
    tmp_path: Path, labels: dict[str, str] | None
) -> None:
    # helm/recipes.py WORKLOAD: labels.WORKLOAD_LABELS, whose "app" wins over the user's,
    # under Helm's labels in an object's own metadata, and the library's contexts run as
    # the workload's user (security_context.POD_USER, CONTAINER_USER)
    inputs = {
        "helm": {"app.kubernetes.io/managed-by": "Helm", "app": "helm-loses"},
        "labels": labels,
        "name": "burst",
        "component": "burst-workload",
        "uid": 1000,
        "podSecurityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "containerSecurityContext": {"readOnlyRootFilesystem": True},
    }
    built = evaluate(WORKLOAD, inputs)
    assert compiled(tmp_path, WORKLOAD, inputs) == built
    assert built["labels"]["app"] == built["meta"]["app"] == "burst"
    assert built["meta"]["app.kubernetes.io/managed-by"] == "Helm"
    assert built["pod"] == {
        **inputs["podSecurityContext"],
        **security_context.pod_security_context(1000),
    }
    assert built["container"]["runAsGroup"] == 1000


def test_the_charts_image_pullers_run_as_the_library_runs_them(tmp_path: Path) -> None:
    # helm/recipes.py CONTAINER_CONTEXT, of the chart's restricted context
    # (library.json's containerSecurityContext) as nobody, is the library's context of
    # the reserver's image pullers (security_context.container_security_context(NOBODY))
    lib = json.loads((CHART / "files" / "library.json").read_text())
    inputs = {
        "uid": security_context.NOBODY_UID,
        "containerSecurityContext": lib["containerSecurityContext"],
    }
    built = compiled(tmp_path, CONTAINER_CONTEXT, inputs)
    assert built == evaluate(CONTAINER_CONTEXT, inputs)
    library = security_context.container_security_context(security_context.NOBODY_UID)
    # what cdk8s writes of it: a None is left out
    assert built == {**library, "capabilities": {"drop": library["capabilities"]["drop"]}}
    assert library["capabilities"]["add"] is None


@pytest.mark.parametrize(
    ("recipe", "inputs", "name"),
    [
        (RESERVER_NAME, {"pool": "burst"}, "headroom-reserver-burst"),
        (RESERVER_NAME, {"pool": None}, "headroom-reserver"),
        (BUFFER_NAME, {"workload": "web-api", "zone": "eu-west-1a"}, "web-api-buffer-eu-west-1a"),
        (BUFFER_NAME, {"workload": "web-api", "zone": None}, "web-api-buffer"),
    ],
    ids=["reserver-on-a-pool", "reserver-on-every-node", "zoned-buffer", "buffer"],
)
def test_the_compiled_names_are_what_the_library_evaluates(
    tmp_path: Path, recipe: Any, inputs: dict[str, Any], name: str
) -> None:
    # vocabulary/object_names.py RESERVER_NAME and BUFFER_NAME: the pattern chosen by
    # whether the pool (the zone) is given (recipes.Choose, compiled as a ternary), as
    # object_names.reserver and capacity_buffer.buffer_name name them
    assert compiled(tmp_path, {"name": recipe}, inputs) == {"name": name}
    assert evaluate(recipe, inputs) == name
    if recipe is RESERVER_NAME:
        assert object_names.reserver(inputs["pool"]) == name
    else:
        assert buffer_name(inputs["workload"], inputs["zone"]) == name


@pytest.mark.parametrize(
    "inputs",
    [{"a": ["x", "y"], "b": ["z"]}, {"a": ["x"], "b": []}, {"a": [], "b": []}],
    ids=["several", "one", "none"],
)
def test_the_compiled_join_text_is_what_the_library_evaluates(
    tmp_path: Path, inputs: dict[str, Any]
) -> None:
    # vocabulary/recipes.py JoinText is Sprig's join: the texts, the separator between
    recipe = {"both": JoinText(join(Take("a"), Take("b")), ", "), "a": JoinText(Take("a"), "|")}
    assert compiled(tmp_path, recipe, inputs) == evaluate(recipe, inputs)


NO_NAMES = {"reservers": [], "windows": [], "buffer_windows": [], "bursts": []}


@pytest.mark.parametrize(
    ("names", "labels"),
    [
        # a share's two DaemonSets and two bursts, with extra labels, one of them the library's
        (
            {**NO_NAMES, "reservers": ["r-large", "r-xlarge"], "bursts": ["api", "worker"]},
            {"release": "kps", "app.kubernetes.io/part-of": "mine"},
        ),
        # slices held in time windows and a buffer's windows, no burst, no extra labels
        ({**NO_NAMES, "windows": ["r-day", "r-night"], "buffer_windows": ["api-day"]}, None),
        # buffers alone: the bursts only
        ({**NO_NAMES, "bursts": ["api"]}, {}),
    ],
    ids=["slices-bursts-labels", "windows-buffer-windows", "bursts-alone"],
)
def test_the_compiled_alert_fields_and_labels_are_what_the_library_evaluates(
    tmp_path: Path, names: dict[str, list[str]], labels: dict[str, str] | None
) -> None:
    # helm/recipes.py PROMETHEUS_RULE: alert_rules.ALERT_FIELDS (the names joined, the
    # values' texts) and alerts.RULE_LABELS (the library's over the extra ones), under
    # which Helm's go in the object's metadata
    inputs = {
        "headroom": "headroom-reserver",
        "namespace": "node-headroom",
        **names,
        "min_held_percent": "90",
        "slices_low_for": "15m",
        "erosion_for": "30m",
        "burst_start_budget": "2m",
        "severity": "warning",
        "labels": labels,
        "helm": {"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/part-of": "x"},
    }
    built = evaluate(PROMETHEUS_RULE, inputs)
    assert compiled(tmp_path, PROMETHEUS_RULE, inputs) == built
    # the fields are the library's rules', of the same names and the default values
    rules = HeadroomAlertRules(headroom="headroom-reserver", namespace="node-headroom", **names)
    assert built["fields"] == rules.fields()
    # both pick an alert by the field of the part it watches: empty when it has no names
    for part in Watches:
        assert (built["fields"][part.value] == "") == (not names[part.value])
    assert built["labels"] == {**(labels or {}), "app.kubernetes.io/part-of": "node-headroom"}
    assert built["meta"] == {"app.kubernetes.io/managed-by": "Helm", **built["labels"]}


def test_every_recipe_of_the_chart_is_compiled_into_its_templates() -> None:
    # library.rules_files places each where its callers are parsed
    text = "".join(p.read_text() for p in CHART.rglob("*.tpl"))
    for name, it in RECIPES.items():
        assert compile_recipe(name, it.recipe, it.declared, it.absent) in text


def test_the_charts_reserver_pod_follows_its_recipe(tmp_path: Path) -> None:
    # GIVEN a recipe whose reserver pulls always, has no limits, and names its scratch
    # volumes tmp-<index>
    (container,) = RESERVER_POD["containers"]
    slice_requests = {"requests": container["resources"]["requests"]}
    tmp = fill_with("tmp-{index}", index=INDEX)
    recipe = {
        **RESERVER_POD,
        "containers": [{**container, "imagePullPolicy": "Always", "resources": slice_requests}],
        "volumes": IfAny(
            join(Each("scratchPaths", {**security_context.SCRATCH_VOLUME, "name": tmp}))
        ),
    }
    copy = tmp_path / "chart"
    shutil.copytree(CHART, copy)
    library = copy / "templates" / "_library.tpl"
    reserver = RECIPES["reserverPod"]
    compiled = compile_recipe("reserverPod", reserver.recipe, reserver.declared, reserver.absent)
    assert compiled in library.read_text()
    library.write_text(
        library.read_text().replace(compiled, compile_recipe("reserverPod", recipe, "changed"))
    )

    # WHEN the chart renders a reserver with a scratch path
    values = {"task": {"kind": "custom", "image": "x", "scratchPaths": ["/tmp"]}}
    (daemon_set,) = [
        d for d in objects(render(helm.Chart.load(copy), values)) if d["kind"] == "DaemonSet"
    ]

    # THEN its pod is the changed recipe's
    pod = daemon_set["spec"]["template"]["spec"]
    assert pod["containers"][0]["imagePullPolicy"] == "Always"
    assert pod["containers"][0]["resources"] == {"requests": {"cpu": "500m", "memory": "512Mi"}}
    assert pod["volumes"] == [{"name": "tmp-0", "emptyDir": {}}]


def test_the_manifests_lay_out_a_workloads_spec_from_its_recipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # GIVEN a workload recipe whose pods are selected by another label
    selector = {"matchLabels": {"app.kubernetes.io/name": Take("name")}}
    monkeypatch.setattr(manifests, "WORKLOAD_SPEC", {**WORKLOAD_SPEC, "selector": selector})

    # WHEN the manifests are generated
    text = manifests.manifests_template(manifests.reference())

    # THEN the workloads' selector is the recipe's, as the library renders it
    assert "  selector:\n    matchLabels:\n      app.kubernetes.io/name: {{ $w.name }}\n" in text


def test_the_manifests_lay_out_the_autoscalers_spec_from_its_recipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # GIVEN an autoscaler recipe that scales on memory
    (metric,) = AUTOSCALER_SPEC["metrics"]
    resource = {**metric["resource"], "name": "memory"}
    memory = {**AUTOSCALER_SPEC, "metrics": [{**metric, "resource": resource}]}
    monkeypatch.setattr(manifests, "AUTOSCALER_SPEC", memory)

    # WHEN the manifests are generated
    text = manifests.manifests_template(manifests.reference())

    # THEN the autoscaler's metric is the recipe's, in its order, as the library renders it
    assert "  metrics:\n    - type: Resource\n      resource:\n        name: memory\n" in text
