"""``cdk8s-headroom gitops``: the Argo CD or Flux objects that pull the headroom."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

TOOLS = ("argocd", "flux", "fleet")


HELP = "the Argo CD or Flux objects that pull the manifests (or the chart, for fleets)"
DESCRIPTION = (
    "Prints, as YAML to apply to the cluster that runs the GitOps tool: argocd, an "
    "Argo CD Application for the manifests folder; flux, a Flux GitRepository and a "
    "Kustomization that waits on the burst Deployments (not on the reservers, which "
    "wait for room as normal operation); fleet, an Argo CD ApplicationSet that "
    "installs the chart on every selected cluster with the slice from the "
    "cluster's labels."
)


def add_arguments(gitops: argparse.ArgumentParser) -> None:
    """Declares the ``gitops`` command's arguments."""
    gitops.add_argument("tool", choices=TOOLS, help="which objects to print")
    gitops.add_argument("--repo-url", required=True, metavar="URL", help="the Git repository's URL")
    gitops.add_argument("--revision", default="main", help="the branch to pull (default: main)")
    gitops.add_argument(
        "--path",
        default="dist",
        help="the manifests folder in the repository (default: dist), or the chart's folder "
        "for fleet (default there: charts/node-headroom)",
    )
    gitops.add_argument(
        "--manifests",
        type=Path,
        default=Path("dist"),
        help="the local copy of the manifests, read for the burst Deployments and the CRDs "
        "used (default: dist)",
    )
    gitops.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Prints the objects of ``args.tool``."""
    # Imported here: the other commands start without YAML's writer and the wiring.
    import yaml

    from cdk8s_headroom.files.documents import read_objects
    from cdk8s_headroom.gitops import wiring

    if args.tool == "argocd":
        objects: list[dict[str, Any]] = [
            wiring.argo_cd_application(
                repo_url=args.repo_url, revision=args.revision, path=args.path
            )
        ]
    elif args.tool == "fleet":
        chart = "charts/node-headroom" if args.path == "dist" else args.path
        objects = [
            wiring.argo_cd_application_set(
                repo_url=args.repo_url, revision=args.revision, chart_path=chart
            )
        ]
    else:
        manifests = [o.obj for o in read_objects(args.manifests) if isinstance(o.obj, dict)]
        if not manifests:
            raise HeadroomConfigError("--manifests", str(args.manifests), "a folder of manifests")
        objects = [
            wiring.flux_git_repository(repo_url=args.repo_url, branch=args.revision),
            wiring.flux_kustomization(manifests=manifests, path=args.path),
        ]
    sys.stdout.write(yaml.safe_dump_all(objects, sort_keys=False))
    return 0
