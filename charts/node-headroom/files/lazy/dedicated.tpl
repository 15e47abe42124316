{{/* The dedicated pool's unit (node-headroom.lazy): its rules, and the toleration of its
     taint into .out.dedicated, of (dict lib v pool wanted effect out), for the models
     with a tainted pool. */}}
{{- define "node-headroom.dedicated" -}}
{{- $lib := .lib }}{{ $v := .v -}}
{{- include "node-headroom.rule.dedicatedPoolNeedsPool" (dict "lib" $lib "field" "nodePool.name" "value" nil "pool" .pool "taint" .wanted) -}}
{{- $declared := list -}}
{{- range $v.nodePool.taints }}{{ $declared = append $declared (replace "{key}" .key (replace "{value}" (default "" .value) (replace "{effect}" (default $lib.taintDefaults.effect .effect) $lib.taintText))) }}{{ end -}}
{{- include "node-headroom.rule.dedicatedPoolNeedsTaint" (dict "lib" $lib "field" "nodePool.taints" "value" $declared "taint" .wanted "declared" $declared) -}}
{{- $t := $v.dedicatedTaint -}}
{{- $_ := set .out "dedicated" (list (dict "key" $t.key "value" (default "" $t.value) "effect" .effect)) -}}
{{- end -}}
