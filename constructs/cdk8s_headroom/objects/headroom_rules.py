"""The checks of ``NodeHeadroom`` that read one prop or one child: the dedicated pool's
taint, a burst pod's devices, and the field path of a child's errors."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from cdk8s_headroom.karpenter.node_pool import KarpenterNodePool
from cdk8s_headroom.vocabulary import rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown
from cdk8s_headroom.vocabulary.extended_resources import check_extended_resources
from cdk8s_headroom.vocabulary.node_pools import INodePool, Targeting
from cdk8s_headroom.vocabulary.placement import NodeSelectorOperator, Taint

GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
"""The device plugins' GPU resources, which the providers' ``instance-gpu-count`` counts."""


def require_gpu_instances(pool: KarpenterNodePool, devices: Mapping[str, str]) -> None:
    """Makes an emitted pool launch instances with the GPUs each reserver holds: the
    provider's ``instance-gpu-count`` above the count less one (karpenter-provider-aws
    labels each GPU instance type with it, and requires it absent on the others), unless
    the pool already says something of it."""
    gpus = max((int(devices[name]) for name in GPU_RESOURCES if name in devices), default=0)
    key = f"{pool.flavour.label_prefix}instance-gpu-count"
    if gpus and not any(requirement.key == key for requirement in pool.requirements):
        pool.add_requirement(key, NodeSelectorOperator.GT, [str(gpus - 1)])


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
