"""checkov's Kubernetes policies, offline, with the skips of checkov.yaml (package data:
each skipped check says why it does not apply), within bounds of memory and time.

checkov lives in a virtualenv of its own (its dependencies conflict with the project's
pins): the repository's ``.venv-checkov`` (``make validate`` and ``make test`` create
it), else a ``checkov`` on PATH. Without either, ``find_checkov`` says so and
``cdk8s-headroom validate`` runs the other checks and says checkov did not run.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from cdk8s_headroom.files.documents import SourcedObject
from cdk8s_headroom.validate.models import SOURCE_ROOT

REPOSITORY_CHECKOV = SOURCE_ROOT / ".venv-checkov" / "bin" / "checkov"
CHECKOV_CONFIG = Path(__file__).with_name("checkov.yaml")


def find_checkov() -> Path | None:
    """The checkov to run: the repository's, else one on PATH; ``None`` when neither."""
    if REPOSITORY_CHECKOV.exists():
        return REPOSITORY_CHECKOV
    found = shutil.which("checkov")
    return Path(found) if found is not None else None


@dataclass(frozen=True)
class CheckovFailure:
    """A failed checkov check: where (file and lines) and which check."""

    file: str
    first_line: int
    last_line: int
    check_id: str
    check_name: str


CHECKOV_MEMORY_BYTES = 4 * 2**30
"""The address space one checkov run may take. checkov holds every object's graph in
memory, about 1.7 MB for each object of dist/ and 40 KB for each list item of a large
one: 2000 ordinary objects fit, a few objects of a hundred thousand values each do not.
A folder that is too big for one run is scanned in halves (``checkov_failures``)."""

CHECKOV_TIMEOUT_SECONDS = 600
"""The longest one checkov run may take: about 20 times what 1000 ordinary objects take."""


class CheckovError(RuntimeError):
    """A checkov run that gave no report: it crashed, or hit ``CHECKOV_MEMORY_BYTES`` or
    ``CHECKOV_TIMEOUT_SECONDS``. The message says which, in words fit for a report line."""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHECKOV_MEMORY_BYTES, CHECKOV_MEMORY_BYTES))


def _run_bounded(command: list[str], *, cwd: str) -> tuple[int, str, str]:
    """The exit status, stdout and stderr of ``command``, run under ``_limit_memory`` and
    killed with everything it started once ``CHECKOV_TIMEOUT_SECONDS`` have passed."""
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, "LOG_LEVEL": "ERROR"},
        preexec_fn=_limit_memory,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=CHECKOV_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise CheckovError(
                f"checkov ran out of time (more than {CHECKOV_TIMEOUT_SECONDS} s)"
            ) from None
    return process.returncode, stdout, stderr


def _no_report(returncode: int, stderr: str) -> CheckovError:
    lines = stderr.strip().splitlines()
    last = lines[-1].strip() if lines else ""
    memory = f"{CHECKOV_MEMORY_BYTES // 2**20} MiB"
    if last.startswith("MemoryError"):
        return CheckovError(f"checkov ran out of memory (more than {memory})")
    if returncode < 0:
        name = signal.Signals(-returncode).name
        return CheckovError(f"checkov was killed by {name} (its memory is limited to {memory})")
    return CheckovError(f"checkov could not scan it: {last or f'exit {returncode}, no report'}")


def run_checkov(folder: Path, *, config: Path | None = CHECKOV_CONFIG) -> list[CheckovFailure]:
    """Runs checkov's Kubernetes policies on ``folder`` (offline), with ``config``'s skips,
    within ``CHECKOV_MEMORY_BYTES`` and ``CHECKOV_TIMEOUT_SECONDS``.

    Raises:
        RuntimeError: when checkov is missing (``find_checkov``).
        CheckovError: when checkov crashes or hits a limit, without a report.
    """
    checkov = find_checkov()
    if checkov is None:
        raise RuntimeError(f"checkov is missing: neither {REPOSITORY_CHECKOV} nor on PATH")
    command = [str(checkov), "--skip-download", "--framework", "kubernetes", "-o", "json"]
    if config is not None:
        command += ["--config-file", str(config.resolve())]
    command += ["-d", str(folder.resolve())]
    # checkov also reads a .checkov.yaml from its working directory; an empty one
    # keeps `config=None` meaning no skips at all.
    with tempfile.TemporaryDirectory() as workdir:
        returncode, stdout, stderr = _run_bounded(command, cwd=workdir)
    try:
        report = json.loads(stdout)
    except json.JSONDecodeError:
        raise _no_report(returncode, stderr) from None
    reports = report if isinstance(report, list) else [report]
    failures = []
    for part in reports:
        for check in part.get("results", {}).get("failed_checks", []):
            first, last = check.get("file_line_range") or (0, 0)
            failures.append(
                CheckovFailure(
                    file=str(check["file_path"]).lstrip("/"),
                    first_line=int(first),
                    last_line=int(last),
                    check_id=str(check["check_id"]),
                    check_name=str(check.get("check_name", "")),
                )
            )
    return failures


@dataclass(frozen=True)
class CheckovScan:
    """checkov's verdict on one object: its failed checks, or why it could not be scanned."""

    failures: tuple[CheckovFailure, ...] = ()
    problem: str | None = None


def checkov_failures(objects: Sequence[SourcedObject]) -> list[CheckovScan]:
    """checkov's verdict on each object.

    Each object goes to checkov in a file of its own, as read: so checkov judges exactly
    the objects the other checks judge (it skips the items of a ``PodList``, and it
    cannot read a file the reader refused), and every failure has one owner. When a run
    crashes or hits a limit, each half is scanned on its own, down to the one object
    that checkov cannot scan: one bad object costs a few runs, and hides nothing else.
    """
    scans: list[CheckovScan] = [CheckovScan() for _ in objects]
    pending = [list(range(len(objects)))] if objects else []
    while pending:
        indices = pending.pop()
        try:
            failures = _checkov_run(objects, indices)
        except CheckovError as error:
            if len(indices) == 1:
                scans[indices[0]] = CheckovScan(problem=str(error))
            else:
                half = len(indices) // 2
                pending += [indices[half:], indices[:half]]
            continue
        owned: dict[int, list[CheckovFailure]] = {index: [] for index in indices}
        for failure in failures:
            owned[int(Path(failure.file).stem)].append(failure)
        for index, found in owned.items():
            scans[index] = CheckovScan(failures=tuple(found))
    return scans


def _checkov_run(objects: Sequence[SourcedObject], indices: list[int]) -> list[CheckovFailure]:
    with tempfile.TemporaryDirectory() as workdir:
        folder = Path(workdir)
        for index in indices:
            text = yaml.safe_dump(objects[index].obj, sort_keys=False)
            (folder / f"{index:06d}.yaml").write_text(text)
        return run_checkov(folder)
