"""What the props fuzz (``test_props_fuzz.py``) draws: each prop's valid and invalid
values, and the targeting types, reserver tasks, priority classes, burst workloads and
capacity buffers made of them. ``Draw`` records the fields it made invalid (its labels).

The valid values are realistic, so that "valid" needs no second opinion: slices of
1m to 16 CPUs, images by the reference grammar, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from typing import Any, TypeVar

import cdk8s
import cdk8s_plus_27
from hypothesis import strategies as st

from cdk8s_headroom import (
    DEFAULT_DEDICATED_TAINT,
    CapacityBufferForm,
    CapacityBufferVersion,
    HeadroomPriorityClasses,
    HostPathMount,
    ImagePullPolicy,
    NodePoolRef,
    NodeSelectorOperator,
    NodeSelectorRequirement,
    PodSecurityControl,
    PriorityModel,
    ReserverTask,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
)
from cdk8s_headroom.vocabulary.placement import KARPENTER_ONLY_OPERATORS

T = TypeVar("T")
MiB = 2**20


# --- values, valid and invalid ------------------------------------------------------

Quantity = tuple[Any, Fraction | None]
"""A quantity and its exact amount (cores or bytes); the amount is None when invalid."""

VALID_CPU: st.SearchStrategy[Quantity] = st.one_of(
    st.integers(1, 16_000).map(lambda n: (f"{n}m", Fraction(n, 1000))),
    st.integers(1, 16_000).map(lambda n: (cdk8s_plus_27.Cpu.millis(n), Fraction(n, 1000))),
    st.integers(1, 16).map(lambda n: (str(n), Fraction(n))),
    st.sampled_from(
        [
            ("0.5", Fraction(1, 2)),
            (".25", Fraction(1, 4)),
            ("1.5", Fraction(3, 2)),
            ("+250m", Fraction(1, 4)),
            (" 500m ", Fraction(1, 2)),
            ("2e0", Fraction(2)),
            ("5e-1", Fraction(1, 2)),
        ]
    ),
)
VALID_MEMORY: st.SearchStrategy[Quantity] = st.one_of(
    # From 4Mi: less is refused as a likely missing unit (quantity.MIN_CONTAINER_MEMORY).
    st.integers(4, 65_536).map(lambda n: (f"{n}Mi", Fraction(n * MiB))),
    st.integers(4, 65_536).map(lambda n: (cdk8s.Size.mebibytes(n), Fraction(n * MiB))),
    st.integers(1, 64).map(lambda n: (f"{n}Gi", Fraction(n * 2**30))),
    st.sampled_from([("512M", Fraction(512 * 10**6)), ("1e9", Fraction(10**9))]),
)
INVALID_QUANTITY: st.SearchStrategy[Any] = st.sampled_from(
    [
        "",
        "0",
        "0m",
        "-1",
        "-500m",
        "500mm",
        "1.5.5",
        "abc",
        "1 Gi",
        "Mi",
        "1e65",
        "1e3m",
        "1Kb",
        "0x10",
        "١٢",
        0,
        5,
        0.5,
        None,
        True,
        [],
        cdk8s.Size.mebibytes(0),
        cdk8s_plus_27.Cpu.millis(0),
    ]
)

VALID_DNS_LABEL = st.one_of(
    st.from_regex(r"\A[a-z]([a-z0-9-]{0,14}[a-z0-9])?\Z"), st.just("a" * 63)
)
INVALID_DNS_LABEL = st.sampled_from(
    ["", "Api", "-api", "api-", "a_b", "a.b", "a" * 64, "api ", "api\n", "äpi", 5, None]
)
# For props whose None means "the default".
INVALID_OPTIONAL_DNS_LABEL = INVALID_DNS_LABEL.filter(lambda value: value is not None)
VALID_CLASS_NAME = st.from_regex(r"\A[a-z]([a-z0-9-]{0,10}[a-z0-9])?(\.[a-z]{1,5})?\Z").filter(
    lambda name: not name.startswith("system-")
)
INVALID_CLASS_NAME = st.sampled_from(
    ["", "system-burst", "Burst", "a..b", "-a", "a" * 254, "a.b\n", 7]
)

VALID_LABEL_KEY = st.one_of(
    st.from_regex(r"\A[a-z0-9]([a-z0-9._-]{0,8}[a-z0-9])?\Z"),
    st.sampled_from(["example.com/tier", "team.acme.io/owner", "k8s.io/x_y"]),
)
INVALID_LABEL_KEY = st.sampled_from(
    ["", "a/b/c", "-x", "x" * 64, "Example.com/x", "/x", "x/", "a b", "x\n", 5, None]
)
VALID_LABEL_VALUE = st.from_regex(r"\A([A-Za-z0-9]([A-Za-z0-9._-]{0,10}[A-Za-z0-9])?)?\Z")
INVALID_LABEL_VALUE = st.sampled_from(["-x", "x" * 64, "a b", "é", "x-", "v\n", None, 5])

VALID_IMAGE = st.sampled_from(
    [
        "nginx",
        "nginx:1.27",
        "ghcr.io/acme/app:7",
        "localhost:5000/a/b",
        "registry.k8s.io/pause:3.10",
        "public.ecr.aws/amazonlinux/amazonlinux:2",
        "busybox@sha256:" + "a" * 64,
        "my-registry:443/team/app_x:v1.2-rc",
        "[::1]:5000/app:1",
    ]
)
INVALID_IMAGE = st.sampled_from(
    [
        "",
        "nginx latest",
        "Nginx:1",
        "nginx:",
        ":1",
        "nginx@sha256:short",
        "a\x85b",
        " nginx",
        "nginx:" + "t" * 129,
        "a//b",
        5,
        None,
        ["nginx"],
    ]
)
# Commands and arguments: any text that YAML writers and readers agree on: no control
# characters but tab and newline, no YAML 1.1 line breaks, no tab in a one-line string.
TEXT = st.text(
    st.characters(exclude_categories=("Cc", "Cs", "Cn", "Zl", "Zp"), include_characters="\t\n"),
    max_size=12,
).filter(lambda text: "\t" not in text or "\n" in text)
VALID_STRINGS = st.lists(TEXT, max_size=3)
INVALID_STRINGS = st.sampled_from(
    ["sh -c true", [1], None, [None], ["a\x7fb"], ["\x00"], ["a\tb"], ["a\u2028b"]]
)


@dataclass
class Draw:
    """Draws props for one example and remembers which fields were made invalid."""

    data: st.DataObject
    invalid: set[str] = field(default_factory=set)

    def __call__(self, strategy: st.SearchStrategy[T], label: str) -> T:
        return self.data.draw(strategy, label=label)

    def rarely(self) -> bool:
        """True about once in 30 draws: how often a single prop is made invalid.

        The rare value is the largest, not 0: Hypothesis favours and shrinks toward
        small values, so failing examples shrink toward valid props.
        """
        return self.data.draw(st.integers(0, 29), label="dice") == 29

    def prop(
        self, label: str, valid: st.SearchStrategy[Any], invalid: st.SearchStrategy[Any]
    ) -> Any:
        if self.rarely():
            self.invalid.add(label)
            return self(invalid, f"{label} (invalid)")
        return self(valid, label)

    def quantity(self, label: str, valid: st.SearchStrategy[Quantity]) -> Quantity:
        if self.rarely():
            self.invalid.add(label)
            return self(INVALID_QUANTITY, f"{label} (invalid)"), None
        return self(valid, label)


# --- the targeting types -------------------------------------------------------------


def taint(draw: Draw) -> Taint:
    key = draw.prop("taint.key", VALID_LABEL_KEY, INVALID_LABEL_KEY)
    value = draw.prop("taint.value", VALID_LABEL_VALUE, INVALID_LABEL_VALUE)
    effect = draw.prop(
        "taint.effect", st.sampled_from(TaintEffect), st.sampled_from(["NoSchedule", None])
    )
    return Taint(key, value, effect)


def toleration(draw: Draw) -> Toleration:
    operator = draw.prop(
        "toleration.operator", st.sampled_from(TolerationOperator), st.just("Equal")
    )
    exists = operator is TolerationOperator.EXISTS
    effect = draw.prop(
        "toleration.effect",
        st.one_of(st.none(), st.sampled_from(TaintEffect)),
        st.just("NoExecute"),
    )
    # An empty key is valid only with EXISTS (it then matches every taint).
    key = draw.prop(
        "toleration.key",
        st.one_of(VALID_LABEL_KEY, st.just("")) if exists else VALID_LABEL_KEY,
        INVALID_LABEL_KEY.filter(lambda k: k != "") if exists else INVALID_LABEL_KEY,
    )
    value = "" if exists else draw.prop("toleration.value", VALID_LABEL_VALUE, INVALID_LABEL_VALUE)
    if exists and draw.rarely():
        draw.invalid.add("toleration.value")  # EXISTS takes no value
        value = "v"
    seconds: Any = None
    no_execute = effect is TaintEffect.NO_EXECUTE
    if no_execute and draw(st.booleans(), "toleration_seconds?"):
        seconds = draw(st.integers(-(2**31), 2**31 - 1), "toleration_seconds")
    if draw.rarely():
        draw.invalid.add("toleration.toleration_seconds")
        seconds = draw(
            st.sampled_from([True, "30", 2**31] if no_execute else [30]),
            "toleration_seconds (invalid)",
        )
    return Toleration(
        key=key, operator=operator, value=value, effect=effect, toleration_seconds=seconds
    )


def tolerations(draw: Draw) -> Any:
    if draw.rarely():
        draw.invalid.add("tolerations")
        return draw(st.sampled_from([None, "k=v", ["k=v"], 5]), "tolerations (invalid)")
    return [toleration(draw) for _ in range(draw(st.integers(0, 2), "tolerations count"))]


def requirement(draw: Draw) -> NodeSelectorRequirement:
    key = draw.prop("node_affinity.key", VALID_LABEL_KEY, INVALID_LABEL_KEY)
    # Pods' node affinity: Karpenter's Gte and Lte are refused there (tests of their own).
    pod_operators = [op for op in NodeSelectorOperator if op not in KARPENTER_ONLY_OPERATORS]
    operator = draw.prop("node_affinity.operator", st.sampled_from(pod_operators), st.just("In"))
    valid: st.SearchStrategy[Any]
    invalid: st.SearchStrategy[Any]
    if operator in (NodeSelectorOperator.GT, NodeSelectorOperator.LT):
        valid = st.integers(0, 10**6).map(lambda n: [str(n)])
        invalid = st.sampled_from([["x"], ["1", "2"], [], "7", ["--5"], None])
    elif operator in (NodeSelectorOperator.EXISTS, NodeSelectorOperator.DOES_NOT_EXIST):
        valid = st.just(())
        invalid = st.sampled_from([["a"], "a", None])
    else:
        valid = st.lists(VALID_LABEL_VALUE, min_size=1, max_size=3)
        invalid = st.sampled_from([(), "abc", None, [None]])
    values = draw.prop(f"node_affinity[{key}].values", valid, invalid)
    return NodeSelectorRequirement(key, operator, values)


def node_affinity(draw: Draw) -> Any:
    if draw.rarely():
        draw.invalid.add("node_affinity")
        return draw(st.sampled_from([None, "zone=a", ["zone"]]), "node_affinity (invalid)")
    return [requirement(draw) for _ in range(draw(st.integers(0, 2), "affinity count"))]


def label_map(draw: Draw, label: str) -> Any:
    """Labels or a nodeSelector: a map of label keys to label values."""
    if draw.rarely():
        draw.invalid.add(label)
        return draw(
            st.one_of(
                st.dictionaries(
                    INVALID_LABEL_KEY.filter(lambda k: k is not None),
                    VALID_LABEL_VALUE,
                    min_size=1,
                    max_size=1,
                ),
                st.dictionaries(VALID_LABEL_KEY, INVALID_LABEL_VALUE, min_size=1, max_size=1),
                st.sampled_from(["team=a", ["team"]]),
            ),
            f"{label} (invalid)",
        )
    return draw(
        st.one_of(st.none(), st.dictionaries(VALID_LABEL_KEY, VALID_LABEL_VALUE, max_size=2)),
        label,
    )


def node_selector(draw: Draw, pool: NodePoolRef | None) -> Any:
    selector = label_map(draw, "node_selector")
    if pool is not None and isinstance(selector, dict):
        value = selector.get(pool.label_key, pool.pool_name)
        if value != pool.pool_name:
            draw.invalid.add("node_selector")  # contradicts the pool's own label
    return selector


def node_pool(draw: Draw, *, dedicated: bool) -> NodePoolRef:
    """A NodePoolRef; under DEDICATED_POOL, valid means carrying the dedicated taint."""
    name = draw.prop("node_pool.pool_name", VALID_DNS_LABEL, INVALID_DNS_LABEL)
    taints: Any = [taint(draw) for _ in range(draw(st.integers(0, 1), "taints count"))]
    if dedicated:
        if draw.rarely():
            draw.invalid.add("node_pool")  # the pool lacks the dedicated taint
        else:
            taints.append(DEFAULT_DEDICATED_TAINT)
    if draw.rarely():
        draw.invalid.add("node_pool.taints")
        taints = draw(st.sampled_from([["NoSchedule"], [None], None]), "taints (invalid)")
    if draw(st.booleans(), "karpenter factory"):
        return NodePoolRef.karpenter(name, taints=taints)
    key = draw.prop("node_pool.label_key", VALID_LABEL_KEY, INVALID_LABEL_KEY)
    return NodePoolRef(name, key, taints)


# --- tasks ---------------------------------------------------------------------------

C = PodSecurityControl
OPT_OUTS: dict[str, tuple[str, Any, frozenset[PodSecurityControl]]] = {
    "root": ("run_as_user", 0, frozenset({C.RUN_AS_NON_ROOT, C.RUN_AS_USER})),
    "writable": ("read_only_root_filesystem", False, frozenset({C.READ_ONLY_ROOT_FILESYSTEM})),
    "capabilities": ("add_capabilities", ["NET_ADMIN", "SYS_TIME"], frozenset({C.CAPABILITIES})),
    "privileged": ("privileged", True, frozenset({C.PRIVILEGED, C.PRIVILEGE_ESCALATION})),
    "host_paths": (
        "host_paths",
        [HostPathMount("/var/log", "/host/log")],
        frozenset({C.HOST_PATH_VOLUMES, C.VOLUME_TYPES}),
    ),
}


def custom_task(draw: Draw) -> ReserverTask:
    opt_outs = draw(
        st.lists(st.sampled_from(sorted(OPT_OUTS)), unique=True, max_size=3), "opt-outs"
    )
    requested = {OPT_OUTS[name][0] for name in opt_outs}
    props: dict[str, Any] = {"image": draw.prop("task.image", VALID_IMAGE, INVALID_IMAGE)}
    for prop, valid, invalid in (
        ("command", VALID_STRINGS, INVALID_STRINGS),
        ("args", VALID_STRINGS, INVALID_STRINGS),
        (
            "container_name",
            VALID_DNS_LABEL.filter(lambda n: not n.startswith("prepull-")),
            st.one_of(INVALID_DNS_LABEL, st.just("prepull-0")),
        ),
        ("run_as_user", st.integers(1, 2**31 - 1), st.sampled_from([-1, True, "1000"])),
        (
            "scratch_paths",
            st.sampled_from([[], ["/tmp"], ["/tmp", "/var/cache/app"]]),
            st.sampled_from([["tmp"], ["/tmp", "/tmp"], ["/"], "/tmp", ["/a/../b"], [None]]),
        ),
    ):
        if prop not in requested and draw(st.booleans(), f"task.{prop}?"):
            props[prop] = draw.prop(f"task.{prop}", valid, invalid)
    exceptions: set[PodSecurityControl] = set()
    for name in opt_outs:
        prop, value, controls = OPT_OUTS[name]
        props[prop] = value
        if draw.rarely():
            draw.invalid.add(f"task.{prop}")  # asked for without (all of) its opt-out
            exceptions |= set(sorted(controls, key=lambda c: c.value)[1:])
        else:
            exceptions |= controls
    if draw.rarely():
        draw.invalid.add("task.pod_security_exceptions")  # an opt-out nothing needs
        needed = {c for name in opt_outs for c in OPT_OUTS[name][2]}
        exceptions.add(
            draw(st.sampled_from(sorted(set(C) - needed, key=lambda c: c.value)), "extra")
        )
    props["pod_security_exceptions"] = sorted(exceptions, key=lambda c: c.value)
    return ReserverTask.custom(**props)


def task(draw: Draw) -> ReserverTask | None:
    kind = draw(st.sampled_from(["default", "pause", "maintenance", "prepull", "custom"]), "task")
    if kind == "default":
        return None
    if kind == "pause":
        return ReserverTask.pause(image=draw.prop("task.image", VALID_IMAGE, INVALID_IMAGE))
    if kind == "maintenance":
        return ReserverTask.maintenance(image=draw.prop("task.image", VALID_IMAGE, INVALID_IMAGE))
    if kind == "prepull":
        images = draw.prop(
            "task.images",
            st.lists(VALID_IMAGE, max_size=3),
            st.one_of(st.just("nginx"), st.lists(INVALID_IMAGE, min_size=1, max_size=1)),
        )
        command = draw.prop(
            "task.command",
            st.lists(TEXT, min_size=1, max_size=3),
            st.sampled_from([[], "true", [1]]),
        )
        return ReserverTask.prepull(images, command=command)
    return custom_task(draw)


# --- priority classes ------------------------------------------------------------------

DEFAULT_VALUES = {
    PriorityModel.GUARDED: {"headroom_value": -100, "default_value": 0, "burst_value": 10**9},
    PriorityModel.DEDICATED_POOL: {"headroom_value": -100, "burst_value": 10**9},
    PriorityModel.SEED: {"headroom_value": 900_000_000, "burst_value": 10**9},
}
# In the ladder's order (headroom < default < burst), the order the names are checked in.
DEFAULT_NAMES = {
    PriorityModel.GUARDED: {
        "headroom_class_name": "headroom-reserve",
        "default_class_name": "default-no-preempt",
        "burst_class_name": "burst-critical",
    },
    PriorityModel.DEDICATED_POOL: {
        "headroom_class_name": "headroom-reserve",
        "burst_class_name": "burst-critical",
    },
    PriorityModel.SEED: {
        "headroom_class_name": "headroom-high",
        "burst_class_name": "burst-critical",
    },
}


def priority_classes(
    draw: Draw, chart: cdk8s.Chart, model: PriorityModel
) -> HeadroomPriorityClasses:
    guarded = model is PriorityModel.GUARDED
    props: dict[str, Any] = {}
    values = dict(DEFAULT_VALUES[model])
    if draw(st.booleans(), "custom values?"):
        # Ordered values as a rule; a shuffle now and then breaks the ordering.
        chosen = sorted(
            draw(
                st.lists(
                    st.integers(-(2**31), 10**9),
                    min_size=len(values),
                    max_size=len(values),
                    unique=True,
                ),
                "values",
            )
        )
        if draw.rarely():
            chosen = draw(st.permutations(chosen), "shuffled values")
        for prop, value in zip(values, chosen, strict=True):
            if draw(st.booleans(), f"{prop}?"):
                props[prop] = values[prop] = value
    for prop in values:
        if draw.rarely():
            draw.invalid.add(prop)
            props[prop] = draw(
                st.sampled_from([2**31, 10**9 + 1, True, "0", 1.5]), f"{prop} (invalid)"
            )
    if not draw.invalid & set(values):
        ladder = list(values.items())  # headroom < default < burst, in this order
        for (low_field, low), (_, high) in pairwise(ladder):
            if not low < high:
                draw.invalid.add(low_field)  # reported on the lower field of the pair
                break
    if guarded:
        props["create_default_class"] = draw.prop(
            "create_default_class", st.sampled_from([None, True, False]), st.sampled_from(["no", 1])
        )
    elif draw.rarely():
        draw.invalid.add("create_default_class")
        props["create_default_class"] = True
    if not guarded and draw.rarely():
        draw.invalid.add("default_class_name")
        props["default_class_name"] = "default-no-preempt"
    names = dict(DEFAULT_NAMES[model])
    for prop in names:
        if draw(st.booleans(), f"{prop}?"):
            names[prop] = props[prop] = draw.prop(prop, VALID_CLASS_NAME, INVALID_CLASS_NAME)
    seen: set[Any] = set()
    for prop, name in names.items():
        if name in seen:
            draw.invalid.add(prop)  # reported on the second use of a name
        seen.add(name)
    return HeadroomPriorityClasses(chart, "classes", model=model, **props)


# --- burst workloads ------------------------------------------------------------------


def burst_props(
    draw: Draw, label: str, *, inherit: bool
) -> tuple[dict[str, Any], Quantity, Quantity]:
    """Props of a burst workload; labels are ``<label><prop>``."""

    def prop(name: str, valid: st.SearchStrategy[Any], invalid: st.SearchStrategy[Any]) -> Any:
        return draw.prop(f"{label}{name}", valid, invalid)

    cpu = draw.quantity(f"{label}cpu", VALID_CPU)
    memory = draw.quantity(f"{label}memory", VALID_MEMORY)
    props: dict[str, Any] = {
        "image": prop("image", VALID_IMAGE, INVALID_IMAGE),
        "cpu": cpu[0],
        "memory": memory[0],
    }
    if draw(st.booleans(), "replicas?"):
        props["replicas"] = prop(
            "replicas", st.integers(0, 10), st.sampled_from([-1, 2**31, True, "3", 1.5, None])
        )
    replicas = props.get("replicas", 1)
    if draw(st.booleans(), "hpa?") and f"{label}replicas" not in draw.invalid:
        if replicas < 1:
            draw.invalid.add(f"{label}replicas")  # the HPA's minimum must be at least 1
        props["max_replicas"] = prop(
            "max_replicas",
            st.integers(max(1, replicas), 50),
            st.sampled_from([max(1, replicas) - 1, True, "5"]),
        )
    if draw(st.booleans(), "target_cpu_utilization?"):
        props["target_cpu_utilization"] = prop(
            "target_cpu_utilization", st.integers(1, 100), st.sampled_from([0, 101, True])
        )
    if cpu[1] is not None and draw(st.booleans(), "cpu_limit?"):
        millis = int(cpu[1] * 1000)
        props["cpu_limit"] = prop(
            "cpu_limit",
            st.integers(0, 4000).map(lambda extra: f"{millis + extra}m"),
            st.just(f"{millis - 1}m"),
        )
    if memory[1] is not None and draw(st.booleans(), "memory_limit?"):
        size = int(memory[1])
        props["memory_limit"] = prop(
            "memory_limit",
            st.integers(0, 10**9).map(lambda extra: str(size + extra)),
            st.just(str(size - 1)),
        )
    for name, valid, invalid in (
        ("command", VALID_STRINGS, INVALID_STRINGS),
        ("args", VALID_STRINGS, INVALID_STRINGS),
        ("container_name", VALID_DNS_LABEL, INVALID_OPTIONAL_DNS_LABEL),
        ("image_pull_policy", st.sampled_from(ImagePullPolicy), st.just("Always")),
        ("run_as_user", st.integers(1, 2**31 - 1), st.sampled_from([0, -1, True])),
    ):
        if draw(st.booleans(), f"{name}?"):
            props[name] = prop(name, valid, invalid)
    if draw(st.booleans(), "labels?"):
        props["labels"] = label_map(draw, f"{label}labels")
    if not inherit:
        props["namespace"] = prop("namespace", VALID_DNS_LABEL, INVALID_DNS_LABEL)
    return props, cpu, memory


# --- capacity buffers -----------------------------------------------------------------

BUFFER_COUNTS = ("replicas", "percentage", "limits", "replicas+limits", "percentage+limits")


def capacity_buffer_props(draw: Draw, label: str, *, on_karpenter: bool) -> dict[str, Any]:
    """Props of ``add_capacity_buffer``; labels are ``<label><prop>``. ``on_karpenter``:
    the pods go to Karpenter's nodes, which serve no v1alpha1."""
    form = draw.prop(
        f"{label}form", st.sampled_from(CapacityBufferForm), st.sampled_from(["scalable", None])
    )
    props: dict[str, Any] = {"form": form}
    if draw(st.booleans(), "api_version?"):
        props["api_version"] = draw.prop(
            f"{label}api_version", st.sampled_from(CapacityBufferVersion), st.just("v1beta1")
        )
        if on_karpenter and props["api_version"] is CapacityBufferVersion.V1ALPHA1:
            draw.invalid.add(f"{label}api_version")
    counts = draw(st.sampled_from(BUFFER_COUNTS), "buffer count")
    if draw.rarely():
        counts = draw(st.sampled_from(["", "replicas+percentage"]), "buffer count (invalid)")
        # no count, or two the autoscalers combine differently
        draw.invalid.add(f"{label}percentage" if counts else f"{label}replicas")
    if "replicas" in counts:
        props["replicas"] = draw.prop(
            f"{label}replicas", st.integers(0, 20), st.sampled_from([-1, 2**31, True, "3"])
        )
    if "percentage" in counts:
        props["percentage"] = draw.prop(
            f"{label}percentage", st.integers(0, 200), st.sampled_from([-1, True, "10"])
        )
        if form is not CapacityBufferForm.SCALABLE:
            draw.invalid.add(f"{label}percentage")  # a percentage of a scalable's replicas
    if "limits" in counts:
        resource = draw(st.sampled_from(["cpu", "memory"]), "limit resource")
        amount = draw.quantity(
            f"{label}limits[{resource}]", VALID_CPU if resource == "cpu" else VALID_MEMORY
        )
        props["limits"] = {resource: amount[0]}
    return props
