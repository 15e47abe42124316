"""checkov's Kubernetes policies, offline, with the skips of checkov.yaml (package data:
each skipped check says why it does not apply), within bounds of memory and time.

checkov lives in a virtualenv of its own (its dependencies conflict with the project's
pins): the repository's ``.venv-checkov`` (``make validate`` and ``make test`` create
it), else a ``checkov`` on PATH. Without either, ``find_checkov`` says so and
``cdk8s-headroom validate`` runs the other checks and says checkov did not run.

Each run of checkov is a fork of a server that imported checkov once
(``checkov_server.py``), when checkov is a Python script; else checkov's command.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import resource
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
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
"""The longest one checkov run may take: about 20 times what 1000 ordinary objects take.
The start of the server that forks the runs has as long."""


class CheckovError(RuntimeError):
    """A checkov run that gave no report: it crashed, or hit ``CHECKOV_MEMORY_BYTES`` or
    ``CHECKOV_TIMEOUT_SECONDS``. The message says which, in words fit for a report line."""


def _environment() -> dict[str, str]:
    # numpy (a dependency of checkov's) starts an OpenBLAS thread per core, each taking
    # 32 MiB of address space, and checkov does no linear algebra: one thread keeps
    # CHECKOV_MEMORY_BYTES the same bound on every machine. (Measured on two cores, the
    # command needs 271 to 275 MiB to scan a Namespace with one thread, 303 to 306 MiB
    # with two; the server's fork 271 to 273 MiB.) It also leaves the server with one
    # thread, which it forks.
    # glibc gives a thread that finds the heap locked an arena of its own, reserving
    # 64 MiB of address space, so what a run needed varied with the machine's load:
    # checkov's four threads took 477 to 537 MiB for one 2,000-argument Deployment
    # without a bound, 285 MiB every time with one arena. A CI run refused one half of
    # a scan that the other half, the same size, had passed.
    return {
        **os.environ,
        "LOG_LEVEL": "ERROR",
        "OPENBLAS_NUM_THREADS": "1",
        "MALLOC_ARENA_MAX": "1",
    }


_IMPORT_VARIABLES = (
    # checkov 3.3.30 (requirements-checkov.txt) reads these as its modules are imported
    # (module-level os.getenv and os.environ in its wheel; the families, for its
    # next pins)
    "ANSI_COLORS_DISABLED",
    "BC_",
    "CHECKOV_",
    "CKV_",
    "EXTERNAL_MODULES_DIR",
    "LOCAL_SECRETS_POLICIES_JSON",
    "LOG_LEVEL",
    "RUN_IN_DOCKER",
    # and Python and its libraries as the server starts: the interpreter, the locale,
    # numpy's OpenBLAS, glibc's malloc, the temporary folder
    "PYTHON",
    "LANG",
    "LC_",
    "OPENBLAS_",
    "MALLOC_",
    "TMPDIR",
)
"""The variables, by name or prefix, that can change what importing checkov does: a
server started with other values of any other variable imported checkov as it would be
imported now, so it is kept (a test runner, a shell, CI change many per process)."""


def _import_environment(environment: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in environment.items() if k.startswith(_IMPORT_VARIABLES)}


def _run_bounded(checkov: Path, args: list[str], *, cwd: str) -> tuple[int, str, str]:
    """The exit status, stdout and stderr of ``checkov ARGS`` run in ``cwd``, within
    ``CHECKOV_MEMORY_BYTES`` of address space, and killed with everything it started once
    ``CHECKOV_TIMEOUT_SECONDS`` have passed: in a fork of ``_CheckovServer`` when checkov
    is a Python script, else as a command."""
    server = _server_for(checkov)
    if server is not None:
        try:
            return server.run(args, cwd=cwd)
        except _ServerError:
            _close_server(checkov)
    return _run_command([str(checkov), *args], cwd=cwd)


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHECKOV_MEMORY_BYTES, CHECKOV_MEMORY_BYTES))


def _run_command(command: list[str], *, cwd: str) -> tuple[int, str, str]:
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=_environment(),
        preexec_fn=_limit_memory,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=CHECKOV_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise _out_of_time() from None
    return process.returncode, stdout, stderr


def _out_of_time() -> CheckovError:
    return CheckovError(f"checkov ran out of time (more than {CHECKOV_TIMEOUT_SECONDS} s)")


# --- checkov imported once: the fork server -------------------------------------------


class _ServerError(Exception):
    """The server did not start or did not answer: the run goes to the command instead."""


class _CheckovServer:
    """``checkov_server.py`` under checkov's own Python: checkov imported once (about 3 s
    of each command's start), and each run a fork of it that behaves as the command."""

    def __init__(self, python: Path, script: Path) -> None:
        self.environment = _import_environment(_environment())
        self._process = subprocess.Popen(
            [str(python), str(SERVER_SCRIPT), str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=tempfile.gettempdir(),
            env=_environment(),
            start_new_session=True,
        )
        self.pid = self._process.pid
        assert self._process.stdout is not None
        self._replies = b""
        self._reply_fd = self._process.stdout.fileno()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._reply_fd, selectors.EVENT_READ)
        self._lock = threading.Lock()
        self.broken = False
        try:
            ready = self._reply(time.monotonic() + CHECKOV_TIMEOUT_SECONDS)
        except (_ServerError, TimeoutError):
            ready = "no answer"
        if ready != "ready":
            self.close(kill=True)
            raise _ServerError(f"the server did not start: {ready}")

    def run(self, args: list[str], *, cwd: str) -> tuple[int, str, str]:
        """As ``_run_command`` would run ``checkov ARGS``.

        Raises:
            CheckovError: when the run is out of time (it is killed).
            _ServerError: when the server does not take the run.
        """
        with self._lock, tempfile.TemporaryDirectory() as output:
            deadline = time.monotonic() + CHECKOV_TIMEOUT_SECONDS
            stdout, stderr = Path(output, "stdout"), Path(output, "stderr")
            request = {
                "argv": args,
                "cwd": cwd,
                "env": _environment(),
                "memory": CHECKOV_MEMORY_BYTES,
                "stdout": str(stdout),
                "stderr": str(stderr),
            }
            assert self._process.stdin is not None
            try:
                self._process.stdin.write(json.dumps(request).encode() + b"\n")
                self._process.stdin.flush()
                pid = int(self._reply(deadline))
            except (OSError, ValueError) as error:  # TimeoutError is an OSError
                raise _ServerError(f"the server did not take the run: {error!r}") from None
            try:
                returncode = int(self._reply(deadline))
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                try:  # the server reaps it and says so: the next run starts clean
                    self._reply(time.monotonic() + 60)
                except (_ServerError, TimeoutError):
                    self.broken = True
                raise _out_of_time() from None
            except (_ServerError, ValueError) as error:
                raise _ServerError(f"the server lost the run: {error!r}") from None
            except BaseException:  # KeyboardInterrupt, say: the run ends with its caller
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                self.broken = True  # its status is still to come
                raise
            return (
                returncode,
                stdout.read_text(),
                stderr.read_text(),
            )

    def _reply(self, deadline: float) -> str:
        """The server's next line; ``TimeoutError`` when none came by ``deadline``."""
        while b"\n" not in self._replies:
            if not self._selector.select(max(0.0, deadline - time.monotonic())):
                raise TimeoutError
            chunk = os.read(self._reply_fd, 4096)
            if not chunk:
                self.broken = True
                raise _ServerError("the server ended")
            self._replies += chunk
        line, _, self._replies = self._replies.partition(b"\n")
        return line.decode()

    def close(self, *, kill: bool = False) -> None:
        """Ends the server: an idle one ends with its input, a stuck one is killed."""
        if self._process.stdin is not None:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        try:
            self._process.wait(timeout=0 if kill else 5)
        except subprocess.TimeoutExpired:
            os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
        self._selector.close()
        if self._process.stdout is not None:
            self._process.stdout.close()


SERVER_SCRIPT = Path(__file__).with_name("checkov_server.py")
_servers: dict[Path, _CheckovServer] = {}
_servers_lock = threading.Lock()


def _server_for(checkov: Path) -> _CheckovServer | None:
    """The running server for ``checkov`` (started on first use, kept until the process
    exits, started anew when it broke or the environment changed, as checkov's modules
    read some variables as they are imported); ``None`` when checkov is no Python script
    or its server does not start."""
    with _servers_lock:
        old = _servers.get(checkov)
        environment = _import_environment(_environment())
        if old is not None and (old.broken or old.environment != environment):
            _servers.pop(checkov).close()
        if checkov not in _servers:
            python = _python_of(checkov)
            if python is None:
                return None
            try:
                _servers[checkov] = _CheckovServer(python, checkov)
            except (_ServerError, OSError):
                return None
        return _servers[checkov]


def _python_of(script: Path) -> Path | None:
    """The Python that runs ``script``, from its ``#!`` line (as pip writes it)."""
    try:
        with script.open("rb") as file:
            first = file.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    parts = first[2:].decode(errors="replace").split()
    if len(parts) != 1 or not Path(parts[0]).name.startswith("python"):
        return None
    return Path(parts[0]) if Path(parts[0]).is_file() else None


def _close_server(checkov: Path) -> None:
    with _servers_lock:
        server = _servers.pop(checkov, None)
    if server is not None:
        server.close()


@atexit.register
def close_servers() -> None:
    """Ends every checkov server this process started."""
    for checkov in list(_servers):
        _close_server(checkov)


_OUT_OF_MEMORY = ("MemoryError", "RuntimeError: can't start new thread")
"""How checkov's Python ends when it reaches ``CHECKOV_MEMORY_BYTES``: an allocation
fails, or the stack of one of the threads its parsing starts cannot be mapped (which
of the two comes first depends on the machine: a CI run met the second)."""


def _no_report(returncode: int, stderr: str) -> CheckovError:
    lines = stderr.strip().splitlines()
    last = lines[-1].strip() if lines else ""
    memory = f"{CHECKOV_MEMORY_BYTES // 2**20} MiB"
    if last.startswith(_OUT_OF_MEMORY):
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
    args = ["--skip-download", "--framework", "kubernetes", "-o", "json"]
    if config is not None:
        args += ["--config-file", str(config.resolve())]
    args += ["-d", str(folder.resolve())]
    # checkov also reads a .checkov.yaml from its working directory; an empty one
    # keeps `config=None` meaning no skips at all.
    with tempfile.TemporaryDirectory() as workdir:
        returncode, stdout, stderr = _run_bounded(checkov, args, cwd=workdir)
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
