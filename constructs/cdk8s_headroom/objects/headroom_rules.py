"""The checks of ``NodeHeadroom`` that read one prop or one child: the dedicated pool's
taint, a burst pod's devices, and the field path of a child's errors."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from cdk8s_headroom.karpenter.node_pool import KarpenterNodePool
from cdk8s_headroom.karpenter.pool_ref import NodePoolFlavour
from cdk8s_headroom.vocabulary import rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.extended_resources import check_extended_resources
from cdk8s_headroom.vocabulary.node_pools import INodePool, Targeting
from cdk8s_headroom.vocabulary.placement import NodeSelectorOperator, Taint

_GPU_COUNT = "instance-gpu-count"
DEVICE_COUNT_LABELS: Mapping[NodePoolFlavour, Mapping[str, str]] = {
    NodePoolFlavour.KARPENTER_EC2: {
        "nvidia.com/gpu": _GPU_COUNT,
        "amd.com/gpu": _GPU_COUNT,
        "habana.ai/gaudi": _GPU_COUNT,
        "aws.amazon.com/neuron": "instance-accelerator-count",
    },
    NodePoolFlavour.EKS_AUTO_MODE: {"nvidia.com/gpu": _GPU_COUNT, "amd.com/gpu": _GPU_COUNT},
}
"""Per provider, each device plugin's resource and the instance label (after the
provider's prefix) that counts it on every instance type with the device, and is absent
on the others. karpenter-provider-aws ``pkg/providers/instancetype/types.go``,
``computeRequirements``: ``instance-gpu-count`` from the instance's GPU info (NVIDIA's,
AMD's, Habana's Gaudi), ``instance-accelerator-count`` from its Neuron devices, the
count of ``aws.amazon.com/neuron`` (``awsNeuronDevices``). EKS Auto Mode documents the
GPU labels. No label counts ``aws.amazon.com/neuroncore`` (cores per device vary), and
KWOK's and other providers' instance types carry none this project knows: their pools
get no requirement, and the declared node sizes decide."""


def require_device_instances(pool: KarpenterNodePool, devices: Mapping[str, str]) -> None:
    """Makes an emitted pool launch instances with the devices each reserver holds: each
    counting label of the pool's provider (``DEVICE_COUNT_LABELS``) above the count less
    one, unless the pool already says something of that label."""
    wanted: dict[str, int] = {}
    for resource, label in DEVICE_COUNT_LABELS.get(pool.flavour, {}).items():
        if resource in devices:
            wanted[label] = max(wanted.get(label, 0), int(devices[resource]))
    for label, count in wanted.items():
        key = f"{pool.flavour.label_prefix}{label}"
        if not any(requirement.key == key for requirement in pool.requirements):
            pool.add_requirement(key, NodeSelectorOperator.GT, [str(count - 1)])


def check_devices(wanted: object, held: Mapping[str, str]) -> None:
    """Refuses a burst pod that requests more devices than each reserver holds
    (``held``): it would evict more than the headroom, or never find the device free."""
    for name, count in check_extended_resources(wanted, field="extended_resources").items():
        rules.BURST_DEVICES_WITHIN_SLICE.check(
            f"extended_resources[{name}]",
            count,
            request=count,
            room=held.get(name, "0"),
            device=name,
        )


def require_dedicated_pool(node_pool: INodePool | None, taint: Taint) -> None:
    rules.DEDICATED_POOL_NEEDS_POOL.check(
        "node_pool",
        None,
        pool=node_pool,
        taint=taint,
        advice="pass node_pool=KarpenterNodePool(...) (the headroom taints it) or, for "
        "a pool that exists and carries the taint, KarpenterNodePool.from_name("
        "'<pool>', taints=[<its taint>])",
    )
    if isinstance(node_pool, KarpenterNodePool):
        return  # an emitted pool: the headroom taints it
    assert node_pool is not None
    rules.DEDICATED_POOL_NEEDS_TAINT.check(
        "node_pool.taints",
        [str(t) for t in node_pool.taints],
        taint=taint,
        declared=list(node_pool.taints),
        advice="taint the pool and declare it in the pool's taints: pass node_pool="
        f"KarpenterNodePool.from_name({shown(node_pool.pool_name)}, taints=[Taint("
        f"{shown(taint.key)}, {shown(taint.value)}, TaintEffect.{taint.effect.name})]) "
        "once the pool carries it, or emit the pool as a KarpenterNodePool, which the headroom "
        "taints itself",
    )


def describe(targeting: Targeting) -> str:
    parts = []
    if targeting.pool is not None:
        parts.append(f"pool {targeting.pool.pool_name}")
    if targeting.node_selector:
        parts.append(f"nodeSelector {targeting.node_selector}")
    if targeting.node_affinity:
        parts.append(f"{len(targeting.node_affinity)} affinity terms")
    return ", ".join(parts) or "every node"


@contextmanager
def within(collection: str, name: object) -> Iterator[None]:
    """Names a child's errors ``<collection>[<name>].<field>``: a headroom may have
    several burst workloads and buffers, and a bare ``replicas`` would not say which."""
    try:
        yield
    except HeadroomConfigError as error:
        raise HeadroomConfigError(
            f"{collection}[{name}].{error.field}", error.value, error.allowed
        ) from None
