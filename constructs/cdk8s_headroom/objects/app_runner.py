"""What an app script runs from the command line: ``run_app``, the examples' main.

An app is published whole (``core.synthesis.publish_app``: synthesized into a staging
folder, checked, then swapped in), so a bad prop or a refused object leaves the output
folder as it was, and the command says so in one line and exits 2, as ``main.py`` does,
never with a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import cdk8s

from cdk8s_headroom.core.synthesis import SYNTH_FAILED, publish_app
from cdk8s_headroom.objects.headroom import NodeHeadroom
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError


def run_app(build: Callable[[cdk8s.App], object], default_outdir: Path | str) -> int:
    """Publishes the app that ``build`` makes into ``$CDK8S_OUTDIR``, else into
    ``default_outdir``; says which files it wrote on stderr, and prints each headroom's
    summary (``NodeHeadroom.summary``) on stdout, so that a pipe gets the summaries alone.

    Returns:
        The exit status: 0 when the folder was replaced; 2 for a configuration error (a
        bad prop, or objects the checks refuse), printed as one line on stderr, the
        folder left as it was.
    """
    target = Path(os.environ.get("CDK8S_OUTDIR") or default_outdir)
    try:
        app = publish_app(build, target)
    except HeadroomConfigError as error:
        print(SYNTH_FAILED.format(target=target, error=error), file=sys.stderr)
        return 2
    files = ", ".join(sorted(p.name for p in target.glob("*.k8s.yaml")))
    print(f"wrote {files} to {target}/", file=sys.stderr)
    for child in app.node.find_all():
        if isinstance(child, NodeHeadroom):
            print(child.summary())
    return 0
