"""What the API server (or the controller that parses a field) refuses although the
strict schemas accept it: the schemas type a quantity as "a string or a number" and a
cron schedule as "a string", nothing more.

- Container requests and limits (kubernetes ``pkg/apis/core/validation/validation.go``,
  ``ValidateResourceRequirements``): each a quantity, not negative
  (``ValidateNonnegativeQuantity``), and a request no greater than its limit.
- Quantities of at most 2^63-1 in base units (cores, bytes): apimachinery's
  ``maxAllowed`` (``pkg/api/resource/math.go``), the cap the project's own quantity
  rule cites (``rules.QUANTITY_MAX_LENGTH``'s reason). The API server clamps a larger
  one, so the object would not say what is applied.
- Cron schedules (a CronJob's ``spec.schedule``, a NodePool budget's ``schedule``) in
  ASCII: both are parsed by robfig/cron, whose numbers go through Go's ``strconv.Atoi``
  (``parser.go`` ``mustParseInt``), which reads only the digits 0-9. Python's ``isdigit``
  and the JavaScript schemas accept Arabic-Indic or full-width digits; Kubernetes and
  Karpenter do not.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from cdk8s_headroom.vocabulary import rules
from cdk8s_headroom.vocabulary.errors import shown
from cdk8s_headroom.vocabulary.pod_security import pod_templates
from cdk8s_headroom.vocabulary.quantity_arithmetic import exact_amount

MAX_QUANTITY = 2**63 - 1
"""apimachinery's ``maxAllowed``: the largest quantity, in base units."""

_CONTAINER_LISTS = ("initContainers", "containers")


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _quantity(value: object) -> Fraction | str:
    """The exact amount of a request or limit, or why it is none."""
    text = str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value
    if not isinstance(text, str) or not rules.QUANTITY_SYNTAX.matches(text):
        return "not a quantity (e.g. '500m', '1', '512Mi')"
    amount = exact_amount(text)
    if amount < 0:
        return "must be greater than or equal to 0"
    if amount > MAX_QUANTITY:
        return f"more than 2^63-1 ({MAX_QUANTITY}) in cores or bytes, the largest quantity"
    return amount


def _resource_errors(resources: Mapping[str, Any], path: str) -> Iterator[str]:
    amounts: dict[str, dict[str, Fraction]] = {}
    for part in ("limits", "requests"):
        amounts[part] = {}
        for name, value in _mapping(resources.get(part)).items():
            amount = _quantity(value)
            if isinstance(amount, str):
                yield f"{path}.{part}.{name}: invalid value {shown(value)}: {amount}"
            else:
                amounts[part][name] = amount
    for name, request in amounts["requests"].items():
        limit = amounts["limits"].get(name)
        if limit is not None and request > limit:
            given = _mapping(resources.get("requests"))[name]
            yield (
                f"{path}.requests.{name}: invalid value {shown(given)}: must be less than or equal "
                f"to {name} limit of {shown(_mapping(resources.get('limits'))[name])}"
            )


def _schedule_errors(schedule: object, path: str) -> Iterator[str]:
    # shown() escapes them: the digits that look like 0-9 appear as the code points they are.
    if isinstance(schedule, str) and not schedule.isascii():
        yield (
            f"{path}: invalid value {shown(schedule)}: a cron schedule in ASCII "
            "(digits 0-9), as robfig/cron parses it"
        )


def api_errors(document: Mapping[str, Any]) -> list[str]:
    """What the API server, or Karpenter, would refuse in an object although its
    schema accepts it (see the module's docstring); each error names the field."""
    found: list[str] = []
    refuser = "API server"
    for template_path, template in pod_templates(document):
        spec = _mapping(template.get("spec"))
        prefix = f"{template_path}.spec" if template_path else "spec"
        for containers in _CONTAINER_LISTS:
            items = spec.get(containers)
            for index, container in enumerate(items if isinstance(items, list) else []):
                resources = _mapping(_mapping(container).get("resources"))
                found += _resource_errors(resources, f"{prefix}.{containers}[{index}].resources")
    spec = _mapping(document.get("spec"))
    if document.get("kind") == "CronJob":
        found += _schedule_errors(spec.get("schedule"), "spec.schedule")
    if document.get("kind") == "NodePool":
        refuser = "Karpenter"
        budgets = _mapping(spec.get("disruption")).get("budgets")
        for index, budget in enumerate(budgets if isinstance(budgets, list) else []):
            found += _schedule_errors(
                _mapping(budget).get("schedule"), f"spec.disruption.budgets[{index}].schedule"
            )
    return [f"{refuser}: {error}" for error in found]
