"""The handoff detector (spec §9): pressure, readiness, and what to do about them. Pure.

Inputs are the normalized signals of §9.1, each a number in [0, 1] or null
(unavailable). An unavailable signal is never guessed: it contributes nothing
to its term, and the evaluation lists it under ``unavailable``. The score is
§9.2's, with every weight and threshold configurable (``.baton/config.json``,
section ``detector``; the spec's values are the defaults)::

    pressure = max(
      w.explicit * handoff_request,
      w.context * context + w.turn * turn + w.elapsed * elapsed + w.change_a * change,
      w.stuck * stuck + w.boundary * work_boundary + w.change_b * change,
      w.phase * semantic_phase_change + w.questions * unresolved_questions,
      w.age * session_age_pressure,
    )

``recommend`` at pressure >= 0.70; ``auto_prepare`` at pressure >= 0.85 and
readiness >= 0.80 (readiness is ``resume_readiness``; unknown readiness never
auto-prepares). An explicit request (``handoff_request`` = 1) always prepares
a draft, whatever the score and whatever the cooldown.

The cooldown state of a session (``DetectorState``) is folded from the
detector's own events (``detector.recommended``, ``.snoozed``,
``.disabled``, ``.enabled``) and the project's material events: a repeated
recommendation is suppressed for ``cooldown_minutes`` after the last one,
unless a material event (a new commit, a validated or promoted handoff, an
explicit request) happened since. Snoozing suppresses until a time;
disabling suppresses for the rest of the session. Nothing here ends or
starts a session: the outcome is advice and, at most, a draft.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Mapping

from baton.domain.detector_config import (  # noqa: F401  (re-exported: the detector's settings)
    DEFAULT_COOLDOWN_MINUTES,
    DEFAULT_THRESHOLDS,
    DEFAULT_WEIGHTS,
    detector_settings,
    unit_number,
)
from baton.domain.handoff_requests import is_explicit_request  # noqa: F401  (re-exported: the detector's signal)
from baton.errors import InputError
from baton.events.names import DETECTOR_DISABLED, DETECTOR_ENABLED, DETECTOR_RECOMMENDED, DETECTOR_SNOOZED
from baton.ledger.clock import parse_rfc3339
from baton.model import frozen


@frozen
class DetectorConfig:
    weights: Mapping[str, float]
    thresholds: Mapping[str, float]
    cooldown_minutes: float

    @classmethod
    def from_section(cls, section: Mapping[str, Any] | None) -> "DetectorConfig":
        """The ``detector`` section of ``config.json`` over the spec's defaults
        (``detector_settings``).

        Raises:
            ConfigError: a weight or threshold that is not a number in [0, 1],
                a negative cooldown, or a name the detector does not know.
        """
        return cls(*detector_settings(section))

    def to_json(self) -> dict[str, Any]:
        return {"weights": dict(self.weights), "thresholds": dict(self.thresholds),
                "cooldown_minutes": self.cooldown_minutes}


SIGNALS = (
    "context_pressure", "turn_pressure", "elapsed_pressure", "work_boundary", "handoff_request",
    "change_pressure", "stuck_signal", "resume_readiness", "semantic_phase_change", "unresolved_questions",
    "session_age_pressure",
)
ALIASES = {"explicit_request": "handoff_request"}


TERMS = (
    ("explicit_request", (("explicit", "handoff_request"),)),
    ("context_load", (("context", "context_pressure"), ("turn", "turn_pressure"), ("elapsed", "elapsed_pressure"),
                      ("change_a", "change_pressure"))),
    ("blockage", (("stuck", "stuck_signal"), ("boundary", "work_boundary"), ("change_b", "change_pressure"))),
    ("phase", (("phase", "semantic_phase_change"), ("questions", "unresolved_questions"))),
    ("session_age", (("age", "session_age_pressure"),)),
)
REASON = {
    "explicit_request": "explicit handoff request",
    "context_load": "context, turn, time and change pressure",
    "blockage": "repeated failure or a completed work boundary",
    "phase": "a phase change with unresolved questions",
    "session_age": "the session's age",
}

NONE, RECOMMEND, AUTO_PREPARE, PREPARE = "none", "recommend", "auto_prepare", "prepare"

def _either(before: float | None, value: float) -> float:
    """A signal given under its name and an alias (``explicit_request``): the
    stronger wins, so neither spelling can withdraw a request the other made."""
    return value if before is None else max(before, value)


def read_signals(raw: Any) -> dict[str, float | None]:
    """The §9.1 signals of an event: every known name, each a number in [0, 1],
    ``true``/``false`` (1/0), or null; a missing signal is null.

    Raises:
        InputError (exit 2): not an object, an unknown signal name, or a value
            outside [0, 1] — every problem at once.
    """
    if not isinstance(raw, Mapping):
        raise InputError("detector signals must be a JSON object of names to numbers from 0 to 1 (or null)")
    given = raw["signals"] if isinstance(raw.get("signals"), Mapping) else raw
    out: dict[str, float | None] = dict.fromkeys(SIGNALS)
    problems = []
    for key, value in given.items():
        name = ALIASES.get(key, key)
        if name not in out:
            if given is raw and key in ("session", "session_id", "harness", "event", "source"):
                continue
            problems.append(f"{key}: not a detector signal (known: {', '.join(SIGNALS)})")
        elif value is None:
            pass  # unavailable (the default); never withdraws a value given under another spelling
        elif isinstance(value, bool):
            out[name] = _either(out[name], 1.0 if value else 0.0)
        elif unit_number(value):
            out[name] = _either(out[name], float(value))
        else:
            problems.append(f"{key}: must be a number from 0 to 1, true/false or null, not {value!r}")
    if problems:
        raise InputError("invalid detector signals: " + "; ".join(problems), details={"problems": problems})
    return out


@frozen
class Evaluation:
    pressure: float
    readiness: float | None
    terms: tuple[Mapping[str, Any], ...]
    inputs: Mapping[str, float]
    """The signals actually used (available ones)."""
    unavailable: tuple[str, ...]
    reasons: tuple[str, ...]
    explicit: bool
    recommend: bool
    auto_prepare: bool

    def to_json(self) -> dict[str, Any]:
        return {"pressure": self.pressure, "readiness": self.readiness, "terms": [dict(t) for t in self.terms],
                "inputs": dict(self.inputs), "unavailable": list(self.unavailable), "reasons": list(self.reasons),
                "explicit_request": self.explicit, "recommend": self.recommend, "auto_prepare": self.auto_prepare}


def evaluate(signals: Mapping[str, float | None], config: DetectorConfig) -> Evaluation:
    """§9.2's score of the available signals."""
    w = config.weights
    terms: list[dict[str, Any]] = []
    for name, parts in TERMS:
        value = 0.0
        used = []
        for weight, signal in parts:
            x = signals.get(signal)
            if x is not None:
                value += w[weight] * x
                used.append(signal)
        missing = [s for _, s in parts if signals.get(s) is None]
        terms.append({"term": name, "value": round(value, 6), "signals": used, "unavailable": missing})
    pressure = round(max(t["value"] for t in terms), 6)
    readiness = signals.get("resume_readiness")
    explicit = (signals.get("handoff_request") or 0.0) >= 1.0
    th = config.thresholds
    recommend = pressure >= th["recommend"]
    auto = pressure >= th["auto_prepare"] and readiness is not None and readiness >= th["readiness"]
    reasons = []
    for t in sorted(terms, key=lambda t: -t["value"]):
        if t["value"] > 0 and t["value"] >= th["recommend"] * 0.5:
            reasons.append(f"{REASON[t['term']]} ({t['term']} {t['value']:.2f})")
    if recommend and readiness is None and not explicit:
        reasons.append("resume readiness unavailable: no automatic draft")
    elif readiness is not None:
        reasons.append(f"resume readiness {readiness:.2f}")
    inputs = {k: v for k, v in signals.items() if v is not None}
    unavailable = tuple(k for k in SIGNALS if signals.get(k) is None)
    return Evaluation(pressure, readiness, tuple(terms), inputs, unavailable, tuple(reasons), explicit, recommend,
                      auto)


# -- the cooldown state ------------------------------------------------------------------

@frozen
class Outcome:
    action: str
    """``none``, ``recommend``, ``auto_prepare`` or ``prepare`` (explicit request / asked)."""
    suppressed: str | None = None
    """Why a recommendation is not shown: ``cooldown``, ``snoozed``, ``disabled``."""


def _time(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return parse_rfc3339(text)
    except ValueError:
        return None


def decide(state: Mapping[str, Any] | None, material_at: str | None, evaluation: Evaluation, *, now: str,
           head: str | None, config: DetectorConfig, asked: bool = False) -> Outcome:
    """What the evaluation leads to for a session whose detector state is
    ``state`` (the ``detector`` projection's document, or None)."""
    if evaluation.explicit or asked:
        return Outcome(PREPARE)
    if not evaluation.recommend:
        return Outcome(NONE)
    action = AUTO_PREPARE if evaluation.auto_prepare else RECOMMEND
    state = state or {}
    current = _time(now) or datetime.now(timezone.utc)
    if state.get("disabled"):
        return Outcome(action, "disabled")
    snoozed = _time(state.get("snoozed_until"))
    if snoozed is not None and current < snoozed:
        return Outcome(action, "snoozed")
    last = _time(state.get("last_recommended_at"))
    if last is not None and current < last + timedelta(minutes=config.cooldown_minutes):
        material = _time(material_at)
        moved = head is not None and state.get("head") is not None and head != state.get("head")
        if not moved and (material is None or material <= last):
            return Outcome(action, "cooldown")
    return Outcome(action)


def evolve_state(doc: Mapping[str, Any] | None, event_type: str, data: Mapping[str, Any], at: str) -> dict[str, Any]:
    """Fold one detector event into a session's state."""
    out = dict(doc or {})
    if event_type == DETECTOR_RECOMMENDED:
        out["count"] = int(out.get("count") or 0) + 1
        out["action"] = data.get("action")
        if data.get("action") == PREPARE:
            # An explicit request is a material event: the next threshold
            # crossing is shown again, whatever the cooldown.
            out.pop("last_recommended_at", None)
            out.pop("head", None)
        else:
            out["last_recommended_at"] = at
            out["head"] = data.get("head")
    elif event_type == DETECTOR_SNOOZED:
        out["snoozed_until"] = data.get("until")
    elif event_type == DETECTOR_DISABLED:
        out["disabled"] = True
    elif event_type == DETECTOR_ENABLED:
        out["disabled"] = False
        out.pop("snoozed_until", None)
    return out
