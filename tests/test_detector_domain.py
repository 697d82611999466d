"""The detector's formula and cooldown (spec §9), as tables."""

from __future__ import annotations

import pytest

from baton.domain.detector import (
    AUTO_PREPARE,
    NONE,
    PREPARE,
    RECOMMEND,
    DetectorConfig,
    decide,
    evaluate,
    evolve_state,
    read_signals,
)
from baton.errors import InputError

DEFAULT = DetectorConfig.from_section({})
NOW = "2026-09-02T14:30:00Z"


def _score(**signals):
    return evaluate(read_signals(signals), DEFAULT)


@pytest.mark.parametrize("signals, pressure", [
    ({}, 0.0),
    ({"handoff_request": 1}, 1.0),
    ({"explicit_request": True}, 1.0),
    ({"context_pressure": 1.0}, 0.70),
    ({"context_pressure": 1.0, "turn_pressure": 1.0, "elapsed_pressure": 1.0, "change_pressure": 1.0}, 1.0),
    ({"stuck_signal": 1.0, "work_boundary": 1.0}, 0.85),
    ({"semantic_phase_change": 1.0, "unresolved_questions": 1.0}, 0.65),
    ({"session_age_pressure": 1.0}, 0.20),
    ({"context_pressure": 0.5, "stuck_signal": 1.0}, 0.60),
])
def test_pressure_is_the_largest_weighted_term(signals, pressure):
    assert _score(**signals).pressure == pytest.approx(pressure)


def test_null_and_missing_signals_are_unavailable_and_contribute_nothing():
    result = _score(context_pressure=0.9, turn_pressure=None)
    assert result.inputs == {"context_pressure": 0.9}
    assert "turn_pressure" in result.unavailable and "elapsed_pressure" in result.unavailable
    assert result.pressure == pytest.approx(0.63)
    assert result.readiness is None


@pytest.mark.parametrize("pressure_signals, readiness, recommend, auto", [
    ({"context_pressure": 1.0}, None, True, False),                       # exactly 0.70
    ({"context_pressure": 0.99}, None, False, False),                     # 0.693
    ({"stuck_signal": 1.0, "work_boundary": 1.0}, 0.80, True, True),      # exactly 0.85 and 0.80
    ({"stuck_signal": 1.0, "work_boundary": 1.0}, 0.79, True, False),
    ({"stuck_signal": 1.0, "work_boundary": 0.96}, 0.9, True, False),     # 0.84
    ({"stuck_signal": 1.0, "work_boundary": 1.0}, None, True, False),     # unknown readiness never auto-prepares
])
def test_threshold_edges(pressure_signals, readiness, recommend, auto):
    result = _score(**pressure_signals, resume_readiness=readiness)
    assert (result.recommend, result.auto_prepare) == (recommend, auto)


@pytest.mark.parametrize("raw", [{"context_pressure": 1.5}, {"context_pressure": "high"}, {"nonsense": 0.1}, [0.5]])
def test_malformed_signals_are_input_errors(raw):
    with pytest.raises(InputError):
        read_signals(raw)


def test_weights_and_thresholds_come_from_the_config_section():
    config = DetectorConfig.from_section({"weights": {"context": 1.0}, "thresholds": {"recommend": 0.5},
                                          "cooldown_minutes": 5})
    result = evaluate(read_signals({"context_pressure": 0.6}), config)
    assert result.pressure == pytest.approx(0.6) and result.recommend
    assert config.cooldown_minutes == 5
    with pytest.raises(InputError):
        DetectorConfig.from_section({"weights": {"context": 2}})


def _recommended(at, head="abc", action=RECOMMEND):
    return evolve_state(None, "detector.recommended", {"action": action, "head": head}, at)


@pytest.mark.parametrize("state, material, now, head, expected", [
    (None, None, NOW, "abc", (RECOMMEND, None)),
    (_recommended("2026-09-02T14:20:00Z"), None, NOW, "abc", (RECOMMEND, "cooldown")),
    (_recommended("2026-09-02T14:10:00Z"), None, NOW, "abc", (RECOMMEND, None)),           # 20 minutes passed
    (_recommended("2026-09-02T14:10:01Z"), None, NOW, "abc", (RECOMMEND, "cooldown")),
    (_recommended("2026-09-02T14:20:00Z"), None, NOW, "def", (RECOMMEND, None)),           # a new commit
    (_recommended("2026-09-02T14:20:00Z"), "2026-09-02T14:25:00Z", NOW, "abc", (RECOMMEND, None)),  # validated
    (_recommended("2026-09-02T14:20:00Z"), "2026-09-02T14:15:00Z", NOW, "abc", (RECOMMEND, "cooldown")),
    (_recommended("2026-09-02T14:20:00Z", action=PREPARE), None, NOW, "abc", (RECOMMEND, None)),  # explicit request
    (evolve_state(None, "detector.snoozed", {"until": "2026-09-02T14:40:00Z"}, NOW), None, NOW, "abc",
     (RECOMMEND, "snoozed")),
    (evolve_state(None, "detector.snoozed", {"until": "2026-09-02T14:29:59Z"}, NOW), None, NOW, "abc",
     (RECOMMEND, None)),
    (evolve_state(None, "detector.disabled", {}, NOW), None, NOW, "abc", (RECOMMEND, "disabled")),
    (evolve_state(evolve_state(None, "detector.disabled", {}, NOW), "detector.enabled", {}, NOW), None, NOW,
     "abc", (RECOMMEND, None)),
])
def test_cooldown_snooze_and_disable(state, material, now, head, expected):
    outcome = decide(state, material, _score(context_pressure=1.0), now=now, head=head, config=DEFAULT)
    assert (outcome.action, outcome.suppressed) == expected


def test_an_explicit_request_always_prepares_even_when_disabled_or_cooling_down():
    disabled = evolve_state(_recommended("2026-09-02T14:29:00Z"), "detector.disabled", {}, NOW)
    outcome = decide(disabled, None, _score(handoff_request=1), now=NOW, head="abc", config=DEFAULT)
    assert (outcome.action, outcome.suppressed) == (PREPARE, None)


def test_auto_prepare_and_nothing_below_the_threshold():
    high = _score(stuck_signal=1.0, work_boundary=1.0, resume_readiness=0.9)
    assert decide(None, None, high, now=NOW, head=None, config=DEFAULT).action == AUTO_PREPARE
    low = _score(context_pressure=0.2)
    assert decide(None, None, low, now=NOW, head=None, config=DEFAULT).action == NONE
    assert decide(None, None, low, now=NOW, head=None, config=DEFAULT, asked=True).action == PREPARE
