"""Checks a staged synthesis and swaps it into place: `python -m scripts.promote STAGING TARGET`.

The staged objects must pass ``cdk8s_headroom.validate.promotion.CHECKS``, the checks
main.py publishes dist/ with: the strict schemas (Kubernetes 1.27 and the newest release
known, Karpenter's own) and Pod Security "restricted"; a failed check leaves the target
exactly as it was, so a GitOps tool never syncs an invalid or half-written folder. Exits
1 with one line when a check fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cdk8s_headroom.files.publish import load_manifests, promote
from cdk8s_headroom.validate.promotion import CHECKS
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m scripts.promote STAGING TARGET", file=sys.stderr)
        return 2
    staging, target = Path(argv[0]), Path(argv[1])
    try:
        promote(staging, target, checks=CHECKS)
    except HeadroomConfigError as error:
        print(f"synth failed, {target}/ left as it was: {error}", file=sys.stderr)
        return 1
    objects = sum(1 for _ in load_manifests(target))
    files = len(list(target.glob("*.k8s.yaml")))
    print(f"wrote {objects} objects in {files} files to {target}/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
