"""Every shell command in README.md and docs/ works as written, after the Quickstart.

Commands come from the ```sh blocks, and from the inline code of the prose that starts
like a command (`python examples/capacity_buffer.py`, `make help`). Each one is either
run, in a copy of the repository with the virtualenv active (the Quickstart's
`source .venv/bin/activate`), and must exit 0 without a traceback, a Node banner or an
upgrade check; or it is exempt here, with the reason. A command that is neither fails
the test, so commands added to the docs are picked up.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

PLACEHOLDERS = {"path/to/manifests": "dist"}
"""Placeholders the docs use, and the real value the test gives them."""

EXEMPT = {
    "kubectl ": "needs a live cluster",
    "cdk8s-headroom status --context ": "reads a live cluster: tests/live/test_cluster_reads.py",
    "cdk8s-headroom plan --manifests dist/ --context ": (
        "reads a live cluster: tests/live/test_cluster_reads.py"
    ),
    "helm install ": "needs a live cluster",
    "make test": "is the suite this test belongs to",
    "make bench": "the integrator's measurement, minutes long",
    "make synth": "run on a copy of the repository by tests/test_atomic_synth.py",
    "make check": "its parts run in make check itself and tests/test_check_sync.py",
    "make validate": "run by tests/cli/test_validate_command.py (checkov alone takes ~20 s)",
    "make chart": "generates what tests/test_check_sync.py and test_helm_chart.py check",
    "make docs": "run by tests/test_docs.py",
    "make dist": "built and installed by tests/test_packaging.py",
    "pip install build/python-dist/": "the wheel `make dist` builds: tests/test_packaging.py",
    "make install": "the Quickstart's set-up, whose .venv and node_modules the copy uses",
    "make chart-package": "tests/helm/test_helm_chart.py packs the chart twice as the target does",
    "make bench-simulate": "runs `python bench/bench_simulate.py`, which is run here",
    "make fidelity": "1,000 scenarios on two live control planes, most of an hour; "
    "tests/live/test_differential.py runs a fixed-seed subset",
    "make live-build": "builds the live tier's control plane, as tests/live's fixtures do",
    "HEADROOM_LIVE_RELEASES=": "the live tier on one release: tests/live runs every release",
}
"""Command prefixes not run here, and why. No make target runs in the copy: its stamps
would differ, and make would reinstall into the .venv and node_modules it shares."""

RUN = (
    "source .venv/bin/activate",
    "python ",
    "cdk8s ",
    "cdk8s-headroom ",
    ".venv/bin/",
    "make help",
)
"""Command prefixes run here."""

FORBIDDEN = ("Traceback", "end-of-life", "upgrade", "new version", "npm notice")
"""Output that a command shown in the docs must never print."""


def shell_commands(text: str) -> list[str]:
    """The commands of the ```sh blocks: continuation lines joined, comments dropped."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            command = re.sub(r"(^|\s+)#.*$", "", line).strip()
            if command:
                commands.append(command)
    return commands


MENTIONS = (
    "cdk8s-headroom simulate",
    "cdk8s-headroom plan",
    "cdk8s-headroom status",
    "cdk8s-headroom gitops",
    "cdk8s-headroom validate",
)
"""Inline code that names a command in the prose rather than showing one to run."""


def inline_commands(text: str) -> list[str]:
    """The inline code of the prose that starts like a command, outside the code blocks.

    Elided arguments (`cdk8s-headroom simulate ...`) and bare names of commands
    (MENTIONS) are references to commands that the code blocks show in full.
    """
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    starts = (*RUN, *EXEMPT, "make ", "pip ")
    return [
        span
        for span in re.findall(r"`([^`\n]+)`", prose)
        if span.startswith(starts) and "..." not in span and span not in MENTIONS
    ]


COMMANDS = sorted(
    {
        command
        for document in DOCUMENTS
        for command in (
            *shell_commands(document.read_text()),
            *inline_commands(document.read_text()),
        )
    }
)


def test_the_docs_show_commands_and_each_is_run_or_exempt() -> None:
    assert COMMANDS
    unknown = [c for c in COMMANDS if not c.startswith(RUN) and not c.startswith(tuple(EXEMPT))]
    assert unknown == [], "add these to RUN or EXEMPT (with the reason)"


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's files as a fresh clone has them, with the set-up's .venv and
    node_modules linked in."""
    copy = tmp_path_factory.mktemp("clone")
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, tracked.split("\0")):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    for name in (".venv", "node_modules"):
        (copy / name).symlink_to(ROOT / name)
    return copy


def activated(clone: Path) -> dict[str, str]:
    """The environment after `source .venv/bin/activate`, on a machine whose own Node
    (first on PATH otherwise) is not the one jsii supports."""
    path = os.environ["PATH"].split(os.pathsep)
    path = [p for p in path if Path(p) != ROOT / "node_modules" / ".bin"]
    env = {k: v for k, v in os.environ.items() if k not in ("CDK8S_CHECK_UPGRADE", "PYTHONPATH")}
    env.update(
        VIRTUAL_ENV=str(clone / ".venv"),
        PATH=os.pathsep.join([str(clone / ".venv" / "bin"), *path]),
    )
    return env


def runs_as(command: str) -> str:
    """What runs once the virtualenv is active: `.venv/bin/python x` starts the python
    that activation puts first on PATH, as `python x` does (the test below checks that),
    so a command the docs show both ways is run once."""
    return command.removeprefix(".venv/bin/")


VENV_PROGRAMS = sorted({runs_as(c.split()[0]) for c in COMMANDS if c.startswith(".venv/bin/")})
"""The programs the docs name by their path in the virtualenv."""


def test_the_activated_path_finds_the_virtualenv_s_programs_first(clone: Path) -> None:
    found = subprocess.run(
        ["bash", "-c", f"command -v {' '.join(VENV_PROGRAMS)}"],
        cwd=clone,
        env=activated(clone),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert found == [str(clone / ".venv" / "bin" / program) for program in VENV_PROGRAMS]
    assert {"python", "cdk8s", "cdk8s-headroom"} <= set(VENV_PROGRAMS)


@pytest.mark.parametrize(
    "command",
    sorted({runs_as(c) for c in COMMANDS if c.startswith(RUN) and not c.startswith(tuple(EXEMPT))}),
)
def test_a_command_of_the_docs_works_as_written(clone: Path, command: str) -> None:
    for placeholder, value in PLACEHOLDERS.items():
        command = command.replace(placeholder, value)
    result = subprocess.run(
        ["bash", "-c", command], cwd=clone, env=activated(clone), capture_output=True, text=True
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert [word for word in FORBIDDEN if word in output] == [], output


def test_the_docs_link_only_to_files_in_the_repository() -> None:
    missing = [
        f"{document.relative_to(ROOT)}: {target}"
        for document in DOCUMENTS
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", document.read_text())
        if not (document.parent / target).exists()
    ]
    assert missing == []


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a page: lowercased, punctuation dropped,
    spaces as hyphens, and `-1`, `-2` after repeats."""
    seen: dict[str, int] = {}
    found = set()
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    for heading in re.findall(r"^#{1,6} +(.+?) *#* *$", prose, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found


def test_the_docs_link_only_to_headings_that_exist() -> None:
    broken = [
        f"{document.relative_to(ROOT)}: {target}#{anchor}"
        for document in DOCUMENTS
        for target, anchor in re.findall(r"\]\(([^)#:]*)#([^)]+)\)", document.read_text())
        if (page := (document.parent / target if target else document)).suffix == ".md"
        and anchor not in anchors(page.read_text())
    ]
    assert broken == []
