"""Fails when the committed dist/ differs from a fresh synthesis of main.py."""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def differences(expected: Path, actual: Path) -> list[str]:
    found = []
    names = sorted({p.name for p in expected.iterdir()} | {p.name for p in actual.iterdir()})
    for name in names:
        a, b = expected / name, actual / name
        if not a.exists():
            found.append(f"missing from {actual.name}/: {name}")
        elif not b.exists():
            found.append(f"not generated any more: {name}")
        elif not filecmp.cmp(a, b, shallow=False):
            found.append(f"differs: {name}")
    return found


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "dist"
        env = {**os.environ, "CDK8S_OUTDIR": str(fresh)}
        subprocess.run([sys.executable, "main.py", "-q"], cwd=ROOT, env=env, check=True)
        problems = differences(fresh, ROOT / "dist")
    if problems:
        print("dist/ is out of date with main.py and the library; run `make synth`:")
        for problem in problems:
            print(f"  {problem}")
        return 1
    print("dist/ is in sync with a fresh synthesis")
    return 0


if __name__ == "__main__":
    sys.exit(main())
