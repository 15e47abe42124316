"""Files: reading users' manifests, snapshots and scenarios, and publishing ``dist/``."""
