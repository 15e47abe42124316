{{/* The refusals' unit (node-headroom.lazy): how a message shows a value. Parsed only
     when a render refuses a value, or warns with one. */}}

{{/* A value as the library's messages show it (errors.shown): null, true and false as
     YAML writes them, text as Python's ascii() quotes it, an empty list as [] (empty). */}}
{{- define "node-headroom.repr" -}}
{{- if kindIs "invalid" . -}}null
{{- else if kindIs "string" . -}}{{ $s := include "node-headroom.escaped" . }}{{ if and (contains "'" $s) (not (contains "\"" $s)) }}"{{ $s }}"{{ else }}'{{ replace "'" "\\'" $s }}'{{ end }}
{{- else if and (kindIs "float64" .) (eq (floor .) .) -}}{{ printf "%.0f" . }}
{{- else if and (kindIs "slice" .) (not .) -}}[] (empty)
{{- else if kindIs "slice" . -}}[{{ range $i, $x := . }}{{ if $i }}, {{ end }}{{ include "node-headroom.repr" $x }}{{ end }}]
{{- else if kindIs "map" . -}}{{ "{" }}{{ range $i, $k := keys . | sortAlpha }}{{ if $i }}, {{ end }}{{ include "node-headroom.repr" $k }}: {{ include "node-headroom.repr" (index $ $k) }}{{ end }}{{ "}" }}
{{- else -}}{{ . }}
{{- end -}}
{{- end -}}

{{/* Text with its backslashes, control and non-ASCII characters escaped as Python's
     ascii() escapes them, unquoted: Go's %+q, whose \a \b \f \v, \" and \u0080-\u00ff
     Python writes \x07 \x08 \x0c \x0b, " and \x80-\xff. */}}
{{- define "node-headroom.escaped" -}}
{{- if regexMatch "[^ -~]|\\\\" . -}}
{{- $q := printf "%+q" . -}}
{{- $python := dict "\\a" "\\x07" "\\b" "\\x08" "\\f" "\\x0c" "\\v" "\\x0b" "\\\"" "\"" -}}
{{- range $t := regexFindAll "\\\\u00[89a-f][0-9a-f]|\\\\U[0-9a-f]{8}|\\\\u[0-9a-f]{4}|\\\\x[0-9a-f]{2}|\\\\.|[^\\\\]+" (substr 1 (int (sub (len $q) 1)) $q) -1 -}}
{{- if hasKey $python $t }}{{ index $python $t }}{{ else if regexMatch "^\\\\u00[89a-f]" $t }}\x{{ substr 4 6 $t }}{{ else }}{{ $t }}{{ end -}}
{{- end -}}
{{- else -}}{{ . }}
{{- end -}}
{{- end -}}

{{/* repr of .value into .out.text (tpl's output is not a helper's: it drops any
     "<no value>" in it). */}}
{{- define "node-headroom.shown" -}}
{{- $_ := set .out "text" (include "node-headroom.repr" .value) -}}
{{- end -}}
