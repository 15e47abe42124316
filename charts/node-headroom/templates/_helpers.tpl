{{/* The chart's logic: the rules' generic checks, then the values placed into the
library's objects in the order the library builds them. A template gets the result,
built once per render and kept on the root context, with
{{- $_ := include "node-headroom.config" $ }}{{- $c := $.nodeHeadroom }}

Helm parses every token of templates/ on every render, and a template's function call
costs about as much as parsing a dozen tokens: the helpers are written for few of both,
on the paths of the default values and of a burst workload, and keep their reasons in
comments, which cost nothing. The code that only some values run (the burst workloads',
the buffers', the alerts', the refusals'...) is in lazy units, files/lazy/, which
node-headroom.lazy parses when a render runs them. */}}

{{/* Fails as the library does: "<value path>: invalid value <value>; <allowed>". */}}
{{- define "node-headroom.fail" -}}
{{- fail (printf "%s: invalid value %s; %s" .field (include "node-headroom.shownBy" (list .lib .value)) .allowed) -}}
{{- end -}}

{{/* Runs .name, a helper of the lazy units .units, on .args: each unit is
     files/lazy/<unit>.tpl, and the rules only it calls (<unit>-rules.tpl, generated).
     Helm parses every token of templates/ on every render, and a call costs about as
     much as parsing a dozen; tpl parses a unit when a render runs it: the bursts'
     code, the buffers', the alerts', the refusals', which the defaults never run. A unit
     calls any helper of templates/, and gives back through the maps in .args (tpl's
     output drops any "<no value>" in it). */}}
{{- define "node-headroom.lazy" -}}
{{- $files := .lib.files }}{{ $code := "" -}}
{{- range .units }}{{ $code = print $code ($files.Get (printf "files/lazy/%s.tpl" .)) ($files.Get (printf "files/lazy/%s-rules.tpl" .)) }}{{ end -}}
{{- $_ := tpl (print $code (printf "{{- include %q . -}}" .name)) .args -}}
{{- end -}}

{{/* A value as the library's messages show it (errors.shown), of (list lib value): the
     refusals' unit's node-headroom.repr. */}}
{{- define "node-headroom.shownBy" -}}
{{- $out := dict -}}
{{- include "node-headroom.lazy" (dict "lib" (index . 0) "units" (list "refusals") "name" "node-headroom.shown" "args" (dict "value" (index . 1) "out" $out)) -}}
{{- $out.text -}}
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

{{/* Checks .value against the single-value rule .rule (a share's, .share, if it is one), as
     library.value_rules says: clauses (a grammar's), a range, or a map's keys and items; the
     rules only a share's values need are in the shares' data (library.SHARE_VALUE_RULES). */}}
{{- define "node-headroom.check" -}}
{{- $x := .value }}{{ $lib := .lib }}{{ $p := index $lib.valueRules .rule -}}
{{- if or (not $p) (and .share (kindIs "string" $x) (hasSuffix $lib.shareMark (trim $x))) }}{{ include "node-headroom.load" (list $lib "shares") }}{{ $p = index $lib.shares.valueRules (ternary .rule .share (not $p)) }}{{ end -}}
{{- /* As the library is given it (value_checks._as_given), written back into .in[.key]:
     --set makes numbers and booleans of text, so a whole number (not an integer's)
     becomes its digits, and a boolean (text's only) true or false. Text, the most
     values, stays as it is. */ -}}
{{- if kindIs "string" $x -}}
{{- else if and (not $p.range) (or (kindIs "int64" $x) (kindIs "int" $x) (and (kindIs "float64" $x) (eq (floor $x) $x)) (and (kindIs "bool" $x) (not $p.quantity))) -}}
{{- $limit := index $lib.exactNumber 0 -}}
{{- if and (not (kindIs "bool" $x)) (or (ge (float64 $x) $limit) (le (float64 $x) (mulf $limit -1))) -}}
{{- include "node-headroom.fail" (dict "lib" $lib "field" .field "value" $x "allowed" (index $lib.exactNumber 1)) -}}
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
{{- include "node-headroom.fail" (dict "lib" $lib "field" .field "value" $x "allowed" (index $p.range 2)) -}}
{{- end -}}
{{- else -}}
{{- if and $p.quantity (kindIs "float64" $x) -}}
{{- /* a whole one is its digits by now: YAML's 0.5, which a user meant as text */ -}}
{{- include "node-headroom.fail" (dict "lib" $lib "field" .field "value" $x "allowed" $lib.fractionNumber) -}}
{{- end -}}
{{- $text := $x }}{{ if and (or $p.quantity $p.trim) (kindIs "string" $x) }}{{ $text = trim $x }}{{ end -}}
{{- /* The clauses in order; text is what they judge (Grammar.check) */ -}}
{{- if not (kindIs "string" $text) }}{{ include "node-headroom.fail" (dict "lib" $lib "field" .field "value" $x "allowed" (first $p.clauses).allowed) }}{{ end -}}
{{- range $c := $p.clauses -}}
{{- /* A bound: the length once the matches of cut are removed (rule_language.Clause) */ -}}
{{- if $c.longest -}}
{{- $t := $text }}{{ if $c.cut }}{{ $t = regexReplaceAll $c.cut $text "" }}{{ end -}}
{{- if gt (len $t) (int $c.longest) }}{{ include "node-headroom.fail" (dict "lib" $lib "field" $.field "value" $x "allowed" $c.allowed) }}{{ end -}}
{{- else if eq (regexMatch $c.pattern $text) $c.forbid -}}
{{- include "node-headroom.fail" (dict "lib" $lib "field" $.field "value" $x "allowed" $c.allowed) -}}
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
     which files/rows.json holds (library._row: the keys to each value, and its field). A
     value left out is skipped without a call to check. */}}
{{- define "node-headroom.checks" -}}
{{- $lib := .lib -}}
{{- range $i, $group := $lib.checks -}}
{{- if ne (toJson (index $.root.Values (index $group 0))) (index $group 1) -}}
{{- include "node-headroom.load" (list $lib "rows") -}}
{{- range $row := index $lib.rows.groups $i -}}
{{- $holder := $.root.Values }}{{ range $row.parents }}{{ $holder = default (dict) (index $holder .) }}{{ end -}}
{{- $x := index $holder $row.key -}}
{{- if kindIs "invalid" $x -}}
{{- else if not $row.item -}}
{{- include "node-headroom.check" (dict "lib" $lib "rule" $row.rule "value" $x "field" $row.at "default" $row.default "in" $holder "key" $row.key "share" $row.share) -}}
{{- else -}}
{{- $item := $row.item -}}
{{- range $n, $w := $x -}}
{{- $field := printf "%s[%v]." $row.at (ternary $w.name $n $item.named) -}}
{{- if $item.steps -}}
{{- include "node-headroom.walk" (dict "lib" $lib "node" $w "steps" $item.steps "at" $field "rule" $row.rule "default" $row.default) -}}
{{- else -}}
{{- $h := $w }}{{ range $item.parents }}{{ $h = default (dict) (index $h .) }}{{ end -}}
{{- $y := index $h $item.key -}}
{{- if not (kindIs "invalid" $y) }}{{ include "node-headroom.check" (dict "lib" $lib "rule" $row.rule "value" $y "field" (print $field $item.path) "default" $row.default "in" $h "key" $item.key) }}{{ end -}}
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
{{- range index $o.lib.messages (index . 1) }}{{ $m = print $m (first .) }}{{ if gt (len .) 1 }}{{ $x := index $o (index . 1) -}}
{{- if eq (index . 2) "repr" }}{{ $m = print $m (include "node-headroom.shownBy" (list $o.lib $x)) }}{{ else }}{{ $m = print $m (include "node-headroom.digits" $x) }}{{ end }}{{ end }}{{ end -}}
{{- if $o.warn }}{{ $m }}{{ else }}{{ include "node-headroom.fail" (dict "lib" $o.lib "field" $o.field "value" $o.value "allowed" $m) }}{{ end -}}
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
{{- /* Each toleration's and node affinity term's rules across its fields, when there are
     any (files/lazy/placement.tpl) */ -}}
{{- $placed := or $v.tolerations $v.nodeAffinity }}{{ range $v.burstWorkloads }}{{ if .tolerations }}{{ $placed = true }}{{ end }}{{ end -}}
{{- if $placed }}{{ include "node-headroom.lazy" (dict "lib" $lib "units" (list "placement") "name" "node-headroom.placement" "args" (dict "lib" $lib "v" $v)) }}{{ end -}}
{{- /* The names and the classes */ -}}
{{- /* The name prefix: namePrefix; names.release but for the release named as the chart */ -}}
{{- $prefix := "" }}{{ $release := "" -}}
{{- if kindIs "string" $v.namePrefix }}{{ $prefix = $v.namePrefix }}{{ else if ne $root.Release.Name $lib.chartName }}{{ $prefix = replace "{release}" $root.Release.Name $lib.names.release }}{{ end -}}
{{- $_ := set $c "prefix" $prefix -}}
{{- if and (not (kindIs "string" $v.namePrefix)) (ne $prefix "") }}{{ $release = $root.Release.Name }}{{ $_ := set $c "release" $release }}{{ end -}}
{{- $m := index $lib.models $v.model -}}
{{- $_ := set $c "model" $m -}}
{{- $namespace := default (default "default" $root.Release.Namespace) $v.namespace.name -}}
{{- $_ := set $c "namespace" (dict "name" $namespace "labels" $lib.namespaceLabels "annotations" $lib.namespaceAnnotations) -}}
{{- if $v.namespace.create -}}
{{- include "node-headroom.rule.ownNamespace" (dict "lib" $lib "field" "namespace.name" "value" $namespace) -}}
{{- $_ := set $c.namespace "meta" (merge (deepCopy $lib.namespaceLabels) $helm) -}}
{{- end -}}
{{- /* The model's classes, lowest first, as named and ranked (priority_models.py PRIORITY_CLASS),
     and those the library emits for the default.create given (ModelClasses.emitted_roles) */ -}}
{{- $pc := $v.priorityClasses }}{{ $dc := $pc.default }}{{ $classes := dict -}}
{{- $ladder := list -}}
{{- range $m.ladder -}}
{{- $given := index $pc .role }}{{ $in := dict "model" . "name" $given.name "value" $given.value -}}
{{- include "node-headroom.recipe.priorityClass" $in }}{{ $_ := set $in.out "value" (int64 $in.out.value) -}}
{{- $_ := set $classes .role $in.out }}{{ $ladder = append $ladder $in.out -}}
{{- end -}}
{{- $emitted := list -}}
{{- range index $m.emitted (toJson $dc.create) }}{{ $emitted = append $emitted (index $classes .) }}{{ end -}}
{{- $_ := set $c "classes" $emitted -}}
{{- $poolName := $v.nodePool.name -}}
{{- $named := dict "pool" $poolName }}{{ include "node-headroom.recipe.reserverName" $named }}{{ $reserverName := print $prefix (default $named.out $v.reserverName) -}}
{{- $r := $v.reservation -}}
{{- $cpu := include "node-headroom.quantity" $r.cpu }}{{ $memory := include "node-headroom.quantity" $r.memory -}}
{{- $sliceText := replace "{cpu}" $cpu (replace "{memory}" $memory $lib.sliceText) -}}
{{- $slices := not (and (kindIs "invalid" $r.cpu) (kindIs "invalid" $r.memory)) -}}
{{- $_ := set $c "slices" $slices -}}
{{- /* A slice of bare cores that reads as millicores warns, where the pool's node sizes
     are unknown, as the chart's pools always are (rules.BARE_CORES): with the count of
     cores, which NOTES give */ -}}
{{- $_ := set $c "bareCores" "" -}}
{{- if $slices -}}
{{- $cores := regexReplaceAll "^0+([0-9])" $cpu "${1}" -}}
{{- $bare := include "node-headroom.rule.bareCores" (dict "lib" $lib "at" "reservation.cpu" "text" $cpu "cores" $cores "warn" true) -}}
{{- if $bare }}{{ $_ := set $c "bareCores" $cores }}{{ $warnings = append $warnings $bare }}{{ end -}}
{{- end -}}

{{- /* A dedicated pool's taint */ -}}
{{- $t := $v.dedicatedTaint -}}
{{- $taintEffect := default $lib.taintDefaults.effect $t.effect -}}
{{- $wanted := replace "{key}" $t.key (replace "{value}" (default "" $t.value) (replace "{effect}" $taintEffect $lib.taintText)) -}}
{{- /* The promises the model breaks with its classes' values, as the library's simulation
     found them for their order against the ordinary pods' (helm/promises.py order_key) */ -}}
{{- $h := $classes.headroom.value }}{{ $b := $classes.burst.value }}{{ $o := 0 }}{{ with $classes.default }}{{ $o = .value }}{{ end -}}
{{- $order := printf "%d,%d" (ternary -1 (ternary 0 1 (eq $h $o)) (lt $h $o)) (ternary -1 (ternary 0 1 (eq $b $o)) (lt $b $o)) }}{{ if $m.taintedPool }}{{ $order = print $order "," $taintEffect }}{{ end -}}
{{- if and $slices (has $order $m.breaks) }}{{ include "node-headroom.load" (list $lib "promises") }}{{ $warnings = append $warnings (replace "{headroom}" (toString $h) (replace "{burst}" (toString $b) (index $lib.promises $v.model $order))) }}{{ end -}}

{{- /* The classes' rules across their values (priority_models.py CLASS_RULES) */ -}}
{{- include "node-headroom.rules.classes" (dict "lib" $lib "values" $v "ladder" $ladder "model" $v.model) -}}

{{- /* The pool's node values need the pool (values_to_app.build judges them before the slices) */ -}}
{{- range $key, $what := $lib.poolValues }}{{ include "node-headroom.rule.poolValueNeedsName" (dict "lib" $lib "field" (print "nodePool." $key) "value" (index $v.nodePool $key) "given" (index $v.nodePool $key) "pool" $poolName "what" $what) }}{{ end -}}
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
{{- with $r.schedule }}{{ $_ := set $c "schedule" dict }}{{ include "node-headroom.lazy" (dict "lib" $lib "units" (list "windows") "name" "node-headroom.windows.judge" "args" (dict "lib" $lib "s" . "at" "reservation.schedule" "out" $c.schedule)) }}{{ end -}}
{{- include "node-headroom.rule.slicesNeedBoth" (dict "lib" $lib "field" "reservation.cpu" "value" nil "quantity" $r.cpu "other" $r.memory) -}}
{{- include "node-headroom.rule.slicesNeedBoth" (dict "lib" $lib "field" "reservation.memory" "value" nil "quantity" $r.memory "other" $r.cpu) -}}
{{- if or (hasSuffix $lib.shareMark $cpu) (hasSuffix $lib.shareMark $memory) $r.nodeTypes }}{{ include "node-headroom.lazy" (dict "lib" $lib "units" (list "shares") "name" "node-headroom.shares" "args" (dict "lib" $lib "c" $c "r" $r "cpu" $cpu "memory" $memory "stem" $reserverName "release" $release)) }}{{ end -}}
{{- include "node-headroom.rule.noTaskWithoutSlices" (dict "lib" $lib "field" "prepullBurstImages" "value" $v.prepullBurstImages "slices" $slices "given" $v.prepullBurstImages) }}{{ with $c.schedule }}{{ include "node-headroom.rule.noTaskWithoutSlices" (dict "lib" $lib "field" "reservation.schedule" "value" .describe "slices" $slices "given" .describe) }}{{ end }}{{ include "node-headroom.rule.noTaskWithoutSlices" (dict "lib" $lib "field" "reservation.extendedResources" "value" nil "slices" $slices "given" $r.extendedResources) }}
{{- if and (or $v.nodePool.nodeCpu $v.nodePool.nodeMemory) (not $c.sizes) }}{{ include "node-headroom.lazy" (dict "lib" $lib "units" (list "nodefit") "name" "node-headroom.nodeFit.slice" "args" (dict "lib" $lib "pool" $poolName "cpu" $r.cpu "memory" $r.memory "cpuField" "reservation.cpu" "memoryField" "reservation.memory" "nodeCpu" $v.nodePool.nodeCpu "nodeMemory" $v.nodePool.nodeMemory)) }}{{ end -}}
{{- $dedicated := list -}}
{{- if $m.taintedPool -}}
{{- $out := dict -}}
{{- include "node-headroom.lazy" (dict "lib" $lib "units" (list "dedicated") "name" "node-headroom.dedicated" "args" (dict "lib" $lib "v" $v "pool" $poolName "wanted" $wanted "effect" $taintEffect "out" $out)) -}}
{{- $dedicated = $out.dedicated -}}
{{- end -}}
{{- include "node-headroom.rule.prepullerName" (dict "lib" $lib "field" "reserverName" "value" $reserverName "prepulled" $v.prepullBurstImages "name" (default $reserverName $c.first) "limit" $lib.prepullerNameMax "suffix" $lib.prepullerSuffix) -}}
{{- if or $r.schedule (not (kindIs "invalid" $r.scheduledNodes)) }}{{ include "node-headroom.lazy" (dict "lib" $lib "units" (list "windows") "name" "node-headroom.windows.count" "args" (dict "lib" $lib "s" $c.schedule "count" "scheduled_nodes" "given" $r.scheduledNodes "at" "reservation.schedule" "countAt" "reservation.scheduledNodes" "stem" $reserverName "share" $c.sizes)) }}{{ end -}}
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
{{- range $v.nodeAffinity }}{{ $requirements = append $requirements (dict "lib" $lib "field" (printf "nodeAffinity[%s]" .key) "value" .operator "key" .key "operator" .operator "values" (default (list) .values)) }}{{ end -}}
{{- $affinity := dict "expressions" $v.nodeAffinity }}{{ include "node-headroom.recipe.nodeAffinity" $affinity -}}
{{- $_ := set $placement "affinity" $affinity.out -}}
{{- end -}}

{{- /* The reserver's tolerations, the pre-puller's too: the pool's taints', the user's and the dedicated taint's */ -}}
{{- $tolerations := dict }}{{ if $slices }}{{ $tolerations = dict "lib" $lib "items" (concat $poolTaints (default (list) $v.tolerations) $dedicated) }}{{ include "node-headroom.tolerations" $tolerations }}{{ end -}}
{{- /* The burst workloads, their CapacityBuffers and the pre-puller: the bursts' unit,
     and the buffers' if there are any (files/lazy/bursts.tpl, buffers.tpl) */ -}}
{{- $_ := set $c "bursts" list }}{{ $_ := set $c "buffers" list }}{{ $_ := set $c "bufferWarnings" list -}}
{{- if $v.burstWorkloads -}}
{{- $units := list "bursts" }}{{ range $v.burstWorkloads }}{{ if not (kindIs "invalid" .buffer) }}{{ $units = list "bursts" "buffers" }}{{ end }}{{ end -}}
{{- if or $v.nodePool.nodeCpu $v.nodePool.nodeMemory }}{{ $units = append $units "nodefit" }}{{ end -}}
{{- $each := dict "lib" $lib "v" $v "c" $c "helm" $helm "prefix" $prefix "release" $release "slices" $slices "cpu" $cpu "memory" $memory "sliceText" $sliceText "m" $m "poolName" $poolName "requirements" $requirements "placement" $placement "poolTaints" $poolTaints "dedicated" $dedicated "classes" $classes "reserverName" (default $reserverName $c.first) "reserverTolerations" $tolerations.out "warnings" $warnings -}}
{{- include "node-headroom.lazy" (dict "lib" $lib "units" $units "name" "node-headroom.bursts" "args" $each) -}}
{{- $warnings = $each.warnings -}}
{{- end -}}
{{- include "node-headroom.rule.needsRoom" (dict "lib" $lib "field" "reservation.cpu" "value" nil "slices" $slices "buffers" $c.buffers) -}}

{{- /* The reserver DaemonSets: one, or one per node size of a share (the shares' unit's sizes, each selecting its nodes as NodeType.selector does) */ -}}
{{- if $slices -}}
{{- $reservers := list -}}
{{- range $s := default (list (dict "name" $reserverName "cpu" $cpu "memory" $memory "slice" $sliceText)) $c.sizes -}}
{{- $p := $placement }}{{ with $s.nodeType }}{{ $p = merge (dict "nodeSelector" (merge (dict $lib.shares.typeLabel .) (default (dict) $placement.nodeSelector))) $placement }}{{ end -}}
{{- $o := dict "helm" $helm "uid" (int64 $task.runAsUser) "labels" $v.labels "name" $s.name "component" $lib.components.reserver "podSecurityContext" $lib.podSecurityContext "containerSecurityContext" $lib.containerSecurityContext }}{{ include "node-headroom.recipe.workload" $o }}{{ $o = $o.out -}}
{{- /* The inputs of the reserver's pod, whose recipe decides its fields (objects/reserver.py
     RESERVER_POD, compiled into _recipes.tpl): the task's, the placement's, and these */ -}}
{{- $in := merge (dict "priorityClassName" $classes.headroom.name "podSecurityContext" $o.pod "containerSecurityContext" $o.container "image" $image "cpu" $s.cpu "memory" $s.memory "extendedResources" $r.extendedResources "prepullImages" (uniq $task.prepullImages) "tolerations" $tolerations.out) $p $task -}}
{{- $init := dict "uid" (int64 $lib.prepullRunAsUser) "containerSecurityContext" $lib.containerSecurityContext }}{{ include "node-headroom.recipe.containerContext" $init }}{{ $_ := set $in "initSecurityContext" $init.out -}}
{{- include "node-headroom.recipe.reserverPod" $in -}}
{{- $reservers = append $reservers (dict "kind" $lib.kinds.reserver "name" $s.name "nodeType" $s.nodeType "slice" $s.slice "labels" $o.labels "meta" $o.meta "pod" $in.out "spec" (merge (dict "updateStrategy" (dict "type" $m.reserverUpdateStrategy)) (deepCopy $lib.reserverSpec))) -}}
{{- end }}{{ $_ := set $c "reservers" $reservers -}}
{{- with $c.schedule }}{{ include "node-headroom.lazy" (dict "lib" $lib "units" (list "windows") "name" "node-headroom.windows.jobs" "args" (dict "lib" $lib "s" . "holder" (first $reservers) "copies" $r.scheduledNodes "perNode" true)) }}{{ end -}}
{{- end -}}
{{- if $v.alerts.enabled }}{{ include "node-headroom.lazy" (dict "lib" $lib "units" (list "alerts") "name" "node-headroom.alerts" "args" (dict "lib" $lib "helm" $helm "a" $v.alerts "c" $c "reserver" (default $reserverName $c.first) "prefix" $prefix "slices" $slices "bursts" $c.bursts)) }}{{ end -}}
{{- if $v.reader.create }}{{ include "node-headroom.lazy" (dict "lib" $lib "units" (list "reader") "name" "node-headroom.reader" "args" (dict "lib" $lib "helm" $helm "r" $v.reader "c" $c "prefix" $prefix)) }}{{ end -}}
{{- $_ := set $c "classMeta" (merge (deepCopy $lib.classLabels) $helm) -}}
{{- $_ := set $c "classAnnotations" $lib.classAnnotations -}}
{{- $_ := set $c "warnings" $warnings -}}
{{- end -}}

