{{/* The alerts' unit (node-headroom.lazy), for alerts.enabled. */}}

{{/* .item, a skeleton of the library's, as JSON with each {place} of .places filled
     (places.fill); a value is escaped as JSON text. */}}
{{- define "node-headroom.fill" -}}
{{- $text := toJson .item -}}
{{- range $key, $value := .places }}{{ $json := toJson (toString $value) }}{{ $text = replace (printf "{%s}" $key) (substr 1 (int (sub (len $json) 1)) $json) $text }}{{ end -}}
{{- $text -}}
{{- end -}}

{{/* The alerts (alerts.enabled, HeadroomAlerts) into .c.alerts: the library's rule
     skeletons, the alerts of what the headroom has (reserver DaemonSets, or the CronJobs
     of the slices' windows in their place; the buffers' windows' CronJobs), filled. */}}
{{- define "node-headroom.alerts" -}}
{{- include "node-headroom.load" (list .lib "alerts") -}}
{{- $a := .a }}{{ $la := .lib.alerts }}{{ $slices := .slices -}}
{{- $burstNames := list }}{{ range .bursts }}{{ $burstNames = append $burstNames .name }}{{ end -}}
{{- $reservers := list }}{{ $windows := list }}{{ range .c.reservers }}{{ if .windows }}{{ range .windows }}{{ $windows = append $windows .name }}{{ end }}{{ else }}{{ $reservers = append $reservers .name }}{{ end }}{{ end -}}
{{- $bufferWindows := list }}{{ range .c.buffers }}{{ range .windows }}{{ $bufferWindows = append $bufferWindows .name }}{{ end }}{{ end -}}
{{- $fields := dict "headroom" (ternary .reserver (print .prefix $la.headroomWithoutSlices) $slices) "namespace" .c.namespace.name "reserver" (join $la.shownSeparator (concat $reservers $windows)) "reservers" (join $la.alternation $reservers) "windows" (join $la.alternation $windows) "buffer_windows" (join $la.alternation $bufferWindows) "bursts" (join $la.alternation $burstNames) -}}
{{- range $prop, $key := $la.fromValues }}{{ $_ := set $fields $prop (include "node-headroom.digits" (index $a $key)) }}{{ end -}}
{{- $present := dict "slices" (not (empty $reservers)) "windows" (not (empty $windows)) "bursts" (not (empty .bursts)) "bufferWindows" (not (empty $bufferWindows)) -}}
{{- $rules := list -}}
{{- range $la.rules }}{{ if index $present .watches }}{{ $rules = append $rules .rule }}{{ end }}{{ end -}}
{{- $skeleton := dict "name" (default .lib.names.alerts $a.name) "group" (dict "name" $la.groupName "rules" $rules) -}}
{{- $filled := fromJson (include "node-headroom.fill" (dict "item" $skeleton "places" $fields)) -}}
{{- $labels := merge (deepCopy $la.labels) (default (dict) $a.labels) -}}
{{- $_ := set .c "alerts" (dict "name" $filled.name "labels" $labels "meta" (merge (deepCopy $labels) .helm) "group" $filled.group) -}}
{{- end -}}
