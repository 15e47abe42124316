"""GitOps: the Argo CD and Flux objects that pull the headroom, from its manifests."""
