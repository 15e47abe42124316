"""The chart renders, through the Helm library, what the library synthesizes.

Objects are compared whole, field by field, after one normalization: the chart adds
Helm's labels (helm.sh/chart, app.kubernetes.io/managed-by, app.kubernetes.io/instance)
to every object's metadata, and those three keys are removed before comparing.
"""

from __future__ import annotations

import re
import shlex
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import helm_python as helm
import pytest
import yaml

from cdk8s_headroom.files.publish import load_manifests
from cdk8s_headroom.helm import CHART_NAME, Release, merge_values, package_chart, synthesize
from cdk8s_headroom.helm.chart import BLUEPRINT_VALUES
from cdk8s_headroom.helm.values_to_app import name_prefix
from cdk8s_headroom.objects.prepuller import PREPULL_SUFFIX
from cdk8s_headroom.vocabulary.capacity_buffer_api import is_capacity_buffer
from scripts.helm_render import CHART, objects, render, without_helm_labels
from tests.conftest import ROOT, find, pod_spec
from tests.helm.helm_cases import (
    API,
    BUFFER_CASES,
    DEDICATED_TAINT,
    PARITY_CASES,
    readme_buffers_values,
)
from tests.helm.notes_warnings import library_warnings, notes_warnings
from tests.upstream_crds import buffer_crd_errors, needs_crds

Key = tuple[str, str, str]


def key(document: dict[str, Any]) -> Key:
    metadata = document["metadata"]
    return (document["kind"], metadata.get("namespace", ""), metadata["name"])


def by_key(documents: list[dict[str, Any]]) -> dict[Key, dict[str, Any]]:
    keyed = {key(document): document for document in documents}
    assert len(keyed) == len(documents), "two objects share a kind, namespace and name"
    return keyed


@dataclass(frozen=True)
class HelmCommand:
    """A `helm install` or `helm template` command of the docs, as Helm would render it."""

    release: str
    namespace: str
    values: dict[str, Any]


def merge_maps(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """helm/helm `pkg/cli/values/options.go` `mergeMaps`: maps merge key by key, any other
    value replaces."""
    merged = dict(base)
    for name, item in override.items():
        if isinstance(item, dict) and isinstance(merged.get(name), dict):
            item = merge_maps(merged[name], item)
        merged[name] = item
    return merged


def values_file(name: str, page: str) -> dict[str, Any]:
    """A file of the repository, or the YAML block of ``page`` headed `# <name>:`
    (the README's buffers.yaml)."""
    if (ROOT / name).is_file():
        loaded: dict[str, Any] = yaml.safe_load((ROOT / name).read_text())
        return loaded
    blocks = re.findall(rf"```yaml\n# {re.escape(name)}:.*?\n(.*?)```", page, re.DOTALL)
    assert len(blocks) == 1, f"{name}: neither a file of the repository nor a block of the page"
    found: dict[str, Any] = yaml.safe_load(blocks[0])
    return found


def helm_command(text: str, page: str) -> HelmCommand:
    """What ``text`` renders: helm/helm `pkg/cli/values/options.go` `MergeValues` merges
    the `-f` files in order, then each `--set` over them, whatever the order given."""
    words = shlex.split(text)
    assert words[:2] in (["helm", "install"], ["helm", "template"]), text
    assert words[3] == "charts/node-headroom", text
    namespace, files, sets = "default", [], []
    rest = iter(words[4:])
    for word in rest:
        if word in ("-n", "--namespace"):
            namespace = next(rest)
        elif word in ("-f", "--values"):
            files.append(values_file(next(rest), page))
        elif word == "--set":
            sets.append(helm.parse_set_string(next(rest)))
        else:
            assert word == "--create-namespace", f"{text}: a flag this test does not read"
    values: dict[str, Any] = {}
    for given in (*files, *sets):
        values = merge_maps(values, given)
    return HelmCommand(words[2], namespace, values)


HELM_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), CHART / "README.md"]


def docs_helm_commands() -> list[tuple[str, str]]:
    """(page, command) of each `helm install` and `helm template` of the pages: the lines
    of their ```sh blocks (continuations joined, comments dropped) and their prose's
    inline code (wrapped lines joined)."""
    found = []
    for page in HELM_PAGES:
        text = page.read_text()
        for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
            for line in re.sub(r"\\\n\s*", " ", block).splitlines():
                found.append((page, " ".join(re.sub(r"(^|\s+)#.*$", "", line).split())))
        prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
        found.extend((page, " ".join(span.split())) for span in re.findall(r"`([^`]+)`", prose))
    return sorted(
        {
            (page.relative_to(ROOT).as_posix(), command)
            for page, command in found
            if command.startswith(("helm install ", "helm template "))
        }
    )


DOCS_HELM_COMMANDS = docs_helm_commands()


def helm_objects(
    chart: helm.Chart,
    overrides: dict[str, Any],
    release: str = "node-headroom",
    namespace: str = "",
) -> dict[Key, dict[str, Any]]:
    rendered = objects(render(chart, overrides, release=release, namespace=namespace or release))
    for document in rendered:
        labels = document["metadata"]["labels"]
        assert labels["app.kubernetes.io/instance"] == release
        assert labels["app.kubernetes.io/managed-by"] == "Helm"
    return by_key([without_helm_labels(document) for document in rendered])


def library_objects(
    overrides: dict[str, Any], chart_defaults: dict[str, Any], release: str = "node-headroom"
) -> dict[Key, dict[str, Any]]:
    with warnings.catch_warnings():
        # SEED warns that it breaks P2 and P3; the chart says so in NOTES.txt.
        warnings.simplefilter("ignore")
        documents = synthesize(overrides, Release(release, release), chart_defaults=chart_defaults)
    return by_key(documents)


BLUEPRINT_RULE = (
    "helm template node-headroom charts/node-headroom -n node-headroom "
    f"-f charts/node-headroom/{BLUEPRINT_VALUES} --set namespace.create=true"
)
"""The chart README's rule: with the blueprint's values, the chart renders dist/."""


def test_the_blueprint_values_reproduce_dist_as_the_chart_readme_states(
    chart: helm.Chart,
) -> None:
    # GIVEN the rule of the chart README: release node-headroom in namespace
    # node-headroom, the blueprint's values file, and the Namespace object asked for
    assert BLUEPRINT_RULE in " ".join((CHART / "README.md").read_text().split())
    command = helm_command(BLUEPRINT_RULE, "")
    dist = by_key([document for _, document in load_manifests(ROOT / "dist")])
    # THEN it renders exactly the objects of dist/
    assert helm_objects(chart, command.values, command.release, command.namespace) == dist
    # AND without the Namespace object, the same objects but the Namespace
    blueprint = yaml.safe_load((CHART / BLUEPRINT_VALUES).read_text())
    assert helm_objects(chart, blueprint) == {k: v for k, v in dist.items() if k[0] != "Namespace"}
    # AND without the blueprint's values, the same objects but its demo workload and
    # the pre-puller that pulls its image
    headroom = {
        k: v for k, v in dist.items() if k[0] != "Deployment" and not k[2].endswith(PREPULL_SUFFIX)
    }
    assert len(headroom) == len(dist) - 2
    assert helm_objects(chart, {"namespace": {"create": True}}) == headroom


def test_the_default_values_deploy_no_workload(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # GIVEN `helm install web charts/node-headroom -n web`, with no values of its own
    rendered = helm_objects(chart, {}, "web")
    # THEN it renders the classes and the reserver: no Deployment, no autoscaler, and no
    # pre-puller (no burst image to pull)
    assert chart_defaults["burstWorkloads"] == []
    assert sorted({kind for kind, _, _ in rendered}) == ["DaemonSet", "PriorityClass"]
    assert [name for kind, _, name in rendered if kind == "DaemonSet"] == ["web-headroom-reserver"]
    assert not [k for k in rendered if k[0] in ("Deployment", "HorizontalPodAutoscaler")]
    # AND the library synthesizes the same from the same values
    assert rendered == library_objects({}, chart_defaults, "web")


@pytest.mark.parametrize(
    ("release", "overrides"),
    [(release, overrides) for _, release, overrides in PARITY_CASES],
    ids=[case_id for case_id, _, _ in PARITY_CASES],
)
def test_values_render_what_the_library_synthesizes_with_the_same_props(
    chart: helm.Chart, chart_defaults: dict[str, Any], release: str, overrides: dict[str, Any]
) -> None:
    rendered = helm_objects(chart, overrides, release)
    synthesized = library_objects(overrides, chart_defaults, release)
    assert sorted(rendered) == sorted(synthesized)
    for object_key, document in synthesized.items():
        assert rendered[object_key] == document, object_key


def test_a_whole_float_in_an_integer_value_renders_what_the_library_synthesizes(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # GIVEN replicas written 2.0 (YAML's float, a whole number)
    api = {key: item for key, item in API.items() if key != "autoscaling"}
    overrides = {"burstWorkloads": [{**api, "replicas": 2.0}]}
    # THEN both engines take it as 2 and make the same objects
    synthesized = library_objects(overrides, chart_defaults)
    assert helm_objects(chart, overrides) == synthesized
    deployment = synthesized[next(k for k in synthesized if k[0] == "Deployment")]
    assert deployment["spec"]["replicas"] == 2


def test_namespaced_objects_go_to_the_release_namespace(chart: helm.Chart) -> None:
    # WHEN `helm install web charts/node-headroom -n web`
    documents = helm_objects(chart, {"burstWorkloads": [API]}, "web", "web")
    # THEN every namespaced object is in web, and the chart renders no Namespace
    assert {ns for kind, ns, _ in documents if kind != "PriorityClass"} == {"web"}
    assert ("DaemonSet", "web", "web-headroom-reserver") in documents
    assert ("HorizontalPodAutoscaler", "web", "web-api") in documents
    # AND namespace.name moves them elsewhere, with the Namespace object on request
    moved = helm_objects(chart, {"namespace": {"name": "jobs", "create": True}}, "web", "default")
    assert ("Namespace", "", "jobs") in moved
    assert ("DaemonSet", "jobs", "web-headroom-reserver") in moved


def test_set_passes_whole_numbers_and_the_chart_takes_them(chart: helm.Chart) -> None:
    # `--set reservation.cpu=1` gives an integer, not a string
    overrides = helm.parse_set_string("reservation.cpu=1,reservation.memory=1073741824")
    assert overrides["reservation"]["cpu"] == 1
    documents = list(helm_objects(chart, overrides).values())
    reserver = pod_spec(find(documents, "DaemonSet", "headroom-reserver"))
    assert reserver["containers"][0]["resources"]["requests"] == {
        "cpu": "1",
        "memory": "1073741824",
    }


def test_set_numbers_and_booleans_in_text_values_are_their_text(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # `--set labels.team=42` gives an integer and `--set ...value=true` a boolean
    overrides = helm.parse_set_string(
        "model=dedicated-pool,nodePool.name=pool,nodePool.taints[0].key=headroom.cdk8s.io/burst,"
        "nodePool.taints[0].value=true,dedicatedTaint.value=true,labels.team=42,"
        "nodeSelector.generation=7,burstWorkloads[0].name=api,burstWorkloads[0].image=nginx,"
        "burstWorkloads[0].resources.requests.cpu=1,reservation.cpu=1,"
        "burstWorkloads[0].resources.requests.memory=268435456,burstWorkloads[0].buffer.replicas=2"
    )
    assert overrides["labels"]["team"] == 42 and overrides["dedicatedTaint"]["value"] is True
    rendered = helm_objects(chart, overrides)
    assert rendered == library_objects(overrides, chart_defaults)
    reserver = rendered[("DaemonSet", "node-headroom", "headroom-reserver-pool")]
    assert reserver["metadata"]["labels"]["team"] == "42"
    assert pod_spec(reserver)["nodeSelector"]["generation"] == "7"
    assert {"key": "headroom.cdk8s.io/burst", "operator": "Equal", "value": "true",
            "effect": "NoSchedule"} in pod_spec(reserver)["tolerations"]  # fmt: skip
    assert rendered[("CapacityBuffer", "node-headroom", "api-buffer")]["spec"]["replicas"] == 2


def test_the_value_sets_exercise_what_they_claim(chart: helm.Chart) -> None:
    # GIVEN the prepull case WHEN rendered THEN the reserver pulls its task's images once
    # each, the pre-puller the bursts' images (never the reserver), and both bursts with
    # their HPA and replicas exist.
    cases = {case_id: overrides for case_id, _, overrides in PARITY_CASES}
    overrides = cases["prepull-with-burst-images-and-mirror"]
    documents = list(helm_objects(chart, overrides).values())
    reserver = pod_spec(find(documents, "DaemonSet", "headroom-reserver"))
    assert [c["image"] for c in reserver["initContainers"]] == [
        "busybox:1.36",
        "ghcr.io/acme/api:1.2",
    ]
    assert reserver["containers"][0]["image"] == "mirror.example.com/pause:3.10"
    prepuller = pod_spec(find(documents, "DaemonSet", "headroom-reserver-prepull"))
    assert [c["image"] for c in prepuller["initContainers"][1:]] == [
        "ghcr.io/acme/api:1.2",
        "ghcr.io/acme/worker:3",
    ]
    assert find(documents, "HorizontalPodAutoscaler", "api")["spec"]["maxReplicas"] == 6
    assert "replicas" not in find(documents, "Deployment", "api")["spec"]
    assert find(documents, "Deployment", "worker")["spec"]["replicas"] == 0


def without_nulls(item: Any) -> Any:
    if isinstance(item, dict):
        return {k: without_nulls(v) for k, v in item.items() if v is not None}
    if isinstance(item, list):
        return [without_nulls(v) for v in item]
    return item


def test_helm_merges_values_as_the_mapping_does(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    # Helm drops null defaults where the mapping keeps them; both read them as unset.
    overrides = {
        "reservation": {"cpu": "1"},
        "namespace": {"name": None},
        "burstWorkloads": [API],
        "priorityClasses": {"headroom": {"value": -5}},
    }
    assert without_nulls(chart.merge_values(overrides)) == without_nulls(
        merge_values(chart_defaults, overrides)
    )


def test_two_releases_collide_on_nothing_but_the_priority_classes(chart: helm.Chart) -> None:
    # GIVEN two releases of the default values in one namespace WHEN both are rendered
    first = set(helm_objects(chart, {}, "web", "apps"))
    second = set(helm_objects(chart, {}, "batch", "apps"))
    # THEN only the cluster-scoped PriorityClasses share names
    assert {kind for kind, _, _ in first & second} == {"PriorityClass"}
    # AND the second release can leave them to the first one
    third = set(helm_objects(chart, {"priorityClasses": {"create": False}}, "batch", "apps"))
    assert first.isdisjoint(third)


def test_the_prefix_leaves_container_names_alone(chart: helm.Chart) -> None:
    documents = list(helm_objects(chart, {"burstWorkloads": [API]}, "web").values())
    deployment = find(documents, "Deployment", "web-api")
    assert pod_spec(deployment)["containers"][0]["name"] == "api"
    assert deployment["spec"]["selector"]["matchLabels"] == {"app": "web-api"}


def test_notes_say_where_everything_went(chart: helm.Chart) -> None:
    overrides = {"burstWorkloads": [API], "priorityClasses": {"create": False}}
    notes = render(chart, overrides, release="web", namespace="apps")[
        "node-headroom/templates/NOTES.txt"
    ]
    assert "In namespace apps:" in notes
    assert "DaemonSet web-headroom-reserver: holds 500m CPU, 512Mi memory on every node" in notes
    assert "Deployment web-api and its HorizontalPodAutoscaler" in notes
    assert "PriorityClasses that must exist in the cluster:\n  - headroom-reserve (-100)" in notes
    assert "kubectl get pods -n apps -l app=web-headroom-reserver" in notes
    assert "WARNING" not in notes
    created = render(chart, {"namespace": {"create": True}})["node-headroom/templates/NOTES.txt"]
    assert "a Namespace this release creates, Pod Security restricted" in created


def test_buffers_render_their_capacity_buffers_with_the_burst_pods_shape(
    chart: helm.Chart,
) -> None:
    cases = {case_id: overrides for case_id, _, overrides in PARITY_CASES}
    documents = list(
        helm_objects(chart, cases["buffers-beside-slices-on-a-dedicated-pool"]).values()
    )
    # the pod-template form: a PodTemplate with the burst pod's requests and placement
    template = find(documents, "PodTemplate", "api-buffer")["template"]["spec"]
    assert template["containers"][0]["resources"]["requests"] == {"cpu": "500m", "memory": "512Mi"}
    assert template["nodeSelector"] == {"karpenter.sh/nodepool": "burst-pool"}
    assert {"key": "headroom.cdk8s.io/burst", "operator": "Equal", "value": "true",
            "effect": "NoSchedule"} in template["tolerations"]  # fmt: skip
    spec = find(documents, "CapacityBuffer", "api-buffer")["spec"]
    assert spec["podTemplateRef"] == {"name": "api-buffer"}
    assert (spec["replicas"], spec["limits"]) == (3, {"cpu": "4", "memory": "8Gi"})
    # the scalable form: the Deployment itself
    scaled = find(documents, "CapacityBuffer", "worker-buffer")
    assert scaled["apiVersion"] == "autoscaling.x-k8s.io/v1beta1"
    assert scaled["spec"]["scalableRef"]["name"] == "worker"
    assert scaled["spec"]["percentage"] == 50
    assert not [d for d in documents if d["metadata"]["name"] == "worker-buffer"
                and d["kind"] == "PodTemplate"]  # fmt: skip
    # in the version asked for, on a Cluster Autoscaler node group
    alpha = helm_objects(chart, cases["a-v1alpha1-buffer-on-a-cluster-autoscaler-node-group"])
    alpha_buffer = find(list(alpha.values()), "CapacityBuffer", "worker-buffer")
    assert alpha_buffer["apiVersion"] == "autoscaling.x-k8s.io/v1alpha1"
    # without slices: the buffers keep the room, and no reserver runs
    alone = list(helm_objects(chart, cases["buffers-alone-without-slices"]).values())
    assert not [d for d in alone if d["kind"] == "DaemonSet"]
    assert find(alone, "CapacityBuffer", "api-buffer")["spec"]["limits"] == {"cpu": "2"}


@needs_crds
@pytest.mark.parametrize(
    ("release", "overrides"),
    [case[1:] for case in BUFFER_CASES],
    ids=[case[0] for case in BUFFER_CASES],
)
def test_the_charts_buffers_are_valid_for_the_upstream_crds(
    chart: helm.Chart, release: str, overrides: dict[str, Any]
) -> None:
    rendered = objects(render(chart, overrides, release=release, namespace=release))
    buffers = [document for document in rendered if is_capacity_buffer(document)]
    assert len(buffers) == len(overrides["burstWorkloads"])  # one per burst workload here
    for buffer in buffers:
        assert buffer_crd_errors(buffer) == [], buffer["metadata"]["name"]


def test_the_readme_buffers_example_renders_what_the_library_synthesizes(
    chart: helm.Chart, chart_defaults: dict[str, Any]
) -> None:
    overrides = readme_buffers_values()
    rendered = helm_objects(chart, overrides, "web")
    assert rendered == library_objects(overrides, chart_defaults, "web")
    assert ("CapacityBuffer", "web", "web-api-buffer") in rendered
    assert not [key for key in rendered if key[0] == "DaemonSet"]


def test_notes_list_the_buffers_and_warn_when_ordinary_pods_can_take_their_room(
    chart: helm.Chart,
) -> None:
    cases = {case_id: overrides for case_id, _, overrides in PARITY_CASES}
    notes = render(chart, cases["buffers-under-a-release-prefix"], release="web")[
        "node-headroom/templates/NOTES.txt"
    ]
    assert "CapacityBuffer web-worker-buffer: the autoscaler keeps room" in notes
    assert "WARNING: capacity buffer web-worker-buffer: on every node" in notes
    dedicated = render(chart, cases["buffers-beside-slices-on-a-dedicated-pool"])[
        "node-headroom/templates/NOTES.txt"
    ]
    assert "CapacityBuffer api-buffer and its PodTemplate" in dedicated
    assert "WARNING" not in dedicated
    alone = render(chart, cases["buffers-alone-without-slices"])[
        "node-headroom/templates/NOTES.txt"
    ]
    assert "DaemonSet" not in alone and "CapacityBuffer api-buffer" in alone


SHARED_BUFFER = re.compile(r"capacity buffer (\S+): on")


@pytest.mark.parametrize(
    ("release", "overrides"),
    [(release, overrides) for _, release, overrides in [*PARITY_CASES, *BUFFER_CASES]],
    ids=[case_id for case_id, _, _ in [*PARITY_CASES, *BUFFER_CASES]],
)
def test_notes_warn_of_what_the_library_warns_of_in_the_charts_words(
    chart: helm.Chart, chart_defaults: dict[str, Any], release: str, overrides: dict[str, Any]
) -> None:
    # Each warning the library gives (errors.warn, a HeadroomWarning) is a WARNING
    # paragraph of NOTES.txt, with the models named as the values name them
    # (helm/library.py chart_words). A
    # shared buffer's names the buffer as the library does (object_names.BUFFER_NAME: a
    # zoned buffer's has its zone): the chart's bursts unit named every buffer as if it
    # had no zone, an object the release does not make
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        synthesize(overrides, Release(release, release), chart_defaults=chart_defaults)
    notes = render(chart, overrides, release=release, namespace=release)[
        "node-headroom/templates/NOTES.txt"
    ]
    warned = notes_warnings(notes)
    assert warned == library_warnings(caught, name_prefix(overrides, Release(release, release)))
    # each shared buffer warned of is what the release makes: its CapacityBuffer, or the
    # CronJobs (<buffer>-<window>) of a buffer held in time windows
    names = [name for _, _, name in helm_objects(chart, overrides, release)]
    for buffer in SHARED_BUFFER.findall(" ".join(warned)):
        assert [n for n in names if n == buffer or n.startswith(f"{buffer}-")], buffer


def test_notes_warn_that_seed_breaks_p2_and_p3(chart: helm.Chart) -> None:
    notes = render(chart, {"model": "seed"})["node-headroom/templates/NOTES.txt"]
    assert "WARNING: model seed breaks P2 and P3" in notes
    assert "model guarded and dedicated-pool keep them" in " ".join(notes.split())


@pytest.mark.parametrize(
    "overrides",
    [
        {"model": "seed"},
        {"model": "guarded"},
        {"model": "dedicated-pool", "nodePool": {"name": "burst", "taints": [DEDICATED_TAINT]}},
    ],
    ids=["seed", "guarded", "dedicated-pool"],
)
def test_rendered_notes_of_each_model_speak_kubernetes_not_python(
    chart: helm.Chart, overrides: dict[str, Any]
) -> None:
    # The rendered text, not only the template: the notes come from the library's docs
    notes = render(chart, overrides)["node-headroom/templates/NOTES.txt"]
    for python in ("PriorityModel", "SEED", "GUARDED", "DEDICATED_POOL", "None", "True"):
        assert python not in notes, python


def test_the_packaged_chart_renders_like_the_folder(tmp_path: Path, chart: helm.Chart) -> None:
    archive = package_chart(CHART, tmp_path)
    with helm.Chart.load(archive) as packed:
        assert render(packed, {}) == render(chart, {})


def test_the_docs_show_the_helm_commands_of_their_helm_sections() -> None:
    pages = {page for page, _ in DOCS_HELM_COMMANDS}
    assert {"README.md", "docs/chart.md", "charts/node-headroom/README.md"} <= pages
    assert ("charts/node-headroom/README.md", BLUEPRINT_RULE) in DOCS_HELM_COMMANDS


@pytest.mark.parametrize(
    ("page", "command"), DOCS_HELM_COMMANDS, ids=[f"{p}:{c}" for p, c in DOCS_HELM_COMMANDS]
)
def test_a_helm_command_of_the_docs_deploys_the_burst_workloads_its_values_name_and_no_other(
    chart: helm.Chart, page: str, command: str
) -> None:
    # GIVEN a `helm install` or `helm template` of the docs, with its -f files and --set
    parsed = helm_command(command, (ROOT / page).read_text())
    # WHEN rendered as Helm would, THEN it renders, and its Deployments are the burst
    # workloads its values name: none without values that name one
    rendered = helm_objects(chart, parsed.values, parsed.release, parsed.namespace)
    default_prefix = "" if parsed.release == CHART_NAME else f"{parsed.release}-"
    prefix = parsed.values.get("namePrefix", default_prefix)
    named = {prefix + w["name"] for w in parsed.values.get("burstWorkloads", [])}
    assert {name for kind, _, name in rendered if kind == "Deployment"} == named


def test_the_second_pool_example_renders_its_reserver_alone(chart: helm.Chart) -> None:
    # GIVEN docs/chart.md's second pool (`batch`, formerly with a `batch-demo-burst`)
    [command] = [c for _, c in DOCS_HELM_COMMANDS if "nodePool.name=batch-pool" in c]
    parsed = helm_command(command, "")
    # THEN it renders its reserver on the pool, and neither classes nor a workload
    rendered = helm_objects(chart, parsed.values, parsed.release, parsed.namespace)
    assert set(rendered) == {("DaemonSet", "batch", "batch-headroom-reserver-batch-pool")}
