"""The image pre-puller: a DaemonSet of its own that pulls burst images onto every node of
a pool, so burst pods start without a pull (P4) and the reserver never changes.

Why a DaemonSet apart from the reserver. Pulling from the reserver (an init container
per image) changes the reserver's pod template with every image release, so the
DaemonSet controller replaces every reserver, and a replaced ``Never`` reserver must
win its slice back, which it cannot do on a node where something took the room in
between. The pre-puller's template changes instead; the reserver's stays byte-identical.

How an image with no shell is pulled. The kubelet pulls an image to run a container
from it; the container then has to exit at once. A first init container, from a small
image with a static ``busybox``, copies that binary into an emptyDir as
``/headroom-prepull/true``; each pulled image then runs that file (busybox picks its
applet by the name it is called with: ``true``, which exits 0). Nothing inside the
pulled image is used, so distroless and scratch images work, for the node's
architecture. The alternative, an ``image`` volume (KEP-4639, feature gate
``ImageVolume``: alpha in Kubernetes 1.31, beta but off in 1.33-1.34, on by default from
1.35, and it needs a container runtime that supports it), would pull without running
anything, but the output must also be valid for Kubernetes 1.27, whose API has no
such volume.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from constructs import Construct

from cdk8s_headroom.objects.workload import PLACEMENT_DEFAULTS, HeadroomWorkload, PlacementOptions
from cdk8s_headroom.vocabulary import names, object_names
from cdk8s_headroom.vocabulary import security_context as security
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from cdk8s_headroom.vocabulary.labels import PREPULLER_COMPONENT
from cdk8s_headroom.vocabulary.props import Unpack, check_props, spelled_out
from cdk8s_headroom.vocabulary.recipes import (
    INDEX,
    ITEM,
    Each,
    IfAny,
    Take,
    evaluate,
    fill_with,
    join,
)
from cdk8s_headroom.vocabulary.reserver_task import PAUSE_IMAGE, check_image
from cdk8s_headroom.vocabulary.rollout import UpdateStrategy

PREPULL_TOOLS_IMAGE = "busybox:1.37.0-musl"
"""The image the no-op binary comes from: the official busybox, statically linked
(musl), about 1 MB, for every architecture a node may have."""

NOOP_DIR = "/headroom-prepull"
NOOP = f"{NOOP_DIR}/true"
"""Where each pulled image finds the no-op: busybox, named ``true``."""

PREPULL_REQUESTS = {"cpu": "0", "memory": "0"}
"""What each pre-puller container requests: nothing. A pod that requested room could
take it from a slice: while a burst pod holds a slice it leaves some of it free, a
pending pre-puller would land there, and the recreated reserver would no longer fit
when the burst leaves. With no requests it fits anywhere and takes nothing the
scheduler counts. Pulling is the container runtime's work, not the container's."""

PREPULL_LIMITS = {"cpu": "10m", "memory": "16Mi"}
"""What each pre-puller container may use at most: enough to copy a 1 MB file and to
run ``true`` or ``pause``."""

PREPULL_SUFFIX = object_names.PREPULL_SUFFIX


_NOOP_MOUNT = {"name": "noop", "mountPath": NOOP_DIR}


def _container(name: Any, image: Any, uid: int, **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        **fields,
        "resources": {"requests": dict(PREPULL_REQUESTS), "limits": dict(PREPULL_LIMITS)},
        "securityContext": security.container_security_context(uid),
    }


PREPULLER_POD = {
    "priorityClassName": Take("priorityClassName"),
    "terminationGracePeriodSeconds": 0,
    "automountServiceAccountToken": False,
    "enableServiceLinks": False,
    "securityContext": security.pod_security_context(security.PAUSE_UID),
    "initContainers": join(
        [
            _container(
                "noop",
                Take("toolsImage"),
                security.NOBODY_UID,
                command=["/bin/cp", "/bin/busybox", NOOP],
                volumeMounts=[_NOOP_MOUNT],
            )
        ],
        Each(
            "images",
            _container(
                fill_with(object_names.PULL_INIT, index=INDEX),
                ITEM,
                security.NOBODY_UID,
                command=[NOOP],
                volumeMounts=[{**_NOOP_MOUNT, "readOnly": True}],
            ),
        ),
    ),
    "containers": [_container("pause", Take("pauseImage"), security.PAUSE_UID)],
    "volumes": [{"name": "noop", "emptyDir": {"sizeLimit": "4Mi"}}],
    "nodeSelector": IfAny(Take("nodeSelector")),
    "affinity": IfAny(Take("affinity")),
    "tolerations": IfAny(Take("tolerations")),
}
"""The pre-puller's pod, declared once (``recipes``): ``ImagePrepuller._render``
evaluates it, and ``make chart`` compiles it into the chart's
``node-headroom.recipe.prepullerPod`` (``helm.recipes``)."""

PREPULLER_FIELDS = {"updateStrategy": {"type": UpdateStrategy.ROLLING_UPDATE.value}}
"""The fields the pre-puller's DaemonSet adds to its spec (``WORKLOAD_SPEC``): a new
image list rolls node by node, since its pods request nothing (``PREPULL_REQUESTS``) and
a replaced one takes no room from anyone, unlike a reserver (``UpdateStrategy``). A
constant recipe (``recipes``): ``ImagePrepuller._render`` evaluates it, and ``make
chart`` writes it into the chart's ``files/library.json`` (``prepullerSpec``,
``helm.library``)."""


class ImagePrepuller(HeadroomWorkload):
    """A DaemonSet that pulls ``images`` onto every node it runs on, then idles.

    Its containers request no CPU or memory (so it never takes room from a slice) and
    are limited to ``10m`` CPU and ``16Mi`` memory; it runs under the restricted Pod
    Security profile with no service-account token, and has a grace period of 0 s.
    Give it the reserver's placement and priority class, so it runs on the same nodes
    and, like the reserver, never preempts anyone.

    Args:
        name: the DaemonSet's name, a DNS-1123 label.
        priority_class_name: the class of its pods, e.g. the headroom class.
        images: images to pull. Default: none; ``add_image`` adds more.
        tools_image: the image whose static ``busybox`` is the no-op each pulled image
            runs. Default: ``busybox:1.37.0-musl``.
        pause_image: the container that keeps the pod running. Default:
            ``registry.k8s.io/pause:3.10``.
        placement: ``PlacementOptions``: the namespace, the pool to pull on, node
            selector, tolerations, node affinity and labels.
    """

    @spelled_out(PlacementOptions, PLACEMENT_DEFAULTS)
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str,
        priority_class_name: str,
        images: Sequence[str] = (),
        tools_image: str = PREPULL_TOOLS_IMAGE,
        pause_image: str = PAUSE_IMAGE,
        **placement: Unpack[PlacementOptions],
    ) -> None:
        check_props(placement, of=ImagePrepuller.__init__)
        if isinstance(images, (str, bytes)) or not isinstance(images, Sequence):
            raise HeadroomConfigError("prepull.images", images, "a list of image references")
        self._images: list[str] = []
        for image in images:
            self._add(image)
        self.tools_image = check_image(tools_image, field="prepull.tools_image")
        self.pause_image = check_image(pause_image, field="prepull.pause_image")

        super().__init__(
            scope,
            id,
            kind="DaemonSet",
            name=names.dns_label(name, field="prepull.name"),
            component=PREPULLER_COMPONENT,
            priority_class_name=priority_class_name,
            placement=placement,
            render=self._render,
        )

    @property
    def images(self) -> list[str]:
        """The images pulled onto each node, in order."""
        return list(self._images)

    def add_image(self, image: str) -> None:
        """Pulls ``image`` onto every node as well (once, however often it is added)."""
        self._add(image)

    def _add(self, image: str) -> None:
        check_image(image, field="prepull.images")
        if image not in self._images:
            self._images.append(image)

    def _render(self) -> Any:
        pod = evaluate(
            PREPULLER_POD,
            {
                "priorityClassName": self.priority_class_name,
                "toolsImage": self.tools_image,
                "pauseImage": self.pause_image,
                "images": self._images,
                **self.targeting.placement().to_manifest(),
            },
        )
        return self.workload_spec(pod, **evaluate(PREPULLER_FIELDS, {}))
