"""The floor for `python main.py`: import cdk8s and cdk8s-plus-27, synthesize an empty app."""

import cdk8s
import cdk8s_plus_27  # noqa: F401  (imported for its start-up cost, as main.py pays it)

cdk8s.App().synth()
