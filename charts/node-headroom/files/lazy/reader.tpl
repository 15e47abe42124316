{{/* The reader's unit (node-headroom.lazy), for reader.create. */}}

{{/* The reader (reader.add_reader) into .c.reader: the library's ClusterRole, named
     reader.name or names.reader after the prefix. */}}
{{- define "node-headroom.reader" -}}
{{- include "node-headroom.load" (list .lib "reader") -}}
{{- $lr := .lib.reader -}}
{{- $name := default (print .prefix .lib.names.reader) .r.name -}}
{{- $meta := merge (deepCopy $lr.labels) .helm -}}
{{- $_ := set .c "reader" (dict "name" $name "apiVersion" $lr.apiVersion "meta" $meta "rules" $lr.rules) -}}
{{- end -}}
