"""Generated Kubernetes bindings (see k8s.py)."""
