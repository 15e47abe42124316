"""The plain floor for `python main.py` (issue 36's): the same objects, without the
library, written by `app.synth()` with no checks at all.

A plain cdk8s app re-emits dist/'s objects (``bench/dist_objects.py``) into
$CDK8S_OUTDIR (a new temporary folder when it is not set, never dist/). What is left
between this and main.py is the library and every check of a publication: the
whole-app checks, the folder, strict schemas, Pod Security, and the staged swap.

    CDK8S_OUTDIR=/tmp/out python bench/floor_plain_app.py
"""

import os
import sys
import tempfile
from pathlib import Path

import cdk8s

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dist_objects import add_dist_objects

app = cdk8s.App(outdir=os.environ.get("CDK8S_OUTDIR") or tempfile.mkdtemp())
add_dist_objects(app)
app.synth()
