"""The strict schemas' verdicts kept between runs: a kept verdict is the verdict the
schemas give, refusals included, and a store written by other code, corrupt, or
unwritable is never trusted over judging."""

from __future__ import annotations

import copy
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from cdk8s_headroom.validate import schemas, verdict_cache
from cdk8s_headroom.validate.schemas import check_schemas, kubernetes_versions, validate_schemas
from cdk8s_headroom.validate.verdict_cache import VerdictStore, object_key
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError
from tests.conftest import ROOT

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d"},
    "spec": {
        "selector": {"matchLabels": {"app": "d"}},
        "template": {
            "metadata": {"labels": {"app": "d"}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        },
    },
}
REFUSED = copy.deepcopy(DEPLOYMENT)
REFUSED["spec"]["template"]["spec"]["containers"][0]["imag"] = "busybox"
REFUSED_ERRORS = [
    f"Kubernetes {version} schema: spec.template.spec.containers.0: Additional properties "
    "are not allowed ('imag' was unexpected)"
    for version in kubernetes_versions()
]


@pytest.fixture
def store_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder of stores, this test's own."""
    folder = tmp_path / "verdicts"
    monkeypatch.setenv("HEADROOM_SCHEMA_CACHE", str(folder))
    return folder


def store_file(folder: Path) -> Path:
    (path,) = folder.glob("verdicts-*.json")
    return path


def store_file_name() -> str:
    """The name of the store this judging code reads."""
    path = VerdictStore.open().path
    assert path is not None
    return path.name


def judging_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Makes judging an object fail the test: every verdict must come from the store."""

    def judged(*args: object) -> None:
        raise AssertionError(f"judged although kept: {args!r}")

    monkeypatch.setattr(schemas, "schema_errors", judged)


def test_a_kept_verdict_is_the_one_judged_refusals_included(
    store_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judged = validate_schemas([DEPLOYMENT, REFUSED])
    assert judged == [[], REFUSED_ERRORS]

    judging_fails(monkeypatch)

    assert validate_schemas([DEPLOYMENT, REFUSED]) == judged
    assert validate_schemas([REFUSED]) == [REFUSED_ERRORS]


def test_the_publication_check_refuses_the_same_way_from_kept_verdicts(
    store_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    staged = tmp_path / "staged"
    staged.mkdir()
    (staged / "0000-app.k8s.yaml").write_text(yaml.safe_dump_all([DEPLOYMENT, REFUSED]))
    with pytest.raises(HeadroomConfigError) as judged:
        check_schemas(staged)

    judging_fails(monkeypatch)

    with pytest.raises(HeadroomConfigError) as kept:
        check_schemas(staged)
    assert str(kept.value) == str(judged.value)
    assert "('imag' was unexpected)" in str(kept.value)


def test_a_run_that_finds_its_verdicts_imports_no_validator(store_folder: Path) -> None:
    script = (
        "import sys\n"
        "from cdk8s_headroom.validate.schemas import validate_schemas\n"
        f"assert validate_schemas([{DEPLOYMENT!r}, {REFUSED!r}]) == [[], {REFUSED_ERRORS!r}]\n"
        "print(sorted({'jsonschema', 'kubernetes_validate'} & set(sys.modules)))\n"
    )

    def imported() -> str:
        return subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": f"{ROOT / 'constructs'}{os.pathsep}{ROOT}"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    assert imported() == "['jsonschema', 'kubernetes_validate']"
    assert imported() == "[]"


def test_a_store_written_by_other_judging_code_is_not_read(
    store_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN a store, written by another version of kubernetes-validate, that says the
    # refused object is valid
    actual = verdict_cache.identity()
    assert actual is not None
    other = {**actual, "packages": {**actual["packages"], "kubernetes_validate": "0.1"}}
    with monkeypatch.context() as patched:
        patched.setattr(verdict_cache, "identity", lambda: other)
        stale = VerdictStore.open()
        stale.put(REFUSED, kubernetes_versions(), [[] for _ in kubernetes_versions()])
        stale.save()
    assert stale.path is not None
    assert stale.path.name != store_file_name()
    assert validate_schemas([REFUSED]) == [REFUSED_ERRORS]

    # ... nor when it has the name of this judging code's
    (store_folder / store_file_name()).unlink()
    stale.path.rename(store_folder / store_file_name())

    assert validate_schemas([REFUSED]) == [REFUSED_ERRORS]


def test_an_edit_of_the_judging_code_names_another_store(
    store_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN the judging code as a copy
    here = Path(verdict_cache.__file__).parent
    for name in ("schemas.py", "verdict_cache.py"):
        (tmp_path / name).write_bytes((here / name).read_bytes())
    monkeypatch.setattr(verdict_cache, "__file__", str(tmp_path / "verdict_cache.py"))
    before = store_file_name()

    # WHEN schemas.py is edited THEN its store is another
    with (tmp_path / "schemas.py").open("a") as source:
        source.write("# an edit\n")

    assert store_file_name() != before


def test_a_package_whose_version_cannot_be_read_keeps_nothing(
    store_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verdict_cache, "_installed_version", lambda package: None)

    assert validate_schemas([DEPLOYMENT, REFUSED]) == [[], REFUSED_ERRORS]
    assert not store_folder.exists()


@pytest.mark.parametrize(
    "corruption",
    [
        b"",
        b"{not json",
        b"\xff\xfe",
        b"[]",
        b'{"identity": null}',
        "identity kept, verdicts a list",
        "identity kept, no releases",
        "identity kept, an entry that is no list of errors",
        "identity kept, an error that is no string",
        "identity kept, a verdict for fewer releases",
    ],
)
def test_a_corrupt_store_is_judged_again_and_rewritten(
    store_folder: Path, corruption: bytes | str
) -> None:
    judged = validate_schemas([DEPLOYMENT, REFUSED])
    path = store_file(store_folder)
    kept = json.loads(path.read_bytes())
    refused_key = object_key(REFUSED)
    if isinstance(corruption, bytes):
        path.write_bytes(corruption)
    elif corruption.endswith("verdicts a list"):
        path.write_text(json.dumps({**kept, "verdicts": []}))
    elif corruption.endswith("no releases"):
        path.write_text(json.dumps({**kept, "releases": []}))
    elif corruption.endswith("no list of errors"):
        kept["verdicts"][refused_key] = ["valid", []]
        path.write_text(json.dumps(kept))
    elif corruption.endswith("no string"):
        kept["verdicts"][refused_key] = [[None], []]
        path.write_text(json.dumps(kept))
    else:
        kept["verdicts"][refused_key] = [[]]
        path.write_text(json.dumps(kept))

    assert validate_schemas([DEPLOYMENT, REFUSED]) == judged
    assert json.loads(path.read_bytes())["verdicts"][refused_key] == [
        [error.split(" schema: ", 1)[1]] for error in REFUSED_ERRORS
    ]


def test_a_folder_that_cannot_be_written_keeps_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("HEADROOM_SCHEMA_CACHE", str(tmp_path / "a-file" / "verdicts"))

    assert validate_schemas([DEPLOYMENT, REFUSED]) == [[], REFUSED_ERRORS]
    assert validate_schemas([DEPLOYMENT, REFUSED]) == [[], REFUSED_ERRORS]
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"]


@pytest.mark.parametrize(
    "labels",
    [
        {1: "a"},  # JSON writes the key "1"
        {True: "a"},  # "true"
        {"a": ("b",)},  # a tuple, which the schemas refuse, as a list
        {"a": float("inf")},
        {"a": b"b"},
        {"a": datetime.date(2024, 1, 1)},  # YAML's 2024-01-01
    ],
)
def test_an_object_json_cannot_hold_exactly_is_judged_every_time(
    store_folder: Path, monkeypatch: pytest.MonkeyPatch, labels: dict[Any, Any]
) -> None:
    # GIVEN the verdict on the object JSON would make of it is kept
    document = copy.deepcopy(DEPLOYMENT)
    document["metadata"]["labels"] = labels
    validate_schemas([json.loads(json.dumps(document, default=str))])
    judged: list[str] = []
    schema_errors = schemas.schema_errors
    monkeypatch.setattr(
        schemas,
        "schema_errors",
        lambda document, version: judged.append(version) or schema_errors(document, version),
    )

    # WHEN the object is validated twice THEN it is judged both times, the same way
    first = validate_schemas([document])

    assert validate_schemas([document]) == first
    assert judged == 2 * list(kubernetes_versions())


def test_key_order_is_part_of_the_key() -> None:
    # jsonschema lists unexpected fields in the object's order
    reordered = dict(reversed(list(DEPLOYMENT.items())))

    assert object_key(reordered) != object_key(DEPLOYMENT)


def test_a_store_keeps_the_newest_objects(
    store_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verdict_cache, "MAX_ENTRIES", 2)
    named = [copy.deepcopy(DEPLOYMENT) for _ in range(3)]
    for index, document in enumerate(named):
        document["metadata"]["name"] = f"d{index}"
        validate_schemas([document])

    kept = json.loads(store_file(store_folder).read_bytes())["verdicts"]

    assert list(kept) == [object_key(named[1]), object_key(named[2])]


def test_a_folder_keeps_the_stores_written_last(
    store_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verdict_cache, "MAX_FILES", 2)
    store_folder.mkdir()
    for age, name in enumerate(("verdicts-newer.json", "verdicts-older.json"), start=1):
        (store_folder / name).write_text("{}")
        os.utime(store_folder / name, (1e9 - age, 1e9 - age))

    validate_schemas([DEPLOYMENT])

    assert sorted(p.name for p in store_folder.iterdir()) == sorted(
        ["verdicts-newer.json", store_file_name()]
    )
