"""What the props fuzz draws for time windows (``HeadroomSchedule``): a headroom's and a
buffer's schedule, valid and hostile, and which fields a drawn combination makes invalid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from cdk8s_headroom import HeadroomSchedule, HeadroomWindow

if TYPE_CHECKING:
    from tests.objects.prop_draws import Draw

VALID_SCHEDULE = st.sampled_from(
    [
        HeadroomSchedule([HeadroomWindow("0 8 * * mon-fri", 600, "business")]),
        HeadroomSchedule(
            [HeadroomWindow("@daily", 60), HeadroomWindow("30 12 * * *", 90)],
            time_zone="America/New_York",
        ),
    ]
)
INVALID_SCHEDULE = st.sampled_from(
    ["0 8 * * *", [HeadroomWindow("0 8 * * *", 60)], HeadroomWindow("0 8 * * *", 60), 1]
)
INVALID_SCHEDULED_NODES = st.sampled_from([0, -1, True, "3", None, 2**31])


def buffer_schedule(draw: Draw, label: str, props: dict[str, Any]) -> None:
    """Now and then, a schedule for a buffer of ``props`` (``capacity_buffer_props``). A
    window's Job holds ``replicas`` placeholders: at least one, and no count an
    autoscaler computes (percentage, limits)."""
    if draw(st.integers(0, 4), "scheduled buffer?") != 0:
        return
    schedule = props["schedule"] = draw.prop(f"{label}schedule", VALID_SCHEDULE, INVALID_SCHEDULE)
    if isinstance(schedule, HeadroomSchedule):
        if "percentage" in props or "limits" in props:
            draw.invalid.add(f"{label}schedule")
        if props.get("replicas") in (None, 0):
            draw.invalid.add(f"{label}replicas")
