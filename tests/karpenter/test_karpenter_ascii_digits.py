"""A budget's cron expression and duration take ASCII digits only, as Karpenter's Go
parsers do: robfig/cron's ``parser.go`` ``getRange`` reads numbers with ``strconv.Atoi``
(``mustParseInt``), and ``time.ParseDuration`` reads ``0``-``9`` only. Python's ``\\d``,
``\\w`` and ``int()`` take other scripts' digits (Arabic-Indic, full-width), which the
library would otherwise emit and Karpenter refuse."""

from __future__ import annotations

import pytest

from cdk8s_headroom import BudgetSchedule
from cdk8s_headroom.vocabulary.errors import HeadroomConfigError

ARABIC_INDIC = "\u0660 \u0668 * * *"  # 0 8 * * * in U+0660-U+0669
FULL_WIDTH = "\uff10 \uff18 * * *"  # 0 8 * * * in U+FF10-U+FF19


@pytest.mark.parametrize(
    "cron",
    [
        ARABIC_INDIC,
        FULL_WIDTH,
        "0 \u0668 * * *",
        "0 8 * * 1-\uff15",
        "*/\u0665 * * * *",
        "0 8 * * *\n",
    ],
)
def test_a_cron_in_other_digits_or_with_a_trailing_newline_is_refused(cron: str) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        BudgetSchedule(cron, "1h")
    assert (raised.value.field, raised.value.value) == ("budgets.schedule", cron)
    assert cron.isascii() or "\\u" in str(raised.value)  # shown escaped, not as look-alikes


@pytest.mark.parametrize("duration", ["\uff11h", "1\u0660m", "1h\n"])
def test_a_duration_in_other_digits_is_refused(duration: str) -> None:
    with pytest.raises(HeadroomConfigError) as raised:
        BudgetSchedule("0 8 * * *", duration)
    assert (raised.value.field, raised.value.value) == ("budgets.duration", duration)


def test_the_same_schedule_in_ascii_digits_is_kept() -> None:
    schedule = BudgetSchedule("0 8 * * 1-5", "1h30m")
    assert (schedule.cron, schedule.duration) == ("0 8 * * 1-5", "1h30m")
