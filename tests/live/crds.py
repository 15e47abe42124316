"""The upstream CRDs of ``../shared/crds`` installed on the live cluster, for the
objects that need them (``tests/upstream_crds.py`` says which file each API group needs)."""

from __future__ import annotations

import yaml

from e2e.cluster import LiveCluster
from tests.conftest import SHARED, Manifest
from tests.upstream_crds import crd_files_for

CRDS = SHARED / "crds"


def install_crds(cluster: LiveCluster, objects: list[Manifest]) -> None:
    for file in crd_files_for(objects):
        # CRDs are too large for the last-applied annotation of a client-side apply
        cluster.kubectl("apply", "--server-side", "-f", str(CRDS / file))
        names = [d["metadata"]["name"] for d in yaml.safe_load_all((CRDS / file).read_text()) if d]
        # `kubectl wait` fails on a CRD whose status is not written yet: poll instead
        cluster.wait_for(
            lambda names=names: all(established(cluster, name) for name in names),
            what=f"the CRDs of {file} Established",
        )
        for name in names:
            # The API server builds a CRD's storage at its first request, and its cache
            # answers "storage is (re)initializing" until it has listed. A CRD first
            # touched by its own deletion stalled that deletion for about 285 s in 4 of
            # 14 resets on 1.37 (and on 1.34): the CRD finalizer's list fails and its
            # retry waits behind the workqueue (apiextensions-apiserver
            # pkg/controller/finalizer/crd_finalizer.go ``deleteInstances``; apiserver
            # pkg/storage/cacher/ready.go ``readGenerationLocked``). Listing each one
            # until it answers builds the storage now: 0 stalls in 12 resets.
            cluster.wait_for(
                lambda name=name: cluster.kubectl("get", name, "-A", check=False).returncode == 0,
                what=f"{name} listable (its storage initialized)",
            )


def established(cluster: LiveCluster, crd: str) -> bool:
    (item,) = cluster.get_json("customresourcedefinition", crd)["items"]
    conditions = item.get("status", {}).get("conditions") or []
    return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)
