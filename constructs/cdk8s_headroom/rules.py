"""The configuration rules, each declared once, as data both engines read.

The library checks its props with these declarations, and the Helm chart's schema and
template helpers are generated from the same ones (``cdk8s_headroom.helm``), so the
two refuse the same values with the same message. Plain Python: no cdk8s here.

- A ``Grammar`` is a single-value rule: regular expressions in the syntax that both
  Python's ``re`` and Go's RE2 read alike, each with what is allowed when it fails.
- An ``IntRange`` bounds an integer.
- A ``Rule`` spans values: its message template names the parts it shows
  (``{limit}``); the check that applies it is written once per engine, for each kind
  of comparison, and fed the declaration.

Quantities compare as Kubernetes compares them: CPU in whole milli-units and memory in
whole bytes, each rounded up (the API server keeps at most nano precision and rounds
up; the scheduler counts ``MilliValue`` for CPU and ``Value`` for memory).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import NoReturn

from .errors import HeadroomConfigError


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


@dataclass(frozen=True)
class Rule:
    """A rule across values; ``allowed`` is a template of its message."""

    name: str
    allowed: str

    def fail(self, field: str, value: object, **parts: object) -> NoReturn:
        raise HeadroomConfigError(field, value, self.allowed.format(**parts))


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

# --- integers ------------------------------------------------------------------------

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
QUANTITY_SYNTAX = Grammar("quantitySyntax", (_QUANTITY_SYNTAX,))
"""Any quantity, zero and negative ones too (what a manifest may hold)."""
QUANTITY = Grammar(
    "quantity",
    (
        _QUANTITY_SYNTAX,
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
    "containerMemory", "{hint}a memory of at least 4Mi, the least a container starts with"
)
BARE_BYTES_HINT = 'did you mean "{text}Mi"? a number without a unit is bytes; '
"""``CONTAINER_MEMORY``'s {hint} for a number without a unit."""


def check_container_memory(text: str, *, field: str, value: object) -> None:
    """``CONTAINER_MEMORY`` on a memory slice or request that ``QUANTITY`` accepted."""
    if amount(text, Resource.MEMORY) < MIN_CONTAINER_MEMORY:
        hint = BARE_BYTES_HINT.format(text=text) if text.isdigit() else ""
        CONTAINER_MEMORY.fail(field, value, hint=hint)


# --- rules across values -------------------------------------------------------------

PRIORITY_ORDER = Rule(
    "priorityOrder",
    "a value below the {above} class's value {limit}: priorities must be ordered "
    "headroom < default < burst",
)
CLASS_NAMES_DIFFER = Rule("classNamesDiffer", "a name different from the {other} class's")
DEFAULT_CLASS_GUARDED_ONLY = Rule(
    "defaultClassGuardedOnly",
    "no value with model {model}: only the guarded model has a default class",
)
BURST_FITS_SLICE = Rule(
    "burstFitsSlice",
    "a request that fits in the headroom slice ({slice}); a larger burst pod also "
    "evicts ordinary pods or other slices",
)
LIMIT_NOT_BELOW_REQUEST = Rule(
    "limitNotBelowRequest", "a limit no smaller than the request {request}"
)
MAX_REPLICAS_NOT_BELOW_REPLICAS = Rule(
    "maxReplicasNotBelowReplicas", "an integer from {minimum} to " + str(INT32_MAX)
)
REPLICAS_WITH_AUTOSCALER = Rule(
    "replicasWithAutoscaler", "at least 1 with an autoscaler (the autoscaler's minimum)"
)
DEDICATED_POOL_NEEDS_POOL = Rule(
    "dedicatedPoolNeedsPool",
    "a node pool with model dedicated-pool: the pool whose nodes carry the dedicated taint {taint}",
)
DEDICATED_POOL_NEEDS_TAINT = Rule(
    "dedicatedPoolNeedsTaint",
    "a pool whose nodes carry the dedicated taint {taint}, declared in its taints "
    "(model dedicated-pool keeps ordinary pods off the pool with it)",
)
SELECTOR_KEEPS_POOL = Rule(
    "selectorKeepsPool", "{selected}, the value that selects node pool {pool}"
)
CUSTOM_TASK_NEEDS_IMAGE = Rule("customTaskNeedsImage", IMAGE.clauses[0].allowed)
UNIQUE_BURST_NAMES = Rule("uniqueBurstNames", "a name no other burst workload has")
PREFIXED_NAME = Rule(
    "prefixedName",
    "{allowed}; the release name {release} prefixes it: choose a shorter release name, "
    "or set namePrefix",
)
"""The chart's: a name that the release name's prefix makes invalid."""

# A headroom without slices (cpu and memory), kept by capacity buffers alone.
SLICES_NEED_BOTH = Rule(
    "slicesNeedBoth",
    "a quantity: slices need both cpu and memory (give neither for a headroom kept by "
    "capacity buffers alone)",
)
NO_TASK_WITHOUT_SLICES = Rule(
    "noTaskWithoutSlices",
    "no value without slices: the reserver runs it, and a headroom without cpu and "
    "memory has no reserver",
)
NEEDS_ROOM = Rule(
    "needsRoom",
    "slices (cpu and memory) or a capacity buffer: this headroom keeps no room at all",
)
PREPULLER_NAME = Rule(
    "prepullerName",
    "a name of at most {limit} characters with the burst images pre-pulled: the "
    "pre-puller is <reserver>{suffix}",
)

# CapacityBuffers
BUFFER_PERCENTAGE_NEEDS_SCALABLE = Rule(
    "bufferPercentageNeedsScalable",
    "no percentage in the pod-template form: a percentage is of the replicas of the "
    "scalable object, so use the scalable form (scalableRef), or replicas",
)
BUFFER_ONE_COUNT = Rule(
    "bufferOneCount",
    "either replicas or percentage, not both: Karpenter uses the smaller of the two "
    "and Cluster Autoscaler documents the larger, so name the one you mean",
)
BUFFER_NEEDS_COUNT = Rule(
    "bufferNeedsCount",
    "a count of chunks: replicas, percentage (scalable form), or limits on cpu or "
    "memory (as many chunks as fit)",
)
BUFFER_NOT_ON_AUTO_MODE = Rule(
    "bufferNotOnAutoMode",
    "nodes outside EKS Auto Mode: Auto Mode exposes no Karpenter feature gates, so its "
    "Karpenter cannot enable CapacityBuffer; keep the headroom with slices there, or put "
    "the buffer on a Karpenter or Cluster Autoscaler pool",
)
BUFFER_ALPHA_NOT_ON_KARPENTER = Rule(
    "bufferAlphaNotOnKarpenter",
    "v1beta1 on Karpenter's nodes (selected by {label}): Karpenter serves the "
    "CapacityBuffer API at v1beta1 only; v1alpha1 is for Cluster Autoscaler 1.34",
)
SHARED_BUFFER_WARNING = (
    "capacity buffer {name}: on {where}, whose nodes admit ordinary pods, any pod can "
    "take the buffer's room (a CapacityBuffer reserves capacity for no pod in "
    "particular), so P1 does not hold for it; use the dedicated-pool model to keep the "
    "room for burst pods"
)
"""Not a refusal: the warning of a buffer on nodes without a NoSchedule taint."""

GRAMMARS = (DNS_LABEL, DNS_SUBDOMAIN, LABEL_KEY, LABEL_VALUE, CLASS_NAME, IMAGE, QUANTITY)
INT_RANGES = (INT32, PRIORITY, REPLICAS, POSITIVE, PERCENT)
RULES = (
    CONTAINER_MEMORY,
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


def check_ordered(rule: Rule, ladder: list[tuple[str, str, int]]) -> None:
    """Fails ``rule`` at the first step of ``(field, role, value)`` that does not rise."""
    for (field, _, low), (_, role, high) in itertools.pairwise(ladder):
        if not low < high:
            rule.fail(field, low, above=role, limit=high)
