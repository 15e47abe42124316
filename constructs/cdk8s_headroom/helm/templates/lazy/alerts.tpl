{{/* The alerts' unit (node-headroom.lazy), for alerts.enabled. */}}

{{/* .item, a skeleton of the library's, as JSON with each {place} of .places filled
     (places.fill); a value is escaped as JSON text. */}}
{{- define "node-headroom.fill" -}}
{{- $text := toJson .item -}}
{{- range $key, $value := .places }}{{ $json := toJson (toString $value) }}{{ $text = replace (printf "{%s}" $key) (substr 1 (int (sub (len $json) 1)) $json) $text }}{{ end -}}
{{- $text -}}
{{- end -}}

{{/* The alerts (alerts.enabled, HeadroomAlerts) into .c.alerts: the rule skeletons of
     the parts the headroom has, filled with their recipe's fields (PROMETHEUS_RULE), of
     the parts' names (a reserver held in time windows: its CronJobs) and the values. */}}
{{- define "node-headroom.alerts" -}}
{{- include "node-headroom.load" (list .lib "alerts") -}}
{{- $a := .a }}{{ $la := .lib.alerts -}}
{{- $burstNames := list }}{{ range .bursts }}{{ $burstNames = append $burstNames .name }}{{ end -}}
{{- $reservers := list }}{{ $windows := list }}{{ range .c.reservers }}{{ if .windows }}{{ range .windows }}{{ $windows = append $windows .name }}{{ end }}{{ else }}{{ $reservers = append $reservers .name }}{{ end }}{{ end -}}
{{- $bufferWindows := list }}{{ range .c.buffers }}{{ range .windows }}{{ $bufferWindows = append $bufferWindows .name }}{{ end }}{{ end -}}
{{- $in := dict "headroom" (ternary .reserver (print .prefix $la.headroomWithoutSlices) .slices) "namespace" .c.namespace.name "reservers" $reservers "windows" $windows "buffer_windows" $bufferWindows "bursts" $burstNames "labels" $a.labels "helm" .helm -}}
{{- range $prop, $key := $la.fromValues }}{{ $_ := set $in $prop (include "node-headroom.digits" (index $a $key)) }}{{ end -}}
{{- include "node-headroom.recipe.prometheusRule" $in -}}
{{- $rules := list -}}
{{- range $la.rules }}{{ if index $in.out.fields .watches }}{{ $rules = append $rules .rule }}{{ end }}{{ end -}}
{{- $skeleton := dict "name" (default .lib.names.alerts $a.name) "group" (dict "name" $la.groupName "rules" $rules) -}}
{{- $filled := fromJson (include "node-headroom.fill" (dict "item" $skeleton "places" $in.out.fields)) -}}
{{- $_ := set .c "alerts" (dict "name" $filled.name "labels" $in.out.labels "meta" $in.out.meta "group" $filled.group) -}}
{{- end -}}
