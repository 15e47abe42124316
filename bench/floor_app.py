"""The floor for `python main.py`: an empty cdk8s app that imports only cdk8s.

main.py imports no cdk8s-plus-27 (the constructs render plain JSON bodies), so a floor
that imports it would flatter the ratio.
"""

import cdk8s

cdk8s.App().synth()
