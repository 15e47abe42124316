"""Karpenter's node pools as constructs: Karpenter on EC2, and EKS Auto Mode."""
