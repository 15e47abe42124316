"""The fair floor for `python main.py`: the same objects, without the library, checked
and published as main.py publishes them.

A plain cdk8s app re-emits dist/'s objects (``bench/dist_objects.py``), and the staged
folder goes through the same publication (``files.publish.promote`` with
``cdk8s_headroom.validate.promotion.CHECKS``: the folder, strict schemas, Pod Security).
What is left between this and main.py is the library itself: its import, its constructs
and their checks.

    CDK8S_OUTDIR=/tmp/out python bench/floor_checked_app.py
"""

import os
import sys
import tempfile
from pathlib import Path

import cdk8s

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "constructs")]

from bench.dist_objects import add_dist_objects  # noqa: E402
from cdk8s_headroom.files.publish import promote  # noqa: E402
from cdk8s_headroom.validate.promotion import CHECKS  # noqa: E402

target = Path(os.environ.get("CDK8S_OUTDIR", tempfile.mkdtemp()))
with tempfile.TemporaryDirectory(dir=target.parent) as staging:
    app = cdk8s.App(outdir=staging)
    add_dist_objects(app)
    app.synth()
    promote(Path(staging), target, checks=CHECKS)
