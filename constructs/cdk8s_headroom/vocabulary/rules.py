"""The configuration rules, each declared once, as data both engines read.

Every grammar, integer range and rule across values that the library checks its props
with. The Helm chart's schema and template helpers are generated from the same
declarations (``cdk8s_headroom.helm``), so the two refuse the same values with the same
message. The language they are written in, and how they are judged, is
``rule_language``. Plain Python: no cdk8s here.
"""

from __future__ import annotations

from cdk8s_headroom.vocabulary.durations import PROMETHEUS_DURATION
from cdk8s_headroom.vocabulary.node_labels import (
    AUTO_MODE_BUILTIN_POOLS,
    AUTO_MODE_COMPUTE_TYPE,
    AUTO_MODE_COMPUTE_TYPE_LABEL,
    AUTO_MODE_INSTANCE_LABEL_PREFIX,
    KARPENTER_NODEPOOL_LABEL,
)
from cdk8s_headroom.vocabulary.placement_rules import (
    REQUIREMENT_NEEDS_VALUES,
    REQUIREMENT_NO_VALUES,
    REQUIREMENT_NOT_NEGATIVE,
    REQUIREMENT_ONE_INTEGER,
    TOLERATION_EXISTS_WITHOUT_VALUE,
    TOLERATION_NEEDS_KEY,
    TOLERATION_SECONDS_NO_EXECUTE,
)
from cdk8s_headroom.vocabulary.rbac import SubjectKind
from cdk8s_headroom.vocabulary.rule_language import (
    AllOf,
    AnyOf,
    AtMost,
    Clause,
    Const,
    Eq,
    Given,
    Grammar,
    In,
    IntRange,
    Length,
    Less,
    Matches,
    Not,
    Predicate,
    Prefix,
    Rule,
    Truthy,
)
from cdk8s_headroom.vocabulary.share_rules import SHARE, SHARE_RULES

# --- names ---------------------------------------------------------------------------

# Lengths are bounds (Clause.at_most), not repeats: see Clause.
_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_LABEL_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"

_DNS_LABEL_ALLOWED = (
    "a DNS-1123 label: at most 63 lowercase letters, digits or '-', "
    "starting and ending with a letter or digit"
)
DNS_LABEL = Grammar(
    "dnsLabel",
    (Clause(_DNS_LABEL, _DNS_LABEL_ALLOWED), Clause.at_most(63, _DNS_LABEL_ALLOWED)),
)
_SUBDOMAIN_ALLOWED = (
    "a DNS-1123 subdomain: at most 253 lowercase letters, digits, '-' or '.', "
    "starting and ending with a letter or digit"
)
DNS_SUBDOMAIN = Grammar(
    "dnsSubdomain",
    (Clause(_DNS_SUBDOMAIN, _SUBDOMAIN_ALLOWED), Clause.at_most(253, _SUBDOMAIN_ALLOWED)),
)
_LABEL_KEY_ALLOWED = (
    "a label key: an optional DNS subdomain prefix and '/', then at most 63 "
    "letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
)
_LABEL_KEY_LENGTHS = (
    Clause.at_most(253, _LABEL_KEY_ALLOWED, cut="/.*"),  # the prefix
    Clause.at_most(63, _LABEL_KEY_ALLOWED, cut=".*/"),  # the name
)
LABEL_KEY = Grammar(
    "labelKey",
    (
        Clause(f"({_DNS_SUBDOMAIN}/)?{_LABEL_NAME}", _LABEL_KEY_ALLOWED),
        *_LABEL_KEY_LENGTHS,
    ),
)
TOLERATION_KEY = Grammar(
    "tolerationKey",
    (Clause(f"(({_DNS_SUBDOMAIN}/)?{_LABEL_NAME})?", _LABEL_KEY_ALLOWED), *_LABEL_KEY_LENGTHS),
)
"""A label key, or empty: a toleration's key (empty with Exists: every key)."""
_LABEL_VALUE_ALLOWED = (
    "a label value: empty, or at most 63 letters, digits, '-', '_' or '.', "
    "starting and ending with a letter or digit"
)
LABEL_VALUE = Grammar(
    "labelValue",
    (Clause(f"({_LABEL_NAME})?", _LABEL_VALUE_ALLOWED), Clause.at_most(63, _LABEL_VALUE_ALLOWED)),
)
INSTANCE_TYPE = Grammar(
    "instanceType", (Clause(".+", "an instance type, e.g. 'm5.large'"), *LABEL_VALUE.clauses)
)
"""A node size's ``node.kubernetes.io/instance-type``: a label value that is not empty."""
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
        Clause.at_most(255, _IMAGE_ALLOWED, cut=r"(:[^:@]*)?(@.*)?$"),
    ),
)

# --- integers ------------------------------------------------------------------------

EXACT_NUMBER_LIMIT = 2**53
EXACT_NUMBER_ALLOWED = (
    "a whole number below 2^53 (9007199254740992) in magnitude, or the number as a quoted "
    "string: YAML and JSON numbers beyond it lose digits"
)
"""A whole number given where text is expected (a chart value that ``--set`` or YAML
made a number): Helm reads a values file's numbers as 64-bit floats, exact only below
2^53, so a larger one is refused rather than read with other digits."""

FRACTION_NUMBER_ALLOWED = (
    'a quantity as a quoted string: quote it, e.g. "500m" or "0.5"; YAML and JSON read an '
    "unquoted number with a fraction as a binary fraction, not as the quantity's text"
)
"""A number with a fraction given where a quantity is expected (``cpu: 0.5`` in a values
file): the chart refuses it rather than guess the digits YAML meant."""

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
MAX_USER_PRIORITY = 1_000_000_000
"""The highest value a user-defined PriorityClass may have (system classes are above)."""

INT32 = IntRange("int32", INT32_MIN, INT32_MAX)
PRIORITY = IntRange("priority", INT32_MIN, MAX_USER_PRIORITY)
REPLICAS = IntRange("replicas", 0, INT32_MAX)
POSITIVE = IntRange("positive", 1, INT32_MAX)
PERCENT = IntRange("percent", 1, 100)
WINDOW_MINUTES = IntRange("windowMinutes", 1, 31 * 24 * 60)
"""A time window's length (``HeadroomWindow.minutes``): up to a month. A longer one is
the whole time, which needs no schedule."""

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
_QUANTITY_LENGTH = Clause.at_most(
    QUANTITY_MAX_LENGTH,
    f"a quantity of at most {QUANTITY_MAX_LENGTH} characters: Kubernetes caps a quantity "
    "at 2^63-1 (in cores or bytes), so a longer one is surely a mistake",
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

# --- extended resources --------------------------------------------------------------

_EXTENDED_RESOURCE_ALLOWED = (
    "an extended resource name: a DNS subdomain outside kubernetes.io, '/', then at most "
    "63 letters, digits, '-', '_' or '.', e.g. \"nvidia.com/gpu\" (Kubernetes' "
    "IsExtendedResourceName; cpu, memory and hugepages are native, not extended)"
)
EXTENDED_RESOURCE = Grammar(
    "extendedResource",
    (
        Clause(f"{_DNS_SUBDOMAIN}/{_LABEL_NAME}", _EXTENDED_RESOURCE_ALLOWED),
        Clause(r"(.*\.)?kubernetes\.io/.*|requests\..*", _EXTENDED_RESOURCE_ALLOWED, forbid=True),
        Clause.at_most(244, _EXTENDED_RESOURCE_ALLOWED, cut="/.*"),
        Clause.at_most(63, _EXTENDED_RESOURCE_ALLOWED, cut=".*/"),
    ),
)
"""``IsExtendedResourceName`` of ``pkg/apis/core/helper/helpers.go``: a name with a
domain that is not ``kubernetes.io`` (``IsNativeResource``), which stays a qualified name
as ``requests.<name>`` (so its domain has at most 244 characters)."""
DEVICE_COUNT = Grammar(
    "deviceCount",
    (
        Clause(
            r"[1-9][0-9]{0,5}",
            'a whole number of devices from 1 to 999999, as a string, e.g. "1": '
            "kube-scheduler counts extended resources in whole units and never "
            "overcommits them (noderesources/fit.go), so a fraction of a GPU cannot be held",
        ),
    ),
)
"""An extended resource's count in a slice (API validation: ``must be an integer``)."""


MIN_CONTAINER_MEMORY = 4 * 2**20
"""4Mi, in bytes: less memory than any container starts with. A smaller slice or request
is almost surely a missing unit (``"512"`` is 512 bytes)."""
CONTAINER_MEMORY = Rule(
    "containerMemory",
    "{hint}a memory of at least 4Mi, the least a container starts with",
    AtMost(Const(str(MIN_CONTAINER_MEMORY)), "memory", Const("memory")),
)
QUANTITY_MAX = 2**63 - 1
"""apimachinery's ``resource.Quantity`` ``maxAllowed``, in base units (cores, bytes): the
API server silently cuts a larger quantity to it."""
QUANTITY_CAP = Rule(
    "quantityCap",
    f"a quantity of at most 2^63-1 ({QUANTITY_MAX}) cores or bytes: Kubernetes cuts a "
    "larger one to that without a word, so it is surely a mistake",
    # Compared in whole base units, rounded up: exact, as the cap is whole.
    AtMost("quantity", Const(str(QUANTITY_MAX)), Const("memory")),
)
BARE_BYTES_HINT = 'did you mean "{text}Mi"? a number without a unit is bytes; '
"""``CONTAINER_MEMORY``'s {hint} for a number without a unit."""

BARE_CORES_WARNING = 64
"""A bare-integer CPU slice of this many cores or more is almost surely meant as
millicores (``"500"`` is 500 cores), unless the pool's node sizes say it fits."""
BARE_DIGITS = Grammar("bareDigits", (Clause("[0-9]+", "digits only"),))
"""A quantity written without a unit or a point."""
BARE_CORES = Rule(
    "bareCores",
    "{at}: '{text}' is {cores} cores per node; did you mean \"{text}m\"? (the pool's "
    "node sizes are unknown, so the slice is not checked against them)",
    # Not a refusal: the warning of such a slice, which names its field itself (at)
    # (quantity.warn_if_cores_look_like_millicores, and the chart's NOTES). A count of
    # cores, compared as whole units (as memory's bytes are, exactly at any length),
    # never through an integer: Sprig reads "0500" as octal.
    AnyOf(
        Not(Matches("text", BARE_DIGITS)),
        AtMost("text", Const(str(BARE_CORES_WARNING - 1)), Const("memory")),
    ),
)


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
BURST_DEVICES_WITHIN_SLICE = Rule(
    "burstDevicesWithinSlice",
    "at most {room}, the {device} each reserver holds: the scheduler never shares a "
    "device, so a burst pod that needs more evicts more than one slice",
    # Devices are whole units, counted as memory's bytes are (unit 1)
    AtMost("request", "room", Const("memory")),
)
LIMIT_NOT_BELOW_REQUEST = Rule(
    "limitNotBelowRequest",
    "a limit no smaller than the request {request!r}",
    AtMost("request", "limit", "resource"),
)
MAX_REPLICAS_NOT_BELOW_REPLICAS = Rule(
    "maxReplicasNotBelowReplicas",
    # Failing, replicas is at least 2: maxReplicas is at least 1 (POSITIVE)
    "an integer from {replicas} to " + str(INT32_MAX) + ": at least replicas ({replicas}), "
    "the autoscaler's minimum",
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
SLICE_FITS_NODE = Rule(
    "sliceFitsNode",
    "{what} that fits on the smallest node of pool {pool!r}: its {capacity} leave about "
    "{room} allocatable after kube-reserved and eviction; lower {the} or require larger "
    "instances (instance-cpu, instance-memory or instance-size requirements)",
    # Judged by each engine in its own exact units (node_sizes.check_slice_fits, the
    # chart's node-headroom.nodeFit.*): the allocatable is node_sizes.NodeSize.allocatable
    Not(Less("allocatable", "slice")),
)
POOL_VALUE_NEEDS_NAME = Rule(
    "poolValueNeedsName",
    "null or empty without nodePool.name: the {what} of a named pool's nodes, which "
    "nothing reads without a pool; name the pool or leave it out",
    AnyOf(Not(Given("given")), Given("pool")),
)
PREPULLER_NAME = Rule(
    "prepullerName",
    "a name of at most {limit} characters with the burst images pre-pulled: the "
    "pre-puller is <reserver>{suffix}",
    AnyOf(Not(Truthy("prepulled")), Not(Less("limit", Length("name")))),
)

# --- where pods go: the node-selector requirements the rules judge -------------------

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
BUFFER_ZONE_NEEDS_POD_TEMPLATE = Rule(
    "bufferZoneNeedsPodTemplate",
    "no zone in the scalable form: a scalable buffer copies the Deployment's pods, which "
    "select no zone; use the pod-template form (podTemplateRef)",
    AnyOf(Not(Given("zone")), Eq("form", Const("podTemplateRef"))),
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
SHARED_BUFFER_WHERE = {"pool": "pool {pool}", "everyNode": "every node"}
"""The ``{where}`` of the warning: the buffer's pool (its name shown), or every node."""
SLICE_TEXT = "{cpu} CPU, {memory} memory"
"""A slice, as messages name it."""
BURST_OVER_SLICE_WARNING = "{field}: {value} exceeds the slice; {message}"
"""Not a refusal (under a model that lets bursts outgrow the slice): a burst pod larger
than the slice, with ``BURST_FITS_SLICE``'s message."""

SHARED_NAMESPACES = ("default", "kube-system", "kube-public")
"""Namespaces the cluster creates and others' pods live in: enforcing Pod Security
``restricted`` there would make the API server refuse their pods (kube-system's
kube-proxy and CNI agents run privileged; ``default`` holds whatever users put there)."""
OWN_NAMESPACE = Rule(
    "ownNamespace",
    f"a namespace of the headroom's own, none of {list(SHARED_NAMESPACES)}: a created "
    "namespace enforces "
    "Pod Security restricted, which would reject the pods already there (kube-system's "
    "privileged system pods); use a namespace of its own, or create none",
    Not(In("value", Const(SHARED_NAMESPACES))),
)

# --- who a ClusterRoleBinding binds (the API server's rules) --------------------------

SUBJECT_NAME = Grammar("subjectName", (Clause(".+", "a name that is not empty, on one line"),))
"""A user's, a group's or a service account's name: a user's and a group's are the
authenticator's own (an email address, an ARN), so any text."""
SERVICE_ACCOUNT_NAME = Rule(
    "serviceAccountName",
    f"{_SUBDOMAIN_ALLOWED}, as the name of a ServiceAccount is",
    AnyOf(
        Not(Eq("kind", Const(SubjectKind.SERVICE_ACCOUNT.value))), Matches("value", DNS_SUBDOMAIN)
    ),
)
SUBJECT_NAMESPACE = Rule(
    "subjectNamespace",
    "no namespace for a {kind}: only a ServiceAccount lives in a namespace",
    AnyOf(
        Not(Given("value")),
        In("kind", Const(tuple(kind.value for kind in SubjectKind if kind.namespaced))),
    ),
)

GRAMMARS = (
    DNS_LABEL,
    DNS_SUBDOMAIN,
    LABEL_KEY,
    TOLERATION_KEY,
    LABEL_VALUE,
    CLASS_NAME,
    IMAGE,
    QUANTITY,
    EXTENDED_RESOURCE,
    DEVICE_COUNT,
    PROMETHEUS_DURATION,
    SUBJECT_NAME,
    SHARE,
    INSTANCE_TYPE,
)
INT_RANGES = (INT32, PRIORITY, REPLICAS, POSITIVE, PERCENT, WINDOW_MINUTES)
RULES = (
    CONTAINER_MEMORY,
    QUANTITY_CAP,
    BARE_CORES,
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
    BURST_DEVICES_WITHIN_SLICE,
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
    SLICE_FITS_NODE,
    POOL_VALUE_NEEDS_NAME,
    PREPULLER_NAME,
    BUFFER_PERCENTAGE_NEEDS_SCALABLE,
    BUFFER_ZONE_NEEDS_POD_TEMPLATE,
    BUFFER_ONE_COUNT,
    BUFFER_NEEDS_COUNT,
    BUFFER_NOT_ON_AUTO_MODE,
    BUFFER_ALPHA_NOT_ON_KARPENTER,
    OWN_NAMESPACE,
    SERVICE_ACCOUNT_NAME,
    SUBJECT_NAMESPACE,
    *SHARE_RULES,
)
"""Every rule across values, for the chart generator."""
PREDICATES = (ON_KARPENTER,)
