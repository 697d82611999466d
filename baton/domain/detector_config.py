"""The detector's settings (spec §9.2): the ``detector`` section of
``.baton/config.json`` over the spec's weights, thresholds and cooldown.

Apart from the detector itself, so that reading a project's configuration
(every command) checks the section without loading the detector, nor
defining its ``DetectorConfig`` (``baton.domain.detector``).
"""

from __future__ import annotations

from collections.abc import Mapping

from baton.errors import ConfigError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

DEFAULT_WEIGHTS = {
    "explicit": 1.00,
    "context": 0.70, "turn": 0.15, "elapsed": 0.10, "change_a": 0.05,
    "stuck": 0.60, "boundary": 0.25, "change_b": 0.15,
    "phase": 0.35, "questions": 0.30,
    "age": 0.20,
}
DEFAULT_THRESHOLDS = {"recommend": 0.70, "auto_prepare": 0.85, "readiness": 0.80}
DEFAULT_COOLDOWN_MINUTES = 20.0


def detector_settings(section: Mapping[str, Any] | None) -> tuple[dict[str, float], dict[str, float], float]:
    """The ``detector`` section of ``config.json`` over the spec's defaults:
    its weights, thresholds and cooldown (``DetectorConfig.from_section``
    makes the detector's settings of them; opening a project only checks them).

    Raises:
        ConfigError: a weight or threshold that is not a number in [0, 1],
            a negative cooldown, or a name the detector does not know.
    """
    section = section or {}
    problems: list[str] = []
    weights = dict(DEFAULT_WEIGHTS)
    thresholds = dict(DEFAULT_THRESHOLDS)
    for name, table in (("weights", weights), ("thresholds", thresholds)):
        given = section.get(name) or {}
        if not isinstance(given, Mapping):
            problems.append(f"detector.{name} must be an object")
            continue
        for key, value in given.items():
            if key not in table:
                problems.append(f"detector.{name}.{key}: unknown (known: {', '.join(table)})")
            elif not unit_number(value):
                problems.append(f"detector.{name}.{key}: must be a number from 0 to 1, not {value!r}")
            else:
                table[key] = float(value)
    cooldown = section.get("cooldown_minutes", DEFAULT_COOLDOWN_MINUTES)
    if isinstance(cooldown, bool) or not isinstance(cooldown, (int, float)) or cooldown < 0:
        problems.append(f"detector.cooldown_minutes: must be a number of minutes >= 0, not {cooldown!r}")
        cooldown = DEFAULT_COOLDOWN_MINUTES
    if problems:
        raise ConfigError("config.json: " + "; ".join(problems), details={"problems": problems})
    return weights, thresholds, float(cooldown)


def unit_number(value: Any) -> bool:
    """A number in [0, 1] (not a bool)."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and 0.0 <= float(value) <= 1.0
