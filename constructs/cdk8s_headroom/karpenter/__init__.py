"""Karpenter's node pools as constructs: Karpenter on EC2, and EKS Auto Mode.

``node_pool`` holds the ``KarpenterNodePool`` construct and its defaults, ``node_class``
the node class it refers to (and the ``Ec2NodeClass`` construct). The terms a pool is
made of are plain Python and start no Node: ``pool_ref`` (the flavour, and a reference
to a pool that exists), ``requirements`` (what the template may say about its nodes),
``disruption`` (consolidation and budgets) and ``durations`` (durations and cron).
"""
