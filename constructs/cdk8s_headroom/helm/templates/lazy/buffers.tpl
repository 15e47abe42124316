{{/* The buffers' unit (node-headroom.lazy), with the bursts': a burst workload's
     CapacityBuffer and its rules, for the values with a buffer. */}}

{{/* A burst workload's CapacityBuffer (NodeHeadroom.add_capacity_buffer), into .into: .b
     its values, at .at; the workload's name, resources, placement and tolerations. */}}
{{- define "node-headroom.buffer" -}}
{{- $lib := .lib }}{{ $b := .b }}{{ $bat := .at }}{{ $buffer := .into -}}
{{- $zone := $b.zone }}{{ $named := dict "workload" .workload "zone" $zone }}{{ include "node-headroom.recipe.bufferName" $named }}{{ $bufferName := $named.out -}}
{{- include "node-headroom.prefixedName" (dict "lib" $lib "field" $bat "name" $bufferName "release" .release) -}}
{{- with $b.schedule }}{{ $_ := set $buffer "schedule" dict }}{{ include "node-headroom.lazy" (dict "lib" $lib "units" (list "windows") "name" "node-headroom.windows.judge" "args" (dict "lib" $lib "s" . "at" (print $bat ".schedule") "out" $buffer.schedule)) }}{{ end -}}
{{- $props := dict "item" $b }}{{ include "node-headroom.props.buffer" $props }}{{ $props = $props.out }}{{ $form := $props.form -}}
{{- $count := $props.replicas }}{{ $percentage := $props.percentage }}{{ $bufferLimits := default (dict) $b.limits -}}
{{- /* Its rules across its zone and counts (objects/capacity_buffer.py BUFFER_RULES) */ -}}
{{- include "node-headroom.rules.buffer" (dict "lib" $lib "in" (merge (dict "limits" (keys $bufferLimits)) $props) "at" (print $bat ".")) -}}
{{- with $buffer.schedule }}{{ include "node-headroom.lazy" (dict "lib" $lib "units" (list "windows") "name" "node-headroom.windows.count" "args" (dict "lib" $lib "s" . "count" "replicas" "given" $count "at" (print $bat ".schedule") "countAt" (print $bat ".replicas") "stem" $bufferName "limited" (or (not (kindIs "invalid" $percentage)) $bufferLimits))) }}{{ end -}}
{{- if .pool }}{{ include "node-headroom.rule.bufferNotOnAutoMode" (dict "lib" $lib "field" "nodePool.name" "value" .pool "pool" .pool) }}{{ end -}}
{{- $onKarpenter := false -}}
{{- range $r := .requirements -}}
{{- include "node-headroom.rule.bufferNotOnAutoMode" $r -}}
{{- if include "node-headroom.test.onKarpenter" $r }}{{ $onKarpenter = true }}{{ end -}}
{{- end -}}
{{- include "node-headroom.rule.bufferAlphaNotOnKarpenter" (dict "lib" $lib "field" (print $bat ".apiVersion") "value" $b.apiVersion "version" $props.version "onKarpenter" $onKarpenter) }}{{ $request := print (trimSuffix "buffer" $bat) "resources.requests." }}
{{- if or .nodeCpu .nodeMemory }}{{ include "node-headroom.nodeFit.bufferPod" (dict "lib" $lib "pool" .pool "cpu" .resources.requests.cpu "memory" .resources.requests.memory "cpuField" (print $request "cpu") "memoryField" (print $request "memory") "nodeCpu" .nodeCpu "nodeMemory" .nodeMemory) }}{{ end -}}
{{- $bo := dict "helm" .helm "uid" (int64 .uid) "labels" .labels "name" $bufferName "component" $lib.components.buffer "podSecurityContext" $lib.podSecurityContext "containerSecurityContext" $lib.containerSecurityContext }}{{ include "node-headroom.recipe.workload" $bo }}{{ $bo = $bo.out -}}
{{- $_ := set $buffer "name" $bufferName }}{{ $_ := set $buffer "labels" $bo.labels }}{{ $_ := set $buffer "meta" $bo.meta -}}
{{- $_ := set $buffer "apiVersion" (printf "%s/%s" $lib.bufferApiGroup $props.version) -}}
{{- /* Its spec's inputs: its counts (objects/capacity_buffer.py BUFFER_INPUTS), its limits, and the name its form's ref takes (BUFFER_SPEC) */ -}}
{{- $specIn := merge (dict "limits" (dict)) $props -}}
{{- range $resource, $limit := $bufferLimits }}{{ $_ := set $specIn.limits $resource (include "node-headroom.quantity" $limit) }}{{ end -}}
{{- if or (eq $form "podTemplateRef") $b.schedule -}}
{{- $_ := set $specIn "podTemplate" $bufferName -}}
{{- /* Its pod's inputs: the burst pod's resources, devices and placement, and its zone (objects/capacity_buffer.py BUFFER_POD) */ -}}
{{- $in := merge (dict "cpu" .resources.requests.cpu "memory" .resources.requests.memory "cpuLimit" .resources.limits.cpu "memoryLimit" .resources.limits.memory "extendedResources" .devices "zone" $zone "tolerations" .tolerations) .placement -}}
{{- include "node-headroom.recipe.bufferPod" $in }}{{ $_ := set $buffer "pod" $in.out -}}
{{- else -}}
{{- $_ := set $specIn "deployment" .workload -}}
{{- end -}}
{{- include "node-headroom.recipe.bufferSpec" $specIn }}{{ $_ := set $buffer "spec" $specIn.out -}}
{{- with $buffer.schedule }}{{ include "node-headroom.lazy" (dict "lib" $lib "units" (list "windows") "name" "node-headroom.windows.jobs" "args" (dict "lib" $lib "s" . "holder" $buffer "copies" $count "priorityClassName" $.headroomClass)) }}{{ end -}}
{{- end -}}

