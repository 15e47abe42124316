"""Checks on a real cluster: ``plan`` (before apply) and ``status`` (after), on a
snapshot that kubectl lists. They use the simulator and read no construct."""
