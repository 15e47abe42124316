"""NodeHeadroom: the whole pattern for one node pool in one construct."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from constructs import Construct

from cdk8s_headroom.core.construct import HeadroomConstruct
from cdk8s_headroom.karpenter.node_pool import KarpenterNodePool
from cdk8s_headroom.objects.burst import BurstWorkload, BurstWorkloadProps, check_burst_props
from cdk8s_headroom.objects.capacity_buffer import (
    BUFFER_DEFAULTS,
    CapacityBuffer,
    CapacityBufferOptions,
    buffer_name,
)
from cdk8s_headroom.objects.headroom_cost import HeadroomSummary
from cdk8s_headroom.objects.headroom_rules import (
    check_devices,
    describe,
    require_dedicated_pool,
    require_device_instances,
    within,
)
from cdk8s_headroom.objects.prepuller import PREPULL_SUFFIX, PREPULL_TOOLS_IMAGE, ImagePrepuller
from cdk8s_headroom.objects.priority_classes import HeadroomPriorityClasses
from cdk8s_headroom.objects.reserver import HeadroomReserver, default_reserver_name
from cdk8s_headroom.objects.windows import described, window_props, window_summary
from cdk8s_headroom.objects.workload import PLACEMENT_DEFAULTS, PlacementOptions
from cdk8s_headroom.simulate.promises import check_promises, describe_broken
from cdk8s_headroom.vocabulary import names, rules
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, shown, warn
from cdk8s_headroom.vocabulary.extended_resources import (
    ExtendedResources,
    check_extended_resources,
)
from cdk8s_headroom.vocabulary.node_pools import INodePool, Targeting, check_tolerations
from cdk8s_headroom.vocabulary.node_share import (
    NodeType,
    SliceAmount,
    judge_amount,
    reserver_names,
    sized_slices,
    slice_of,
)
from cdk8s_headroom.vocabulary.node_sizes import (
    ISizedNodePool,
    NodeSize,
    check_slice_fits,
)
from cdk8s_headroom.vocabulary.placement import DEFAULT_DEDICATED_TAINT, Taint
from cdk8s_headroom.vocabulary.places import fill
from cdk8s_headroom.vocabulary.priority_models import PriorityModel, check_model
from cdk8s_headroom.vocabulary.props import Unpack, check_props, spelled_out, with_defaults
from cdk8s_headroom.vocabulary.quantity import (
    Quantity,
    QuantityLike,
    SliceSpec,
    format_cpu,
    format_memory,
)
from cdk8s_headroom.vocabulary.reserver_task import PAUSE_IMAGE, ReserverTask, check_image
from cdk8s_headroom.vocabulary.rollout import UpdateStrategy
from cdk8s_headroom.vocabulary.schedule import HeadroomSchedule

_CLASSES_FOR = {
    PriorityModel.GUARDED: (PriorityModel.GUARDED,),
    PriorityModel.DEDICATED_POOL: (PriorityModel.DEDICATED_POOL, PriorityModel.GUARDED),
    PriorityModel.SEED: (PriorityModel.SEED,),
}
"""The models whose classes a headroom of each model may use. A DEDICATED_POOL headroom
uses the headroom and burst classes, which GUARDED has too; its tainted pool keeps
ordinary pods away whatever the cluster's default class. A GUARDED headroom needs the
default class that only GUARDED classes have."""

_TARGETING_PROPS = ("node_pool", "node_selector", "node_affinity")


class NodeHeadroom(HeadroomConstruct):
    """The node reserved headroom pattern for one pool: classes, reserver, bursts.

    A ``HeadroomReserver`` DaemonSet holds ``cpu`` and ``memory`` on every node of the
    pool; burst workloads added with ``add_burst_workload`` preempt it and start on the
    existing node. ``model`` decides which promises hold (see ``PriorityModel``).
    ``add_capacity_buffer`` keeps room for a burst workload's pods with the
    autoscaler's ``CapacityBuffer`` instead of, or as well as, the slices.

    Args:
        cpu: the CPU slice per node, e.g. ``"500m"``, or a share of each node's
            allocatable, e.g. ``"10%"``: then one reserver per node size
            (``node_types``) holds that share of it. Default: none, with ``memory``
            none too: no slices, the headroom is kept by capacity buffers alone
            (``add_capacity_buffer``; synthesis fails without one).
        memory: the memory slice per node, e.g. ``"512Mi"`` or ``"10%"``. Default: none.
        node_types: with a share: the pool's node sizes (``NodeType``: the
            ``node.kubernetes.io/instance-type`` and allocatable), one reserver each,
            named ``<reserver name>-<type>``. Default: the instance types an emitted or
            referenced ``KarpenterNodePool`` lists (``node.kubernetes.io/instance-type
            In``), estimated; a share with neither is an error.
        extended_resources: whole devices each node holds besides the slice, e.g.
            ``{"nvidia.com/gpu": "1"}``; a burst pod that requests the device preempts
            the reserver for it (slices only). Default: none.
        model: default: ``PriorityModel.GUARDED``.
        priority_classes: classes shared with other ``NodeHeadroom`` s (PriorityClasses
            are cluster-scoped; share one instance per cluster). Their model must be
            ``model``, or GUARDED for a DEDICATED_POOL headroom, so that a cluster with
            GUARDED and DEDICATED_POOL pools has one set of classes.
            Default: a new ``HeadroomPriorityClasses`` for ``model``.
        task: what the reserver does (slices only). Default: ``ReserverTask.pause()``.
        prepull_burst_images: pull every burst workload's image onto the pool's nodes,
            so bursts start without a pull, from an ``ImagePrepuller`` DaemonSet
            (``prepuller``, named ``<reserver name>-prepull``) on the reserver's nodes:
            any image, with or without a shell, and an image release never changes the
            reserver (slices only). Default: ``False``.
        reserver_name: default: ``headroom-reserver``, or ``headroom-reserver-<pool>``
            with a ``node_pool``.
        dedicated_taint: the pool's taint under DEDICATED_POOL, which only the reserver
            and the burst workloads tolerate. An emitted ``KarpenterNodePool`` gets it
            added; a referenced pool must already carry and declare it.
            Default: ``headroom.cdk8s.io/burst=true:NoSchedule``.
        drift_on_change: on an emitted ``KarpenterNodePool`` only: write the room this
            headroom needs on each node (its slice; the pre-puller requests nothing) into
            the pool template's annotation ``headroom.cdk8s.io/node-room``. Karpenter's
            drift then replaces the pool's nodes when that room changes, at the pace of
            the pool's ``DRIFTED`` budget, and new nodes are sized with it: slices that
            were never established or were eroded come back. Replacing nodes evicts
            their pods; see the README for what it does not fix. Default: ``False``.
        prepull_tools_image: with ``prepull_burst_images``: the image whose static
            ``busybox`` the pre-puller copies as the no-op each burst image runs, e.g.
            from a mirror. Default: ``busybox:1.37.0-musl``.
        prepull_pause_image: with ``prepull_burst_images``: the pre-puller's container
            that keeps its pod running, e.g. from a mirror.
            Default: ``registry.k8s.io/pause:3.10``.
        schedule, scheduled_nodes: the slices only in time windows, on that many nodes, as
            ``HeadroomReserver``'s (docs/schedules.md). Default: none, all the time.
        placement: ``PlacementOptions``, of the reserver and the pre-puller. Burst
            workloads get the namespace, labels, pool, node selector and node affinity
            by default (they must select the same nodes), but not the tolerations.
            ``node_pool`` is required for DEDICATED_POOL; a ``KarpenterNodePool``
            (emitted) or ``KarpenterNodePool.from_name`` (referenced) also gives the
            pool's node sizes: a slice that does not fit on its smallest node is an
            error.
    """

    @spelled_out(PlacementOptions, PLACEMENT_DEFAULTS)
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cpu: QuantityLike | None = None,
        memory: QuantityLike | None = None,
        model: PriorityModel = PriorityModel.GUARDED,
        priority_classes: HeadroomPriorityClasses | None = None,
        task: ReserverTask | None = None,
        prepull_burst_images: bool = False,
        reserver_name: str | None = None,
        dedicated_taint: Taint = DEFAULT_DEDICATED_TAINT,
        drift_on_change: bool = False,
        node_types: Sequence[NodeType] | None = None,
        extended_resources: ExtendedResources | None = None,
        prepull_tools_image: str = PREPULL_TOOLS_IMAGE,
        prepull_pause_image: str = PAUSE_IMAGE,
        schedule: HeadroomSchedule | None = None,
        scheduled_nodes: int | None = None,
        **placement: Unpack[PlacementOptions],
    ) -> None:
        check_props(placement, of=NodeHeadroom.__init__)
        placement = with_defaults(placement, PLACEMENT_DEFAULTS)
        node_pool, labels = placement["node_pool"], placement["labels"]
        self.model = check_model(model)
        if priority_classes is not None:
            if not isinstance(priority_classes, HeadroomPriorityClasses):
                raise HeadroomConfigError(
                    "priority_classes", priority_classes, "a HeadroomPriorityClasses or None"
                )
            if priority_classes.model not in _CLASSES_FOR[self.model]:
                allowed = " or ".join(f"PriorityModel.{m.name}" for m in _CLASSES_FOR[self.model])
                raise HeadroomConfigError(
                    "priority_classes",
                    priority_classes.model,
                    f"classes of a model that serves this headroom's ({self.model}): "
                    f"{allowed}; GUARDED classes serve GUARDED and DEDICATED_POOL "
                    "headrooms, so one set of classes serves a cluster that mixes them",
                )
        if not isinstance(dedicated_taint, Taint):
            raise HeadroomConfigError("dedicated_taint", dedicated_taint, "a Taint")
        slices = cpu is not None or memory is not None
        judged: dict[str, SliceAmount | None] = {}
        for prop, quantity, other in (("cpu", cpu, memory), ("memory", memory, cpu)):
            # Judged once, here, before the headroom joins the tree, so a refused slice
            # leaves nothing; the reserver, the pool's check and the promises take the
            # judged Quantity. None is the absent slice: an empty text is a bad quantity,
            # and shown as given.
            judged[prop] = (
                None
                if quantity is None
                else judge_amount(quantity, field=prop, memory=prop == "memory")
            )
            rules.SLICES_NEED_BOTH.check(prop, quantity, quantity=quantity, other=other)
        self.extended_resources = check_extended_resources(
            extended_resources, field="extended_resources"
        )
        self.sized_slices = sized_slices(judged["cpu"], judged["memory"], node_types, node_pool)
        """Each node size and its slice, when the slice is a share; else empty."""
        slice_spec = slice_of(judged["cpu"], judged["memory"], self.sized_slices)
        for prop, given in (
            ("task", task),
            ("prepull_burst_images", prepull_burst_images),
            ("drift_on_change", drift_on_change),
            ("schedule", described(schedule)),
        ):
            rules.NO_TASK_WITHOUT_SLICES.check(prop, given, slices=slices, given=given)
        # Shown as null: a map reads alike in no two engines (the chart's too)
        rules.NO_TASK_WITHOUT_SLICES.check(
            "extended_resources", None, slices=slices, given=self.extended_resources
        )
        if not self.sized_slices and slice_spec and isinstance(node_pool, ISizedNodePool):
            self._check_slice_on_pool(node_pool.pool_name, node_pool.smallest_node, slice_spec)
        self.dedicated_taint: Taint | None = None
        extra_tolerations = check_tolerations(placement["tolerations"], field="tolerations")
        if self.model.tainted_pool:
            require_dedicated_pool(node_pool, dedicated_taint)
            self.dedicated_taint = dedicated_taint
            extra_tolerations.append(dedicated_taint.toleration())
        self.node_pool = node_pool
        if not isinstance(drift_on_change, bool):
            raise HeadroomConfigError("drift_on_change", drift_on_change, "True or False")
        if drift_on_change and not isinstance(node_pool, KarpenterNodePool):
            raise HeadroomConfigError(
                "drift_on_change",
                True,
                "False unless node_pool is a KarpenterNodePool this app emits: the room is "
                "written into the pool's template, which only an emitted pool has",
            )
        self.drift_on_change = drift_on_change
        if not isinstance(prepull_burst_images, bool):
            raise HeadroomConfigError("prepull_burst_images", prepull_burst_images, "True or False")
        self.prepull_burst_images = prepull_burst_images
        self.prepull_tools_image = check_image(prepull_tools_image, field="prepull_tools_image")
        self.prepull_pause_image = check_image(prepull_pause_image, field="prepull_pause_image")
        self._labels = labels
        if reserver_name is None:
            reserver_name = default_reserver_name(
                node_pool.pool_name if isinstance(node_pool, INodePool) else None
            )
            if len(reserver_name) > names.DNS_LABEL_MAX:
                raise HeadroomConfigError(
                    "reserver_name",
                    reserver_name,
                    f"a name of at most {names.DNS_LABEL_MAX} characters: the default "
                    "headroom-reserver-<pool> is too long for this pool, pass reserver_name=",
                )
        self.reserver_name = names.dns_label(reserver_name, field="reserver_name")
        """The reserver's name, or the stem of one per node size (``<name>-<type>``)."""
        rules.PREPULLER_NAME.check(
            "reserver_name",
            reserver_name,
            prepulled=prepull_burst_images,
            name=reserver_names(reserver_name, self.sized_slices)[0],
            limit=names.DNS_LABEL_MAX - len(PREPULL_SUFFIX),
            suffix=PREPULL_SUFFIX,
        )
        self._windows = window_props(schedule, scheduled_nodes, reserver_name, self.sized_slices)
        self._placement: PlacementOptions = {**placement, "tolerations": extra_tolerations}
        """The reserver's and the pre-puller's placement: the props, the dedicated
        taint's toleration added."""
        self.targeting = Targeting.of(
            node_pool=node_pool,
            node_selector=placement["node_selector"],
            tolerations=extra_tolerations,
            node_affinity=placement["node_affinity"],
        )
        """Where the headroom's pods go: the pool, selector, affinity and tolerations."""

        self._namespace = names.dns_label(placement["namespace"], field="namespace")

        super().__init__(scope, id)
        self.priority_classes = priority_classes or HeadroomPriorityClasses(
            self, "PriorityClasses", model=self.model
        )
        self.reservers: list[HeadroomReserver] = []
        """The slices' DaemonSets: one, or one per node size for a share."""
        unsized: tuple[tuple[NodeType | None, SliceSpec], ...] = (
            () if slice_spec is None else ((None, slice_spec),)
        )
        for node_type, spec in self.sized_slices or unsized:
            placement = self._placement
            if node_type is not None:
                # A node selector, not affinity: the DaemonSet controller replaces a
                # pod's node affinity with its node, and status reads the pods.
                selector = {**(placement["node_selector"] or {}), **node_type.selector}
                placement = {**placement, "node_selector": selector}
            reserver = HeadroomReserver(
                self,
                "Reserver" if node_type is None else f"Reserver-{node_type.suffix}",
                cpu=spec.cpu,
                memory=spec.memory,
                priority_class_name=self.priority_classes.headroom.name,
                name=reserver_name if node_type is None else node_type.reserver_name(reserver_name),
                task=task,
                update_strategy=UpdateStrategy.for_reserver(
                    self.priority_classes.headroom.preemption_policy
                ),
                extended_resources=self.extended_resources,
                **self._windows,
                **placement,
            )
            reserver.node.add_dependency(self.priority_classes)
            self.reservers.append(reserver)
        self.reserver: HeadroomReserver | None = self.reservers[0] if self.reservers else None
        """The slices' DaemonSet (the first node type's, for a share: ``reservers`` has
        them all); ``None`` for a headroom kept by buffers alone."""
        self.burst_workloads: list[BurstWorkload] = []
        """The burst workloads added so far."""
        self.prepuller: ImagePrepuller | None = None
        """The DaemonSet that pulls the burst images (``prepull_burst_images``), once a
        burst workload is added."""
        self.capacity_buffers: list[CapacityBuffer] = []
        """The capacity buffers added so far."""
        if isinstance(node_pool, KarpenterNodePool):
            # Last, once nothing above can fail, so a rejected headroom leaves the
            # pool as it was. The pod templates read the pool's taints at synthesis.
            if self.dedicated_taint is not None:
                node_pool.add_taint(self.dedicated_taint)
            require_device_instances(node_pool, self.extended_resources)
            pool = node_pool
            if slice_spec is not None and not self.sized_slices:
                held = slice_spec
                node_pool.watch_slice(
                    lambda node: self._check_slice_on_pool(pool.pool_name, node, held)
                )
        if self.reserver is not None and slice_spec is not None:
            broken = check_promises(
                self.model,
                cpu=slice_spec.cpu,
                memory=slice_spec.memory,
                classes=self.priority_classes.classes,
                dedicated_taint=self.dedicated_taint,
            )
            if broken:
                warn(describe_broken(self.model, broken))
            if drift_on_change and isinstance(node_pool, KarpenterNodePool):
                # Keyed by the reserver: a renamed one is a new DaemonSet whose pods must
                # win their slice anew, which fresh nodes give them.
                node_pool.add_node_room(
                    f"{self.reserver.namespace}/{self.reserver.name}", self.node_room
                )

    @property
    def namespace(self) -> str:
        return self._namespace

    def node_room(self) -> dict[str, str]:
        """What this headroom's DaemonSets request on each node: the slice (the
        pre-puller requests nothing), in canonical form, so that writing ``"1"`` as
        ``"1000m"`` changes nothing and rolls no node; empty without slices."""
        if self.reserver is None:
            return {}
        cores, size = self.reserver.slice
        return {"cpu": format_cpu(cores), "memory": format_memory(size)}

    @property
    def labels(self) -> dict[str, str]:
        """The extra labels on the headroom's objects (the ``labels`` prop)."""
        return dict(self._labels or {})

    def missing_room(self) -> HeadroomConfigError | None:
        """The error of a headroom that keeps no room (no slices and no buffer), else
        ``None``; judged once the tree is complete (``validate_app``, synthesis)."""
        message = rules.NEEDS_ROOM.broken(
            slices=self.reserver is not None, buffers=self.capacity_buffers
        )
        return (
            None if message is None else HeadroomConfigError(f"{self.node.path}.cpu", None, message)
        )

    def summary(self) -> HeadroomSummary:
        """What this headroom costs: its share of each node and the pool's worst case,
        and what each capacity buffer holds back.

        The share is of the smallest node's estimated allocatable (``NodeSize``); the
        worst case is the slice times the most nodes the pool's limits allow. Both are
        unknown when the pool does not declare sizes or limits. A buffer holds back its
        chunks times the burst pod's requests, whatever the node count. ``str()`` of
        the summary is printable text, one line per mechanism.
        """
        pool = self.node_pool
        node: NodeSize | None = None
        limits: Mapping[str, Fraction] | None = None
        if isinstance(pool, ISizedNodePool):
            node, limits = pool.smallest_node, pool.limit_amounts
        elif pool is None:
            limits = {}  # every node of the cluster: nothing bounds the node count
        reserver = self.reserver
        return HeadroomSummary(
            name=self.node.id if reserver is None else self.reserver_name,
            model=self.model.name,
            pool_name=None if pool is None else pool.pool_name,
            slice=None if reserver is None else NodeSize(*reserver.slice),
            smallest_node=node,
            limits=limits,
            buffers=tuple(buffer.hold() for buffer in self.capacity_buffers),
            **window_summary(reserver),
            sizes=tuple(
                (
                    node_type.name,
                    NodeSize(spec.cpu.amount, spec.memory.amount),
                    node_type.allocatable,
                )
                for node_type, spec in self.sized_slices
            ),
        )

    def add_burst_workload(self, id: str, **props: Unpack[BurstWorkloadProps]) -> BurstWorkload:
        """Adds a burst-critical Deployment that preempts this headroom.

        Takes the props of ``BurstWorkload`` (``BurstWorkloadProps``). The workload gets
        this headroom's burst class and targeting (pool, node selector, affinity, the
        dedicated taint's toleration); passing targeting that selects other nodes is an
        error. Its pod
        requests must fit in the slice: a larger pod evicts more than the headroom
        (an error, or a warning under SEED, which cannot keep that promise anyway).
        Errors name the field as ``burst_workloads[<name>].<prop>``.
        """
        name = props.get("name") or id
        with within("burst_workloads", name):
            return self._add_burst_workload(id, dict(props))

    def _add_burst_workload(self, id: str, props: dict[str, Any]) -> BurstWorkload:
        if not isinstance(id, str) or not id or self.node.try_find_child(id) is not None:
            raise HeadroomConfigError(
                "id", id, f"a construct id that no other child of {self.node.path} has"
            )
        check_burst_props(props)
        if "priority_class_name" in props:
            raise HeadroomConfigError(
                "priority_class_name",
                props["priority_class_name"],
                f"no value: the headroom sets it to {shown(self.priority_classes.burst.name)}",
            )
        targeting = self.targeting
        expected = {
            "node_pool": self.node_pool,
            "node_selector": {
                key: value
                for key, value in targeting.node_selector.items()
                if not (self.node_pool and key in self.node_pool.node_selector)
            },
            "node_affinity": list(targeting.node_affinity),
        }
        for key in _TARGETING_PROPS:
            props.setdefault(key, expected[key])
        tolerations = check_tolerations(props.pop("tolerations", ()), field="tolerations")
        if self.dedicated_taint is not None:
            tolerations.append(self.dedicated_taint.toleration())
        props.setdefault("namespace", self.namespace)
        if self._labels:
            props.setdefault("labels", self._labels)

        # Judge targeting and fit before the workload joins the tree, so a rejected
        # workload leaves nothing behind.
        wanted = Targeting.of(
            node_pool=props["node_pool"],
            node_selector=props["node_selector"],
            tolerations=tolerations,
            node_affinity=props["node_affinity"],
        )
        if not wanted.same_target(targeting):
            raise HeadroomConfigError(
                "node_pool",
                describe(wanted),
                f"the headroom's targeting ({describe(targeting)}): a burst workload "
                "only finds the slice on the nodes that hold it",
            )
        fitted = self._check_fit(props.get("name", id), props["cpu"], props["memory"])
        if self.reserver is not None:  # without slices, a buffer holds the pod's own devices
            check_devices(props.get("extended_resources"), self.extended_resources)
        if fitted is not None:
            props["cpu"], props["memory"] = fitted  # judged: the workload takes them as is

        workload = BurstWorkload(
            self,
            id,
            priority_class_name=self.priority_classes.burst.name,
            tolerations=tolerations,
            **props,
        )
        workload.node.add_dependency(self.priority_classes)
        if self.prepull_burst_images and self.reserver is not None:
            self._image_prepuller(self.reserver).add_image(workload.image)
        self.burst_workloads.append(workload)
        return workload

    @spelled_out(CapacityBufferOptions, BUFFER_DEFAULTS)
    def add_capacity_buffer(
        self, workload: BurstWorkload, **options: Unpack[CapacityBufferOptions]
    ) -> CapacityBuffer:
        """Keeps room for copies of ``workload``'s pod with a ``CapacityBuffer``.

        ``workload`` is one this headroom holds (``add_burst_workload``); the buffer
        carries its scheduling shape (requests, pool, selector, affinity, tolerations,
        the dedicated taint's included) and the headroom's labels. The other props are
        those of ``CapacityBuffer``; errors name the field as
        ``capacity_buffers[<name>].<prop>``. Call it once per ``zone`` to spread the
        room across zones. Under GUARDED or SEED the pool admits
        ordinary pods, which can take the buffer's room: a ``HeadroomWarning`` says so.
        """
        name, zone = options.get("name"), options.get("zone")
        workload_name = str(getattr(workload, "name", workload))
        shown_name = buffer_name(workload_name, zone) if name is None else name
        with within("capacity_buffers", shown_name):
            check_props(options, of=NodeHeadroom.add_capacity_buffer)
            if workload not in self.burst_workloads:
                raise HeadroomConfigError(
                    "workload",
                    getattr(workload, "name", workload),
                    f"a burst workload of this headroom: one of "
                    f"{[w.name for w in self.burst_workloads]} (add it with add_burst_workload)",
                )
            if zone is not None:  # judged before it names the buffer's construct id
                names.label_value(zone, field="zone")
            id = f"{workload.node.id}Buffer" + ("" if zone is None else f"-{zone}")
            if self.node.try_find_child(id) is not None:
                raise HeadroomConfigError(
                    "workload",
                    workload.name,
                    "a workload without a buffer yet (in that zone): one buffer per burst "
                    "workload and zone",
                )
            buffer = CapacityBuffer(
                self,
                id,
                workload=workload,
                labels=self._labels,
                priority_class_name=self.priority_classes.headroom.name,
                **options,
            )
        self.capacity_buffers.append(buffer)
        return buffer

    def _image_prepuller(self, reserver: HeadroomReserver) -> ImagePrepuller:
        if self.prepuller is None:
            # Same nodes, tolerations and class as the reserver: it lands where the
            # slices are, and never preempts anyone.
            self.prepuller = ImagePrepuller(
                self,
                "Prepull",
                name=reserver.name + PREPULL_SUFFIX,
                priority_class_name=reserver.priority_class_name,
                tools_image=self.prepull_tools_image,
                pause_image=self.prepull_pause_image,
                **self._placement,
            )
            self.prepuller.node.add_dependency(self.priority_classes)
        return self.prepuller

    def _check_fit(
        self, name: object, cpu: QuantityLike, memory: QuantityLike
    ) -> tuple[Quantity, Quantity] | None:
        """Refuses (or, under SEED, warns about) requests that do not fit in the slice;
        returns them judged, or ``None`` without a slice (the workload judges them)."""
        reserver = self.reserver
        if reserver is None:
            return None  # no slice to fit in: a buffer's chunk is the burst pod itself
        judged = (Quantity.positive(cpu, field="cpu"), Quantity.positive(memory, field="memory"))
        for index, (field, given, request) in enumerate(
            (("cpu", cpu, judged[0]), ("memory", memory, judged[1]))
        ):
            # The smallest node size's slice: a burst pod may land on any of them.
            held = min(self.reservers, key=lambda reserver: reserver.slice[index])
            message = rules.BURST_FITS_SLICE.broken(
                request=request.text,
                room=held.memory if index else held.cpu,
                resource=field,
                slice=fill(rules.SLICE_TEXT, {"cpu": held.cpu, "memory": held.memory}),
            )
            if message is None:
                continue
            if not self.model.lets_bursts_outgrow_the_slice:
                raise HeadroomConfigError(field, given, message)
            places = {"field": f"burst_workloads[{name}].{field}", "value": shown(given)}
            warn(fill(rules.BURST_OVER_SLICE_WARNING, {**places, "message": message}))
        return judged[0], judged[1]

    @staticmethod
    def _check_slice_on_pool(pool_name: str, node: NodeSize, slice_spec: SliceSpec) -> None:
        check_slice_fits(
            node,
            cpu=slice_spec.cpu.amount,
            memory=slice_spec.memory.amount,
            pool_name=pool_name,
            cpu_field="cpu",
            memory_field="memory",
            cpu_value=slice_spec.cpu.given,
            memory_value=slice_spec.memory.given,
        )
