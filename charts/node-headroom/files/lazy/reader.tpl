{{/* The reader's unit (node-headroom.lazy), for reader.create. */}}

{{/* The reader (reader.add_reader) into .c.reader: the library's ClusterRole, named
     reader.name or names.reader after the prefix, and its subjects, each the library's
     subject of its kind with the kind and name placed, and the namespace where the
     kind has one (reader.subject), after their rules across fields. */}}
{{- define "node-headroom.reader" -}}
{{- include "node-headroom.load" (list .lib "reader") -}}
{{- $lib := .lib }}{{ $lr := .lib.reader }}{{ $r := .r }}{{ $namespace := .c.namespace.name -}}
{{- $subjects := list -}}
{{- range $i, $item := $r.subjects -}}
{{- $at := printf "reader.subjects[%d]." $i -}}
{{- include "node-headroom.fields.subject" (dict "lib" $lib "at" $at "item" $item) -}}
{{- $s := merge (dict "kind" $item.kind "name" $item.name) (deepCopy (index $lr.subjects $item.kind)) -}}
{{- if hasKey $s "namespace" }}{{ $_ := set $s "namespace" (default $namespace $item.namespace) }}{{ end -}}
{{- $subjects = append $subjects $s -}}
{{- end -}}
{{- $name := default (print .prefix .lib.names.reader) $r.name -}}
{{- $meta := merge (deepCopy $lr.labels) .helm -}}
{{- $_ := set .c "reader" (dict "name" $name "apiVersion" $lr.apiVersion "meta" $meta "rules" $lr.rules "roleRef" (merge (dict "name" $name) $lr.roleRef) "subjects" $subjects) -}}
{{- end -}}
