{{/*
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
