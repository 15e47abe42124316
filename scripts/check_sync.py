"""Fails when the committed dist/ differs from a fresh synthesis of main.py, or the
committed charts/node-headroom/ from a fresh generation of the chart."""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHART = Path("charts") / "node-headroom"


def differences(expected: Path, actual: Path) -> list[str]:
    """What differs between a fresh generation and the committed folder, subfolders included."""

    def files(folder: Path) -> set[str]:
        if not folder.is_dir():
            return set()
        return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}

    found = []
    for name in sorted(files(expected) | files(actual)):
        a, b = expected / name, actual / name
        if not a.exists():
            found.append(f"not generated any more: {name}")
        elif not b.exists():
            found.append(f"missing from {actual.name}/: {name}")
        elif not filecmp.cmp(a, b, shallow=False):
            found.append(f"differs: {name}")
    return found


def report(problems: list[str], what: str, fix: str) -> int:
    if problems:
        print(f"{what} is out of date with main.py and the library; run `{fix}`:")
        for problem in problems:
            print(f"  {problem}")
        return 1
    print(f"{what} is in sync with a fresh generation")
    return 0


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "dist"
        env = {**os.environ, "CDK8S_OUTDIR": str(fresh)}
        subprocess.run([sys.executable, "main.py", "-q"], cwd=ROOT, env=env, check=True)
        dist = report(differences(fresh, ROOT / "dist"), "dist/", "make synth")
        chart = Path(tmp) / CHART
        script = ROOT / "scripts" / "chart.py"
        subprocess.run([sys.executable, str(script), "--out", str(chart)], cwd=ROOT, check=True)
        charts = report(differences(chart, ROOT / CHART), f"{CHART}/", "make chart")
    return dist or charts


if __name__ == "__main__":
    sys.exit(main())
