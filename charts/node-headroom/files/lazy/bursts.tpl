{{/* The bursts' unit (node-headroom.lazy), for the values with burst workloads: their
     Deployments, their rules and, with the buffers' unit, their CapacityBuffers, into the
     build's .c (bursts, buffers, bufferWarnings, prepuller), in the order the library
     builds them; its warnings appended to .warnings. */}}
{{- define "node-headroom.bursts" -}}
{{- $lib := .lib }}{{ $v := .v }}{{ $c := .c }}{{ $helm := .helm }}{{ $prefix := .prefix }}{{ $release := .release -}}
{{- $slices := .slices }}{{ $cpu := .cpu }}{{ $memory := .memory }}{{ $sliceText := .sliceText }}{{ $m := .m -}}
{{- $poolName := .poolName }}{{ $requirements := .requirements }}{{ $placement := .placement -}}
{{- $poolTaints := .poolTaints }}{{ $dedicated := .dedicated }}{{ $classes := .classes }}{{ $reserverName := .reserverName -}}
{{- $warnings := .warnings -}}
{{- /* A buffer on nodes that admit ordinary pods: any pod can take its room */ -}}
{{- $named := list }}{{ range $v.burstWorkloads }}{{ if not (kindIs "invalid" .buffer) }}{{ $in := dict "workload" (print $prefix .name) "zone" .buffer.zone }}{{ include "node-headroom.recipe.bufferName" $in }}{{ $named = append $named $in.out }}{{ end }}{{ end -}}
{{- if $named -}}
{{- $keepsOff := false -}}
{{- if $poolName }}{{ range $v.nodePool.taints }}{{ if has (default $lib.taintDefaults.effect .effect) $lib.keepOffEffects }}{{ $keepsOff = true }}{{ end }}{{ end }}{{ end -}}
{{- $where := $lib.bufferWhere.everyNode }}{{ if not (empty $poolName) }}{{ $where = replace "{pool}" (include "node-headroom.shownBy" (list $lib $poolName)) $lib.bufferWhere.pool }}{{ end -}}
{{- $bufferWarnings := list -}}
{{- if not $keepsOff }}{{ range $named }}{{ $bufferWarnings = append $bufferWarnings (replace "{where}" $where (replace "{name}" . $lib.sharedBufferWarning)) }}{{ end }}{{ end -}}
{{- $_ := set $c "bufferWarnings" $bufferWarnings -}}
{{- end -}}
{{- $bursts := list }}{{ $buffers := list }}{{ $burstImages := list }}{{ $names := list -}}
{{- range $index, $w := $v.burstWorkloads -}}
{{- $name := $w.name -}}
{{- include "node-headroom.rule.uniqueBurstNames" (dict "lib" $lib "field" (printf "burstWorkloads[%d].name" $index) "value" $name "name" $name "seen" $names) -}}
{{- $names = append $names $name -}}
{{- $at := printf "burstWorkloads[%s]." $name -}}
{{- $requests := $w.resources.requests -}}
{{- if $slices -}}
{{- range $resource, $held := default (dict "cpu" (list $cpu $sliceText) "memory" (list $memory $sliceText)) $c.held -}}
{{- $request := index $requests $resource -}}
{{- $broken := include "node-headroom.rule.burstFitsSlice" (dict "lib" $lib "field" (printf "%sresources.requests.%s" $at $resource) "value" $request "request" $request "room" (index $held 0) "resource" $resource "slice" (index $held 1) "warn" $m.burstOverSliceWarns) -}}
{{- if $broken -}}
{{- $warnings = append $warnings (replace "{field}" (printf "%sresources.requests.%s" $at $resource) (replace "{value}" (include "node-headroom.shownBy" (list $lib $request)) (replace "{message}" $broken $lib.burstOverSliceWarning))) -}}
{{- end -}}
{{- end }}{{ range $device, $count := $w.extendedResources }}{{ include "node-headroom.rule.burstDevicesWithinSlice" (dict "lib" $lib "field" (printf "%sextendedResources['%s']" $at $device) "value" $count "request" $count "room" (default "0" (index (default (dict) $v.reservation.extendedResources) $device)) "device" $device) }}{{ end -}}
{{- end -}}
{{- $fullName := print $prefix $name -}}
{{- include "node-headroom.prefixedName" (dict "lib" $lib "field" (print $at "name") "name" $fullName "release" $release) -}}
{{- /* Its limits as given, judged against its requests; the recipe takes a request for a limit not given (objects/burst.py BURST_RESOURCES) */ -}}
{{- $requested := dict "cpu" (include "node-headroom.quantity" $requests.cpu) "memory" (include "node-headroom.quantity" $requests.memory) -}}
{{- $limits := default (dict) $w.resources.limits }}{{ $limited := dict -}}
{{- range $resource, $request := $requested -}}
{{- $limit := index $limits $resource -}}
{{- if not (kindIs "invalid" $limit) -}}
{{- $_ := set $limited $resource (include "node-headroom.quantity" $limit) -}}
{{- include "node-headroom.rule.limitNotBelowRequest" (dict "lib" $lib "field" (printf "%sresources.limits.%s" $at $resource) "value" $limit "request" $request "limit" (index $limited $resource) "resource" $resource) -}}
{{- end -}}
{{- end -}}
{{- /* Its props as its recipes take them, with their defaults (objects/burst.py BURST_INPUTS), and its rules across them (BURST_RULES); with its name, the inputs of its Deployment's replicas and of its autoscaler's spec, whose recipes decide them (DEPLOYMENT_FIELDS, AUTOSCALER_SPEC) */ -}}
{{- $props := dict "item" $w }}{{ include "node-headroom.props.burst" $props }}{{ $props = $props.out -}}
{{- $scaling := merge (dict "name" $fullName) $props }}{{ include "node-headroom.rules.burst" (dict "lib" $lib "in" $props "at" $at) -}}
{{- $o := dict "helm" $helm "uid" $props.uid "labels" (ternary $v.labels $w.labels (kindIs "invalid" $w.labels)) "name" $fullName "component" $lib.components.burst "podSecurityContext" $lib.podSecurityContext "containerSecurityContext" $lib.containerSecurityContext }}{{ include "node-headroom.recipe.workload" $o }}{{ $o = $o.out -}}
{{- $tolerations := dict "lib" $lib "items" (concat $poolTaints (default (list) $w.tolerations) $dedicated) }}{{ include "node-headroom.tolerations" $tolerations -}}
{{- /* The inputs of its pod, whose recipe decides its fields (objects/burst.py BURST_POD) */ -}}
{{- $in := merge (dict "priorityClassName" $classes.burst.name "podSecurityContext" $o.pod "containerSecurityContext" $o.container "containerName" (default $name $w.containerName) "cpu" $requested.cpu "memory" $requested.memory "cpuLimit" $limited.cpu "memoryLimit" $limited.memory "extendedResources" $w.extendedResources "tolerations" $tolerations.out) $props $placement -}}
{{- include "node-headroom.recipe.burstPod" $in -}}
{{- $resources := (first $in.out.containers).resources -}}
{{- include "node-headroom.recipe.burstSpec" $scaling -}}
{{- $burst := dict "kind" $lib.kinds.burst "name" $fullName "labels" $o.labels "meta" $o.meta "pod" $in.out "spec" $scaling.out -}}
{{- if not (kindIs "invalid" $scaling.maxReplicas) }}{{ $_ := set $burst "autoscaler" $scaling }}{{ end -}}
{{- $bursts = append $bursts $burst -}}
{{- if $v.prepullBurstImages }}{{ $burstImages = append $burstImages $w.image | uniq }}{{ end -}}
{{- /* Its CapacityBuffer (NodeHeadroom.add_capacity_buffer) */ -}}
{{- if not (kindIs "invalid" $w.buffer) -}}
{{- $buffer := dict -}}
{{- include "node-headroom.buffer" (dict "lib" $lib "helm" $helm "b" $w.buffer "at" (print $at "buffer") "workload" $fullName "release" $release "pool" $poolName "nodeCpu" $v.nodePool.nodeCpu "nodeMemory" $v.nodePool.nodeMemory "requirements" $requirements "uid" $props.uid "labels" $v.labels "resources" $resources "devices" $w.extendedResources "placement" $placement "tolerations" $tolerations.out "headroomClass" $classes.headroom.name "into" $buffer) -}}
{{- $buffers = append $buffers $buffer -}}
{{- $_ := set $burst "buffer" $buffer -}}
{{- end -}}
{{- end -}}
{{- $_ := set $c "bursts" $bursts }}{{ $_ := set $c "buffers" $buffers }}{{ $_ := set . "warnings" $warnings -}}

{{- /* The pre-puller: the burst images, pulled on the reserver's nodes (prepullBurstImages) */ -}}
{{- if and $slices $burstImages -}}
{{- /* On the reserver's nodes, with its tolerations (the build's) */ -}}
{{- $name := replace "{reserver}" $reserverName $lib.names.prepuller -}}
{{- /* The inputs of its pod, whose recipe decides its fields, its users' too (objects/prepuller.py PREPULLER_POD): of the workload's recipe, only its labels are taken */ -}}
{{- $in := merge (dict "priorityClassName" $classes.headroom.name "toolsImage" $v.images.prepullTools "pauseImage" $v.images.pause "images" $burstImages "tolerations" $.reserverTolerations) $placement -}}
{{- include "node-headroom.recipe.prepullerPod" $in -}}
{{- $po := dict "helm" $helm "labels" $v.labels "name" $name "component" $lib.components.prepuller }}{{ include "node-headroom.recipe.workload" $po }}{{ $po = $po.out -}}
{{- $_ := set $c "prepuller" (dict "kind" $lib.kinds.prepuller "name" $name "labels" $po.labels "meta" $po.meta "pod" $in.out "spec" (deepCopy $lib.prepullerSpec)) -}}
{{- end -}}
{{- end -}}
