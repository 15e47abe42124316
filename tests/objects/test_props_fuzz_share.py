"""Fuzzed props of issue 35's additions: a slice as a share of each node size, whole
devices (extended resources) in slices and burst pods, and buffers per zone. As in
``test_props_fuzz``: every drawn configuration synthesizes valid, hardened objects, or
raises HeadroomConfigError naming a field the generator made invalid. Nothing else.

The hostile values: a share of 0 % or over 100 %, no node sizes, sizes that give one
reserver name twice, a resource name Kubernetes refuses, a fraction of a device, a
burst pod that needs more devices than the slice holds, a zone that is no label value.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import cdk8s
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from cdk8s_headroom import HeadroomConfigError, HeadroomWarning, NodeHeadroom, NodeType, synth
from cdk8s_headroom.objects.capacity_buffer import buffer_name
from tests.objects.prop_draws import Draw
from tests.objects.test_props_fuzz import Built, check_output, names_an_invalid_field

EXAMPLES = int(os.environ.get("HEADROOM_FUZZ_SHARE_EXAMPLES", "120"))

VALID_SHARE = st.one_of(
    st.integers(1, 99).map(lambda n: f"{n}%"),
    st.sampled_from(["12.5%", "0.5%", "99.999%", " 10% "]),
)
INVALID_SHARE = st.sampled_from(
    ["0%", "0.0%", "100%", "150%", "-5%", "10 %", "%", "1.2345%", "ten%", "10%%"]
)
TYPE_NAMES = ("kwok.small", "kwok.medium", "kwok.large", "m5.large", "c6i.2xlarge")
DEVICES = ("nvidia.com/gpu", "amd.com/gpu", "example.com/fpga")
INVALID_DEVICE_NAMES = st.sampled_from(
    ["gpu", "kubernetes.io/gpu", "x.kubernetes.io/gpu", "requests.x.com/gpu", "Nvidia.com/gpu"]
)
VALID_COUNT = st.sampled_from(["1", "2", "8"])
INVALID_COUNT = st.sampled_from(["0", "0.5", "500m", "1.0", "-1", 1, None])
VALID_ZONE = st.sampled_from(["eu-west-1a", "us-east-1b", "zone-1"])
INVALID_ZONE = st.sampled_from(["eu west", "a/b", "-a", "x" * 64])


def node_types(draw: Draw) -> list[NodeType]:
    names = draw(st.lists(st.sampled_from(TYPE_NAMES), min_size=1, max_size=3, unique=True), "t")
    types = [
        NodeType(
            name,
            cpu=str(draw(st.integers(1, 64), "cores")),
            memory=f"{draw(st.integers(1, 256), 'GiB')}Gi",
        )
        for name in names
    ]
    if draw.rarely():
        draw.invalid.add("node_types")  # a second type of the same reserver name
        types.append(NodeType(types[0].name.replace(".", "-"), cpu="1", memory="1Gi"))
    return types


def devices(draw: Draw) -> dict[str, Any]:
    held: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(DEVICES), max_size=2, unique=True), "devices"):
        if draw.rarely():
            draw.invalid.add("extended_resources.name")
            name = draw(INVALID_DEVICE_NAMES, "device name (invalid)")
        held[name] = draw.prop(f"extended_resources[{name}]", VALID_COUNT, INVALID_COUNT)
    return held


def shared_headroom(draw: Draw, outdir: Path) -> Built:
    built = Built(cdk8s.App(outdir=str(outdir)))
    chart = cdk8s.Chart(built.app, "chart")
    cpu = draw.prop("cpu", VALID_SHARE, INVALID_SHARE)
    memory = draw.prop("memory", VALID_SHARE, INVALID_SHARE)
    props: dict[str, Any] = {"cpu": cpu, "memory": memory, "namespace": "apps"}
    if draw.rarely():
        draw.invalid.add("cpu")  # a share without node sizes
    else:
        props["node_types"] = node_types(draw)
    held = devices(draw)
    if held:
        props["extended_resources"] = held
    headroom = NodeHeadroom(chart, "headroom", **props)
    # Within the smallest share drawn: 0.5% of 1 core and of 1Gi.
    burst: dict[str, Any] = {"image": "nginx:1.27", "cpu": "5m", "memory": "4Mi"}
    wanted = {name: count for name, count in held.items() if draw(st.booleans(), "wants it?")}
    if held and draw.rarely():
        name = next(iter(held))
        draw.invalid.add(f"burst_workloads[api].extended_resources[{name}]")
        wanted[name] = str(int(held[name]) + 1)
    if wanted:
        burst["extended_resources"] = wanted
    workload = headroom.add_burst_workload("api", **burst)
    for _ in range(draw(st.integers(0, 2), "zoned buffers")):
        zone = draw(VALID_ZONE, "zone")
        if draw.rarely():
            zone = draw(INVALID_ZONE, "zone (invalid)")
            draw.invalid.add(f"capacity_buffers[{buffer_name(workload.name, zone)}].zone")
        if headroom.node.try_find_child(f"apiBuffer-{zone}") is not None:
            draw.invalid.add(f"capacity_buffers[{buffer_name(workload.name, zone)}].workload")
        headroom.add_capacity_buffer(workload, zone=zone, replicas=1)
    return built


def test_fuzzed_shares_devices_and_zones_synthesize_valid_objects_or_name_the_field() -> None:
    outcomes: Counter[str] = Counter()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=bool(os.environ.get("CI")),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        draw = Draw(data)
        with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore", HeadroomWarning)  # buffers on a shared pool
            outdir = Path(tmp) / "dist"
            try:
                built = shared_headroom(draw, outdir)
                synth(built.app)
            except HeadroomConfigError as error:
                note(f"invalid: {sorted(draw.invalid)}; raised: {error}")
                assert draw.invalid, f"valid props were rejected: {error}"
                assert names_an_invalid_field(error, draw.invalid), (
                    f"{error.field!r} is none of the invalid fields {sorted(draw.invalid)}"
                )
                assert str(error).startswith(f"{error.field}: invalid value")
                outcomes["raised"] += 1
                return
            assert not draw.invalid, f"invalid props {sorted(draw.invalid)} were accepted"
            check_output(outdir, built)
            outcomes["synthesized"] += 1

    run()
    assert sum(outcomes.values()) == EXAMPLES or sum(outcomes.values()) >= 100
    # Both outcomes are explored. How many examples raise varies from run to run with
    # Hypothesis' search for new choices, which follows the choices each example made
    # before the library raised: 11 of 120 in 2 of 15 local runs once node_share.py
    # raised from its share rules, none under 12 in 40 before (CI derandomizes). A
    # twentieth each.
    assert min(outcomes["raised"], outcomes["synthesized"]) >= EXAMPLES // 20, outcomes
