"""What the chart knows of the library: ``files/library.json`` and ``_library.tpl``.

``files/library.json`` is data: everything the library decides and the values do not
change, read from reference constructs and from the library's own declarations: class
specs and flags per model, names as ``object_names`` patterns, components, kinds, task
defaults and which values each task kind takes, security contexts, labels, the alerts'
rule skeletons, the reader's ClusterRole (its rules are the cluster read's,
``reader_rules``), and the rules of ``cdk8s_headroom.vocabulary.rules`` (patterns,
ranges, messages); the parts a render may not need are files of their own
(``LAZY_PARTS``). The pods, a buffer's spec, a burst's replicas, the alerts' fields and
labels, and a model's class as named and ranked are not data: each is the library's
recipe, compiled (``helm.recipes``). ``_library.tpl`` is the generated rule helpers and
the recipes the templates call. The classes each model emits, for each
``create_default_class``, are data (``_emitted_roles``). A burst workload's and a
buffer's props as their recipes take them, with their defaults, are not data either:
each construct's declaration (``BURST_INPUTS``, ``BUFFER_INPUTS``) is compiled into
``node-headroom.props.<construct>`` (``helm.props``), placed with its unit.
``templates/_helpers.tpl`` computes the recipes' inputs from the values and calls the
helpers, in the order ``values_to_app.build`` calls the library, so the first refusal is
the same one.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Mapping
from typing import Any

import cdk8s

from cdk8s_headroom.helm.go_template import called_by, message_parts, rule_helpers
from cdk8s_headroom.helm.notes import chart_words
from cdk8s_headroom.helm.promises import outcomes as promise_outcomes
from cdk8s_headroom.helm.reader import add_reader, subject
from cdk8s_headroom.helm.values import (
    ALERTS,
    BY_PATH,
    CHART_NAME,
    CUSTOM_TASK,
    NAMED_ITEMS,
    POOL_VALUES,
    checks,
    read_back,
)
from cdk8s_headroom.helm.values_to_app import DEFAULT_TASK, HEADROOM_ID, RELEASE_PREFIX, TASK_VALUES
from cdk8s_headroom.helm.windows import windows_data
from cdk8s_headroom.objects.alerts import PROMETHEUS_RULE_API_VERSION
from cdk8s_headroom.objects.capacity_buffer import KEEP_OFF_EFFECTS, SELECTOR_ENTRY_OPERATOR
from cdk8s_headroom.objects.headroom import NodeHeadroom
from cdk8s_headroom.objects.namespace import HeadroomNamespace
from cdk8s_headroom.objects.prepuller import PREPULL_SUFFIX, PREPULLER_FIELDS
from cdk8s_headroom.objects.reserver import DEFAULT_RESERVER_NAME
from cdk8s_headroom.vocabulary import (
    alert_rules,
    labels,
    object_names,
    quantity_arithmetic,
    rule_language,
    rules,
    share_rules,
)
from cdk8s_headroom.vocabulary.capacity_buffer_api import API_GROUP
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.names import DNS_LABEL_MAX
from cdk8s_headroom.vocabulary.node_sizes import INSTANCE_TYPE_LABEL
from cdk8s_headroom.vocabulary.placement import Taint, Toleration
from cdk8s_headroom.vocabulary.priority_models import (
    ModelClasses,
    PreemptionPolicy,
    PriorityModel,
    class_fields,
)
from cdk8s_headroom.vocabulary.rbac import SubjectKind
from cdk8s_headroom.vocabulary.recipes import evaluate
from cdk8s_headroom.vocabulary.reserver_task import ReserverTask, TaskKind
from cdk8s_headroom.vocabulary.rollout import UpdateStrategy
from cdk8s_headroom.vocabulary.security_context import NOBODY_UID


def _chart() -> cdk8s.Chart:
    return cdk8s.Chart(cdk8s.App(), "reference")


def _model_note(model: PriorityModel) -> str:
    """The model's paragraph of the ``PriorityModel`` docstring, without Python names."""
    for paragraph in (inspect.getdoc(PriorityModel) or "").split("\n\n"):
        if paragraph.startswith(f"``{model.name}``"):
            note = " ".join(paragraph.replace("``", "").split()).split(": ", 1)[1]
            return note[:1].upper() + note[1:].split(" Kept for parity")[0]
    raise LookupError(model)


def _without(mapping: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {key: item for key, item in mapping.items() if key not in keys}


_CPU, _MEMORY = "1", "1Gi"
"""The slice and the requests of the reference constructs: distinct quantities, so that
``_slice_places`` can tell which one a resource took."""


def _slice_places(resources: Mapping[str, Any]) -> dict[str, Any]:
    """A reference container's resources (of the ``_CPU``, ``_MEMORY`` slice or request) with the
    quantities as ``{cpu}`` and ``{memory}`` places: which of them the library sets, and
    to what (a reserver's limits are its requests; a burst's default to them)."""
    place = {_CPU: "{cpu}", _MEMORY: "{memory}"}
    return {key: {r: place[q] for r, q in amounts.items()} for key, amounts in resources.items()}


def _emitted_roles(model: PriorityModel) -> dict[str, list[str]]:
    """The roles of the classes ``model`` emits (``ModelClasses.emitted_roles``), by
    ``priorityClasses.default.create`` as JSON (``null``, ``true``, ``false``), for each
    the model takes: the library refuses the others, and so does the chart's build, once
    it judges the classes."""
    emitted = {}
    for create in (None, True, False):
        try:
            classes = ModelClasses.of(model, create_default_class=create)
        except HeadroomConfigError:
            continue
        emitted[json.dumps(create)] = classes.emitted_roles()
    return emitted


def library_data(defaults: Mapping[str, Any]) -> dict[str, Any]:
    """What the templates take from the library: reference constructs, the rules, and
    the values' checks (``values.checks``, with the chart's ``defaults``)."""
    models = {}
    # Each model's simulation runs once: its orders in library.json, its texts lazy
    promises = {model.value: promise_outcomes(model) for model in PriorityModel}
    for model in PriorityModel:
        classes = ModelClasses.of(model)
        models[model.value] = {
            "note": chart_words(_model_note(model)),
            # The orders of its classes' values that break a promise (helm/promises.py);
            # what NOTES.txt warns of them is the lazy part promises
            "breaks": list(promises[model.value]),
            "taintedPool": model.tainted_pool,
            "burstOverSliceWarns": model.lets_bursts_outgrow_the_slice,
            # A reserver that cannot preempt waits (Pending) on a full node: NOTES.txt
            "reserversWait": classes.headroom.preemption_policy is PreemptionPolicy.NEVER,
            "reserverUpdateStrategy": UpdateStrategy.for_reserver(
                classes.headroom.preemption_policy
            ).value,
            # The model's classes, lowest first, each with its role (the values' key):
            # the build gives each to PRIORITY_CLASS and judges them in this order
            "ladder": [{"role": role, **class_fields(spec)} for role, spec in classes.ladder()],
            "emitted": _emitted_roles(model),
        }
    chart = _chart()
    HeadroomNamespace(chart, "namespace", name="reference")
    headroom = NodeHeadroom(chart, "headroom", cpu=_CPU, memory=_MEMORY, prepull_burst_images=True)
    headroom.add_burst_workload("burst", image="x", cpu=_CPU, memory=_MEMORY)
    # One object per kind, the first; the pre-puller by its name
    objects: dict[str, Any] = {}
    for document in chart.to_json():
        objects.setdefault(document["kind"], document)
        objects[document["metadata"]["name"]] = document
    reserver_pod = objects["DaemonSet"]["spec"]["template"]["spec"]
    prepuller_kind = objects[DEFAULT_RESERVER_NAME + PREPULL_SUFFIX]["kind"]
    uids = ("runAsUser", "runAsGroup", "fsGroup")
    tasks = {
        kind.value: {
            **read_back(task, CUSTOM_TASK),
            "prepullImages": list(task.prepull_images),
            "prepullCommand": list(task.prepull_command),
        }
        for kind, task in (
            (TaskKind.PAUSE, ReserverTask.pause()),
            (TaskKind.MAINTENANCE, ReserverTask.maintenance()),
            (TaskKind.PREPULL, ReserverTask.prepull([])),
            (TaskKind.CUSTOM, ReserverTask.custom(image="reference")),
        )
    }
    return {
        "chartName": CHART_NAME,
        "models": models,
        "tasks": tasks,
        "defaultTask": DEFAULT_TASK.value,
        # Per task kind: the value path of its image, and the task values it takes
        "taskValues": {kind.value: [at, list(taken)] for kind, (at, taken) in TASK_VALUES.items()},
        "prepullRunAsUser": NOBODY_UID,
        "names": {
            "prepuller": object_names.PREPULLER,
            "alerts": object_names.ALERTS,
            "reader": object_names.READER,
            "release": RELEASE_PREFIX,
        },
        "components": {
            "reserver": labels.RESERVER_COMPONENT,
            "burst": labels.BURST_COMPONENT,
            "buffer": labels.BUFFER_COMPONENT,
            "prepuller": labels.PREPULLER_COMPONENT,
        },
        "kinds": {
            "reserver": objects["DaemonSet"]["kind"],
            "burst": objects["Deployment"]["kind"],
            "prepuller": prepuller_kind,
        },
        "selectorEntryOperator": SELECTOR_ENTRY_OPERATOR.value,
        "sliceText": rules.SLICE_TEXT,
        "taintText": Taint.TEXT,
        "burstOverSliceWarning": rules.BURST_OVER_SLICE_WARNING,
        "bufferWhere": rules.SHARED_BUFFER_WHERE,
        "tolerationDefaults": {"operator": Toleration.operator.value},
        "taintDefaults": {"effect": Taint.effect.value},
        "poolValues": POOL_VALUES,
        "classLabels": objects["PriorityClass"]["metadata"]["labels"],
        "classAnnotations": objects["PriorityClass"]["metadata"]["annotations"],
        "namespaceLabels": objects["Namespace"]["metadata"]["labels"],
        "namespaceAnnotations": objects["Namespace"]["metadata"]["annotations"],
        # the update strategy follows the model (reserverUpdateStrategy)
        "reserverSpec": _without(
            objects["DaemonSet"]["spec"], "selector", "template", "updateStrategy"
        ),
        # The reserver's, the bursts', the buffers' and the pre-puller's pods, and the
        # buffers' and the bursts' specs, are their recipes' (helm.recipes)
        "prepullerSuffix": PREPULL_SUFFIX,
        "prepullerSpec": evaluate(PREPULLER_FIELDS, {}),
        "bufferApiGroup": API_GROUP,
        "sharedBufferWarning": rules.SHARED_BUFFER_WARNING,
        "keepOffEffects": [effect.value for effect in KEEP_OFF_EFFECTS],
        "prepullerNameMax": DNS_LABEL_MAX - len(PREPULL_SUFFIX),
        "podSecurityContext": _without(reserver_pod["securityContext"], *uids),
        "containerSecurityContext": _without(
            reserver_pod["containers"][0]["securityContext"], *uids
        ),
        # The alerts (alerts.enabled): their text with {field} places, which the
        # templates fill (alert_rules.fill) with the fields of their recipe
        # (helm.recipes PROMETHEUS_RULE), from the values ALERTS names and the headroom.
        "alerts": {
            "apiVersion": PROMETHEUS_RULE_API_VERSION,
            "headroomWithoutSlices": HEADROOM_ID,
            "groupName": alert_rules.GROUP_NAME,
            "fromValues": {
                prop: key for key, prop in ALERTS.items() if prop in alert_rules.ALERT_FIELDS
            },
            "rules": [
                {"watches": template.watches.value, "rule": alert_rules.skeleton(template)}
                for template in alert_rules.ALERTS
            ],
        },
        "reader": _reader_data(),
        "valueRules": {k: v for k, v in value_rules().items() if k not in SHARE_VALUE_RULES},
        "capFree": cap_free(),
        "decimalSuffixes": quantity_arithmetic.DECIMAL_SUFFIXES,
        "binarySuffixes": quantity_arithmetic.BINARY_SUFFIXES,
        "bareBytesHint": rules.BARE_BYTES_HINT,
        "checks": check_groups(defaults),
        "messages": {rule.name: message_parts(rule.allowed) for rule in rules.RULES},
        "promises": promises,
        "exactNumber": [rules.EXACT_NUMBER_LIMIT, rules.EXACT_NUMBER_ALLOWED],
        "fractionNumber": rules.FRACTION_NUMBER_ALLOWED,
        # A slice that ends so is a share of each node: the shares' unit sizes it
        "shareMark": share_rules.SHARE_MARK,
        "shares": {
            "decimals": share_rules.SHARE_DECIMALS,
            "typeLabel": INSTANCE_TYPE_LABEL,
            "valueRules": {k: v for k, v in value_rules().items() if k in SHARE_VALUE_RULES},
            "reserver": object_names.SIZED_RESERVER,
            "suffix": [share_rules.TYPE_SUFFIX_PATTERN, share_rules.TYPE_SUFFIX_SEPARATOR],
            "units": {
                resource: dataclasses.asdict(unit)
                for resource, unit in share_rules.SHARE_UNITS.items()
            },
        },
        "windows": windows_data(),
    }


def _reader_data() -> dict[str, Any]:
    """The reader's objects (``reader.add_reader``, for ``reader.create``) but what the
    values give and the recipes (``reader.SUBJECT``, ``ROLE_REF``): the ClusterRole's
    labels and rules, and each kind's subject but its kind and name, its namespace a
    place (``{namespace}``) where it has one."""
    chart = _chart()
    kinds = [{"kind": kind.value, "name": "reference"} for kind in SubjectKind]
    subjects = [subject(item, "{namespace}", field="reference") for item in kinds]
    add_reader(chart, name="reference", subjects=subjects)
    role, binding = chart.to_json()
    return {
        "apiVersion": role["apiVersion"],
        "labels": role["metadata"]["labels"],
        "rules": role["rules"],
        "subjects": {item["kind"]: _without(item, "kind", "name") for item in binding["subjects"]},
    }


def _clause(clause: rule_language.Clause) -> dict[str, Any]:
    """A grammar's clause as the templates' check reads it: its ``pattern``, anchored, and
    whether it must not match (``forbid``); or a bound, ``longest``, on what is left once
    the matches of ``cut`` are removed (none: the text itself)."""
    if clause.longest is not None:
        return {"longest": clause.longest, "cut": clause.pattern, "allowed": clause.allowed}
    anchored = f"^(?:{clause.pattern})$"
    return {"pattern": anchored, "forbid": clause.forbid, "allowed": clause.allowed}


CAP_FREE_SUFFIXES = ("", "m", "k", "M", "G", "Ki", "Mi", "Gi")
"""The suffixes of the quantities ``cap_free`` lets past the cap: the common ones."""


def cap_free() -> dict[str, Any]:
    """The quantities ``QUANTITY_CAP`` cannot refuse, for which ``node-headroom.check``
    skips it (an amount of the cap, and of the quantity, costs as much as a dozen values'
    checks): a quantity of at most ``longest`` characters, all of ``chars`` (a sign, the
    digits, a point and the letters of ``CAP_FREE_SUFFIXES``; a quantity by then, so the
    letters are one of those suffixes). ``longest`` is the most for which the largest such
    quantity, nines and a suffix, passes the cap's own test."""
    letters = sorted({char for suffix in CAP_FREE_SUFFIXES for char in suffix})

    def largest_pass(length: int) -> bool:
        return all(
            rules.QUANTITY_CAP.test.holds({"quantity": "9" * (length - len(suffix)) + suffix})
            for suffix in CAP_FREE_SUFFIXES
            if length > len(suffix)
        )

    longest = 0
    while largest_pass(longest + 1):
        longest += 1
    return {"longest": longest, "chars": "+-.0123456789" + "".join(letters)}


def value_rules() -> dict[str, dict[str, Any]]:
    """How ``node-headroom.check`` judges each rule a value's row names (``values.checks``):
    a grammar's ``clauses`` (``quantity``: with the quantity cap; ``memory``: and
    ``CONTAINER_MEMORY``), an integer ``range`` (``[minimum, maximum, allowed]``), or a
    map whose ``keys`` and ``items`` each have their rule (``labels``, ``quantities``)."""
    judged: dict[str, dict[str, Any]] = {
        grammar.name: {"clauses": [_clause(c) for c in grammar.clauses]}
        for grammar in rules.GRAMMARS
    }
    judged.update({r.name: {"range": [r.minimum, r.maximum, r.allowed]} for r in rules.INT_RANGES})
    quantity = judged[rules.QUANTITY.name]
    quantity["quantity"] = True
    judged[rules.CONTAINER_MEMORY.name] = {**quantity, "memory": True}
    judged[share_rules.SHARE.name]["trim"] = True  # as Share.parse judges it
    keys, labels = rules.LABEL_KEY.name, rules.LABEL_VALUE.name
    judged["labels"] = {"keys": keys, "items": labels}
    judged["quantities"] = {"keys": keys, "items": rules.QUANTITY.name, "quantity": True}
    devices = rules.EXTENDED_RESOURCE.name
    judged["devices"] = {"keys": devices, "items": rules.DEVICE_COUNT.name}
    return judged


def go_json(item: Any) -> str | None:
    """``item`` as Helm's ``toJson`` writes it (Go's encoding/json: keys sorted, no
    spaces), or None where Go might write it otherwise than Python (text beyond printable
    ASCII or with characters Go escapes, fractions)."""

    def plain(node: Any) -> bool:
        if isinstance(node, dict):
            return all(plain(key) and plain(value) for key, value in node.items())
        if isinstance(node, list):
            return all(map(plain, node))
        if isinstance(node, str):
            return node.isascii() and node.isprintable() and not set(node) & set('<>&\\"')
        return node is None or isinstance(node, (bool, int))

    if not plain(item):
        return None
    return json.dumps(item, sort_keys=True, separators=(",", ":"))


def _as_helm_keeps(item: Any) -> Any:
    """Values as Helm hands them to the templates: a null in a map removes its key."""
    if isinstance(item, Mapping):
        return {key: _as_helm_keeps(value) for key, value in item.items() if value is not None}
    return item


def _row(path: str, rule: str, default: Any) -> dict[str, Any]:
    """A check's row, as ``node-headroom.checks`` walks it without computing any of it:
    the keys to the value (``parents``, ``key``) and its field (``at``); the grammar of a
    value that may be a share instead (``share``, ``Value.share``); for a list's
    items, the same for the item's value (``item``), and for a list in an item, the keys
    of the rest of the path's pieces (``item.steps``, ``node-headroom.walk``'s)."""
    pieces = path.split("[].")
    *parents, key = pieces[0].split(".")
    row: dict[str, Any] = {"rule": rule, "key": key, "at": pieces[0]}
    if len(pieces) > 1:
        *inner, leaf = pieces[1].split(".")
        item: dict[str, Any] = {"key": leaf, "path": pieces[1], "named": pieces[0] == NAMED_ITEMS}
        if len(pieces) > 2:
            item["steps"] = [piece.split(".") for piece in pieces[1:]]
        row["item"] = _without_none(item, parents=inner)
    # Left out when null or empty: the decode reads each byte, and a missing key is null
    share = share_rules.SHARE.name if BY_PATH[path].share else None
    return _without_none(row, default=default, parents=parents, share=share)


def _without_none(mapping: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {**mapping, **{key: value for key, value in more.items() if value not in (None, [])}}


def check_groups(defaults: Mapping[str, Any]) -> list[list[Any]]:
    """The single-value checks (``values.checks``) as the templates' ``node-headroom.checks``
    walks them: runs of rows (``_row``) under one top-level value, each run with that
    value's default as ``toJson`` writes it (``go_json``, without the nulls Helm removes),
    so that a value left as its default (valid by construction, and of the same kind:
    nothing to write back) skips its rows at the cost of one comparison."""
    groups: list[list[Any]] = []
    judged = value_rules()
    for path, rule, default in checks(defaults):
        if rule not in judged:
            raise LookupError(f"{path}: no way to check {rule} (value_rules)")
        top = path.split(".")[0].removesuffix("[]")
        if not groups or groups[-1][0] != top:
            groups.append([top, go_json(_as_helm_keeps(defaults.get(top))) or "", []])
        groups[-1][2].append(_row(path, rule, default))
    return groups


def rules_files(
    hot: Mapping[str, str], units: Mapping[str, str], more: Mapping[str, str] = {}
) -> dict[str, str]:
    """The rule helpers (``go_template.rule_helpers``, and ``more`` of the same kind),
    written where they run: a helper that only one lazy unit calls (files/lazy/<unit>.tpl,
    of ``units``), in ``files/lazy/<unit>-rules.tpl``, parsed with that unit only; the
    others, the templates' (``hot``), in ``templates/_library.tpl``, parsed on every
    render. A helper of ``more`` may call rule helpers, which go where it goes."""
    hot, units = dict(hot), dict(units)

    def home_of(helper: str) -> str:
        callers = [unit for unit, text in units.items() if called_by(helper, text)]
        in_templates = any(called_by(helper, text) for text in hot.values())
        return callers[0] if len(callers) == 1 and not in_templates else ""

    for helper, line in more.items():
        found = home_of(helper)
        if found:
            units[found] += line
        else:
            hot[helper] = line
    placed: dict[str, list[str]] = {}
    for helper, line in {**rule_helpers(), **more}.items():
        placed.setdefault(home_of(helper), []).append(line)
    head = (
        "{{/* Generated by `make chart` from the cdk8s-headroom library: the rules across",
        "     values (rules.RULES), each with its test, and the objects' recipes",
        "     (helm/recipes.py){where}. Do not edit. What the library decides and the",
        f"     values do not change is {LIBRARY_JSON}. */}}}}",
    )
    files = {}
    for home, lines in placed.items():
        where = f", that only the {home} unit calls" if home else ""
        text = "\n".join([*(h.replace("{where}", where) for h in head), *lines]) + "\n"
        files[f"files/lazy/{home}-rules.tpl" if home else "templates/_library.tpl"] = text
    return files


SHARE_VALUE_RULES = (share_rules.SHARE.name, rules.INSTANCE_TYPE.name)
"""The value rules only a share's values need, kept with the shares' data (``LAZY_PARTS``),
which ``node-headroom.check`` loads for them: the defaults' renders decode none of them."""

LIBRARY_JSON = "files/library.json"
"""Where the chart keeps ``library_data``; the templates read it with ``.Files.Get``,
which costs a JSON decode per render instead of parsing and running Go literals."""

LAZY_PARTS = ("messages", "promises", "alerts", "reader", "rows", "shares", "windows")
"""The parts of ``library_data`` a render may not need, each in ``files/<part>.json``,
which the templates' ``node-headroom.load`` decodes when needed: the decode of
library.json is the costliest call of a render, at about 12 us per KB. The refusals'
and warnings' ``messages``; the warnings of the ``promises`` a model breaks, for the
orders of the classes' values that break one; the ``alerts``, the ``reader``, and the
checks' ``rows`` of each group (``check_groups``; ``groups``, in the order of
library.json's ``checks``), needed only for a value that is not its default; the
``shares`` of a slice given as a share of each node (``share_rules``); and the
``windows`` of a schedule (the calendar and the zone names, some 25 KB:
``windows.windows_data``)."""


def _json_lines(data: Mapping[str, Any]) -> str:
    """One line per key, without spaces: the decode reads each byte, and a diff still
    shows which key changed."""
    lines = [
        f"{json.dumps(key)}:{json.dumps(item, ensure_ascii=False, separators=(',', ':'))}"
        for key, item in data.items()
    ]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def library_files(defaults: Mapping[str, Any]) -> dict[str, str]:
    """``library_data`` as the chart's files: library.json, and a file per ``LAZY_PARTS``."""
    data = library_data(defaults)
    data["rows"] = {"groups": [rows for _, _, rows in data["checks"]]}
    data["checks"] = [[top, default] for top, default, _ in data["checks"]]
    files = {f"files/{part}.json": _json_lines(data.pop(part)) for part in LAZY_PARTS}
    return {LIBRARY_JSON: _json_lines(data), **files}
