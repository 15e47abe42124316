"""``headroom_charts``: a Namespace with Pod Security restricted, in the file applied first."""

from pathlib import Path

import cdk8s
import pytest
import yaml

from cdk8s_headroom import HeadroomConfigError, NodeHeadroom, PriorityModel, headroom_charts


def shop_app(outdir: Path) -> cdk8s.App:
    app = cdk8s.App(outdir=str(outdir))
    charts = headroom_charts(app, namespace="shop")
    NodeHeadroom(
        charts.workloads,
        "shop",
        cpu="500m",
        memory="512Mi",
        namespace=charts.namespace.name,
        priority_classes=charts.priority_classes,
    )
    return app


def documents(path: Path) -> list[dict[str, object]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def test_the_namespace_and_classes_land_in_the_file_numbered_before_the_pods(
    tmp_path: Path,
) -> None:
    shop_app(tmp_path).synth()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "0000-cluster.k8s.yaml",
        "0001-headroom.k8s.yaml",
    ]
    first = documents(tmp_path / "0000-cluster.k8s.yaml")
    assert [d["kind"] for d in first] == ["Namespace"] + ["PriorityClass"] * 3
    labels = first[0]["metadata"]["labels"]  # type: ignore[index]
    for mode in ("enforce", "audit", "warn"):
        assert labels[f"pod-security.kubernetes.io/{mode}"] == "restricted"
    workloads = documents(tmp_path / "0001-headroom.k8s.yaml")
    assert {d["kind"] for d in workloads} == {"DaemonSet"}
    assert {d["metadata"]["namespace"] for d in workloads} == {"shop"}  # type: ignore[index]


def test_the_classes_follow_the_model_given() -> None:
    app = cdk8s.App()
    charts = headroom_charts(app, namespace="shop", model=PriorityModel.SEED)
    assert charts.priority_classes.model is PriorityModel.SEED
    assert charts.priority_classes.default is None


def test_the_chart_ids_name_the_files(tmp_path: Path) -> None:
    app = cdk8s.App(outdir=str(tmp_path))
    charts = headroom_charts(app, namespace="shop", cluster_id="shop-cluster", workloads_id="shop")
    NodeHeadroom(
        charts.workloads,
        "shop",
        cpu="1",
        memory="1Gi",
        namespace="shop",
        priority_classes=charts.priority_classes,
    )
    app.synth()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "0000-shop-cluster.k8s.yaml",
        "0001-shop.k8s.yaml",
    ]


def test_a_refused_namespace_name_names_the_field_and_leaves_no_chart_behind() -> None:
    app = cdk8s.App()
    with pytest.raises(HeadroomConfigError, match="namespace") as raised:
        headroom_charts(app, namespace="Shop_1")
    assert "Shop_1" in str(raised.value)
    assert app.charts == []
    # The id is free again, so a corrected call succeeds in the same app.
    assert headroom_charts(app, namespace="shop").cluster.node.id == "cluster"
