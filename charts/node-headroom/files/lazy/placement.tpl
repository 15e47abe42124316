{{/* The placement's unit (node-headroom.lazy): each toleration's and node affinity
     term's rules across its fields (value_checks.check_placement), of (dict lib v), for
     the values that have tolerations or node affinity. */}}
{{- define "node-headroom.placement" -}}
{{- $lib := .lib }}{{ $v := .v -}}
{{- $lists := list (list "tolerations" $v.tolerations) -}}
{{- range $v.burstWorkloads }}{{ $lists = append $lists (list (printf "burstWorkloads[%v].tolerations" .name) .tolerations) }}{{ end -}}
{{- range $pair := $lists }}{{ range $i, $t := index $pair 1 -}}
{{- $at := printf "%s[%d]." (index $pair 0) $i }}{{ $operator := default $lib.tolerationDefaults.operator $t.operator -}}
{{- include "node-headroom.rule.tolerationNeedsKey" (dict "lib" $lib "field" (print $at "key") "value" (default "" $t.key) "key" $t.key "operator" $operator) -}}
{{- include "node-headroom.rule.tolerationExistsWithoutValue" (dict "lib" $lib "field" (print $at "value") "value" (default "" $t.value) "operator" $operator) -}}
{{- include "node-headroom.rule.tolerationSecondsNoExecute" (dict "lib" $lib "field" (print $at "tolerationSeconds") "value" $t.tolerationSeconds "effect" $t.effect) -}}
{{- end }}{{ end -}}
{{- range $v.nodeAffinity -}}
{{- $r := dict "lib" $lib "field" (printf "nodeAffinity[%s].values" .key) "value" (default (list) .values) "operator" .operator "values" (default (list) .values) -}}
{{- range $rule := list "requirementNeedsValues" "requirementNoValues" "requirementOneInteger" }}{{ include (print "node-headroom.rule." $rule) $r }}{{ end -}}
{{- end -}}
{{- end -}}
