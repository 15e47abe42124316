"""The ``cdk8s-headroom`` command."""

from cdk8s_headroom.cli.commands import main

__all__ = ["main"]
