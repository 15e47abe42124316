"""The chart's check that the slice, and each buffer's pod, fit the pool's declared node
(``nodePool.nodeCpu``, ``nodePool.nodeMemory``), generated from the library's
declarations: the allocatable estimate (``node_sizes.NodeSize.allocatable``:
``KUBE_RESERVED_CPU_STEPS``, ``RESERVED_MEMORY``) and the rule
``rules.SLICE_FITS_NODE``, whose helper it calls with the operands ``check_slice_fits``
passes, so the refusal is the library's.

Go's templates count in int64: the helper judges in whole 10^-7 cores (the rates of
kube-reserved are whole there) and in bytes, exact for a node of at most
``CPU_DIGITS`` digits of milli-cores (10^11 cores) or ``MEMORY_DIGITS`` of bytes; a
larger node is taken as one the slice fits, which no real node tests.
"""

from __future__ import annotations

import inspect
from fractions import Fraction

from cdk8s_headroom.objects.capacity_buffer import BUFFER_POD_WORDS
from cdk8s_headroom.vocabulary import rules
from cdk8s_headroom.vocabulary.node_sizes import (
    KUBE_RESERVED_CPU_REST,
    KUBE_RESERVED_CPU_STEPS,
    RESERVED_MEMORY,
    check_slice_fits,
)
from cdk8s_headroom.vocabulary.quantity_arithmetic import BINARY_SUFFIXES

HELPER = "node-headroom.nodeFit"
CPU_SCALE = 10_000
"""Units of 10^-7 cores per milli-core: every rate of ``KUBE_RESERVED_CPU_STEPS`` is a
whole number of them per milli-core."""
CPU_DIGITS = 14
MEMORY_DIGITS = 18


def _whole(amount: Fraction) -> int:
    if amount.denominator != 1:
        raise ValueError(f"{amount}: not whole in the chart's units (node_fit.CPU_SCALE)")
    return amount.numerator


def _reserved_cpu() -> str:
    """kube-reserved of ``$n`` milli-cores, in 10^-7 cores (``node_sizes.kube_reserved_cpu``)."""
    terms, start = [], 0
    for width, rate in KUBE_RESERVED_CPU_STEPS:
        size = _whole(width * 1000)
        terms.append(f"(mul {_whole(rate * CPU_SCALE)} (min (max (sub $n {start}) 0) {size}))")
        start += size
    terms.append(f"(mul {_whole(KUBE_RESERVED_CPU_REST * CPU_SCALE)} (max (sub $n {start}) 0))")
    total = terms[0]
    for term in terms[1:]:
        total = f"(add {total} {term})"
    return total


def memory_text(x: str) -> str:
    """``quantity.format_memory`` of the whole bytes ``x``: the largest binary unit that
    stays whole, else the bytes."""
    branches = "".join(
        f"{{{{ else if and (ge {x} {1024**power}) (eq (mod {x} {1024**power}) 0) }}}}"
        f"{{{{ div {x} {1024**power} }}}}{suffix}"
        for suffix, power in sorted(BINARY_SUFFIXES.items(), key=lambda item: -item[1])
    )
    return f"{{{{ if false }}}}{branches}{{{{ else }}}}{{{{ {x} }}}}{{{{ end }}}}"


def cpu_text(x: str, scale: int = CPU_SCALE) -> str:
    """``quantity.format_cpu`` of ``x`` in units of a milli-core over ``scale`` (10^-7
    cores by default): whole milli-cores as ``<n>m``, whole cores as ``<n>``, else
    milli-cores rounded half to even, as Python's ``.0f``."""
    q, r = f"(div {x} {scale})", f"(mod {x} {scale})"
    half = scale // 2
    return (
        f"{{{{ if ne {r} 0 }}}}{{{{ add {q} (ternary 1 0 (or (gt {r} {half}) "
        f"(and (eq {r} {half}) (eq (mod {q} 2) 1)))) }}}}m"
        f"{{{{ else if ne (mod {q} 1000) 0 }}}}{{{{ {q} }}}}m{{{{ else }}}}{{{{ div {q} 1000 }}}}"
        "{{ end }}"
    )


def _check(
    resource: str, node: str, power: int, digits: int, scale: int, room: str, what: str
) -> str:
    """The check of one resource, where the node and the slice (or ``what`` else) are
    given; the field a refusal names is ``.<resource>Field``."""
    rule = f"node-headroom.rule.{rules.SLICE_FITS_NODE.name}"
    return (
        f"{{{{ if and $.pool $.{node} $.{resource} }}}}"
        f'{{{{ $nd := include "node-headroom.amount" (list $.lib $.{node} {power}) }}}}'
        f"{{{{ if le (len $nd) {digits} }}}}{{{{ $n := atoi $nd }}}}{{{{ $a := {room} }}}}"
        f'{{{{ $sd := include "node-headroom.amount" (list $.lib $.{resource} {power}) }}}}'
        # A slice of more digits than a node may have exceeds any node judged here
        f"{{{{ $s := add $a 1 }}}}{{{{ if le (len $sd) {digits} }}}}"
        f"{{{{ $s = mul (atoi $sd) {scale} }}}}{{{{ end }}}}"
        f'{{{{ include "{rule}" (dict "lib" $.lib "field" $.{resource}Field "value" $.{resource} '
        f'"what" "{what}" "the" "{what.replace("a ", "the ", 1)}" "pool" $.pool "allocatable" $a '
        f'"slice" $s "capacity" (include "{HELPER}.{resource}Text" (mul $n {scale})) '
        f'"room" (include "{HELPER}.{resource}Text" (max $a 0))) }}}}{{{{ end }}}}{{{{ end }}}}'
    )


def node_fit_helpers() -> dict[str, str]:
    """``node-headroom.nodeFit.slice`` and ``node-headroom.nodeFit.bufferPod``, of (dict
    lib pool cpu memory cpuField memoryField nodeCpu nodeMemory): each resource's check,
    CPU first, as ``check_slice_fits`` judges a slice and a buffer's pod; and the two
    helpers that write an amount as the library's message does."""
    cpu_room = f"sub (mul $n {CPU_SCALE}) {_reserved_cpu()}"
    memory_room = f"sub $n {_whole(Fraction(RESERVED_MEMORY))}"
    slice_what = inspect.signature(check_slice_fits).parameters["what"].default
    helpers = {}
    for name, what in (("slice", slice_what), ("bufferPod", BUFFER_POD_WORDS)):
        body = _check("cpu", "nodeCpu", 3, CPU_DIGITS, CPU_SCALE, cpu_room, what) + _check(
            "memory", "nodeMemory", 0, MEMORY_DIGITS, 1, memory_room, what
        )
        helpers[f"{HELPER}.{name}"] = f'{{{{- define "{HELPER}.{name}" }}}}{body}{{{{ end }}}}'
    return {
        **helpers,
        f"{HELPER}.cpuText": f'{{{{- define "{HELPER}.cpuText" }}}}{cpu_text("(int64 .)")}'
        "{{ end }}",
        f"{HELPER}.memoryText": f'{{{{- define "{HELPER}.memoryText" }}}}'
        f"{memory_text('(int64 .)')}{{{{ end }}}}",
    }
