"""The time zones a schedule may name: the IANA names of the pinned PyPI ``tzdata``.

A CronJob's ``timeZone`` is judged by ``time.LoadLocation`` in kube-apiserver and
kube-controller-manager (kubernetes ``pkg/apis/batch/validation/validation.go``,
``validateTimeZone``). Both binaries import Go's ``time/tzdata``
(``cmd/kube-apiserver/apiserver.go``, ``cmd/kube-controller-manager/controller-manager.go``),
and their distroless images have no ``/usr/share/zoneinfo``, so the names they take are
Go's embedded ``zoneinfo.zip``: 598 names in Go 1.27's (IANA 2026c), the same 598 as
tzdata 2026.6's ``zones`` (2026f). ``zoneinfo.ZoneInfo`` would read the machine's own
database first, which differs from machine to machine; the library and the chart
(``files/windows.json``) judge against this one list instead.
"""

from __future__ import annotations

from importlib import resources

import tzdata

TZDATA_VERSION: str = tzdata.IANA_VERSION
"""The IANA release of the list, e.g. ``2026f``."""
ZONES: tuple[str, ...] = tuple(
    resources.files("tzdata").joinpath("zones").read_text(encoding="utf-8").split()
)
"""Every zone name, in the file's order: links such as ``US/Eastern`` too."""
