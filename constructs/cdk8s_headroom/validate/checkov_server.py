"""checkov, imported once and forked for each run: ``checkov.py`` starts this file with
checkov's own Python (``python checkov_server.py CHECKOV_SCRIPT``) and sends it one
request a line. A run of checkov's command takes 4 to 5 s, of which importing checkov is
about 3 s and freeing its objects at exit about 1; a fork runs dist/ in 0.4 s. So
a validate that scans in halves, or a test suite, pays the import once, not once a run.

Each run is a fork of the imported server that becomes what ``CHECKOV_SCRIPT ARGS...``
would have been: its own process group, working directory, environment and
address-space limit, stdin from /dev/null, stdout and stderr into the request's files,
and the checkov script run as ``__main__`` (``run_the_script``). checkov's modules read
some variables as they are imported: the caller starts a server for each environment.

The protocol, one line each: the server says ``ready`` once checkov is imported; for each
request (a JSON object: ``argv``, ``cwd``, ``env``, ``memory``, ``stdout``, ``stderr``)
it answers the run's process id, then its exit status (negative: the signal that killed
it). End of input ends the server.

This file runs outside the package's interpreter: the standard library only.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    # This file's folder comes first on sys.path, and it holds modules named like
    # checkov's own (checkov.py): the checkov script's folder takes its place, as when
    # the command runs. Before the imports below, which would look there first.
    sys.path[0] = os.path.dirname(sys.argv[1])

import ast
import atexit
import contextlib
import importlib
import importlib.util
import json
import resource
import runpy
import threading
from pathlib import Path
from typing import Any


def serve() -> dict[str, Any]:
    """Answers requests until input ends (then exits); in each run's fork, returns the
    request that fork is to run."""
    requests = os.fdopen(os.dup(0), "r")
    replies = os.fdopen(os.dup(1), "w")
    # Whatever checkov prints while it is imported must not reach the replies.
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    import_what_checkov_main_imports()
    sys.stdout.flush()  # nothing buffered may reach a run's report
    sys.stderr.flush()
    replies.write("ready\n")
    replies.flush()
    for line in requests:
        request: dict[str, Any] = json.loads(line)
        pid = os.fork()
        if pid == 0:
            requests.close()
            replies.close()
            return request
        # Both sides set the group, so the caller can kill it as soon as it has the id.
        with contextlib.suppress(OSError):  # the run already set it, or already ended
            os.setpgid(pid, pid)
        replies.write(f"{pid}\n")
        replies.flush()
        _, status = os.waitpid(pid, 0)
        replies.write(f"{os.waitstatus_to_exitcode(status)}\n")
        replies.flush()
    os._exit(0)  # without freeing checkov's modules one by one (a second or two)


def import_what_checkov_main_imports() -> None:
    """Imports the modules ``checkov.main`` imports at its top level, which is most of
    a run's start, but not ``checkov.main`` itself: its body reads ``sys.argv`` (a
    default argument of ``Checkov()``), so each run executes it afresh, as the command
    does, with the run's own arguments."""
    spec = importlib.util.find_spec("checkov.main")
    if spec is None or spec.origin is None:
        raise ImportError("no checkov.main")
    tree = ast.parse(Path(spec.origin).read_bytes())
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                importlib.import_module(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module = importlib.import_module(node.module)
            for alias in node.names:
                if not hasattr(module, alias.name):  # a submodule, not a name in it
                    importlib.import_module(f"{node.module}.{alias.name}")


def become_the_run(request: dict[str, Any]) -> None:
    os.setpgid(0, 0)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    memory = int(request["memory"])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        file = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(file, fd)
        os.close(file)
    sys.argv = [sys.argv[1], *request["argv"]]


def run_the_script() -> int:
    """Runs the checkov script as ``__main__`` and ends as the interpreter would end it
    (the exit status of ``SystemExit`` or of a crash and its traceback; other threads
    joined; the ``atexit`` functions run; output flushed), but without freeing its
    objects one by one: that takes about 2 s of a run, and the process ends anyway."""
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
        status = 0
    except SystemExit as exit:
        if exit.code is None or isinstance(exit.code, int):
            status = exit.code or 0
        else:
            print(exit.code, file=sys.stderr)
            status = 1
    except BaseException:
        sys.excepthook(*sys.exc_info())
        status = 1
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    return status


if __name__ == "__main__":
    become_the_run(serve())
    os._exit(run_the_script())
