"""Build the live tier's components from their pinned Go modules, once per machine.

Each folder of ``e2e/modules/`` is a Go module that pins one upstream component (or, for
``health``, the GitOps tools' health code) and builds it with ``go build`` from the
module proxy: nothing of their code is in this repository. The binaries go to a cache
outside the clone, keyed by what decides them (the module's go.mod, go.sum and Go files,
the Go toolchain and the build flags), so a second clone or CI run on the same machine
reuses them. The Go build and module caches are Go's own (``go env GOCACHE GOMODCACHE``).

    python e2e/build.py                  # every release and every helper
    python e2e/build.py --release 1.34   # one release of the control plane
    python e2e/build.py --print 1.37     # the folder of 1.37's binaries, as JSON

The tests call :func:`release_binaries`, which builds what is missing under a file lock,
so several pytest workers and a concurrent ``make`` build each module once.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MODULES = Path(__file__).resolve().parent / "modules"
# Go 1.27 for the modules that ask for it (gitops-engine v3.6, Karpenter): the go command
# fetches this toolchain from the module proxy like a module (DESIGN.md, phase 4).
NEWER_TOOLCHAIN = "go1.27.3"
HOW_TO_GET_GO = (
    "the live tier needs Go 1.26 or newer on PATH (https://go.dev/doc/install, or Debian's "
    "golang-go where it is new enough); make test-live then builds the control plane"
)


class BuildError(RuntimeError):
    """A component did not build; the message names the module and holds Go's last lines."""


@dataclass(frozen=True)
class GoModule:
    """One folder of e2e/modules: the binaries it builds and how."""

    folder: str
    # binary name -> Go package path
    binaries: tuple[tuple[str, str], ...]
    # -X flags that make a component report its real release
    version_flags: tuple[str, ...] = ()
    toolchain: str = "local"

    @property
    def path(self) -> Path:
        return MODULES / self.folder


def kubernetes_module(minor: str) -> GoModule:
    """The control plane of release ``minor`` ("1.37"): its module and binaries."""
    folder = f"kubernetes-{minor}"
    version = _required_version(MODULES / folder / "go.mod", "k8s.io/kubernetes")
    major, minor_number = version.removeprefix("v").split(".")[:2]
    flags = tuple(
        f"-X k8s.io/component-base/version.{name}={value}"
        for name, value in (
            ("gitVersion", version),
            ("gitMajor", major),
            ("gitMinor", minor_number),
            ("gitTreeState", "clean"),
        )
    )
    commands = ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl")
    return GoModule(
        folder,
        tuple((name, f"k8s.io/kubernetes/cmd/{name}") for name in commands),
        flags,
    )


def _required_version(go_mod: Path, module: str) -> str:
    for line in go_mod.read_text().splitlines():
        words = line.replace("require", "").split()
        if len(words) >= 2 and words[0] == module:
            return words[1]
    raise BuildError(f"{go_mod}: no requirement on {module}")


def releases() -> tuple[str, ...]:
    """The Kubernetes releases the live tier runs on, newest first ("1.37", "1.34")."""
    found = [p.name.removeprefix("kubernetes-") for p in MODULES.glob("kubernetes-*")]
    return tuple(sorted(found, key=lambda r: tuple(int(n) for n in r.split(".")), reverse=True))


ETCD = GoModule("etcd", (("etcd", "go.etcd.io/etcd/server/v3"),))
KWOK = GoModule(
    "kwok", (("kwok", "sigs.k8s.io/kwok/cmd/kwok"), ("kwokctl", "sigs.k8s.io/kwok/cmd/kwokctl"))
)
HEALTH = GoModule(
    "health",
    (("headroom-health", "github.com/cdk8s-headroom/e2e/health"),),
    toolchain=NEWER_TOOLCHAIN,
)

KARPENTER = GoModule(
    "karpenter",
    (("karpenter-kwok", "sigs.k8s.io/karpenter/kwok"),),
    toolchain=NEWER_TOOLCHAIN,
)


def kwok_file(path: str) -> Path:
    """A file of the pinned KWOK module (``e2e/modules/kwok/go.mod``), as ``go mod
    download`` left it in Go's module cache, e.g. one of its stage sets; read, never
    copied into the repository."""
    out = _go(KWOK, "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kwok")
    if out.returncode != 0:
        raise BuildError(f"e2e/modules/kwok: `go list -m sigs.k8s.io/kwok` failed: {out.stderr}")
    return Path(out.stdout.strip()) / path


def _kube_state_metrics() -> GoModule:
    """kube-state-metrics at its pinned version, reporting that version and its
    client-go's as its own Makefile's ``-X`` flags make it (kube-state-metrics
    ``Makefile``, target ``build-local``)."""
    go_mod = MODULES / "kube-state-metrics" / "go.mod"
    version = _required_version(go_mod, "k8s.io/kube-state-metrics/v2")
    client_go = _required_version(go_mod, "k8s.io/client-go")
    return GoModule(
        "kube-state-metrics",
        (("kube-state-metrics", "k8s.io/kube-state-metrics/v2"),),
        (
            f"-X github.com/prometheus/common/version.Version={version}",
            f"-X k8s.io/kube-state-metrics/v2/pkg/app.ClientGoVersion={client_go}",
        ),
    )


KUBE_STATE_METRICS = _kube_state_metrics()
LDFLAGS_BASE = "-s -w"


def cache_root() -> Path:
    """Where built binaries live: $HEADROOM_E2E_CACHE, else the user's cache folder."""
    explicit = os.environ.get("HEADROOM_E2E_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cdk8s-headroom" / "e2e"


def go_available() -> bool:
    return shutil.which("go") is not None


def _go_env(module: GoModule) -> dict[str, str]:
    env = dict(os.environ)
    env["GOTOOLCHAIN"] = module.toolchain
    env.setdefault("GOFLAGS", "")
    env["GOFLAGS"] = (env["GOFLAGS"] + " -mod=readonly -buildvcs=false").strip()
    return env


def _go(module: GoModule, *args: str) -> subprocess.CompletedProcess[str]:
    """``go ARGS`` in ``module``'s folder, with its toolchain and flags."""
    return subprocess.run(
        ["go", *args],
        cwd=module.path,
        env=_go_env(module),
        capture_output=True,
        text=True,
        check=False,
    )


def _go_version(module: GoModule) -> str:
    out = _go(module, "version")
    if out.returncode != 0:
        raise BuildError(f"e2e/modules/{module.folder}: `go version` failed: {out.stderr.strip()}")
    return out.stdout.strip()


def _ldflags(module: GoModule) -> str:
    return " ".join((LDFLAGS_BASE, *module.version_flags))


def _key(module: GoModule) -> str:
    digest = hashlib.sha256()
    for file in sorted(module.path.iterdir()):
        if file.suffix in {".go", ".mod", ".sum"}:
            digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    digest.update(_go_version(module).encode())
    digest.update(_ldflags(module).encode())
    digest.update(repr(module.binaries).encode())
    return digest.hexdigest()[:16]


@contextlib.contextmanager
def lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure(module: GoModule, *, log: bool = True) -> Path:
    """The folder holding ``module``'s binaries, built first when the cache lacks them.
    A build goes to a temporary folder that is renamed into place, so an interrupted
    build never leaves a folder that looks complete."""
    if not go_available():
        raise BuildError(HOW_TO_GET_GO)
    target = cache_root() / f"{module.folder}-{_key(module)}"
    if (target / ".complete").exists():
        return target
    with lock(cache_root() / f".{module.folder}.lock"):
        if (target / ".complete").exists():
            return target
        staging = Path(tempfile.mkdtemp(prefix=f".{module.folder}-", dir=cache_root()))
        try:
            started = time.monotonic()
            _build(module, staging, log=log)
            record = {"go": _go_version(module), "seconds": round(time.monotonic() - started, 1)}
            (staging / ".complete").write_text(json.dumps(record) + "\n")
            shutil.rmtree(target, ignore_errors=True)
            staging.rename(target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        for stale in cache_root().glob(f"{module.folder}-*"):
            if stale != target:
                shutil.rmtree(stale, ignore_errors=True)
    return target


def _build(module: GoModule, out: Path, *, log: bool) -> None:
    for name, package in module.binaries:
        if log:
            print(
                f"e2e/build.py: building {name} from {package} ({module.folder})", file=sys.stderr
            )
        done = _go(
            module,
            "build",
            "-trimpath",
            "-ldflags",
            _ldflags(module),
            "-o",
            str(out / name),
            package,
        )
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
            raise BuildError(f"e2e/modules/{module.folder}: {package} did not build:\n{tail}")


@dataclass(frozen=True)
class ReleaseBinaries:
    """Every binary a live cluster of one release needs, by component name."""

    release: str
    version: str
    kubernetes: Path
    etcd: Path
    kwok: Path

    def binary(self, name: str) -> Path:
        for folder in (self.kubernetes, self.etcd, self.kwok):
            if (folder / name).exists():
                return folder / name
        raise KeyError(name)

    def as_json(self) -> dict[str, str]:
        return {
            "release": self.release,
            "version": self.version,
            "kubernetes": str(self.kubernetes),
            "etcd": str(self.etcd),
            "kwok": str(self.kwok),
        }


def build_seconds(folder: Path) -> float | None:
    """How long the build of a cached folder took (recorded by :func:`ensure`)."""
    try:
        seconds = json.loads((folder / ".complete").read_text())["seconds"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return float(seconds)


def release_binaries(release: str, *, log: bool = True) -> ReleaseBinaries:
    """The control plane of ``release`` ("1.37"), built when missing."""
    if release not in releases():
        raise BuildError(f"release {release!r} is not built here: one of {', '.join(releases())}")
    module = kubernetes_module(release)
    version = _required_version(module.path / "go.mod", "k8s.io/kubernetes")
    return ReleaseBinaries(
        release,
        version,
        ensure(module, log=log),
        ensure(ETCD, log=log),
        ensure(KWOK, log=log),
    )


def health_binary(*, log: bool = True) -> Path:
    """The GitOps health helper (modules/health), built when missing."""
    return ensure(HEALTH, log=log) / "headroom-health"


def kube_state_metrics_binary(*, log: bool = True) -> Path:
    """kube-state-metrics (modules/kube-state-metrics), built when missing."""
    return ensure(KUBE_STATE_METRICS, log=log) / "kube-state-metrics"


def karpenter_binary(*, log: bool = True) -> Path:
    """Karpenter with its KWOK cloud provider (modules/karpenter), built when missing."""
    return ensure(KARPENTER, log=log) / "karpenter-kwok"


def karpenter_version() -> str:
    """The pinned Karpenter release ("v1.14.3")."""
    return _required_version(KARPENTER.path / "go.mod", "sigs.k8s.io/karpenter")


def karpenter_newest_kubernetes() -> tuple[int, int]:
    """The newest Kubernetes release the pinned Karpenter is made for: the release of the
    client-go it builds with (v1.14.3: client-go v0.35, so 1.35). Karpenter's
    compatibility matrix lists no newer release for it, so the live tier runs the
    Karpenter checks on its releases up to this one only."""
    client_go = _required_version(KARPENTER.path / "go.mod", "k8s.io/client-go")
    return (1, int(client_go.removeprefix("v").split(".")[1]))


def karpenter_crds() -> tuple[Path, ...]:
    """Karpenter's CRDs and the KWOKNodeClass CRD, as the pinned module ships them (in the
    Go module cache after the build; nothing is copied into this repository)."""
    version = karpenter_version()
    out = _go(KARPENTER, "env", "GOMODCACHE")
    if out.returncode != 0:
        raise BuildError(f"e2e/modules/karpenter: `go env GOMODCACHE` failed: {out.stderr}")
    root = Path(out.stdout.strip()) / f"sigs.k8s.io/karpenter@{version}" / "kwok"
    found = (
        *sorted((root / "charts" / "crds").glob("*.yaml")),
        root / "apis" / "crds" / "karpenter.kwok.sh_kwoknodeclasses.yaml",
    )
    missing = [str(path) for path in found if not path.exists()]
    if missing or len(found) < 2:
        raise BuildError(
            f"e2e/modules/karpenter: CRDs missing from the module cache: {missing or root}"
        )
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="e2e/build.py", description=__doc__.split("\n")[0])
    parser.add_argument("--release", action="append", choices=releases(), help="only these")
    parser.add_argument("--print", dest="print_release", choices=releases(), metavar="RELEASE")
    args = parser.parse_args(argv)
    try:
        if args.print_release:
            print(json.dumps(release_binaries(args.print_release).as_json()))
            return 0
        for release in args.release or releases():
            built = release_binaries(release)
            print(f"e2e/build.py: Kubernetes {built.version}: {built.kubernetes}", file=sys.stderr)
        if not args.release:
            print(f"e2e/build.py: GitOps health helper: {health_binary()}", file=sys.stderr)
            print(
                f"e2e/build.py: kube-state-metrics: {kube_state_metrics_binary()}", file=sys.stderr
            )
            print(f"e2e/build.py: Karpenter (KWOK provider): {karpenter_binary()}", file=sys.stderr)
    except BuildError as error:
        print(f"e2e/build.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
