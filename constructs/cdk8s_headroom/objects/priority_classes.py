"""``HeadroomPriorityClasses``: the construct that emits a priority model's classes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cdk8s
from constructs import Construct

from cdk8s_headroom.core.construct import HeadroomConstruct
from cdk8s_headroom.core.rendered import RenderedApiObject
from cdk8s_headroom.vocabulary.labels import FIRST_SYNC_WAVE, PART_OF
from cdk8s_headroom.vocabulary.priority_models import (
    CLASS_DEFAULTS,
    ModelClasses,
    PriorityClassProps,
    PriorityClassSpec,
    PriorityModel,
    class_fields,
)
from cdk8s_headroom.vocabulary.props import Unpack, check_props, spelled_out


def _class_body(spec: PriorityClassSpec) -> Callable[[], dict[str, Any]]:
    def render() -> dict[str, Any]:
        # Its fields but the name, which is the metadata's
        return {key: field for key, field in class_fields(spec).items() if key != "name"}

    return render


class HeadroomPriorityClasses(HeadroomConstruct):
    """The PriorityClasses of a priority model.

    Emits ``headroom`` and ``burst``, and, for ``GUARDED``, the global ``default``
    class. PriorityClasses are cluster-scoped: create one instance per cluster and pass
    it to every ``NodeHeadroom`` (``priority_classes=``).

    Args:
        model: default: ``PriorityModel.GUARDED``.
        headroom_class_name: default: ``headroom-reserve`` (``headroom-high`` for SEED).
        headroom_value: default: -100, below Cluster Autoscaler's expendable cutoff
            (-10), so pending reservers never trigger a scale-out (900000000 for SEED).
        burst_class_name: default: ``burst-critical``.
        burst_value: default: 1000000000, the highest user-defined priority.
        create_default_class: emit the global default class (GUARDED only). Default:
            ``True`` for GUARDED. A cluster holds one ``globalDefault`` class: if yours
            has one, pass ``False`` and name it in ``default_class_name``; it must have
            ``preemptionPolicy: Never`` and a value between headroom and burst.
        default_class_name: default: ``default-no-preempt``.
        default_value: default: 0, the priority of pods without a class.
    """

    @spelled_out(PriorityClassProps, CLASS_DEFAULTS)
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        model: PriorityModel = PriorityModel.GUARDED,
        **props: Unpack[PriorityClassProps],
    ) -> None:
        check_props(props, of=HeadroomPriorityClasses.__init__)
        self.classes = ModelClasses.of(model, **props)
        """The class specs, plain Python (what the promise check and the chart read)."""
        self.model = self.classes.model
        self.headroom = self.classes.headroom
        self.burst = self.classes.burst
        self.default = self.classes.default
        """The class of pods without a priorityClassName, when the model has one."""
        self.default_class_emitted = self.classes.default_class_emitted
        """Whether this construct emits ``default`` (False: it exists in the cluster)."""

        super().__init__(scope, id)
        for child_id, spec in self.classes.emitted_items():
            RenderedApiObject(
                self,
                child_id,
                api_version="scheduling.k8s.io/v1",
                kind="PriorityClass",
                metadata=cdk8s.ApiObjectMetadata(
                    name=spec.name,
                    annotations=FIRST_SYNC_WAVE,
                    labels={"app.kubernetes.io/part-of": PART_OF},
                ),
                render=_class_body(spec),
            )

    @property
    def emitted(self) -> list[PriorityClassSpec]:
        """The classes this construct emits."""
        return self.classes.emitted

    def priority_classes_emitted(self) -> list[PriorityClassSpec]:
        return self.classes.emitted

    def priority_classes_known(self) -> set[str]:
        known = {spec.name for spec in self.classes.emitted}
        if self.default is not None:
            known.add(self.default.name)
        return known
