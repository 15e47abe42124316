"""Cluster and scenario files refuse what the API server would refuse, naming the field."""

from __future__ import annotations

import pytest

from cdk8s_headroom.simulate.cluster import load_cluster
from cdk8s_headroom.simulate.scenario import load_scenario
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError


def _cluster(node_name: object) -> dict[str, object]:
    pod: dict[str, object] = {
        "name": "p",
        "nodeName": "n1",
        "priority": 0,
        "requests": {"cpu": "100m"},
    }
    return {
        "nodes": [
            {"name": node_name, "allocatable": {"cpu": "2", "memory": "4Gi"}},
            {"name": "n1", "allocatable": {"cpu": "2", "memory": "4Gi"}},
        ],
        "pods": [pod],
    }


@pytest.mark.parametrize(
    "name",
    ["node\x00one", "node one", "Node-1", "n" * 254, "-node", "n\u043ede-1"],
    ids=["nul", "space", "capitals", "254-characters", "leading-dash", "cyrillic-o"],
)
def test_a_node_name_that_is_no_dns_subdomain_is_refused(name: str) -> None:
    # apimachinery's ValidateNodeName is NameIsDNSSubdomain
    with pytest.raises(HeadroomConfigError) as raised:
        load_cluster(_cluster(name), source="cluster.yaml")

    message = str(raised.value)
    assert "nodes[0].name" in message and "DNS-1123 subdomain" in message
    assert "\x00" not in message


def test_a_dotted_lowercase_node_name_is_accepted() -> None:
    cluster = load_cluster(_cluster("ip-10-0-1-2.ec2.internal"), source="cluster.yaml")

    assert "ip-10-0-1-2.ec2.internal" in [node.name for node in cluster.nodes]


def test_a_toleration_with_exists_and_a_value_is_refused_as_the_api_server_does() -> None:
    # pkg/apis/core/validation ValidateTolerations: value must be empty with Exists
    scenario = {
        "nodes": [{"name": "n", "allocatable": {"cpu": "1", "memory": "1Gi"}}],
        "pods": [],
        "preemptor": {
            "name": "p",
            "priority": 10,
            "requests": {"cpu": "500m"},
            "tolerations": [{"key": "dedicated", "operator": "Exists", "value": "burst"}],
        },
    }

    with pytest.raises(HeadroomConfigError) as raised:
        load_scenario(scenario, source="scenario.yaml")

    assert "preemptor.tolerations[0].value" in str(raised.value)
    assert "no value with operator Exists" in str(raised.value)
