"""cdk8s escape hatches: a JSON patch on a library object applies to the rendered body."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cdk8s
import pytest
from cdk8s import JsonPatch

from cdk8s_headroom import HeadroomConfigError, NodeHeadroom, synth
from cdk8s_headroom.files.publish import check_pod_security, load_manifests
from tests.conftest import find, pod_spec


def headroom(app: cdk8s.App) -> NodeHeadroom:
    return NodeHeadroom(cdk8s.Chart(app, "chart"), "h", cpu="500m", memory="512Mi")


def test_a_patch_reaches_the_reservers_pod_template(tmp_path: Path) -> None:
    # GIVEN a headroom whose reserver is patched into the pod template
    app = cdk8s.App(outdir=str(tmp_path))
    target = headroom(app)
    target.reserver.resource.add_json_patch(
        JsonPatch.add("/spec/template/spec/hostNetwork", True),
        JsonPatch.add("/metadata/annotations", {"team": "platform"}),
    )

    # WHEN the app is synthesized
    synth(app)

    # THEN the patches are in the output, on top of the rendered body
    objects = [document for _, document in load_manifests(tmp_path)]
    reserver = find(objects, "DaemonSet")
    assert pod_spec(reserver)["hostNetwork"] is True
    assert pod_spec(reserver)["terminationGracePeriodSeconds"] == 0
    assert reserver["metadata"]["annotations"] == {"team": "platform"}


def test_a_patched_pod_template_fails_the_pod_security_check_of_make_synth(
    tmp_path: Path,
) -> None:
    app = cdk8s.App(outdir=str(tmp_path))
    target = headroom(app)
    target.reserver.resource.add_json_patch(JsonPatch.add("/spec/template/spec/hostNetwork", True))
    synth(app)
    with pytest.raises(HeadroomConfigError) as raised:
        check_pod_security(tmp_path)
    assert "DaemonSet/headroom-reserver" in str(raised.value)
    assert "hostNetwork" in str(raised.value)


def bad_patch(app: cdk8s.App) -> None:
    headroom(app).reserver.resource.add_json_patch(
        JsonPatch.add("/spec/template/spec/hostNetwork", True),
        JsonPatch.add("/spec/nowhere/field", 1),
    )


def test_a_patch_whose_path_does_not_exist_is_a_config_error(tmp_path: Path) -> None:
    ours, plain = cdk8s.App(outdir=str(tmp_path / "a")), cdk8s.App(outdir=str(tmp_path / "b"))
    bad_patch(ours)
    bad_patch(plain)
    with pytest.raises(HeadroomConfigError) as raised:
        synth(ours)
    assert raised.value.field == "chart/h/Reserver/Resource.json_patches[1]"
    assert "a JSON patch that applies to the rendered DaemonSet" in str(raised.value)
    with pytest.raises(RuntimeError) as failed:
        plain.synth()
    assert str(raised.value) in str(failed.value)
    assert list(tmp_path.rglob("*.yaml")) == []


def test_a_patched_name_takes_part_in_the_whole_app_checks() -> None:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "chart")
    first = NodeHeadroom(chart, "a", cpu="1", memory="1Gi", reserver_name="first")
    NodeHeadroom(
        chart,
        "b",
        cpu="1",
        memory="1Gi",
        reserver_name="second",
        priority_classes=first.priority_classes,
    )
    assert [str(m) for m in app.node.validate()] == []
    first.reserver.resource.add_json_patch(JsonPatch.replace("/metadata/name", "second"))
    messages: list[Any] = app.node.validate()
    assert len(messages) == 1
    assert "a name no other DaemonSet in namespace 'default' has" in messages[0]
