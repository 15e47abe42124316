"""Runnable cdk8s apps built on cdk8s-headroom; each has ``build(app)`` and a ``__main__``."""
