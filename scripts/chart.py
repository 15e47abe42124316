"""Writes charts/node-headroom/ from main.py's app, or packages it.

    chart.py [--out DIR]           generate the chart (default: charts/node-headroom)
    chart.py --package DEST [DIR]  pack DIR (default: charts/node-headroom) into DEST

The chart's values are main.py's app read back from its constructs: its headroom is the
chart's defaults, and its burst workloads (the demo) are ci/blueprint-values.yaml, so the
default release with that file renders what `make synth` writes to dist/.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import cdk8s

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "charts" / "node-headroom"


def app_values() -> dict[str, Any]:
    """main.py's app as chart values."""
    sys.path.insert(0, str(ROOT))
    import main
    from cdk8s_headroom.helm import values_from_app

    app = cdk8s.App()
    main.build(app)
    return values_from_app(app)


def main_(argv: list[str]) -> int:
    from cdk8s_headroom.helm import package_chart, write_chart
    from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CHART)
    parser.add_argument("--package", type=Path, metavar="DEST")
    parser.add_argument("chart", type=Path, nargs="?", default=CHART)
    args = parser.parse_args(argv)
    if args.package:
        archive = package_chart(args.chart, args.package)
        print(f"packed {args.chart} into {archive}")
        return 0
    try:
        write_chart(args.out, app_values())
    except HeadroomConfigError as error:
        print(f"chart generation failed, {args.out}/ left as it was: {error}", file=sys.stderr)
        return 1
    print(f"wrote the chart to {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main_(sys.argv[1:]))
