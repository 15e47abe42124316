"""The one exception type for invalid configuration, and the warning category."""

from __future__ import annotations


class HeadroomConfigError(ValueError):
    """An invalid configuration of a headroom construct.

    Raised in the constructor or method that received the bad value, before anything
    reaches jsii or the output folder. The message names the field, shows the bad
    value and says what is allowed.

    Attributes:
        field: the prop or value path that is wrong, e.g. ``cpu`` or
            ``burst_workloads[api].replicas``.
        value: the value that was given.
        allowed: what the field accepts.
    """

    def __init__(self, field: str, value: object, allowed: str) -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        super().__init__(f"{field}: invalid value {value!r}; {allowed}")


class HeadroomWarning(UserWarning):
    """A configuration that synthesizes but breaks one of the promises P1-P4."""
