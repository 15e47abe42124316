# ruff: noqa: E501  (Go template actions read best on one line each; wrapping them
# inside Python strings would only make the generated templates harder to follow.)
"""The chart's templates.

Everything the library decides and the values do not change (class specs per model,
security contexts, static pod fields, labels, task containers, error messages) is read
from the library itself, by building reference constructs and triggering its checks,
and written into ``templates/_library.tpl``. The hand-written Go template logic below
only places the values into that skeleton, the way ``mapping.build`` passes them to
the constructs.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

import cdk8s

from .. import names
from ..burst import BurstWorkload
from ..errors import HeadroomConfigError
from ..headroom import NodeHeadroom
from ..labels import workload_labels
from ..namespace import HeadroomNamespace
from ..prepull import PREPULL_SUFFIX
from ..priority import ModelClasses, PriorityModel
from ..quantity import MIN_CONTAINER_MEMORY, memory_quantity
from ..reserver import DEFAULT_RESERVER_NAME
from ..securitycontext import NOBODY_UID
from ..simulate.promises import check_promises, describe_broken
from ..targeting import NodePoolRef
from ..task import ReserverTask, TaskKind, check_image
from .mapping import DEDICATED_POOL_ALLOWED, DEDICATED_TAINT_ALLOWED, DUPLICATE_BURST_ALLOWED
from .paths import BURST_FIELDS as _BURST_FIELDS
from .paths import translate_text as _translate_text
from .values import CHART_NAME, DNS_LABEL


def _raised(action: Callable[[], object]) -> HeadroomConfigError:
    """The library's error for a configuration it rejects."""
    try:
        action()
    except HeadroomConfigError as error:
        return error
    raise AssertionError("the library accepted a configuration it should reject")


def _chart() -> cdk8s.Chart:
    return cdk8s.Chart(cdk8s.App(), "reference")


def _format(allowed: str, *samples: str) -> str:
    """A library message as a printf format: each sample becomes a ``%s``."""
    text = allowed.replace("%", "%%")
    for sample in samples:
        if sample not in text:
            raise AssertionError(f"{sample!r} is not in the library's message {allowed!r}")
        text = text.replace(sample, "%s")
    return text


def _messages() -> dict[str, str]:
    """The library's messages for the rules the templates check with ``fail``."""

    def no_default(model: PriorityModel, prop: dict[str, Any]) -> str:
        def build() -> None:
            ModelClasses.of(model, **prop)

        return _translate_text(_raised(build).allowed, {})

    others = [model for model in PriorityModel if model is not PriorityModel.GUARDED]

    def per_model(prop: dict[str, Any]) -> str:
        return json.dumps({model.value: no_default(model, prop) for model in others})

    def order() -> None:
        ModelClasses.of(
            PriorityModel.DEDICATED_POOL,
            headroom_value=7,
            burst_value=7,
        )

    def unique() -> None:
        ModelClasses.of(headroom_class_name="same", burst_class_name="same")

    def headroom(**props: Any) -> NodeHeadroom:
        return NodeHeadroom(_chart(), "headroom", cpu="1", memory="1Gi", **props)

    def limit() -> None:
        BurstWorkload(_chart(), "b", image="x", cpu="3", memory="1Gi", cpu_limit="1")

    def min_replicas() -> None:
        BurstWorkload(_chart(), "b", image="x", cpu="1", memory="1Gi", replicas=0, max_replicas=1)

    def max_replicas() -> None:
        BurstWorkload(
            _chart(), "b", image="x", cpu="1", memory="1Gi", replicas=12345, max_replicas=1
        )

    burst_table = {**_BURST_FIELDS, "max_replicas": "autoscaling.maxReplicas"}
    return {
        "image": _raised(lambda: check_image(None, field="image")).allowed,
        "dnsLabel": _raised(lambda: names.dns_label(None, field="name")).allowed,
        "order": _format(
            _translate_text(_raised(order).allowed, {}), "priorityClasses.burst.value=7"
        ).replace("%s", "%s=%d"),
        "unique": _format(
            _translate_text(_raised(unique).allowed, {}), "priorityClasses.headroom.name"
        ),
        "noDefaultCreate": per_model({"create_default_class": True}),
        "noDefaultName": per_model({"default_class_name": "x"}),
        "noDefaultValue": per_model({"default_value": 1}),
        "fit": _format(
            _raised(
                lambda: headroom().add_burst_workload("b", image="x", cpu="2", memory="1Gi")
            ).allowed,
            "1 CPU, 1Gi memory",
        ),
        "limit": _format(_raised(limit).allowed, "'3'"),
        "memoryMin": _raised(lambda: memory_quantity("2Ki", field="memory")).allowed,
        "memoryBare": _format(
            _raised(lambda: memory_quantity("512", field="memory")).allowed, "512Mi"
        ),
        "minReplicas": _format(_raised(max_replicas).allowed, "12345", str(names.INT32_MAX)),
        "replicasWithMax": _translate_text(_raised(min_replicas).allowed, burst_table),
        "selector": _format(
            _raised(
                lambda: headroom(
                    node_pool=NodePoolRef("pool-a"),
                    node_selector={"karpenter.sh/nodepool": "other"},
                )
            ).allowed,
            "'pool-a'",
        ),
        "dedicatedPool": DEDICATED_POOL_ALLOWED,
        "dedicatedTaint": DEDICATED_TAINT_ALLOWED,
        "duplicateBurst": DUPLICATE_BURST_ALLOWED,
    }


def _model_notes() -> dict[str, str]:
    """Each model's paragraph of the ``PriorityModel`` docstring: what it promises."""
    paragraphs = (inspect.getdoc(PriorityModel) or "").split("\n\n")
    notes = {}
    for model in PriorityModel:
        for paragraph in paragraphs:
            if paragraph.startswith(f"``{model.name}``"):
                text = " ".join(paragraph.split()).replace("``", "")
                note = text.split(": ", 1)[1] if ": " in text else text
                notes[model.value] = note[:1].upper() + note[1:]
    return notes


def _without(mapping: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {key: item for key, item in mapping.items() if key not in keys}


def library_data() -> dict[str, Any]:
    """What the templates take from the library, read from reference constructs."""
    notes = _model_notes()
    models = {}
    for model in PriorityModel:
        classes = ModelClasses.of(model)
        specs = {"headroom": classes.headroom, "burst": classes.burst, "default": classes.default}
        models[model.value] = {
            "enum": str(model),
            "note": notes[model.value],
            **{
                role: {
                    "name": spec.name,
                    "value": spec.value,
                    "preemptionPolicy": spec.preemption_policy.value,
                    "globalDefault": spec.global_default,
                    "description": spec.description,
                }
                for role, spec in specs.items()
                if spec is not None
            },
        }

    chart = _chart()
    HeadroomNamespace(chart, "namespace", name="reference")
    headroom = NodeHeadroom(chart, "headroom", cpu="1", memory="1Gi", prepull_burst_images=True)
    headroom.add_burst_workload("burst", image="x", cpu="1", memory="1Gi")
    documents = chart.to_json()
    objects = {document["kind"]: document for document in documents}
    daemonsets = {d["metadata"]["name"]: d for d in documents if d["kind"] == "DaemonSet"}
    objects["DaemonSet"] = daemonsets[DEFAULT_RESERVER_NAME]
    prepuller = daemonsets[DEFAULT_RESERVER_NAME + PREPULL_SUFFIX]["spec"]
    prepuller_pod = prepuller["template"]["spec"]
    reserver = objects["DaemonSet"]["spec"]
    reserver_pod = reserver["template"]["spec"]
    burst = objects["Deployment"]["spec"]
    burst_pod = burst["template"]["spec"]
    uid_keys = ("runAsUser", "runAsGroup", "fsGroup")

    tasks = {}
    for kind, task in (
        (TaskKind.PAUSE, ReserverTask.pause()),
        (TaskKind.MAINTENANCE, ReserverTask.maintenance()),
        (TaskKind.PREPULL, ReserverTask.prepull([])),
        (TaskKind.CUSTOM, ReserverTask.custom(image="reference")),
    ):
        tasks[kind.value] = {
            "containerName": task.container_name,
            "command": list(task.command),
            "args": list(task.args),
            "runAsUser": task.run_as_user,
            "scratchPaths": list(task.scratch_paths),
        }
    burst_defaults = inspect.signature(BurstWorkload.__init__).parameters
    return {
        "chartName": CHART_NAME,
        "dnsLabel": DNS_LABEL,
        "models": models,
        "tasks": tasks,
        "prepullCommand": list(ReserverTask.pause().prepull_command),
        "prepullRunAsUser": NOBODY_UID,
        "reserverName": DEFAULT_RESERVER_NAME,
        "classLabels": objects["PriorityClass"]["metadata"]["labels"],
        "namespaceLabels": objects["Namespace"]["metadata"]["labels"],
        "workloadLabels": workload_labels("{name}", "{component}"),
        "reserverSpec": _without(reserver, "selector", "template"),
        "reserverPod": _without(
            reserver_pod,
            "containers",
            "initContainers",
            "volumes",
            "securityContext",
            "priorityClassName",
            "nodeSelector",
            "affinity",
            "tolerations",
        ),
        # ImagePrepuller (prepullBurstImages): its pod but the placement and the
        # pulls, the container that copies the no-op, and a pull without name and image.
        "prepullerSuffix": PREPULL_SUFFIX,
        "prepullerSpec": _without(prepuller, "selector", "template"),
        "prepullerPod": _without(
            prepuller_pod,
            "initContainers",
            "priorityClassName",
            "nodeSelector",
            "affinity",
            "tolerations",
        ),
        "prepullerNoop": prepuller_pod["initContainers"][0],
        "prepullerPull": _without(prepuller_pod["initContainers"][1], "name", "image"),
        "burstSpec": _without(burst, "replicas", "selector", "template"),
        "burstPod": _without(
            burst_pod,
            "containers",
            "volumes",
            "securityContext",
            "priorityClassName",
            "nodeSelector",
            "affinity",
            "tolerations",
        ),
        "burstVolumes": burst_pod["volumes"],
        "burstVolumeMounts": burst_pod["containers"][0]["volumeMounts"],
        "podSecurityContext": _without(reserver_pod["securityContext"], *uid_keys),
        "containerSecurityContext": _without(
            reserver_pod["containers"][0]["securityContext"], *uid_keys
        ),
        "burstDefaults": {
            "replicas": burst_defaults["replicas"].default,
            "imagePullPolicy": burst_defaults["image_pull_policy"].default.value,
            "runAsUser": burst_defaults["run_as_user"].default,
            "targetCPUUtilization": burst_defaults["target_cpu_utilization"].default,
        },
        "seedWarning": _seed_warning(),
        "messages": _messages(),
        "minContainerMemory": int(MIN_CONTAINER_MEMORY),
    }


def _seed_warning() -> str:
    """The warning NodeHeadroom gives for SEED, from the simulator's promise check."""
    broken = check_promises(PriorityModel.SEED, cpu="500m", memory="512Mi")
    return describe_broken(PriorityModel.SEED, broken)


def go_literal(item: Any) -> str:
    """A value as a Go template expression that builds it (ints stay ints, unlike
    ``fromJson``, which would make them floats and print 1000000000 as 1e+09)."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, str):
        return json.dumps(item)
    if isinstance(item, Mapping):
        pairs = " ".join(f"{json.dumps(str(k))} {go_literal(v)}" for k, v in item.items())
        return f"(dict {pairs})" if pairs else "(dict)"
    if isinstance(item, (list, tuple)):
        elements = " ".join(go_literal(element) for element in item)
        return f"(list {elements})" if elements else "(list)"
    raise TypeError(f"no Go template literal for {item!r}")


def library_tpl() -> str:
    data = library_data()
    lines = [
        "{{/* Generated by `make chart` from the cdk8s-headroom library: what the library",
        "     decides and the values do not change. Do not edit. */}}",
        '{{- define "node-headroom.library" -}}',
    ]
    lines.extend(
        f'{{{{- $_ := set . "{key}" {go_literal(item)} -}}}}' for key, item in data.items()
    )
    lines.append("{{- end -}}")
    return "\n".join(lines) + "\n"


HELPERS_TPL = r"""{{/*
The logic of the chart: resolves the values into the objects, as mapping.build
passes them to the library's constructs, and fails on what the library rejects and
values.schema.json cannot express. Every template calls it with a dict to fill:
  {{- $c := dict }}{{- $_ := include "node-headroom.config" (dict "root" $ "out" $c) }}
*/}}

{{/* The name prefix of workloads (the namePrefix value). */}}
{{- define "node-headroom.prefix" -}}
{{- if kindIs "string" .Values.namePrefix -}}
{{- .Values.namePrefix -}}
{{- else if ne .Release.Name "node-headroom" -}}
{{- printf "%s-" .Release.Name -}}
{{- end -}}
{{- end -}}

{{/* A value as Python's repr() shows it, so messages read like the library's. */}}
{{- define "node-headroom.repr" -}}
{{- if kindIs "invalid" . -}}None
{{- else if kindIs "string" . -}}'{{ . }}'
{{- else if kindIs "bool" . -}}{{ ternary "True" "False" . }}
{{- else if kindIs "float64" . -}}{{ if eq (floor .) . }}{{ int64 . }}{{ else }}{{ . }}{{ end }}
{{- else if kindIs "slice" . -}}[{{ range $i, $x := . }}{{ if $i }}, {{ end }}{{ include "node-headroom.repr" $x }}{{ end }}]
{{- else -}}{{ . }}
{{- end -}}
{{- end -}}

{{/* Fails with the library's message format: "<value path>: invalid value <value>; <allowed>". */}}
{{- define "node-headroom.fail" -}}
{{- fail (printf "%s: invalid value %s; %s" .field (include "node-headroom.repr" .value) .allowed) -}}
{{- end -}}

{{/* A Kubernetes quantity as a number (cores, bytes), as quantity.parse_quantity reads
     it; sprig's mulf/divf compute in decimal, so equal quantities compare equal. */}}
{{- define "node-headroom.quantity" -}}
{{- $text := trim (toString .) -}}
{{- $number := regexFind "^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)" $text -}}
{{- $suffix := trimPrefix $number $text -}}
{{- $amount := float64 $number -}}
{{- $binary := dict "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 "Pi" 1125899906842624 "Ei" 1152921504606846976 -}}
{{- $decimal := dict "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "P" 1000000000000000 "E" 1000000000000000000 -}}
{{- if hasKey $binary $suffix -}}{{ mulf $amount (get $binary $suffix) }}
{{- else if hasKey $decimal $suffix -}}{{ mulf $amount (get $decimal $suffix) }}
{{- else if eq $suffix "m" -}}{{ divf $amount 1000 }}
{{- else if eq $suffix "" -}}{{ $amount }}
{{- else -}}
{{- $exponent := atoi (substr 1 -1 $suffix) -}}
{{- $scale := 1.0 -}}
{{- range until (int (ternary (mul $exponent -1) $exponent (lt $exponent 0))) -}}{{- $scale = mulf $scale 10 -}}{{- end -}}
{{- if lt $exponent 0 }}{{ divf $amount $scale }}{{ else }}{{ mulf $amount $scale }}{{ end -}}
{{- end -}}
{{- end -}}

{{/* A memory below the least a container starts with, as quantity.memory_quantity
     refuses it: .field, .value, .amount (bytes), .lib. */}}
{{- define "node-headroom.memoryMin" -}}
{{- if lt .amount (float64 .lib.minContainerMemory) -}}
{{- $text := trim (toString .value) -}}
{{- $allowed := .lib.messages.memoryMin -}}
{{- if regexMatch "^[0-9]+$" $text }}{{ $allowed = printf .lib.messages.memoryBare (printf "%sMi" $text) }}{{ end -}}
{{- include "node-headroom.fail" (dict "field" .field "value" .value "allowed" $allowed) -}}
{{- end -}}
{{- end -}}

{{/* Cores for a human, as quantity.format_cpu: 500m, 2. */}}
{{- define "node-headroom.formatCpu" -}}
{{- $millis := mulf . 1000 -}}
{{- if and (eq $millis (floor $millis)) (ne (mod (int64 $millis) 1000) 0) -}}{{ printf "%dm" (int64 $millis) }}
{{- else if eq . (floor .) -}}{{ printf "%d" (int64 .) }}
{{- else -}}{{ printf "%.0fm" $millis }}
{{- end -}}
{{- end -}}

{{/* Bytes for a human, as quantity.format_memory: the largest binary unit that stays whole. */}}
{{- define "node-headroom.formatMemory" -}}
{{- $size := . -}}
{{- $found := "" -}}
{{- range list (list "Ei" 1152921504606846976) (list "Pi" 1125899906842624) (list "Ti" 1099511627776) (list "Gi" 1073741824) (list "Mi" 1048576) (list "Ki" 1024) -}}
{{- $units := divf $size (index . 1) -}}
{{- if and (not $found) (ge $size (float64 (index . 1))) (eq $units (floor $units)) -}}
{{- $found = printf "%d%s" (int64 $units) (index . 0) -}}
{{- end -}}
{{- end -}}
{{- if $found -}}{{ $found }}
{{- else if eq $size (floor $size) -}}{{ printf "%d" (int64 $size) }}
{{- else -}}{{ printf "%.0f" $size }}
{{- end -}}
{{- end -}}

{{/* Fails unless .name is a DNS-1123 label (names.dns_label). */}}
{{- define "node-headroom.dnsLabel" -}}
{{- if or (gt (len .name) 63) (not (regexMatch .lib.dnsLabel .name)) -}}
{{- include "node-headroom.fail" (dict "field" .field "value" .name "allowed" .lib.messages.dnsLabel) -}}
{{- end -}}
{{- end -}}

{{/* Appends tolerations (values form) to .out.list in their Kubernetes form, once
     each, as Placement.of does. */}}
{{- define "node-headroom.addTolerations" -}}
{{- range .items -}}
{{- $t := dict "operator" (default "Equal" .operator) -}}
{{- if .key }}{{ $_ := set $t "key" .key }}{{ end -}}
{{- if .value }}{{ $_ := set $t "value" .value }}{{ end -}}
{{- if .effect }}{{ $_ := set $t "effect" .effect }}{{ end -}}
{{- if not (kindIs "invalid" .tolerationSeconds) }}{{ $_ := set $t "tolerationSeconds" (int64 .tolerationSeconds) }}{{ end -}}
{{- if not (has $t $.out.list) }}{{ $_ := set $.out "list" (append $.out.list $t) }}{{ end -}}
{{- end -}}
{{- end -}}

{{/* labels.workload_labels(name, component), under the user's labels. */}}
{{- define "node-headroom.workloadLabels" -}}
{{- $out := deepCopy (default (dict) .labels) -}}
{{- range $key, $pattern := .lib.workloadLabels -}}
{{- $_ := set $out $key (replace "{component}" $.component (replace "{name}" $.name $pattern)) -}}
{{- end -}}
{{- $_ := set .into "labels" $out -}}
{{- end -}}

{{/* The pod securityContext and a container securityContext for a user id. */}}
{{- define "node-headroom.securityContexts" -}}
{{- $uid := int64 .uid -}}
{{- $_ := set .into "pod" (merge (dict "runAsUser" $uid "runAsGroup" $uid "fsGroup" $uid) (deepCopy .lib.podSecurityContext)) -}}
{{- $_ := set .into "container" (merge (dict "runAsUser" $uid "runAsGroup" $uid) (deepCopy .lib.containerSecurityContext)) -}}
{{- end -}}

{{- define "node-headroom.config" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- $c := .out -}}
{{- $lib := dict -}}
{{- $_ := include "node-headroom.library" $lib -}}
{{- $prefix := include "node-headroom.prefix" $root -}}
{{- $model := $v.model -}}
{{- $m := index $lib.models $model -}}
{{- $guarded := eq $model "guarded" -}}
{{- $warnings := list -}}
{{- if eq $model "seed" }}{{ $warnings = append $warnings $lib.seedWarning }}{{ end -}}
{{- $_ := set $c "helmLabels" (dict "helm.sh/chart" (printf "%s-%s" $root.Chart.Name ($root.Chart.Version | replace "+" "_")) "app.kubernetes.io/managed-by" $root.Release.Service "app.kubernetes.io/instance" $root.Release.Name) -}}

{{- /* mapping.check_dedicated_pool */ -}}
{{- if eq $model "dedicated-pool" -}}
{{- if not $v.nodePool.name -}}
{{- include "node-headroom.fail" (dict "field" "nodePool.name" "allowed" $lib.messages.dedicatedPool) -}}
{{- end -}}
{{- $t := $v.dedicatedTaint -}}
{{- $wanted := printf "%s=%s:%s" $t.key (default "" $t.value) (default "NoSchedule" $t.effect) -}}
{{- $declared := list -}}
{{- range $v.nodePool.taints -}}
{{- $declared = append $declared (printf "%s=%s:%s" .key (default "" .value) (default "NoSchedule" .effect)) -}}
{{- end -}}
{{- if not (has $wanted $declared) -}}
{{- include "node-headroom.fail" (dict "field" "nodePool.taints" "value" $declared "allowed" (printf $lib.messages.dedicatedTaint $wanted)) -}}
{{- end -}}
{{- end -}}

{{- /* The namespace (HeadroomNamespace, NodeHeadroom.namespace) */ -}}
{{- $namespace := default (printf "%s%s" $prefix $lib.chartName) $v.namespace.name -}}
{{- include "node-headroom.dnsLabel" (dict "lib" $lib "field" "namespace.name" "name" $namespace) -}}
{{- $_ := set $c "namespace" (dict "name" $namespace "labels" $lib.namespaceLabels) -}}

{{- /* HeadroomPriorityClasses */ -}}
{{- $pc := $v.priorityClasses -}}
{{- $classes := dict -}}
{{- range $role := list "headroom" "burst" -}}
{{- $base := index $m $role -}}
{{- $given := index $pc $role -}}
{{- $value := $base.value -}}
{{- if not (kindIs "invalid" $given.value) }}{{ $value = int64 $given.value }}{{ end -}}
{{- $_ := set $classes $role (dict "name" (default $base.name $given.name) "value" $value "preemptionPolicy" $base.preemptionPolicy "globalDefault" false "description" $base.description) -}}
{{- end -}}
{{- $dc := $pc.default -}}
{{- $emitDefault := false -}}
{{- if not $guarded -}}
{{- if $dc.create -}}
{{- include "node-headroom.fail" (dict "field" "priorityClasses.default.create" "value" $dc.create "allowed" (index (fromJson $lib.messages.noDefaultCreate) $model)) -}}
{{- end -}}
{{- if not (kindIs "invalid" $dc.name) -}}
{{- include "node-headroom.fail" (dict "field" "priorityClasses.default.name" "value" $dc.name "allowed" (index (fromJson $lib.messages.noDefaultName) $model)) -}}
{{- else if not (kindIs "invalid" $dc.value) -}}
{{- include "node-headroom.fail" (dict "field" "priorityClasses.default.value" "value" $dc.value "allowed" (index (fromJson $lib.messages.noDefaultValue) $model)) -}}
{{- end -}}
{{- else -}}
{{- $value := $m.default.value -}}
{{- if not (kindIs "invalid" $dc.value) }}{{ $value = int64 $dc.value }}{{ end -}}
{{- $_ := set $classes "default" (dict "name" (default $m.default.name $dc.name) "value" $value "preemptionPolicy" $m.default.preemptionPolicy "globalDefault" true "description" $m.default.description) -}}
{{- $emitDefault = or (kindIs "invalid" $dc.create) $dc.create -}}
{{- end -}}
{{- $ladder := list (list "priorityClasses.headroom.value" $classes.headroom.value) -}}
{{- if $guarded }}{{ $ladder = append $ladder (list "priorityClasses.default.value" $classes.default.value) }}{{ end -}}
{{- $ladder = append $ladder (list "priorityClasses.burst.value" $classes.burst.value) -}}
{{- range $i, $low := initial $ladder -}}
{{- $high := index $ladder (add1 $i) -}}
{{- if not (lt (index $low 1) (index $high 1)) -}}
{{- include "node-headroom.fail" (dict "field" (index $low 0) "value" (index $low 1) "allowed" (printf $lib.messages.order (index $high 0) (index $high 1))) -}}
{{- end -}}
{{- end -}}
{{- $seen := dict -}}
{{- range $role := list "headroom" "burst" "default" -}}
{{- $spec := index $classes $role -}}
{{- if $spec -}}
{{- $field := printf "priorityClasses.%s.name" $role -}}
{{- if hasKey $seen $spec.name -}}
{{- include "node-headroom.fail" (dict "field" $field "value" $spec.name "allowed" (printf $lib.messages.unique (index $seen $spec.name))) -}}
{{- end -}}
{{- $_ := set $seen $spec.name $field -}}
{{- end -}}
{{- end -}}
{{- $emitted := list $classes.headroom -}}
{{- if $emitDefault }}{{ $emitted = append $emitted $classes.default }}{{ end -}}
{{- $emitted = append $emitted $classes.burst -}}
{{- $_ := set $c "classes" $emitted -}}

{{- /* Placement.of: the pool's selector and taints, then the user's */ -}}
{{- $poolName := $v.nodePool.name -}}
{{- $selector := dict -}}
{{- $poolTaints := list -}}
{{- if $poolName -}}
{{- $_ := set $selector $v.nodePool.labelKey $poolName -}}
{{- range $v.nodePool.taints -}}
{{- $poolTaints = append $poolTaints (dict "key" .key "operator" "Equal" "value" (default "" .value) "effect" (default "NoSchedule" .effect)) -}}
{{- end -}}
{{- end -}}
{{- range $key, $value := $v.nodeSelector -}}
{{- if and (hasKey $selector $key) (ne (index $selector $key) $value) -}}
{{- include "node-headroom.fail" (dict "field" (printf "nodeSelector['%s']" $key) "value" $value "allowed" (printf $lib.messages.selector (include "node-headroom.repr" (index $selector $key)) (include "node-headroom.repr" $poolName))) -}}
{{- end -}}
{{- $_ := set $selector $key $value -}}
{{- end -}}
{{- $dedicated := list -}}
{{- if eq $model "dedicated-pool" -}}
{{- $t := $v.dedicatedTaint -}}
{{- $dedicated = list (dict "key" $t.key "operator" "Equal" "value" (default "" $t.value) "effect" (default "NoSchedule" $t.effect)) -}}
{{- end -}}
{{- $expressions := list -}}
{{- range $v.nodeAffinity -}}
{{- $e := dict "key" .key "operator" .operator -}}
{{- if .values }}{{ $_ := set $e "values" .values }}{{ end -}}
{{- $expressions = append $expressions $e -}}
{{- end -}}
{{- $placement := dict -}}
{{- if $selector }}{{ $_ := set $placement "nodeSelector" $selector }}{{ end -}}
{{- if $expressions -}}
{{- $_ := set $placement "affinity" (dict "nodeAffinity" (dict "requiredDuringSchedulingIgnoredDuringExecution" (dict "nodeSelectorTerms" (list (dict "matchExpressions" $expressions))))) -}}
{{- end -}}

{{- /* The reserver's task (ReserverTask factories) */ -}}
{{- $kind := $v.task.kind -}}
{{- $task := deepCopy (index $lib.tasks $kind) -}}
{{- $image := "" -}}
{{- $prepull := list -}}
{{- $prepullCommand := $lib.prepullCommand -}}
{{- if eq $kind "pause" -}}
{{- $image = $v.images.pause -}}
{{- else if eq $kind "prepull" -}}
{{- $image = $v.images.pause -}}
{{- $prepull = uniq (default (list) $v.task.prepullImages) -}}
{{- $prepullCommand = $v.task.prepullCommand -}}
{{- else if eq $kind "maintenance" -}}
{{- $image = $v.images.maintenance -}}
{{- else -}}
{{- if not $v.task.image -}}
{{- include "node-headroom.fail" (dict "field" "task.image" "value" $v.task.image "allowed" $lib.messages.image) -}}
{{- end -}}
{{- $image = $v.task.image -}}
{{- $_ := set $task "command" (default (list) $v.task.command) -}}
{{- $_ := set $task "args" (default (list) $v.task.args) -}}
{{- if $v.task.containerName }}{{ $_ := set $task "containerName" $v.task.containerName }}{{ end -}}
{{- if not (kindIs "invalid" $v.task.runAsUser) }}{{ $_ := set $task "runAsUser" $v.task.runAsUser }}{{ end -}}
{{- if not (kindIs "invalid" $v.task.scratchPaths) }}{{ $_ := set $task "scratchPaths" $v.task.scratchPaths }}{{ end -}}
{{- end -}}

{{- /* The slice (NodeHeadroom.cpu, .memory) */ -}}
{{- $cpu := trim $v.reservation.cpu -}}
{{- $memory := trim $v.reservation.memory -}}
{{- $sliceCpu := include "node-headroom.quantity" $cpu | float64 -}}
{{- $sliceMemory := include "node-headroom.quantity" $memory | float64 -}}
{{- include "node-headroom.memoryMin" (dict "lib" $lib "field" "reservation.memory" "value" $v.reservation.memory "amount" $sliceMemory) -}}
{{- $sliceText := printf "%s CPU, %s memory" (include "node-headroom.formatCpu" $sliceCpu) (include "node-headroom.formatMemory" $sliceMemory) -}}
{{- $_ := set $c "slice" $sliceText -}}
{{- $reserverName := $lib.reserverName -}}
{{- if $poolName }}{{ $reserverName = printf "%s-%s" $lib.reserverName $poolName }}{{ end -}}
{{- $reserverName = printf "%s%s" $prefix (default $reserverName $v.reserverName) -}}
{{- include "node-headroom.dnsLabel" (dict "lib" $lib "field" "reserverName" "name" $reserverName) -}}

{{- /* NodeHeadroom.add_burst_workload, for each item */ -}}
{{- $bursts := list -}}
{{- $burstImages := list -}}
{{- $names := dict -}}
{{- range $index, $w := $v.burstWorkloads -}}
{{- $name := $w.name -}}
{{- if hasKey $names $name -}}
{{- include "node-headroom.fail" (dict "field" (printf "burstWorkloads[%d].name" $index) "value" $name "allowed" $lib.messages.duplicateBurst) -}}
{{- end -}}
{{- $_ := set $names $name true -}}
{{- $at := printf "burstWorkloads[%s]." $name -}}
{{- $requests := $w.resources.requests -}}
{{- $limits := default (dict) $w.resources.limits -}}
{{- $amounts := dict "cpu" (include "node-headroom.quantity" $requests.cpu | float64) "memory" (include "node-headroom.quantity" $requests.memory | float64) -}}
{{- range $resource, $slice := dict "cpu" $sliceCpu "memory" $sliceMemory -}}
{{- if gt (index $amounts $resource) $slice -}}
{{- if eq $model "seed" -}}
{{- $warnings = append $warnings (printf "%s%s: %s exceeds the slice; %s" $at $resource (include "node-headroom.repr" (index $requests $resource)) (printf $lib.messages.fit $sliceText)) -}}
{{- else -}}
{{- include "node-headroom.fail" (dict "field" (printf "%sresources.requests.%s" $at $resource) "value" (index $requests $resource) "allowed" (printf $lib.messages.fit $sliceText)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- /* BurstWorkload's own checks come after NodeHeadroom's fit */ -}}
{{- include "node-headroom.memoryMin" (dict "lib" $lib "field" (printf "%sresources.requests.memory" $at) "value" $requests.memory "amount" $amounts.memory) -}}
{{- $fullName := printf "%s%s" $prefix $name -}}
{{- include "node-headroom.dnsLabel" (dict "lib" $lib "field" (printf "%sname" $at) "name" $fullName) -}}
{{- $resources := dict "requests" (dict "cpu" $requests.cpu "memory" $requests.memory) "limits" (dict) -}}
{{- range $resource := list "cpu" "memory" -}}
{{- $limit := index $requests $resource -}}
{{- if index $limits $resource -}}
{{- $limit = index $limits $resource -}}
{{- if lt (include "node-headroom.quantity" $limit | float64) (index $amounts $resource) -}}
{{- include "node-headroom.fail" (dict "field" (printf "%sresources.limits.%s" $at $resource) "value" $limit "allowed" (printf $lib.messages.limit (include "node-headroom.repr" (index $requests $resource)))) -}}
{{- end -}}
{{- end -}}
{{- $_ := set $resources.limits $resource $limit -}}
{{- end -}}
{{- $replicas := $lib.burstDefaults.replicas -}}
{{- if not (kindIs "invalid" $w.replicas) }}{{ $replicas = int64 $w.replicas }}{{ end -}}
{{- $autoscaling := default (dict) $w.autoscaling -}}
{{- $maxReplicas := $autoscaling.maxReplicas -}}
{{- if not (kindIs "invalid" $maxReplicas) -}}
{{- $maxReplicas = int64 $maxReplicas -}}
{{- $minimum := max 1 $replicas -}}
{{- if lt $maxReplicas $minimum -}}
{{- include "node-headroom.fail" (dict "field" (printf "%sautoscaling.maxReplicas" $at) "value" $maxReplicas "allowed" (printf $lib.messages.minReplicas (toString $minimum) "2147483647")) -}}
{{- end -}}
{{- if lt $replicas 1 -}}
{{- include "node-headroom.fail" (dict "field" (printf "%sreplicas" $at) "value" $replicas "allowed" $lib.messages.replicasWithMax) -}}
{{- end -}}
{{- end -}}
{{- $target := $lib.burstDefaults.targetCPUUtilization -}}
{{- if not (kindIs "invalid" $autoscaling.targetCPUUtilization) }}{{ $target = int64 $autoscaling.targetCPUUtilization }}{{ end -}}
{{- $uid := $lib.burstDefaults.runAsUser -}}
{{- if not (kindIs "invalid" $w.runAsUser) }}{{ $uid = $w.runAsUser }}{{ end -}}
{{- $security := dict -}}
{{- include "node-headroom.securityContexts" (dict "lib" $lib "uid" $uid "into" $security) -}}
{{- $labels := dict -}}
{{- include "node-headroom.workloadLabels" (dict "lib" $lib "labels" (ternary $v.labels $w.labels (kindIs "invalid" $w.labels)) "name" $fullName "component" "burst-workload" "into" $labels) -}}
{{- $container := dict "name" (default $name $w.containerName) "image" $w.image "imagePullPolicy" (default $lib.burstDefaults.imagePullPolicy $w.imagePullPolicy) "resources" $resources "securityContext" $security.container "volumeMounts" (deepCopy $lib.burstVolumeMounts) -}}
{{- if $w.command }}{{ $_ := set $container "command" $w.command }}{{ end -}}
{{- if $w.args }}{{ $_ := set $container "args" $w.args }}{{ end -}}
{{- $tolerations := dict "list" (list) -}}
{{- include "node-headroom.addTolerations" (dict "items" (concat $poolTaints (default (list) $w.tolerations) $dedicated) "out" $tolerations) -}}
{{- $pod := merge (dict "priorityClassName" $classes.burst.name "securityContext" $security.pod "containers" (list $container) "volumes" (deepCopy $lib.burstVolumes)) (deepCopy $placement) (deepCopy $lib.burstPod) -}}
{{- if $tolerations.list }}{{ $_ := set $pod "tolerations" $tolerations.list }}{{ end -}}
{{- $burst := dict "name" $fullName "image" $w.image "labels" $labels.labels "pod" $pod "spec" (deepCopy $lib.burstSpec) -}}
{{- if kindIs "invalid" $maxReplicas -}}
{{- $_ := set $burst.spec "replicas" $replicas -}}
{{- else -}}
{{- $_ := set $burst "autoscaler" (dict "minReplicas" $replicas "maxReplicas" $maxReplicas "targetCPUUtilization" $target) -}}
{{- end -}}
{{- $bursts = append $bursts $burst -}}
{{- if $v.prepullBurstImages }}{{ $burstImages = append $burstImages $w.image | uniq }}{{ end -}}
{{- end -}}
{{- $_ := set $c "bursts" $bursts -}}

{{- /* HeadroomReserver */ -}}
{{- $security := dict -}}
{{- include "node-headroom.securityContexts" (dict "lib" $lib "uid" $task.runAsUser "into" $security) -}}
{{- $slice := dict "cpu" $cpu "memory" $memory -}}
{{- $container := dict "name" $task.containerName "image" $image "imagePullPolicy" "IfNotPresent" "resources" (dict "requests" $slice "limits" (deepCopy $slice)) "securityContext" $security.container -}}
{{- if $task.command }}{{ $_ := set $container "command" $task.command }}{{ end -}}
{{- if $task.args }}{{ $_ := set $container "args" $task.args }}{{ end -}}
{{- $volumes := list -}}
{{- $mounts := list -}}
{{- range $i, $path := $task.scratchPaths -}}
{{- $volumes = append $volumes (dict "name" (printf "scratch-%d" $i) "emptyDir" (dict)) -}}
{{- $mounts = append $mounts (dict "name" (printf "scratch-%d" $i) "mountPath" $path) -}}
{{- end -}}
{{- if $mounts }}{{ $_ := set $container "volumeMounts" $mounts }}{{ end -}}
{{- $initSecurity := dict -}}
{{- include "node-headroom.securityContexts" (dict "lib" $lib "uid" $lib.prepullRunAsUser "into" $initSecurity) -}}
{{- $inits := list -}}
{{- range $i, $pulled := $prepull -}}
{{- $inits = append $inits (dict "name" (printf "prepull-%d" $i) "image" $pulled "imagePullPolicy" "IfNotPresent" "command" $prepullCommand "resources" (dict "requests" (deepCopy $slice) "limits" (deepCopy $slice)) "securityContext" (deepCopy $initSecurity.container)) -}}
{{- end -}}
{{- $tolerations := dict "list" (list) -}}
{{- include "node-headroom.addTolerations" (dict "items" (concat $poolTaints (default (list) $v.tolerations) $dedicated) "out" $tolerations) -}}
{{- $pod := merge (dict "priorityClassName" $classes.headroom.name "securityContext" $security.pod "containers" (list $container)) (deepCopy $placement) (deepCopy $lib.reserverPod) -}}
{{- if $inits }}{{ $_ := set $pod "initContainers" $inits }}{{ end -}}
{{- if $volumes }}{{ $_ := set $pod "volumes" $volumes }}{{ end -}}
{{- if $tolerations.list }}{{ $_ := set $pod "tolerations" $tolerations.list }}{{ end -}}
{{- $labels := dict -}}
{{- include "node-headroom.workloadLabels" (dict "lib" $lib "labels" $v.labels "name" $reserverName "component" "headroom-reserver" "into" $labels) -}}
{{- $_ := set $c "reserver" (dict "name" $reserverName "labels" $labels.labels "pod" $pod "spec" (deepCopy $lib.reserverSpec)) -}}

{{- /* ImagePrepuller: the burst images, pulled on the reserver's nodes (prepullBurstImages) */ -}}
{{- if $burstImages -}}
{{- $prepullerName := printf "%s%s" $reserverName $lib.prepullerSuffix -}}
{{- include "node-headroom.dnsLabel" (dict "lib" $lib "field" "reserverName" "name" $prepullerName) -}}
{{- $pulls := list (deepCopy $lib.prepullerNoop) -}}
{{- range $i, $pulled := $burstImages -}}
{{- $pulls = append $pulls (merge (dict "name" (printf "pull-%d" $i) "image" $pulled) (deepCopy $lib.prepullerPull)) -}}
{{- end -}}
{{- $prepullerPod := merge (dict "priorityClassName" $classes.headroom.name "initContainers" $pulls) (deepCopy $placement) (deepCopy $lib.prepullerPod) -}}
{{- if $tolerations.list }}{{ $_ := set $prepullerPod "tolerations" $tolerations.list }}{{ end -}}
{{- $prepullerLabels := dict -}}
{{- include "node-headroom.workloadLabels" (dict "lib" $lib "labels" $v.labels "name" $prepullerName "component" "image-prepuller" "into" $prepullerLabels) -}}
{{- $_ := set $c "prepuller" (dict "name" $prepullerName "labels" $prepullerLabels.labels "pod" $prepullerPod "spec" (deepCopy $lib.prepullerSpec)) -}}
{{- end -}}
{{- $_ := set $c "model" $m -}}
{{- $_ := set $c "classLabels" $lib.classLabels -}}
{{- $_ := set $c "warnings" $warnings -}}
{{- end -}}
"""

_CONFIG = '{{- $c := dict }}{{- $_ := include "node-headroom.config" (dict "root" $ "out" $c) }}\n'
_META_LABELS = "{{- toYaml (merge (deepCopy %s) $c.helmLabels) | nindent 4 }}"

NAMESPACE_YAML = (
    _CONFIG
    + """{{- if .Values.namespace.create }}
apiVersion: v1
kind: Namespace
metadata:
  name: {{ $c.namespace.name }}
  labels: """
    + _META_LABELS % "$c.namespace.labels"
    + """
{{- end }}
"""
)

PRIORITY_CLASSES_YAML = (
    _CONFIG
    + """{{- if .Values.priorityClasses.create }}
{{- range $c.classes }}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: {{ .name }}
  labels: """
    + _META_LABELS % "$c.classLabels"
    + """
value: {{ .value }}
globalDefault: {{ .globalDefault }}
preemptionPolicy: {{ .preemptionPolicy }}
description: {{ .description | toJson }}
{{- end }}
{{- end }}
"""
)

DAEMONSET_YAML = (
    _CONFIG
    + """{{- $r := $c.reserver }}
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ $r.name }}
  namespace: {{ $c.namespace.name }}
  labels: """
    + _META_LABELS % "$r.labels"
    + """
spec:
  {{- with $r.spec }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  selector:
    matchLabels:
      app: {{ $r.name }}
  template:
    metadata:
      labels: {{- toYaml $r.labels | nindent 8 }}
    spec: {{- toYaml $r.pod | nindent 6 }}
{{- with $c.prepuller }}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ .name }}
  namespace: {{ $c.namespace.name }}
  labels: """
    + _META_LABELS % ".labels"
    + """
spec:
  {{- with .spec }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  selector:
    matchLabels:
      app: {{ .name }}
  template:
    metadata:
      labels: {{- toYaml .labels | nindent 8 }}
    spec: {{- toYaml .pod | nindent 6 }}
{{- end }}
"""
)

DEPLOYMENTS_YAML = (
    _CONFIG
    + """{{- range $c.bursts }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .name }}
  namespace: {{ $c.namespace.name }}
  labels: """
    + _META_LABELS % ".labels"
    + """
spec:
  {{- with .spec }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  selector:
    matchLabels:
      app: {{ .name }}
  template:
    metadata:
      labels: {{- toYaml .labels | nindent 8 }}
    spec: {{- toYaml .pod | nindent 6 }}
{{- end }}
"""
)

AUTOSCALERS_YAML = (
    _CONFIG
    + """{{- range $b := $c.bursts }}
{{- with $b.autoscaler }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ $b.name }}
  namespace: {{ $c.namespace.name }}
  labels: """
    + _META_LABELS % "$b.labels"
    + """
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ $b.name }}
  minReplicas: {{ .minReplicas }}
  maxReplicas: {{ .maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .targetCPUUtilization }}
{{- end }}
{{- end }}
"""
)

NOTES_TXT = """\
{{- $c := dict }}{{- $_ := include "node-headroom.config" (dict "root" $ "out" $c) }}
node-headroom {{ .Chart.Version }}, release {{ .Release.Name }}, model {{ .Values.model }}.

The DaemonSet {{ $c.reserver.name }} in namespace {{ $c.namespace.name }} holds {{ $c.slice }}
on every node {{- if .Values.nodePool.name }} of node pool {{ .Values.nodePool.name }}{{ else }} (no node pool: every node){{ end }}.
{{ $c.model.note | wrap 88 }}
{{- if $c.bursts }}

Burst workloads, which preempt the reservers to start at once:
{{- range $c.bursts }}
  - {{ .name }}
{{- end }}
{{- end }}
{{- if not .Values.priorityClasses.create }}

This release does not emit the PriorityClasses; these must exist in the cluster:
{{- range $c.classes }}
  - {{ .name }} ({{ .value }})
{{- end }}
{{- end }}
{{- if ne .Values.model "seed" }}

A reserver cannot evict anyone, so on a node that is already full it stays Pending
until the node is replaced. Count the Pending reservers:
  kubectl get pods -n {{ $c.namespace.name }} -l app={{ $c.reserver.name }} --field-selector=status.phase=Pending
{{- end }}
{{- range $c.warnings }}

WARNING: {{ . | wrap 88 }}
{{- end }}
"""
