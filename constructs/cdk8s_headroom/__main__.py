"""``python -m cdk8s_headroom``: the ``cdk8s-headroom`` command."""

import sys

from cdk8s_headroom.cli import main

sys.exit(main())
