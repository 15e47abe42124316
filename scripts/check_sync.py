"""Fails when committed, generated output differs from a fresh generation.

`python scripts/check_sync.py [--root DIR]` (`make dist-sync`, part of `make check`).
Each entry of GENERATORS writes one committed folder afresh into a temporary folder; the
committed folder must match it file for file, byte for byte. Another generated folder
(charts/, say) joins by adding a Generator.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Generator:
    """A committed folder and how to generate it afresh."""

    folder: str
    """The folder, relative to the repository root."""
    generate: Callable[[Path, Path], None]
    """Writes the folder's content for the repository at the first path into the second."""
    remedy: str
    """The command that refreshes the committed folder."""


def synthesize_dist(root: Path, outdir: Path) -> None:
    env = {**os.environ, "CDK8S_OUTDIR": str(outdir)}
    subprocess.run([sys.executable, "main.py", "-q"], cwd=root, env=env, check=True)


def generate_chart(root: Path, outdir: Path) -> None:
    script = root / "scripts" / "chart.py"
    subprocess.run(
        [sys.executable, str(script), "--out", str(outdir)],
        cwd=root,
        check=True,
        stdout=subprocess.DEVNULL,
    )


GENERATORS: tuple[Generator, ...] = (
    Generator("dist", synthesize_dist, "make synth"),
    Generator("charts/node-headroom", generate_chart, "make chart"),
)


def differences(expected: Path, actual: Path) -> list[str]:
    """What differs between a fresh generation and the committed folder, file by file."""

    def files(folder: Path) -> set[str]:
        if not folder.is_dir():
            return set()
        return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}

    found = []
    for name in sorted(files(expected) | files(actual)):
        fresh, committed = expected / name, actual / name
        if not committed.exists():
            found.append(f"missing from {actual.name}/: {name}")
        elif not fresh.exists():
            found.append(f"not generated any more: {name}")
        elif not filecmp.cmp(fresh, committed, shallow=False):
            found.append(f"differs: {name}")
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository to check")
    root: Path = parser.parse_args(argv).root.resolve()
    failed = False
    for generator in GENERATORS:
        with tempfile.TemporaryDirectory() as tmp:
            fresh = Path(tmp) / generator.folder
            generator.generate(root, fresh)
            problems = differences(fresh, root / generator.folder)
        if problems:
            failed = True
            print(f"{generator.folder}/ is out of date with its sources; run `{generator.remedy}`:")
            for problem in problems:
                print(f"  {problem}")
        else:
            print(f"{generator.folder}/ is in sync with a fresh generation")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
