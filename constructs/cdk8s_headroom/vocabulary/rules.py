"""The configuration rules, each declared once, as data both engines read.

The library checks its props with these declarations, and the Helm chart's schema and
template helpers are generated from the same ones (``cdk8s_headroom.helm``), so the
two refuse the same values with the same message. Plain Python: no cdk8s here.

- A ``Grammar`` is a single-value rule: regular expressions in the syntax that both
  Python's ``re`` and Go's RE2 read alike, each with what is allowed when it fails.
- An ``IntRange`` bounds an integer.
- A ``Rule`` spans values: its ``Test``, an expression over named operands (``Less``,
  ``AtMost`` for quantities, ``In``, ``AnyOf``...), and its message template, which
  names the parts it shows (``{high}``). The library evaluates the test here; the chart
  runs the same test compiled to a Go template helper. Each engine only says which of
  its values are the operands.
- A ``Predicate`` is a named test that the library and the chart ask elsewhere too.

Quantities compare as Kubernetes compares them: CPU in whole milli-units and memory in
whole bytes, each rounded up (the API server keeps at most nano precision and rounds
up; the scheduler counts ``MilliValue`` for CPU and ``Value`` for memory).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any, NamedTuple, NoReturn

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown


@dataclass(frozen=True)
class Clause:
    """One regular expression a value must match in full (or, ``forbid``, must not)."""

    pattern: str
    allowed: str
    forbid: bool = False


@dataclass(frozen=True)
class Grammar:
    """A single-value rule: its clauses, checked in order; the first that fails says
    what is allowed."""

    name: str
    clauses: tuple[Clause, ...]

    def check(self, value: object, *, field: str, text: object = None) -> str:
        """Returns ``text`` (default: ``value``) when it matches, else raises an error
        that shows ``value``, as given."""
        text = value if text is None else text
        if not isinstance(text, str):
            raise HeadroomConfigError(field, value, self.clauses[0].allowed)
        for clause in self.clauses:
            if bool(re.fullmatch(clause.pattern, text)) is clause.forbid:
                raise HeadroomConfigError(field, value, clause.allowed)
        return text

    def matches(self, value: object) -> bool:
        return isinstance(value, str) and all(
            bool(re.fullmatch(c.pattern, value)) is not c.forbid for c in self.clauses
        )


@dataclass(frozen=True)
class IntRange:
    """An integer from ``minimum`` to ``maximum`` (a boolean is not an integer)."""

    name: str
    minimum: int
    maximum: int

    @property
    def allowed(self) -> str:
        return f"an integer from {self.minimum} to {self.maximum}"

    def check(self, value: object, *, field: str) -> int:
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not self.minimum <= value <= self.maximum
        ):
            raise HeadroomConfigError(field, value, self.allowed)
        return value


# --- the tests of rules across values ------------------------------------------------
#
# A rule across values carries its test: a small expression over named operands, which
# each engine evaluates with the operands it has at hand. Here each node's ``holds``
# evaluates it (the library's checks); the chart's generated helper
# ``node-headroom.rule.<name>`` is the same expression compiled to Go
# (``cdk8s_headroom.helm.library``). An operand is named by a string; ``Const`` holds a
# constant. The nodes are named tuples, not dataclasses: a dozen dataclasses cost the
# simulator's start-up some 10 ms of generated methods. They compare as tuples, so
# nothing compares tests.


class Const(NamedTuple):
    """A constant in a test."""

    value: object


class Length(NamedTuple):
    """The length of an operand (a string or a list)."""

    of: str


class First(NamedTuple):
    """The first item of a list operand (null for an empty list)."""

    of: str


Term = str | Const | Length | First


def _term(term: Term, operands: Mapping[str, object]) -> Any:
    """A term's value; an operand not passed is null, as in Go templates."""
    if isinstance(term, Const):
        return term.value
    if isinstance(term, Length):
        return len(operands.get(term.of) or ())  # type: ignore[arg-type]
    if isinstance(term, First):
        return (list(operands.get(term.of) or ()) or [None])[0]  # type: ignore[call-overload]
    return operands.get(term)


class Given(NamedTuple):
    """The operand is given: not null, and not an empty text, list or map."""

    term: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        value = _term(self.term, operands)
        return value is not None and not (isinstance(value, (str, list, tuple, dict)) and not value)


class Truthy(NamedTuple):
    """The operand is true (a flag, or anything given that is not false)."""

    term: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        return bool(_term(self.term, operands))


class Eq(NamedTuple):
    """Two texts (or flags) are the same."""

    a: Term
    b: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        a, b = _term(self.a, operands), _term(self.b, operands)
        return type(a) is type(b) and a == b


class Less(NamedTuple):
    """An integer below another (an integer's text is the integer)."""

    a: Term
    b: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        return int(_term(self.a, operands)) < int(_term(self.b, operands))


class AtMost(NamedTuple):
    """Quantity ``a`` is at most quantity ``b`` of the resource named by ``resource``
    (``cpu`` or ``memory``), as the scheduler counts them (``amount``)."""

    a: Term
    b: Term
    resource: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        resource = Resource[str(_term(self.resource, operands)).upper()]
        a, b = (str(_term(t, operands)).strip() for t in (self.a, self.b))
        return amount(a, resource) <= amount(b, resource)


class In(NamedTuple):
    """An item is in a list."""

    item: Term
    items: Term

    def holds(self, operands: Mapping[str, object]) -> bool:
        return _term(self.item, operands) in (_term(self.items, operands) or ())


class Prefix(NamedTuple):
    """A text starts with a constant prefix."""

    term: Term
    prefix: str

    def holds(self, operands: Mapping[str, object]) -> bool:
        value = _term(self.term, operands)
        return isinstance(value, str) and value.startswith(self.prefix)


class Matches(NamedTuple):
    """A text matches a grammar."""

    term: Term
    grammar: Grammar

    def holds(self, operands: Mapping[str, object]) -> bool:
        return self.grammar.matches(_term(self.term, operands))


class Not(NamedTuple):
    test: Test

    def holds(self, operands: Mapping[str, object]) -> bool:
        return not self.test.holds(operands)


class _Several(NamedTuple):
    tests: tuple[Test, ...]


class AllOf(_Several):
    def __new__(cls, *tests: Test) -> AllOf:
        return super().__new__(cls, tests)

    def holds(self, operands: Mapping[str, object]) -> bool:
        return all(test.holds(operands) for test in self.tests)


class AnyOf(_Several):
    def __new__(cls, *tests: Test) -> AnyOf:
        return super().__new__(cls, tests)

    def holds(self, operands: Mapping[str, object]) -> bool:
        return any(test.holds(operands) for test in self.tests)


Test = Given | Truthy | Eq | Less | AtMost | In | Prefix | Matches | Not | AllOf | AnyOf
"""An expression over operands that is true when the rule holds (``holds``)."""


@dataclass(frozen=True)
class Predicate:
    """A named test that more than one rule, or the library elsewhere, asks."""

    name: str
    test: Test

    def holds(self, **operands: object) -> bool:
        return self.test.holds(operands)


class _Operand:
    """An operand in a rule's message: ``{part!r}`` shows it as ``errors.shown`` does
    (a plain ``str.format``, which the simulator's start-up can afford)."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __repr__(self) -> str:
        return shown(self.value)

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


def _message(template: str, operands: Mapping[str, object]) -> str:
    return template.format(**{name: _Operand(value) for name, value in operands.items()})


@dataclass(frozen=True)
class Rule:
    """A rule across values: its test, and a template of its message (``{part}``, or
    ``{part!r}`` for the operand as a message shows a value, ``errors.shown``)."""

    name: str
    allowed: str
    test: Test

    def fail(self, field: str, value: object, /, **parts: object) -> NoReturn:
        raise HeadroomConfigError(field, value, _message(self.allowed, parts))

    def broken(self, **operands: object) -> str | None:
        """The message when the test fails on ``operands``, else ``None``."""
        return None if self.test.holds(operands) else _message(self.allowed, operands)

    def check(self, field: str, value: object, /, **operands: object) -> None:
        """Raises the error of ``field``, showing ``value``, when the test fails; the
        test sees ``value`` as the operand ``value`` (whatever else is passed under that
        name), as the chart's helper does.
        An ``advice`` operand is the error's advice (see ``HeadroomConfigError``)."""
        advice = str(operands.pop("advice", ""))
        message = self.broken(**{**operands, "value": value})
        if message is not None:
            raise HeadroomConfigError(field, value, message, advice)


# --- names ---------------------------------------------------------------------------

_DNS_LABEL = r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"
_DNS_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_LABEL_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"

DNS_LABEL = Grammar(
    "dnsLabel",
    (
        Clause(
            _DNS_LABEL,
            "a DNS-1123 label: at most 63 lowercase letters, digits or '-', "
            "starting and ending with a letter or digit",
        ),
    ),
)
_SUBDOMAIN_ALLOWED = (
    "a DNS-1123 subdomain: at most 253 lowercase letters, digits, '-' or '.', "
    "starting and ending with a letter or digit"
)
DNS_SUBDOMAIN = Grammar(
    "dnsSubdomain",
    (Clause(_DNS_SUBDOMAIN, _SUBDOMAIN_ALLOWED), Clause(".{254,}", _SUBDOMAIN_ALLOWED, True)),
)
_LABEL_KEY_ALLOWED = (
    "a label key: an optional DNS subdomain prefix and '/', then at most 63 "
    "letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
)
LABEL_KEY = Grammar(
    "labelKey",
    (
        Clause(f"({_DNS_SUBDOMAIN}/)?{_LABEL_NAME}", _LABEL_KEY_ALLOWED),
        Clause("[^/]{254,}/.*", _LABEL_KEY_ALLOWED, True),
    ),
)
TOLERATION_KEY = Grammar(
    "tolerationKey",
    (Clause(f"(({_DNS_SUBDOMAIN}/)?{_LABEL_NAME})?", _LABEL_KEY_ALLOWED), LABEL_KEY.clauses[1]),
)
"""A label key, or empty: a toleration's key (empty with Exists: every key)."""
LABEL_VALUE = Grammar(
    "labelValue",
    (
        Clause(
            f"({_LABEL_NAME})?",
            "a label value: empty, or at most 63 letters, digits, '-', '_' or '.', "
            "starting and ending with a letter or digit",
        ),
    ),
)
CLASS_NAME = Grammar(
    "className",
    (
        *DNS_SUBDOMAIN.clauses,
        Clause(
            "system-.*",
            "a name that does not start with 'system-' (reserved by Kubernetes)",
            True,
        ),
    ),
)

# The image reference grammar of distribution/reference (what the kubelet parses): a
# pod with any other image is accepted by the API server, then never starts.
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_IMAGE_ALLOWED = (
    "a container image reference [registry[:port]/]name[:tag][@digest] with a "
    "lowercase name, e.g. 'nginx:1.27' or 'ghcr.io/acme/app@sha256:<64 hex>'"
)
IMAGE = Grammar(
    "image",
    (
        Clause(
            rf"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
            r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
            r"(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?",
            _IMAGE_ALLOWED,
        ),
        # The name (before the tag and the digest) has at most 255 characters.
        Clause(r".{256,}:[^:@]*(@.*)?|[^:@]{256,}(@.*)?", _IMAGE_ALLOWED, True),
    ),
)

# strconv.ParseInt's grammar: an optional sign and ASCII digits (Python's int() would
# also take spaces, underscores and other scripts' digits).
INTEGER = Grammar("integer", (Clause(r"[+-]?[0-9]+", "an integer"),))

# --- integers ------------------------------------------------------------------------

EXACT_NUMBER_LIMIT = 2**53
EXACT_NUMBER_ALLOWED = (
    "a whole number below 2^53 (9007199254740992) in magnitude, or the number as a quoted "
    "string: YAML and JSON numbers beyond it lose digits"
)
"""A whole number given where text is expected (a chart value that ``--set`` or YAML
made a number): Helm reads a values file's numbers as 64-bit floats, exact only below
2^53, so a larger one is refused rather than read with other digits."""

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
MAX_USER_PRIORITY = 1_000_000_000
"""The highest value a user-defined PriorityClass may have (system classes are above)."""

INT32 = IntRange("int32", INT32_MIN, INT32_MAX)
PRIORITY = IntRange("priority", INT32_MIN, MAX_USER_PRIORITY)
REPLICAS = IntRange("replicas", 0, INT32_MAX)
POSITIVE = IntRange("positive", 1, INT32_MAX)
PERCENT = IntRange("percent", 1, 100)

# --- quantities ----------------------------------------------------------------------

_QUANTITY_ALLOWED = (
    "a Kubernetes quantity: a number with an optional suffix m, k, M, G, T, P, E, "
    "Ki, Mi, Gi, Ti, Pi, Ei or an exponent e<n> from e-64 to e64, e.g. "
    '"500m", "0.5", "512Mi", "1Gi"'
)
_QUANTITY_SYNTAX = Clause(
    r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)"
    r"(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?0*([0-9]|[1-5][0-9]|6[0-4]))?",
    _QUANTITY_ALLOWED,
)
QUANTITY_MAX_LENGTH = 1000
_QUANTITY_LENGTH = Clause(
    rf".{{{QUANTITY_MAX_LENGTH}}}.+",
    f"a quantity of at most {QUANTITY_MAX_LENGTH} characters: Kubernetes caps a quantity "
    "at 2^63-1 (in cores or bytes), so a longer one is surely a mistake",
    True,
)
"""Exact arithmetic holds at any length, but Python turns at most 4300 digits into an
int, and RE2 counts at most 1000 repetitions; both engines refuse beyond."""
QUANTITY_SYNTAX = Grammar("quantitySyntax", (_QUANTITY_SYNTAX, _QUANTITY_LENGTH))
"""Any quantity, zero and negative ones too (what a manifest may hold)."""
QUANTITY = Grammar(
    "quantity",
    (
        _QUANTITY_SYNTAX,
        _QUANTITY_LENGTH,
        Clause(r"-.*|\+?[0.]*([KMGTPE]i|[mkMGTPE]|[eE].*)?", "a quantity greater than zero", True),
    ),
)
"""A quantity greater than zero, as a string."""

DECIMAL_SUFFIXES = {"m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
BINARY_SUFFIXES = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
"""Powers of ten, and of 1024, of each suffix."""


class Resource(Enum):
    """A resource whose quantities the scheduler counts; the value is the power of ten
    of its unit (milli-units for CPU, bytes for memory)."""

    CPU = 3
    MEMORY = 0


def quantity_text(value: object, *, field: str, grammar: Grammar = QUANTITY) -> str:
    """The quantity as Kubernetes receives it: a string as given (stripped)."""
    return grammar.check(value, field=field, text=value.strip() if isinstance(value, str) else None)


@functools.lru_cache(maxsize=4096)  # the same few quantities, judged by many rules
def exact_amount(text: str) -> Fraction:
    """The exact value of a quantity that ``QUANTITY_SYNTAX`` accepts (cores, bytes)."""
    match = re.fullmatch(r"([+-]?[0-9.]+)(.*)", text)
    assert match is not None, text
    number, suffix = Fraction(match[1]), match[2]
    if suffix in BINARY_SUFFIXES:
        return number * 1024 ** BINARY_SUFFIXES[suffix]  # type: ignore[no-any-return]
    exponent = DECIMAL_SUFFIXES[suffix] if suffix in DECIMAL_SUFFIXES else int(suffix[1:])
    return number * Fraction(10) ** exponent


def amount(text: str, resource: Resource) -> int:
    """The quantity in the resource's unit, rounded up, as the scheduler counts it."""
    return math.ceil(exact_amount(text) * 10**resource.value)


MIN_CONTAINER_MEMORY = 4 * 2**20
"""4Mi, in bytes: less memory than any container starts with. A smaller slice or request
is almost surely a missing unit (``"512"`` is 512 bytes)."""
CONTAINER_MEMORY = Rule(
    "containerMemory",
    "{hint}a memory of at least 4Mi, the least a container starts with",
    AtMost(Const(str(MIN_CONTAINER_MEMORY)), "memory", Const("memory")),
)
BARE_BYTES_HINT = 'did you mean "{text}Mi"? a number without a unit is bytes; '
"""``CONTAINER_MEMORY``'s {hint} for a number without a unit."""


def check_container_memory(text: str, *, field: str, value: object) -> None:
    """``CONTAINER_MEMORY`` on a memory slice or request that ``QUANTITY`` accepted."""
    hint = BARE_BYTES_HINT.format(text=text) if text.isdigit() else ""
    CONTAINER_MEMORY.check(field, value, memory=text, hint=hint)


# --- rules across values -------------------------------------------------------------

PRIORITY_ORDER = Rule(
    "priorityOrder",
    "a value below the {above} class's value {high}: priorities must be ordered "
    "headroom < default < burst",
    Less("low", "high"),
)
CLASS_NAMES_DIFFER = Rule(
    "classNamesDiffer", "a name different from the {other} class's", Not(Given("other"))
)
DEFAULT_CLASS_GUARDED_ONLY = Rule(
    "defaultClassGuardedOnly",
    "no value with model {model}: only the guarded model has a default class",
    AnyOf(Eq("model", Const("guarded")), Not(Given("given")), Eq("given", Const(False))),
)
BURST_FITS_SLICE = Rule(
    "burstFitsSlice",
    "a request that fits in the headroom slice ({slice}); a larger burst pod also "
    "evicts ordinary pods or other slices",
    AtMost("request", "room", "resource"),
)
LIMIT_NOT_BELOW_REQUEST = Rule(
    "limitNotBelowRequest",
    "a limit no smaller than the request {request!r}",
    AtMost("request", "limit", "resource"),
)
MAX_REPLICAS_NOT_BELOW_REPLICAS = Rule(
    "maxReplicasNotBelowReplicas",
    # Failing, replicas is at least 2: maxReplicas is at least 1 (POSITIVE)
    "an integer from {replicas} to " + str(INT32_MAX),
    Not(Less("maxReplicas", "replicas")),
)
REPLICAS_WITH_AUTOSCALER = Rule(
    "replicasWithAutoscaler",
    "at least 1 with an autoscaler (the autoscaler's minimum)",
    Not(Less("replicas", Const(1))),
)
# Judged under model dedicated-pool only
DEDICATED_POOL_NEEDS_POOL = Rule(
    "dedicatedPoolNeedsPool",
    "a node pool with model dedicated-pool: the pool whose nodes carry the dedicated taint {taint}",
    Given("pool"),
)
DEDICATED_POOL_NEEDS_TAINT = Rule(
    "dedicatedPoolNeedsTaint",
    "a pool whose nodes carry the dedicated taint {taint}, declared in its taints "
    "(model dedicated-pool keeps ordinary pods off the pool with it)",
    In("taint", "declared"),
)
SELECTOR_KEEPS_POOL = Rule(
    "selectorKeepsPool",
    "{selected!r}, the value that selects node pool {pool!r}",
    AnyOf(Not(Given("selected")), Eq("selected", "value")),
)
CUSTOM_TASK_NEEDS_IMAGE = Rule("customTaskNeedsImage", IMAGE.clauses[0].allowed, Given("image"))
UNIQUE_BURST_NAMES = Rule(
    "uniqueBurstNames", "a name no other burst workload has", Not(In("name", "seen"))
)
PREFIXED_NAME = Rule(
    "prefixedName",
    "{allowed}; the release name {release!r} prefixes it: choose a shorter release name, "
    "or set namePrefix",
    AnyOf(Matches("name", DNS_LABEL), Not(Given("release"))),
)
"""The chart's: a name that the release name's prefix makes invalid."""

# A headroom without slices (cpu and memory), kept by capacity buffers alone.
SLICES_NEED_BOTH = Rule(
    "slicesNeedBoth",
    "a quantity: slices need both cpu and memory (give neither for a headroom kept by "
    "capacity buffers alone)",
    AnyOf(Given("quantity"), Not(Given("other"))),
)
NO_TASK_WITHOUT_SLICES = Rule(
    "noTaskWithoutSlices",
    "no value without slices: the reserver runs it, and a headroom without cpu and "
    "memory has no reserver",
    AnyOf(Truthy("slices"), Not(Truthy("given"))),
)
NEEDS_ROOM = Rule(
    "needsRoom",
    "slices (cpu and memory) or a capacity buffer: this headroom keeps no room at all",
    AnyOf(Truthy("slices"), Truthy("buffers")),
)
PREPULLER_NAME = Rule(
    "prepullerName",
    "a name of at most {limit} characters with the burst images pre-pulled: the "
    "pre-puller is <reserver>{suffix}",
    AnyOf(Not(Truthy("prepull")), Not(Less("limit", Length("name")))),
)

# --- a pod's tolerations and node-selector requirements (the API server's rules) -----

TOLERATION_NEEDS_KEY = Rule(
    "tolerationNeedsKey",
    "a key, unless the operator is Exists (which, with no key, matches every taint)",
    AnyOf(Given("key"), Eq("operator", Const("Exists"))),
)
TOLERATION_EXISTS_WITHOUT_VALUE = Rule(
    "tolerationExistsWithoutValue",
    "an empty value with operator Exists",
    AnyOf(Not(Eq("operator", Const("Exists"))), Not(Given("value"))),
)
TOLERATION_SECONDS_NO_EXECUTE = Rule(
    "tolerationSecondsNoExecute",
    "no value unless the effect is NoExecute",
    AnyOf(Not(Given("value")), Eq("effect", Const("NoExecute"))),
)
INTEGER_OPERATORS = ("Gt", "Lt", "Gte", "Lte")
"""The node-selector operators that compare a label, read as an integer, with one value."""
KARPENTER_ONLY_OPERATORS = ("Gte", "Lte")
"""Operators Karpenter adds to its NodePool requirements; pods' node affinity lacks them."""
REQUIREMENT_NEEDS_VALUES = Rule(
    "requirementNeedsValues",
    "at least one value for operator {operator}",
    AnyOf(Not(In("operator", Const(("In", "NotIn")))), Given("values")),
)
REQUIREMENT_NO_VALUES = Rule(
    "requirementNoValues",
    "no values for operator {operator}",
    AnyOf(Not(In("operator", Const(("Exists", "DoesNotExist")))), Not(Given("values"))),
)
REQUIREMENT_ONE_INTEGER = Rule(
    "requirementOneInteger",
    "exactly one integer for operator {operator}",
    AnyOf(
        Not(In("operator", Const(INTEGER_OPERATORS))),
        AllOf(Eq(Length("values"), Const(1)), Matches(First("values"), INTEGER)),
    ),
)
REQUIREMENT_NOT_NEGATIVE = Rule(
    "requirementNotNegative",
    "one integer of zero or more for operator {operator} (Karpenter's rule)",
    AnyOf(
        Not(In("operator", Const(KARPENTER_ONLY_OPERATORS))), Not(Less(First("values"), Const(0)))
    ),
)
"""Of Karpenter's NodePool requirements only (Gte and Lte are not a pod's)."""

# --- where pods go: the node labels the rules judge ------------------------------------

KARPENTER_NODEPOOL_LABEL = "karpenter.sh/nodepool"
"""The label Karpenter puts on its nodes: the name of their NodePool."""
AUTO_MODE_DOMAIN = "eks.amazonaws.com"
"""EKS Auto Mode's API group and node-label domain."""
AUTO_MODE_INSTANCE_LABEL_PREFIX = f"{AUTO_MODE_DOMAIN}/instance-"
"""Auto Mode's instance labels (``instance-category``, ``instance-cpu``...), which only
its nodes carry. Other EKS node labels share the domain and are not Auto Mode's: a
managed node group's ``nodegroup`` and ``capacityType``, which Cluster Autoscaler
scales, where buffers work."""
AUTO_MODE_COMPUTE_TYPE_LABEL = f"{AUTO_MODE_DOMAIN}/compute-type"
AUTO_MODE_COMPUTE_TYPE = "auto"
"""The ``compute-type`` of Auto Mode nodes (Fargate's nodes carry ``fargate``)."""
AUTO_MODE_BUILTIN_POOLS = ("general-purpose", "system")
"""The NodePools EKS Auto Mode creates and manages; reference them, never emit them."""
REQUIRING_OPERATORS = ("In", "Exists", "Gt", "Lt")
"""The node-selector operators a node must carry the key to match (``NotIn`` and
``DoesNotExist`` also match nodes without it)."""

_REQUIRING = In("operator", Const(REQUIRING_OPERATORS))
_REQUIRES_AUTO_MODE = AllOf(
    _REQUIRING,
    AnyOf(
        Prefix("key", AUTO_MODE_INSTANCE_LABEL_PREFIX),
        AllOf(
            Eq("key", Const(AUTO_MODE_COMPUTE_TYPE_LABEL)),
            Eq("operator", Const("In")),
            In(Const(AUTO_MODE_COMPUTE_TYPE), "values"),
        ),
    ),
)
"""Whether a required node-selector requirement (``key``, ``operator``, ``values``; a
node selector entry is ``key In [value]``) matches only EKS Auto Mode nodes."""
ON_KARPENTER = Predicate(
    "onKarpenter", AllOf(_REQUIRING, Eq("key", Const(KARPENTER_NODEPOOL_LABEL)))
)
"""Whether a requirement places pods on Karpenter's nodes."""

# CapacityBuffers
BUFFER_PERCENTAGE_NEEDS_SCALABLE = Rule(
    "bufferPercentageNeedsScalable",
    "no percentage in the pod-template form: a percentage is of the replicas of the "
    "scalable object, so use the scalable form (scalableRef), or replicas",
    AnyOf(Not(Given("percentage")), Eq("form", Const("scalableRef"))),
)
BUFFER_ONE_COUNT = Rule(
    "bufferOneCount",
    "either replicas or percentage, not both: Karpenter uses the smaller of the two "
    "and Cluster Autoscaler documents the larger, so name the one you mean",
    AnyOf(Not(Given("percentage")), Not(Given("replicas"))),
)
BUFFER_NEEDS_COUNT = Rule(
    "bufferNeedsCount",
    "a count of chunks: replicas, percentage (scalable form), or limits on cpu or "
    "memory (as many chunks as fit)",
    AnyOf(
        Given("replicas"),
        Given("percentage"),
        In(Const("cpu"), "limits"),
        In(Const("memory"), "limits"),
    ),
)
BUFFER_NOT_ON_AUTO_MODE = Rule(
    "bufferNotOnAutoMode",
    "nodes outside EKS Auto Mode: Auto Mode exposes no Karpenter feature gates, so its "
    "Karpenter cannot enable CapacityBuffer; keep the headroom with slices there, or put "
    "the buffer on a Karpenter or Cluster Autoscaler pool",
    Not(AnyOf(In("pool", Const(AUTO_MODE_BUILTIN_POOLS)), _REQUIRES_AUTO_MODE)),
)
"""Judged for the pool (``pool``), and for each requirement of the placement."""
BUFFER_ALPHA_NOT_ON_KARPENTER = Rule(
    "bufferAlphaNotOnKarpenter",
    f"v1beta1 on Karpenter's nodes (selected by {KARPENTER_NODEPOOL_LABEL}): Karpenter serves the "
    "CapacityBuffer API at v1beta1 only; v1alpha1 is for Cluster Autoscaler 1.34",
    Not(AllOf(Eq("version", Const("v1alpha1")), Truthy("onKarpenter"))),
)
SHARED_BUFFER_WARNING = (
    "capacity buffer {name}: on {where}, whose nodes admit ordinary pods, any pod can "
    "take the buffer's room (a CapacityBuffer reserves capacity for no pod in "
    "particular), so P1 does not hold for it; use the dedicated-pool model to keep the "
    "room for burst pods"
)
"""Not a refusal: the warning of a buffer on nodes without a NoSchedule taint."""

GRAMMARS = (
    DNS_LABEL,
    DNS_SUBDOMAIN,
    LABEL_KEY,
    TOLERATION_KEY,
    LABEL_VALUE,
    CLASS_NAME,
    IMAGE,
    QUANTITY,
)
INT_RANGES = (INT32, PRIORITY, REPLICAS, POSITIVE, PERCENT)
RULES = (
    CONTAINER_MEMORY,
    TOLERATION_NEEDS_KEY,
    TOLERATION_EXISTS_WITHOUT_VALUE,
    TOLERATION_SECONDS_NO_EXECUTE,
    REQUIREMENT_NEEDS_VALUES,
    REQUIREMENT_NO_VALUES,
    REQUIREMENT_ONE_INTEGER,
    REQUIREMENT_NOT_NEGATIVE,
    PRIORITY_ORDER,
    CLASS_NAMES_DIFFER,
    DEFAULT_CLASS_GUARDED_ONLY,
    BURST_FITS_SLICE,
    LIMIT_NOT_BELOW_REQUEST,
    MAX_REPLICAS_NOT_BELOW_REPLICAS,
    REPLICAS_WITH_AUTOSCALER,
    DEDICATED_POOL_NEEDS_POOL,
    DEDICATED_POOL_NEEDS_TAINT,
    SELECTOR_KEEPS_POOL,
    CUSTOM_TASK_NEEDS_IMAGE,
    UNIQUE_BURST_NAMES,
    PREFIXED_NAME,
    SLICES_NEED_BOTH,
    NO_TASK_WITHOUT_SLICES,
    NEEDS_ROOM,
    PREPULLER_NAME,
    BUFFER_PERCENTAGE_NEEDS_SCALABLE,
    BUFFER_ONE_COUNT,
    BUFFER_NEEDS_COUNT,
    BUFFER_NOT_ON_AUTO_MODE,
    BUFFER_ALPHA_NOT_ON_KARPENTER,
)
"""Every rule across values, for the chart generator."""
PREDICATES = (ON_KARPENTER,)


def check_ordered(rule: Rule, ladder: list[tuple[str, str, int]]) -> None:
    """``rule`` on each step of ``(field, role, value)``, lowest first."""
    for (field, _, low), (_, role, high) in itertools.pairwise(ladder):
        rule.check(field, low, low=low, high=high, above=role)
