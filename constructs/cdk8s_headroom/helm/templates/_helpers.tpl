{{/* The chart's logic: the rules' generic checks, then the values placed into the
library's objects in the order the library builds them. A template gets the result,
built once per render and kept on the root context, with
{{- $_ := include "node-headroom.config" $ }}{{- $c := $.nodeHeadroom }}

Helm parses every token of these files on every render, and a template's function call
costs about as much as parsing a dozen tokens: the helpers are written for few of both,
on the paths of the default values and of a burst workload, and keep their reasons in
comments, which cost nothing. */}}

{{/* A value as the library's messages show it (errors.shown): null, true and false as
     YAML writes them, text as Python's ascii() quotes it, an empty list as [] (empty). */}}
{{- define "node-headroom.repr" -}}
{{- if kindIs "invalid" . -}}null
{{- else if kindIs "string" . -}}{{ $s := include "node-headroom.escaped" . }}{{ if and (contains "'" $s) (not (contains "\"" $s)) }}"{{ $s }}"{{ else }}'{{ replace "'" "\\'" $s }}'{{ end }}
{{- else if and (kindIs "float64" .) (eq (floor .) .) -}}{{ printf "%.0f" . }}
{{- else if and (kindIs "slice" .) (not .) -}}[] (empty)
{{- else if kindIs "slice" . -}}[{{ range $i, $x := . }}{{ if $i }}, {{ end }}{{ include "node-headroom.repr" $x }}{{ end }}]
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

{{/* Fails as the library does: "<value path>: invalid value <value>; <allowed>". */}}
{{- define "node-headroom.fail" -}}
{{- fail (printf "%s: invalid value %s; %s" .field (include "node-headroom.repr" .value) .allowed) -}}
{{- end -}}

{{/* Decodes files/<name>.json into the library data's <name>, once, of (list lib name):
     the parts a render may not need (library.LAZY_PARTS). */}}
{{- define "node-headroom.load" -}}
{{- $lib := index . 0 }}{{ $name := index . 1 -}}
{{- if not (hasKey $lib $name) }}{{ $_ := set $lib $name (fromJson ($lib.files.Get (printf "files/%s.json" $name))) }}{{ end -}}
{{- end -}}

{{/* A whole number's digits (a boolean's text): an integer (--set's int64) exactly, not through float64. */}}
{{- define "node-headroom.digits" -}}
{{- if kindIs "float64" . }}{{ printf "%.0f" . }}{{ else }}{{ toString . }}{{ end -}}
{{- end -}}

{{/* Checks .value against the single-value rule .rule, as the library data's valueRules
     says it is checked (library.value_rules): clauses (a grammar's), a range, or a map's
     keys and items. */}}
{{- define "node-headroom.check" -}}
{{- $x := .value }}{{ $lib := .lib }}{{ $p := index $lib.valueRules .rule -}}
{{- /* As the library is given it (value_checks._as_given), written back into .in[.key]:
     --set makes numbers and booleans of text, so a whole number (not an integer's)
     becomes its digits, and a boolean (text's only) true or false. Text, the most
     values, stays as it is. */ -}}
{{- if kindIs "string" $x -}}
{{- else if and (not $p.range) (or (kindIs "int64" $x) (kindIs "int" $x) (and (kindIs "float64" $x) (eq (floor $x) $x)) (and (kindIs "bool" $x) (not $p.quantity))) -}}
{{- $limit := index $lib.exactNumber 0 -}}
{{- if and (not (kindIs "bool" $x)) (or (ge (float64 $x) $limit) (le (float64 $x) (mulf $limit -1))) -}}
{{- include "node-headroom.fail" (dict "field" .field "value" $x "allowed" (index $lib.exactNumber 1)) -}}
{{- end -}}
{{- $x = include "node-headroom.digits" $x -}}
{{- if .in }}{{ $_ := set .in .key $x }}{{ end -}}
{{- end -}}
{{- if or (kindIs "invalid" $x) (and (not (kindIs "invalid" .default)) (eq (toString $x) (toString .default))) -}}
{{- else if kindIs "slice" $x -}}
{{- $items := list -}}
{{- range $x }}{{ $one := dict "v" . }}{{ include "node-headroom.check" (dict "lib" $lib "rule" $.rule "value" . "field" $.field "in" $one "key" "v") }}{{ $items = append $items $one.v }}{{ end -}}
{{- if .in }}{{ $_ := set .in .key $items }}{{ end -}}
{{- else if $p.items -}}
{{- range $key, $item := $x -}}
{{- $at := printf "%s['%s']" $.field $key -}}
{{- include "node-headroom.check" (dict "lib" $lib "rule" $p.keys "value" $key "field" $at) -}}
{{- include "node-headroom.check" (dict "lib" $lib "rule" $p.items "value" $item "field" $at "in" $x "key" $key) -}}
{{- end -}}
{{- else if $p.range -}}
{{- if or (not (or (kindIs "int64" $x) (kindIs "int" $x) (and (kindIs "float64" $x) (eq (floor $x) $x)))) (lt (float64 $x) (float64 (index $p.range 0))) (gt (float64 $x) (float64 (index $p.range 1))) -}}
{{- include "node-headroom.fail" (dict "field" .field "value" $x "allowed" (index $p.range 2)) -}}
{{- end -}}
{{- else -}}
{{- if and $p.quantity (kindIs "float64" $x) -}}
{{- /* a whole one is its digits by now: YAML's 0.5, which a user meant as text */ -}}
{{- include "node-headroom.fail" (dict "field" .field "value" $x "allowed" $lib.fractionNumber) -}}
{{- end -}}
{{- $text := $x }}{{ if and $p.quantity (kindIs "string" $x) }}{{ $text = trim $x }}{{ end -}}
{{- /* The clauses in order; text is what they judge (Grammar.check) */ -}}
{{- if not (kindIs "string" $text) }}{{ include "node-headroom.fail" (dict "field" .field "value" $x "allowed" (first $p.clauses).allowed) }}{{ end -}}
{{- range $c := $p.clauses -}}
{{- /* A bound: the length once the matches of cut are removed (rule_language.Clause) */ -}}
{{- if $c.longest -}}
{{- $t := $text }}{{ if $c.cut }}{{ $t = regexReplaceAll $c.cut $text "" }}{{ end -}}
{{- if gt (len $t) (int $c.longest) }}{{ include "node-headroom.fail" (dict "field" $.field "value" $x "allowed" $c.allowed) }}{{ end -}}
{{- else if eq (regexMatch $c.pattern $text) $c.forbid -}}
{{- include "node-headroom.fail" (dict "field" $.field "value" $x "allowed" $c.allowed) -}}
{{- end -}}
{{- end -}}
{{- /* The cap, but for the quantities it cannot refuse (library.cap_free) */ -}}
{{- if and $p.quantity (or (gt (len $text) (int $lib.capFree.longest)) (trimAll $lib.capFree.chars $text)) -}}
{{- include "node-headroom.rule.quantityCap" (dict "lib" $lib "field" .field "value" $x "quantity" $text) -}}
{{- end -}}
{{- if $p.memory -}}
{{- /* Bare digits (the text is a quantity by now, so not empty): bytes, hinted at */ -}}
{{- $hint := ternary "" (replace "{text}" $text $lib.bareBytesHint) (ne (trimAll "0123456789" $text) "") -}}
{{- include "node-headroom.rule.containerMemory" (dict "lib" $lib "field" .field "value" $x "memory" $text "hint" $hint) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Each value's own rule, in the table's order (lib.checks: library.check_groups). A
     top-level value left as its default (toJson as the generator wrote it) skips its rows,
     which files/rows.json holds. A row's steps are the keys of its path's pieces between
     list items; an item is named by its name (a burst workload) or its index. The first
     two pieces are walked here, without a call per row or item; a value left out is
     skipped without a call to check. */}}
{{- define "node-headroom.checks" -}}
{{- $lib := .lib -}}
{{- range $i, $group := $lib.checks -}}
{{- if ne (toJson (index $.root.Values (index $group 0))) (index $group 1) -}}
{{- include "node-headroom.load" (list $lib "rows") -}}
{{- range $row := index $lib.rows.groups $i -}}
{{- $steps := index $row 0 }}{{ $keys := first $steps }}{{ $holder := $.root.Values -}}
{{- range initial $keys }}{{ $holder = default (dict) (index $holder .) }}{{ end -}}
{{- $key := last $keys }}{{ $x := index $holder $key -}}
{{- if kindIs "invalid" $x -}}
{{- else if eq (len $steps) 1 -}}
{{- include "node-headroom.check" (dict "lib" $lib "rule" (index $row 1) "value" $x "field" (join "." $keys) "default" (index $row 2) "in" $holder "key" $key) -}}
{{- else -}}
{{- $at := join "." $keys }}{{ $inner := index $steps 1 -}}
{{- range $n, $item := $x -}}
{{- $field := printf "%s[%v]." $at (ternary $item.name $n (eq $at "burstWorkloads")) -}}
{{- if gt (len $steps) 2 -}}
{{- include "node-headroom.walk" (dict "lib" $lib "node" $item "steps" (rest $steps) "at" $field "rule" (index $row 1) "default" (index $row 2)) -}}
{{- else -}}
{{- $h := $item }}{{ range initial $inner }}{{ $h = default (dict) (index $h .) }}{{ end -}}
{{- $k := last $inner }}{{ $y := index $h $k -}}
{{- if not (kindIs "invalid" $y) }}{{ include "node-headroom.check" (dict "lib" $lib "rule" (index $row 1) "value" $y "field" (print $field (join "." $inner)) "default" (index $row 2) "in" $h "key" $k) }}{{ end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* As node-headroom.checks walks a row, for the pieces of a path past its second list
     (burstWorkloads[].tolerations[].key). */}}
{{- define "node-headroom.walk" -}}
{{- $keys := first .steps }}{{ $holder := .node -}}
{{- range initial $keys }}{{ $holder = default (dict) (index $holder .) }}{{ end -}}
{{- $key := last $keys }}{{ $x := index $holder $key -}}
{{- if kindIs "invalid" $x -}}
{{- else if eq (len .steps) 1 -}}
{{- include "node-headroom.check" (dict "lib" .lib "rule" .rule "value" $x "field" (print .at (join "." $keys)) "default" .default "in" $holder "key" $key) -}}
{{- else -}}
{{- $at := print .at (join "." $keys) -}}
{{- range $i, $item := $x -}}
{{- include "node-headroom.walk" (dict "lib" $.lib "node" $item "steps" (rest $.steps) "at" (printf "%s[%v]." $at $i) "rule" $.rule "default" $.default) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* digits * .factor + .carry, in decimal digits: exact at any length. */}}
{{- define "node-headroom.times" -}}
{{- $carry := index . 2 -}}
{{- $out := "" -}}
{{- range $digit := reverse (splitList "" (index . 0)) -}}
{{- $x := add (mul (atoi $digit) (index $ 1)) $carry -}}
{{- $out = printf "%d%s" (mod $x 10) $out -}}
{{- $carry = div $x 10 -}}
{{- end -}}
{{- if gt $carry 0 }}{{ $carry }}{{ end }}{{ $out -}}
{{- end -}}

{{/* quantity_arithmetic.amount: a quantity in units of 10^-power (3: milli-units, 0: bytes), rounded
     up, as decimal digits; the scheduler counts CPU and memory so. Of (list lib text power). */}}
{{- define "node-headroom.amount" -}}
{{- $lib := index . 0 }}{{ $text := index . 1 }}{{ $exponent := index . 2 -}}
{{- if not (kindIs "string" $text) }}{{ $text = include "node-headroom.digits" $text }}{{ end -}}
{{- $text = trim $text -}}
{{- /* Kept per render on the library data: a request, its slice and the quantity cap
     are compared several times */ -}}
{{- if not (hasKey $lib "amounts") }}{{ $_ := set $lib "amounts" dict }}{{ end -}}
{{- $key := print $text " " $exponent -}}
{{- with index $lib.amounts $key }}{{ . }}{{ else -}}
{{- if and $text (not (trimAll "0123456789" $text)) (not (hasPrefix "0" $text)) -}}
{{- /* Bare digits without leading zeros (the caps, a byte count): the digits, shifted */ -}}
{{- $whole := print $text (repeat (int $exponent) "0") -}}
{{- $_ := set $lib.amounts $key $whole }}{{ $whole -}}
{{- else -}}
{{- $parts := splitList "|" (regexReplaceAll "^\\+?([0-9]*)\\.?([0-9]*)(.*)$" $text "${1}|${2}|${3}") -}}
{{- $fraction := index $parts 1 }}{{ $suffix := index $parts 2 -}}
{{- $digits := print (index $parts 0) $fraction -}}
{{- $binary := 0 -}}
{{- if hasKey $lib.binarySuffixes $suffix }}{{ $binary = index $lib.binarySuffixes $suffix -}}
{{- else if hasKey $lib.decimalSuffixes $suffix }}{{ $exponent = add $exponent (index $lib.decimalSuffixes $suffix) -}}
{{- else }}{{ $exponent = add $exponent (atoi (substr 1 -1 $suffix)) }}{{ end -}}
{{- $point := sub (len $fraction) $exponent -}}
{{- if lt $point 0 }}{{ $digits = print $digits (repeat (int (sub 0 $point)) "0") }}{{ $point = 0 }}{{ end -}}
{{- /* Up to 15 digits times 1024, and 17 plus one, fit int64's arithmetic, which is exact
     and costs a call instead of one per digit; longer ones take times (leading zeros
     make no difference to either) */ -}}
{{- range until (int $binary) }}{{ if le (len $digits) 15 }}{{ $digits = toString (mul (atoi $digits) 1024) }}{{ else }}{{ $digits = include "node-headroom.times" (list $digits 1024 0) }}{{ end }}{{ end -}}
{{- $cut := sub (len $digits) $point -}}
{{- $whole := "0" }}{{ $rest := $digits -}}
{{- if gt $cut 0 }}{{ $whole = substr 0 (int $cut) $digits }}{{ $rest = substr (int $cut) -1 $digits }}{{ end -}}
{{- $up := trimAll "0" $rest -}}
{{- if le (len $whole) 17 }}{{ $whole = toString (add (atoi $whole) (ternary 1 0 (ne $up ""))) -}}
{{- else }}{{ if $up }}{{ $whole = include "node-headroom.times" (list $whole 1 1) }}{{ end }}{{ $whole = default "0" (regexReplaceAll "^0+" $whole "") }}{{ end -}}
{{- $_ := set $lib.amounts $key $whole -}}
{{- $whole -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Whether quantity a exceeds quantity b for resource (cpu or memory), of (list lib a b
     resource): true, or nothing. */}}
{{- define "node-headroom.exceeds" -}}
{{- $lib := index . 0 }}{{ $power := ternary 3 0 (eq (index . 3) "cpu") -}}
{{- $a := include "node-headroom.amount" (list $lib (index . 1) $power) -}}
{{- $b := include "node-headroom.amount" (list $lib (index . 2) $power) -}}
{{- if or (gt (len $a) (len $b)) (and (eq (len $a) (len $b)) (gt $a $b)) }}true{{ end -}}
{{- end -}}

{{/* Given (rule_language.Given): not null, and not an empty text, list or map. */}}
{{- define "node-headroom.given" -}}
{{- if or (not (empty .)) (not (has (kindOf .) (list "invalid" "string" "slice" "map"))) }}true{{ end -}}
{{- end -}}

{{/* A broken rule, of (list operands name): its message (files/messages.json), returned
     with .warn, else the refusal. */}}
{{- define "node-headroom.refuse" -}}
{{- $o := index . 0 }}{{ $m := "" }}{{ include "node-headroom.load" (list $o.lib "messages") -}}
{{- range index $o.lib.messages (index . 1) }}{{ $m = print $m (first .) }}{{ if gt (len .) 1 }}{{ $m = print $m (include (print "node-headroom." (index . 2)) (index $o (index . 1))) }}{{ end }}{{ end -}}
{{- if $o.warn }}{{ $m }}{{ else }}{{ include "node-headroom.fail" (dict "field" $o.field "value" $o.value "allowed" $m) }}{{ end -}}
{{- end -}}

{{/* A quantity as the library emits it: a string, trimmed; a whole number as its digits. */}}
{{- define "node-headroom.quantity" -}}
{{- if kindIs "string" . }}{{ trim . }}{{ else }}{{ include "node-headroom.digits" . }}{{ end -}}
{{- end -}}

{{/* A prefixed workload name must be a DNS-1123 label; the release name is blamed when it made the name too long. */}}
{{- define "node-headroom.prefixedName" -}}
{{- include "node-headroom.rule.prefixedName" (dict "lib" .lib "field" .field "value" .name "name" .name "release" .release "allowed" (first .lib.valueRules.dnsLabel.clauses).allowed) -}}
{{- include "node-headroom.check" (dict "lib" .lib "rule" "dnsLabel" "value" .name "field" .field) -}}
{{- end -}}

{{/* .item, a skeleton of the library's, as JSON with each {place} of .places filled
     (places.fill); a value is escaped as JSON text. */}}
{{- define "node-headroom.fill" -}}
{{- $text := toJson .item -}}
{{- range $key, $value := .places }}{{ $json := toJson (toString $value) }}{{ $text = replace (printf "{%s}" $key) (substr 1 (int (sub (len $json) 1)) $json) $text }}{{ end -}}
{{- $text -}}
{{- end -}}

{{/* A container's resources, into .resources of (list skeleton cpu memory into): the
     library's skeleton, its {cpu} and {memory} places filled (places.fill, without
     fill's round trip through JSON: the skeleton is two levels of text). */}}
{{- define "node-headroom.resources" -}}
{{- $cpu := index . 1 }}{{ $memory := index . 2 }}{{ $out := dict }}{{ $_ := set (index . 3) "resources" $out -}}
{{- range $key, $amounts := index . 0 }}{{ $filled := dict }}{{ $_ := set $out $key $filled -}}
{{- range $resource, $place := $amounts }}{{ $_ := set $filled $resource (replace "{memory}" $memory (replace "{cpu}" $cpu $place)) }}{{ end -}}
{{- end -}}
{{- end -}}

{{/* Appends tolerations (values form) to .out.list in their Kubernetes form, once each. */}}
{{- define "node-headroom.addTolerations" -}}
{{- range .items -}}
{{- $t := dict "operator" (default $.lib.tolerationDefaults.operator .operator) -}}
{{- if .key }}{{ $_ := set $t "key" .key }}{{ end -}}
{{- if .value }}{{ $_ := set $t "value" .value }}{{ end -}}
{{- if .effect }}{{ $_ := set $t "effect" .effect }}{{ end -}}
{{- if not (kindIs "invalid" .tolerationSeconds) }}{{ $_ := set $t "tolerationSeconds" (int64 .tolerationSeconds) }}{{ end -}}
{{- if not (has $t $.out.list) }}{{ $_ := set $.out "list" (append $.out.list $t) }}{{ end -}}
{{- end -}}
{{- end -}}

{{/* The library's workload labels under the user's (labels; meta: with Helm's labels
     under them, as an object's own), and the security contexts of a user id. */}}
{{- define "node-headroom.workload" -}}
{{- $labels := dict }}{{ $meta := dict -}}
{{- range $key, $value := .helm }}{{ $_ := set $meta $key $value }}{{ end -}}
{{- range $key, $value := .labels }}{{ $_ := set $labels $key $value }}{{ $_ := set $meta $key $value }}{{ end -}}
{{- range $key, $pattern := .lib.workloadLabels }}{{ $value := replace "{component}" $.component (replace "{name}" $.name $pattern) }}{{ $_ := set $labels $key $value }}{{ $_ := set $meta $key $value }}{{ end -}}
{{- $uid := int64 .uid -}}
{{- $_ := set .into "labels" $labels -}}
{{- $_ := set .into "meta" $meta -}}
{{- $_ := set .into "pod" (merge (dict "runAsUser" $uid "runAsGroup" $uid "fsGroup" $uid) (deepCopy .lib.podSecurityContext)) -}}
{{- $_ := set .into "container" (merge (dict "runAsUser" $uid "runAsGroup" $uid) (deepCopy .lib.containerSecurityContext)) -}}
{{- end -}}

{{- define "node-headroom.config" -}}
{{- if not (hasKey . "nodeHeadroom") -}}
{{- $c := dict }}{{ $_ := set . "nodeHeadroom" $c }}{{ include "node-headroom.build" (dict "root" . "out" $c) -}}
{{- end -}}
{{- end -}}

{{- define "node-headroom.build" -}}
{{- $root := .root }}{{ $v := $root.Values }}{{ $c := .out -}}
{{- /* JSON numbers are float64: an integer of it is printed through int64 or digits */ -}}
{{- $lib := fromJson ($root.Files.Get "files/library.json") -}}
{{- $_ := set $lib "files" $root.Files }}{{ $_ := set $c "lib" $lib -}}
{{- $warnings := list -}}
{{- $helm := dict "helm.sh/chart" (printf "%s-%s" $root.Chart.Name ($root.Chart.Version | replace "+" "_")) "app.kubernetes.io/managed-by" $root.Release.Service "app.kubernetes.io/instance" $root.Release.Name -}}
{{- $_ := set $c "helmLabels" $helm -}}

{{- /* Every single value, in the table's order (values.VALUES) */ -}}
{{- include "node-headroom.checks" (dict "root" $root "lib" $lib) -}}
{{- /* Each toleration's and node affinity term's rules across its fields (value_checks.check_placement) */ -}}
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
{{- /* The names and the classes */ -}}
{{- /* The name prefix: namePrefix; names.release but for the release named as the chart */ -}}
{{- $prefix := "" }}{{ $release := "" -}}
{{- if kindIs "string" $v.namePrefix }}{{ $prefix = $v.namePrefix }}{{ else if ne $root.Release.Name $lib.chartName }}{{ $prefix = replace "{release}" $root.Release.Name $lib.names.release }}{{ end -}}
{{- $_ := set $c "prefix" $prefix -}}
{{- if and (not (kindIs "string" $v.namePrefix)) (ne $prefix "") }}{{ $release = $root.Release.Name }}{{ $_ := set $c "release" $release }}{{ end -}}
{{- $m := index $lib.models $v.model -}}
{{- $_ := set $c "model" $m -}}
{{- with $m.warning }}{{ $warnings = append $warnings . }}{{ end -}}
{{- $namespace := default (default "default" $root.Release.Namespace) $v.namespace.name -}}
{{- $_ := set $c "namespace" (dict "name" $namespace "labels" $lib.namespaceLabels "annotations" $lib.namespaceAnnotations) -}}
{{- if $v.namespace.create -}}
{{- include "node-headroom.rule.ownNamespace" (dict "lib" $lib "field" "namespace.name" "value" $namespace) -}}
{{- $_ := set $c.namespace "meta" (merge (deepCopy $lib.namespaceLabels) $helm) -}}
{{- end -}}
{{- $pc := $v.priorityClasses }}{{ $dc := $pc.default }}{{ $classes := dict -}}
{{- range $role := list "headroom" "burst" "default" -}}
{{- with index $m $role -}}
{{- $given := index $pc $role }}{{ $value := int64 .value -}}
{{- if not (kindIs "invalid" $given.value) }}{{ $value = int64 $given.value }}{{ end -}}
{{- $_ := set $classes $role (dict "role" $role "name" (default .name $given.name) "value" $value "preemptionPolicy" .preemptionPolicy "globalDefault" .globalDefault "description" .description) -}}
{{- end -}}
{{- end -}}
{{- $ladder := list $classes.headroom -}}
{{- if $classes.default }}{{ $ladder = append $ladder $classes.default }}{{ end -}}
{{- $ladder = append $ladder $classes.burst -}}
{{- $emitted := list $classes.headroom -}}
{{- if and $classes.default (or (kindIs "invalid" $dc.create) $dc.create) }}{{ $emitted = append $emitted $classes.default }}{{ end -}}
{{- $_ := set $c "classes" (append $emitted $classes.burst) -}}
{{- $poolName := $v.nodePool.name -}}
{{- $reserverName := print $prefix (default (ternary (replace "{pool}" (toString $poolName) $lib.names.reserverOnPool) $lib.names.reserver (not (empty $poolName))) $v.reserverName) -}}
{{- $_ := set $c "reserverName" $reserverName -}}
{{- $r := $v.reservation -}}
{{- $cpu := include "node-headroom.quantity" $r.cpu }}{{ $memory := include "node-headroom.quantity" $r.memory -}}
{{- $sliceText := replace "{cpu}" $cpu (replace "{memory}" $memory $lib.sliceText) -}}
{{- $slices := not (and (kindIs "invalid" $r.cpu) (kindIs "invalid" $r.memory)) -}}
{{- $_ := set $c "cpu" $cpu }}{{ $_ := set $c "memory" $memory }}{{ $_ := set $c "slice" $sliceText }}{{ $_ := set $c "slices" $slices -}}
{{- /* A slice of bare cores that reads as millicores: the library warns so too, where the
     pool's node sizes are unknown, as the chart's pools always are
     (quantity.warn_if_cores_look_like_millicores). Bare digits only: trimAll leaves
     nothing of them (regexMatch would compile its pattern on every render). */ -}}
{{- $_ := set $c "bareCores" "" -}}
{{- if and $slices $cpu (not (trimAll "0123456789" $cpu)) -}}
{{- $cores := regexReplaceAll "^0+([0-9])" $cpu "${1}" }}{{ $least := toString (index $lib.bareCores 0) -}}
{{- if or (gt (len $cores) (len $least)) (and (eq (len $cores) (len $least)) (ge $cores $least)) -}}
{{- $_ := set $c "bareCores" $cores -}}
{{- $warnings = append $warnings (replace "{field}" "reservation.cpu" (replace "{text}" $cpu (replace "{cores}" $cores (index $lib.bareCores 1)))) -}}
{{- end -}}
{{- end -}}
{{- /* A buffer on nodes that admit ordinary pods: any pod can take its room */ -}}
{{- $bufferWarnings := list -}}
{{- range $v.burstWorkloads }}{{ if not (kindIs "invalid" .buffer) }}{{ $bufferWarnings = append $bufferWarnings .name }}{{ end }}{{ end -}}
{{- if $bufferWarnings -}}
{{- $keepsOff := false -}}
{{- if $poolName }}{{ range $v.nodePool.taints }}{{ if has (default $lib.taintDefaults.effect .effect) $lib.keepOffEffects }}{{ $keepsOff = true }}{{ end }}{{ end }}{{ end -}}
{{- $where := $lib.bufferWhere.everyNode }}{{ if not (empty $poolName) }}{{ $where = replace "{pool}" (include "node-headroom.repr" $poolName) $lib.bufferWhere.pool }}{{ end -}}
{{- $named := $bufferWarnings }}{{ $bufferWarnings = list -}}
{{- if not $keepsOff }}{{ range $named }}{{ $bufferWarnings = append $bufferWarnings (replace "{where}" $where (replace "{name}" (replace "{workload}" (print $prefix .) $lib.names.buffer) $lib.sharedBufferWarning)) }}{{ end }}{{ end -}}
{{- end -}}
{{- $_ := set $c "bufferWarnings" $bufferWarnings -}}
{{- $model := $v.model -}}

{{- /* A dedicated pool's taint */ -}}
{{- $t := $v.dedicatedTaint -}}
{{- $taintEffect := default $lib.taintDefaults.effect $t.effect -}}
{{- $wanted := replace "{key}" $t.key (replace "{value}" (default "" $t.value) (replace "{effect}" $taintEffect $lib.taintText)) -}}

{{- /* The PriorityClasses of the model */ -}}
{{- range $key := list "create" "name" "value" -}}
{{- $given := index $dc . -}}
{{- include "node-headroom.rule.defaultClassGuardedOnly" (dict "lib" $lib "field" (print "priorityClasses.default." $key) "value" $given "given" $given "model" $model) -}}
{{- end -}}
{{- range $i, $low := initial $ladder -}}
{{- $high := index $ladder (add1 $i) -}}
{{- include "node-headroom.rule.priorityOrder" (dict "lib" $lib "field" (printf "priorityClasses.%s.value" $low.role) "value" $low.value "low" $low.value "high" $high.value "above" $high.role) -}}
{{- end -}}
{{- $seen := dict -}}
{{- range $ladder -}}
{{- include "node-headroom.rule.classNamesDiffer" (dict "lib" $lib "field" (printf "priorityClasses.%s.name" .role) "value" .name "other" (index $seen .name)) -}}
{{- $_ := set $seen .name .role -}}
{{- end -}}

{{- /* The reserver's task */ -}}
{{- $kind := $v.task.kind -}}
{{- /* The default task is no task given */ -}}
{{- include "node-headroom.rule.noTaskWithoutSlices" (dict "lib" $lib "field" "task.kind" "value" $kind "slices" $slices "given" (ternary nil $kind (eq $kind $lib.defaultTask))) -}}
{{- /* The kind's task, with the task values it takes (taskValues) and its image */ -}}
{{- $task := deepCopy (index $lib.tasks $kind) -}}
{{- $taken := index $lib.taskValues $kind -}}
{{- $image := $v }}{{ range splitList "." (index $taken 0) }}{{ $image = index $image . }}{{ end -}}
{{- include "node-headroom.rule.customTaskNeedsImage" (dict "lib" $lib "field" (index $taken 0) "value" $image "image" $image) -}}
{{- range $key := index $taken 1 -}}
{{- if not (kindIs "invalid" (index $v.task $key)) }}{{ $_ := set $task $key (index $v.task $key) }}{{ end -}}
{{- end -}}

{{- /* The reserver's name and placement: the pool's selector and taints, then the user's */ -}}
{{- include "node-headroom.prefixedName" (dict "lib" $lib "field" "reserverName" "name" $reserverName "release" $release) -}}
{{- include "node-headroom.rule.slicesNeedBoth" (dict "lib" $lib "field" "reservation.cpu" "value" nil "quantity" $r.cpu "other" $r.memory) -}}
{{- include "node-headroom.rule.slicesNeedBoth" (dict "lib" $lib "field" "reservation.memory" "value" nil "quantity" $r.memory "other" $r.cpu) -}}
{{- include "node-headroom.rule.noTaskWithoutSlices" (dict "lib" $lib "field" "prepullBurstImages" "value" $v.prepullBurstImages "slices" $slices "given" $v.prepullBurstImages) -}}
{{- $dedicated := list -}}
{{- if $m.taintedPool -}}
{{- include "node-headroom.rule.dedicatedPoolNeedsPool" (dict "lib" $lib "field" "nodePool.name" "value" nil "pool" $poolName "taint" $wanted) -}}
{{- $declared := list -}}
{{- range $v.nodePool.taints }}{{ $declared = append $declared (replace "{key}" .key (replace "{value}" (default "" .value) (replace "{effect}" (default $lib.taintDefaults.effect .effect) $lib.taintText))) }}{{ end -}}
{{- include "node-headroom.rule.dedicatedPoolNeedsTaint" (dict "lib" $lib "field" "nodePool.taints" "value" $declared "taint" $wanted "declared" $declared) -}}
{{- $dedicated = list (dict "key" $t.key "value" (default "" $t.value) "effect" $taintEffect) -}}
{{- end -}}
{{- include "node-headroom.rule.prepullerName" (dict "lib" $lib "field" "reserverName" "value" $reserverName "prepulled" $v.prepullBurstImages "name" $reserverName "limit" $lib.prepullerNameMax "suffix" $lib.prepullerSuffix) -}}
{{- $selector := dict -}}
{{- $poolTaints := list -}}
{{- if $poolName -}}
{{- $_ := set $selector $v.nodePool.labelKey $poolName -}}
{{- range $v.nodePool.taints }}{{ $poolTaints = append $poolTaints (dict "key" .key "value" (default "" .value) "effect" (default $lib.taintDefaults.effect .effect)) }}{{ end -}}
{{- end -}}
{{- range $key, $value := $v.nodeSelector -}}
{{- include "node-headroom.rule.selectorKeepsPool" (dict "lib" $lib "field" (printf "nodeSelector['%s']" $key) "value" $value "selected" (index $selector $key) "pool" $poolName) -}}
{{- $_ := set $selector $key $value -}}
{{- end -}}
{{- /* The placement, and its requirements (a selector entry is key In [value]), with the fields a refusal names */ -}}
{{- $placement := dict }}{{ $requirements := list -}}
{{- if $selector -}}
{{- $_ := set $placement "nodeSelector" $selector -}}
{{- range $key, $value := $selector }}{{ $requirements = append $requirements (dict "lib" $lib "field" (printf "nodeSelector['%s']" $key) "value" $value "key" $key "operator" $lib.selectorEntryOperator "values" (list $value)) }}{{ end -}}
{{- end -}}
{{- if $v.nodeAffinity -}}
{{- $expressions := list -}}
{{- range $v.nodeAffinity -}}
{{- $e := dict "key" .key "operator" .operator -}}
{{- if .values }}{{ $_ := set $e "values" .values }}{{ end -}}
{{- $expressions = append $expressions $e -}}
{{- $requirements = append $requirements (dict "lib" $lib "field" (printf "nodeAffinity[%s]" .key) "value" .operator "key" .key "operator" .operator "values" (default (list) .values)) -}}
{{- end -}}
{{- $_ := set $placement "affinity" (dict "nodeAffinity" (dict "requiredDuringSchedulingIgnoredDuringExecution" (dict "nodeSelectorTerms" (list (dict "matchExpressions" $expressions))))) -}}
{{- end -}}

{{- /* The burst workloads */ -}}
{{- $bursts := list }}{{ $buffers := list }}{{ $burstImages := list }}{{ $names := list -}}
{{- range $index, $w := $v.burstWorkloads -}}
{{- $name := $w.name -}}
{{- include "node-headroom.rule.uniqueBurstNames" (dict "lib" $lib "field" (printf "burstWorkloads[%d].name" $index) "value" $name "name" $name "seen" $names) -}}
{{- $names = append $names $name -}}
{{- $at := printf "burstWorkloads[%s]." $name -}}
{{- $requests := $w.resources.requests -}}
{{- if $slices -}}
{{- range $resource, $slice := dict "cpu" $cpu "memory" $memory -}}
{{- $request := index $requests $resource -}}
{{- $broken := include "node-headroom.rule.burstFitsSlice" (dict "lib" $lib "field" (printf "%sresources.requests.%s" $at $resource) "value" $request "request" $request "room" $slice "resource" $resource "slice" $sliceText "warn" $m.burstOverSliceWarns) -}}
{{- if $broken -}}
{{- $warnings = append $warnings (replace "{field}" (print $at $resource) (replace "{value}" (include "node-headroom.repr" $request) (replace "{message}" $broken $lib.burstOverSliceWarning))) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $fullName := print $prefix $name -}}
{{- include "node-headroom.prefixedName" (dict "lib" $lib "field" (print $at "name") "name" $fullName "release" $release) -}}
{{- /* The library's resources of a burst pod (burstResources), its limits as given */ -}}
{{- $requested := dict "cpu" (include "node-headroom.quantity" $requests.cpu) "memory" (include "node-headroom.quantity" $requests.memory) -}}
{{- $container := dict -}}
{{- include "node-headroom.resources" (list $lib.burstResources $requested.cpu $requested.memory $container) -}}
{{- $resources := $container.resources }}{{ $limits := default (dict) $w.resources.limits -}}
{{- range $resource, $request := $requested -}}
{{- $limit := index $limits $resource -}}
{{- if not (kindIs "invalid" $limit) }}{{ if not $resources.limits }}{{ $_ := set $resources "limits" dict }}{{ end }}{{ $_ := set $resources.limits $resource (include "node-headroom.quantity" $limit) }}{{ end -}}
{{- with $resources.limits }}{{ with index . $resource -}}
{{- include "node-headroom.rule.limitNotBelowRequest" (dict "lib" $lib "field" (printf "%sresources.limits.%s" $at $resource) "value" $limit "request" $request "limit" . "resource" $resource) -}}
{{- end }}{{ end -}}
{{- end -}}
{{- $replicas := $lib.burstDefaults.replicas -}}
{{- if not (kindIs "invalid" $w.replicas) }}{{ $replicas = int64 $w.replicas }}{{ end -}}
{{- $autoscaling := default (dict) $w.autoscaling -}}
{{- $maxReplicas := $autoscaling.maxReplicas -}}
{{- if not (kindIs "invalid" $maxReplicas) -}}
{{- $maxReplicas = int64 $maxReplicas -}}
{{- include "node-headroom.rule.maxReplicasNotBelowReplicas" (dict "lib" $lib "field" (print $at "autoscaling.maxReplicas") "value" $maxReplicas "maxReplicas" $maxReplicas "replicas" $replicas) -}}
{{- include "node-headroom.rule.replicasWithAutoscaler" (dict "lib" $lib "field" (print $at "replicas") "value" $replicas "replicas" $replicas) -}}
{{- end -}}
{{- $uid := $lib.burstDefaults.runAsUser -}}
{{- if not (kindIs "invalid" $w.runAsUser) }}{{ $uid = $w.runAsUser }}{{ end -}}
{{- $o := dict -}}
{{- include "node-headroom.workload" (dict "lib" $lib "helm" $helm "uid" $uid "labels" (ternary $v.labels $w.labels (kindIs "invalid" $w.labels)) "name" $fullName "component" $lib.components.burst "into" $o) -}}
{{- $_ := set $container "name" (default $name $w.containerName) }}{{ $_ := set $container "image" $w.image -}}
{{- $_ := set $container "imagePullPolicy" (default $lib.burstDefaults.imagePullPolicy $w.imagePullPolicy) -}}
{{- $_ := set $container "securityContext" $o.container }}{{ $_ := set $container "volumeMounts" (deepCopy $lib.burstVolumeMounts) -}}
{{- if $w.command }}{{ $_ := set $container "command" $w.command }}{{ end -}}
{{- if $w.args }}{{ $_ := set $container "args" $w.args }}{{ end -}}
{{- $tolerations := dict "list" (list) -}}
{{- include "node-headroom.addTolerations" (dict "items" (concat $poolTaints (default (list) $w.tolerations) $dedicated) "out" $tolerations "lib" $lib) -}}
{{- $pod := merge (dict "priorityClassName" $classes.burst.name "securityContext" $o.pod "containers" (list $container) "volumes" (deepCopy $lib.burstVolumes)) (deepCopy $placement) (deepCopy $lib.burstPod) -}}
{{- if $tolerations.list }}{{ $_ := set $pod "tolerations" $tolerations.list }}{{ end -}}
{{- $burst := dict "kind" $lib.kinds.burst "name" $fullName "labels" $o.labels "meta" $o.meta "pod" $pod "spec" (deepCopy $lib.burstSpec) -}}
{{- if kindIs "invalid" $maxReplicas -}}
{{- $_ := set $burst.spec "replicas" $replicas -}}
{{- else -}}
{{- $target := $lib.burstDefaults.targetCPUUtilization -}}
{{- if not (kindIs "invalid" $autoscaling.targetCPUUtilization) }}{{ $target = int64 $autoscaling.targetCPUUtilization }}{{ end -}}
{{- $_ := set $burst "autoscaler" (dict "minReplicas" $replicas "maxReplicas" $maxReplicas "targetCPUUtilization" $target) -}}
{{- end -}}
{{- $bursts = append $bursts $burst -}}
{{- if $v.prepullBurstImages }}{{ $burstImages = append $burstImages $w.image | uniq }}{{ end -}}
{{- /* Its CapacityBuffer (NodeHeadroom.add_capacity_buffer) */ -}}
{{- if not (kindIs "invalid" $w.buffer) -}}
{{- $buffer := dict -}}
{{- include "node-headroom.buffer" (dict "lib" $lib "helm" $helm "b" $w.buffer "at" (print $at "buffer") "workload" $fullName "release" $release "pool" $poolName "requirements" $requirements "uid" $uid "labels" $v.labels "resources" $resources "placement" $placement "tolerations" $tolerations.list "into" $buffer) -}}
{{- $buffers = append $buffers $buffer -}}
{{- $_ := set $burst "buffer" $buffer -}}
{{- end -}}
{{- end -}}
{{- $_ := set $c "bursts" $bursts -}}
{{- $_ := set $c "buffers" $buffers -}}
{{- include "node-headroom.rule.needsRoom" (dict "lib" $lib "field" "reservation.cpu" "value" nil "slices" $slices "buffers" $buffers) -}}

{{- /* The reserver DaemonSet */ -}}
{{- if $slices -}}
{{- $o := dict -}}
{{- include "node-headroom.workload" (dict "lib" $lib "helm" $helm "uid" $task.runAsUser "labels" $v.labels "name" $reserverName "component" $lib.components.reserver "into" $o) -}}
{{- $container := deepCopy $lib.reserverContainer -}}
{{- include "node-headroom.resources" (list $lib.reserverResources $cpu $memory $container) -}}
{{- $_ := set $container "name" $task.containerName }}{{ $_ := set $container "image" $image }}{{ $_ := set $container "securityContext" $o.container -}}
{{- if $task.command }}{{ $_ := set $container "command" $task.command }}{{ end -}}
{{- if $task.args }}{{ $_ := set $container "args" $task.args }}{{ end -}}
{{- $volumes := list }}{{ $mounts := list -}}
{{- range $i, $path := $task.scratchPaths -}}
{{- $volume := replace "{index}" (toString $i) $lib.names.scratchVolume -}}
{{- $volumes = append $volumes (merge (dict "name" $volume) (deepCopy $lib.scratchVolume)) -}}
{{- $mounts = append $mounts (merge (dict "name" $volume "mountPath" $path) (deepCopy $lib.scratchMount)) -}}
{{- end -}}
{{- if $mounts }}{{ $_ := set $container "volumeMounts" $mounts }}{{ end -}}
{{- $inits := list -}}
{{- with uniq $task.prepullImages -}}
{{- $init := dict "securityContext" (merge (dict "runAsUser" (int64 $lib.prepullRunAsUser) "runAsGroup" (int64 $lib.prepullRunAsUser)) $lib.containerSecurityContext) -}}
{{- include "node-headroom.resources" (list $lib.prepullInitResources $cpu $memory $init) -}}
{{- range $i, $pulled := . -}}
{{- $inits = append $inits (merge (dict "name" (replace "{index}" (toString $i) $lib.names.prepullInit) "image" $pulled "command" $task.prepullCommand) (deepCopy $init) (deepCopy $lib.prepullInit)) -}}
{{- end -}}
{{- end -}}
{{- $tolerations := dict "list" (list) -}}
{{- include "node-headroom.addTolerations" (dict "items" (concat $poolTaints (default (list) $v.tolerations) $dedicated) "out" $tolerations "lib" $lib) -}}
{{- $pod := merge (dict "priorityClassName" $classes.headroom.name "securityContext" $o.pod "containers" (list $container)) (deepCopy $placement) (deepCopy $lib.reserverPod) -}}
{{- if $inits }}{{ $_ := set $pod "initContainers" $inits }}{{ end -}}
{{- if $volumes }}{{ $_ := set $pod "volumes" $volumes }}{{ end -}}
{{- if $tolerations.list }}{{ $_ := set $pod "tolerations" $tolerations.list }}{{ end -}}
{{- $_ := set $c "reserver" (dict "kind" $lib.kinds.reserver "name" $reserverName "labels" $o.labels "meta" $o.meta "pod" $pod "spec" (merge (dict "updateStrategy" (dict "type" $m.reserverUpdateStrategy)) (deepCopy $lib.reserverSpec))) -}}

{{- /* The pre-puller: the burst images, pulled on the reserver's nodes (prepullBurstImages) */ -}}
{{- if $burstImages -}}
{{- $name := replace "{reserver}" $reserverName $lib.names.prepuller -}}
{{- $pulls := list (merge (dict "image" $v.images.prepullTools) (deepCopy $lib.prepullerNoop)) -}}
{{- range $i, $pulled := $burstImages }}{{ $pulls = append $pulls (merge (dict "name" (replace "{index}" (toString $i) $lib.names.pullInit) "image" $pulled) (deepCopy $lib.prepullerPull)) }}{{ end -}}
{{- $pause := merge (dict "image" $v.images.pause) (deepCopy $lib.prepullerPause) -}}
{{- $pod := merge (dict "priorityClassName" $classes.headroom.name "initContainers" $pulls "containers" (list $pause)) (deepCopy $placement) (deepCopy $lib.prepullerPod) -}}
{{- if $tolerations.list }}{{ $_ := set $pod "tolerations" (deepCopy $tolerations.list) }}{{ end -}}
{{- $po := dict -}}
{{- include "node-headroom.workload" (dict "lib" $lib "helm" $helm "uid" $lib.prepullRunAsUser "labels" $v.labels "name" $name "component" $lib.components.prepuller "into" $po) -}}
{{- $_ := set $c "prepuller" (dict "kind" $lib.kinds.prepuller "name" $name "labels" $po.labels "meta" $po.meta "pod" $pod "spec" (deepCopy $lib.prepullerSpec)) -}}
{{- end -}}
{{- end -}}
{{- if $v.alerts.enabled }}{{ include "node-headroom.alerts" (dict "lib" $lib "helm" $helm "a" $v.alerts "c" $c "reserver" $reserverName "slices" $slices "bursts" $bursts) }}{{ end -}}
{{- $_ := set $c "classMeta" (merge (deepCopy $lib.classLabels) $helm) -}}
{{- $_ := set $c "classAnnotations" $lib.classAnnotations -}}
{{- $_ := set $c "warnings" $warnings -}}
{{- end -}}

{{/* A burst workload's CapacityBuffer (NodeHeadroom.add_capacity_buffer), into .into: .b
     its values, at .at; the workload's name, resources, placement and tolerations. */}}
{{- define "node-headroom.buffer" -}}
{{- $lib := .lib }}{{ $b := .b }}{{ $bat := .at }}{{ $buffer := .into -}}
{{- $bufferName := replace "{workload}" .workload $lib.names.buffer -}}
{{- include "node-headroom.prefixedName" (dict "lib" $lib "field" $bat "name" $bufferName "release" .release) -}}
{{- $form := default $lib.bufferDefaults.form $b.form -}}
{{- $count := $b.replicas }}{{ $percentage := $b.percentage }}{{ $bufferLimits := default (dict) $b.limits -}}
{{- $counts := dict "percentage" $percentage "replicas" $count -}}
{{- include "node-headroom.rule.bufferPercentageNeedsScalable" (merge (dict "lib" $lib "field" (print $bat ".percentage") "value" $percentage "form" $form) $counts) -}}
{{- include "node-headroom.rule.bufferOneCount" (merge (dict "lib" $lib "field" (print $bat ".percentage") "value" $percentage) $counts) -}}
{{- include "node-headroom.rule.bufferNeedsCount" (merge (dict "lib" $lib "field" (print $bat ".replicas") "value" nil "limits" (keys $bufferLimits)) $counts) -}}
{{- if .pool }}{{ include "node-headroom.rule.bufferNotOnAutoMode" (dict "lib" $lib "field" "nodePool.name" "value" .pool "pool" .pool) }}{{ end -}}
{{- $onKarpenter := false -}}
{{- range $r := .requirements -}}
{{- include "node-headroom.rule.bufferNotOnAutoMode" $r -}}
{{- if include "node-headroom.test.onKarpenter" $r }}{{ $onKarpenter = true }}{{ end -}}
{{- end -}}
{{- $version := default $lib.bufferDefaults.apiVersion $b.apiVersion -}}
{{- include "node-headroom.rule.bufferAlphaNotOnKarpenter" (dict "lib" $lib "field" (print $bat ".apiVersion") "value" $b.apiVersion "version" $version "onKarpenter" $onKarpenter) -}}
{{- $bo := dict -}}
{{- include "node-headroom.workload" (dict "lib" $lib "helm" .helm "uid" .uid "labels" .labels "name" $bufferName "component" $lib.components.buffer "into" $bo) -}}
{{- $spec := deepCopy $lib.bufferSpec -}}
{{- $_ := set $buffer "name" $bufferName }}{{ $_ := set $buffer "labels" $bo.labels }}{{ $_ := set $buffer "meta" $bo.meta -}}
{{- $_ := set $buffer "apiVersion" (printf "%s/%s" $lib.bufferApiGroup $version) }}{{ $_ := set $buffer "spec" $spec -}}
{{- if eq $form "podTemplateRef" -}}
{{- $_ := set $spec "podTemplateRef" (dict "name" $bufferName) -}}
{{- $bufferPod := merge (dict "containers" (list (merge (dict "resources" (deepCopy .resources)) (deepCopy $lib.bufferContainer)))) (deepCopy .placement) (deepCopy $lib.bufferPod) -}}
{{- if .tolerations }}{{ $_ := set $bufferPod "tolerations" (deepCopy .tolerations) }}{{ end -}}
{{- $_ := set $buffer "pod" $bufferPod -}}
{{- else -}}
{{- $_ := set $spec "scalableRef" (merge (dict "name" .workload) $lib.bufferScalableRef) -}}
{{- end -}}
{{- if not (kindIs "invalid" $count) }}{{ $_ := set $spec "replicas" (int64 $count) }}{{ end -}}
{{- if not (kindIs "invalid" $percentage) }}{{ $_ := set $spec "percentage" (int64 $percentage) }}{{ end -}}
{{- if $bufferLimits -}}
{{- $_ := set $spec "limits" (dict) -}}
{{- range $resource, $limit := $bufferLimits }}{{ $_ := set $spec.limits $resource (include "node-headroom.quantity" $limit) }}{{ end -}}
{{- end -}}
{{- end -}}

{{/* The alerts (alerts.enabled, HeadroomAlerts) into .c.alerts: the library's rule
     skeletons, the alerts of what the headroom has, their {field} places filled
     (alert_rules.fill). */}}
{{- define "node-headroom.alerts" -}}
{{- include "node-headroom.load" (list .lib "alerts") -}}
{{- $a := .a }}{{ $la := .lib.alerts }}{{ $slices := .slices -}}
{{- $burstNames := list }}{{ range .bursts }}{{ $burstNames = append $burstNames .name }}{{ end -}}
{{- $fields := dict "headroom" (ternary .reserver $la.headroomWithoutSlices $slices) "namespace" .c.namespace.name "reserver" (ternary .reserver "" $slices) "bursts" (join $la.burstsSeparator $burstNames) -}}
{{- range $prop, $key := $la.fromValues }}{{ $_ := set $fields $prop (include "node-headroom.digits" (index $a $key)) }}{{ end -}}
{{- $present := dict "slices" $slices "bursts" (not (empty .bursts)) -}}
{{- $rules := list -}}
{{- range $la.rules }}{{ if index $present .watches }}{{ $rules = append $rules .rule }}{{ end }}{{ end -}}
{{- $skeleton := dict "name" (default .lib.names.alerts $a.name) "group" (dict "name" $la.groupName "rules" $rules) -}}
{{- $filled := fromJson (include "node-headroom.fill" (dict "item" $skeleton "places" $fields)) -}}
{{- $labels := merge (deepCopy $la.labels) (default (dict) $a.labels) -}}
{{- $_ := set .c "alerts" (dict "name" $filled.name "labels" $labels "meta" (merge (deepCopy $labels) .helm) "group" $filled.group) -}}
{{- end -}}
