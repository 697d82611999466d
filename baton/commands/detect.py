"""``baton detect [--event FILE|-] [--prepare]``: handoff pressure and readiness (spec §9).

The signals are scored by ``baton.domain.detector`` with the weights and
thresholds of ``.baton/config.json`` (section ``detector``). What happens:

- below the recommend threshold: nothing is written; the score is returned;
- ``recommend``: a non-blocking message offering to prepare a handoff,
  snooze, or disable the detector for the session — unless the session's
  cooldown, snooze or disable suppresses it (then nothing is written);
- ``auto_prepare`` (and an explicit request, or ``--prepare``, always): a
  **draft** is captured from the same template ``handoff prepare`` builds
  (git state, changed files, the session objective), its ``automation``
  field holding the trigger, score, inputs used and reasons, and the fields
  still missing are listed. It can only become ready through validation.

Each recommendation shown or draft prepared is a ``detector.recommended``
event on ``detector/<session>`` (score, inputs used, unavailable signals,
reasons, the repository head, the draft): the cooldown is a projection of
these events. Snooze, disable and enable are events too
(``control``). Nothing here ends or starts a session.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, Mapping

from baton.commands.capture import capture_budget, capture_in_scope
from baton.commands.detector_facts import detector_config, repository_head, stream_key
from baton.commands.draft_fields import PLACEHOLDER, still_to_complete
from baton.commands.handoff_facts import now_timestamp
from baton.commands.identity import recorded_owner
from baton.commands.objectives import check_session_id
from baton.commands.prepare import prepare_handoff
from baton.commands.record import record
from baton.commands.session_drafts import open_session_draft
from baton.domain import detector
from baton.domain.short_ids import short_id
from baton.errors import InputError
from baton.events.detector import DetectorDisabled, DetectorEnabled, DetectorRecommended, DetectorSnoozed
from baton.events.names import DETECTOR, stream_of
from baton.ledger.clock import parse_rfc3339
from baton.model import frozen
from baton.projections.detector import MATERIAL

if TYPE_CHECKING:
    from baton.commands.context import Deferral, Project

@frozen
class DetectResult:
    session: str | None
    evaluation: dict[str, Any]
    action: str
    suppressed: str | None
    recorded: bool
    draft: str | None = None
    missing: tuple[str, ...] = ()
    config: dict[str, Any] | None = None
    draft_kept: bool = False
    """``draft`` is the session's open draft from an earlier request, not a new one."""
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session, **self.evaluation, "action": self.action, "suppressed": self.suppressed,
                "recorded": self.recorded, "draft": self.draft, "draftKept": self.draft_kept,
                "missing": list(self.missing), "options": self.options(), "config": self.config}

    def options(self) -> list[str]:
        """What the person or agent may do about a recommendation shown (the
        spec's "prepare handoff", "snooze", "disable for this session"); each
        adapter says how (``render`` gives the commands)."""
        if self.action == "none" or self.suppressed:
            return []
        out = [] if self.draft else ["prepare"]
        out.append("snooze")
        if self.session:
            out.append("disable_for_session")
        return out

    @property
    def context(self) -> str | None:
        """What a harness hook injects into the session (the notice), if anything."""
        return self.notice() or None

    def notice(self, complete_with: str = "") -> str:
        """The non-blocking message, in any adapter's words (empty when there is nothing to say).

        ``complete_with`` is the adapter's way to complete the draft, in its
        own words (the hooks: `` (`baton handoff amend ID --input FILE`)``),
        put right after "Complete it"."""
        if self.action == "none" or self.suppressed:
            return ""
        pressure = self.evaluation["pressure"]
        if self.draft:
            what = (f"This session's draft handoff {short_id(self.draft)} is still open (pressure {pressure:.2f}). "
                    "Complete it" if self.draft_kept else
                    f"Baton prepared a draft handoff {short_id(self.draft)} (pressure {pressure:.2f}). Complete it")
            return (what + complete_with + " before it can become ready: " + ", ".join(self.missing or ("nothing",))
                    + "; then validate it and make it ready. Nothing has been stopped or started.")
        return (f"Baton recommends preparing a handoff (pressure {pressure:.2f}): "
                + "; ".join(self.evaluation["reasons"]) + ". Options: " + ", ".join(
                    o.replace("_", " ") for o in self.options()) + ".")

    def render(self) -> str:
        e = self.evaluation
        readiness = "unavailable" if e["readiness"] is None else f"{e['readiness']:.2f}"
        lines = [f"pressure {e['pressure']:.2f}, readiness {readiness}: {self.action}"
                 + (f" (suppressed: {self.suppressed})" if self.suppressed else "")]
        for name, value in sorted(e["inputs"].items()):
            lines.append(f"  {name}: {value:g}")
        if e["unavailable"]:
            lines.append(f"  unavailable: {', '.join(e['unavailable'])}")
        for reason in e["reasons"]:
            lines.append(f"  reason: {reason}")
        notice = self.notice()
        if notice:
            lines.append(notice)
            session = f" --session {self.session}" if self.session else ""
            commands = {"prepare": f"baton detect --prepare{session}", "snooze": f"baton detect --snooze{session}",
                        "disable_for_session": f"baton detect --disable-for-session{session}"}
            if self.draft:
                lines.append(f"Next: baton handoff amend {short_id(self.draft)} ... then baton handoff validate "
                             f"{short_id(self.draft)}")
            lines.append("Options: " + " | ".join(commands[o] for o in self.options()))
        return "\n".join(lines)


def _session_key(session: str | None) -> str | None:
    return check_session_id(session)


@frozen
class Assessment:
    """What the detector made of one event's signals, decided on the state read
    before the lock (as a recommendation always was): what to record, if anything."""

    session: str | None
    harness: str | None
    source: str
    key: str
    evaluation: Any
    outcome: Any
    head: str | None
    config: Any

    @property
    def records(self) -> bool:
        return not (self.outcome.action == detector.NONE or self.outcome.suppressed)

    @property
    def prepares(self) -> bool:
        return self.outcome.action in (detector.AUTO_PREPARE, detector.PREPARE)


def assess(project: "Project", raw: Mapping[str, Any], *, prepare: bool = False, session: str | None = None,
           harness: str | None = None, source: str = "cli", deferral: "Deferral | None" = None) -> Assessment:
    """Score ``raw`` signals and decide on the detector's state (outside the lock).
    ``deferral``: a hook's, kept should the catch-up be handed on (``Project.behind``).

    Raises:
        InputError (exit 2): malformed signals or detector configuration, or a bad session id.
    """
    if session is None and isinstance(raw, Mapping) and isinstance(raw.get("session"), str):
        session = raw["session"]
    if harness is None and isinstance(raw, Mapping) and isinstance(raw.get("harness"), str):
        harness = raw["harness"]
    session = _session_key(session)
    signals = detector.read_signals(raw)
    config = detector_config(project)
    evaluation = detector.evaluate(signals, config)
    head = repository_head(project.paths.worktree)
    key = stream_key(session)
    runner = project.reading(deferral=deferral)
    state = runner.get("detector", key)
    material = (runner.get("detector", MATERIAL) or {}).get("at")
    now = now_timestamp(project.clock())
    outcome = detector.decide(state, material, evaluation, now=now, head=head, config=config, asked=prepare)
    return Assessment(session, harness, source, key, evaluation, outcome, head, config)


def record_recommendation(scope: Any, assessed: Assessment, draft: str | None,
                          missing: tuple[str, ...] = ()) -> None:
    """Inside a write scope (in the ``batch()`` that captured ``draft``, if it
    did): append the ``detector.recommended`` event ``assessed`` decided."""
    evaluation = assessed.evaluation
    event = DetectorRecommended(
        key=assessed.key, session=assessed.session, harness=assessed.harness, source=assessed.source,
        action=assessed.outcome.action, pressure=evaluation.pressure, readiness=evaluation.readiness,
        inputs=dict(evaluation.inputs), unavailable=list(evaluation.unavailable),
        reasons=list(evaluation.reasons), head=assessed.head, draft_id=draft, missing=list(missing))
    record(scope, [event], version=scope.txn.stream_version(stream_of(DETECTOR, assessed.key)),
           session=assessed.session)


def detect(project: "Project", raw: Mapping[str, Any], *, prepare: bool = False, session: str | None = None,
           harness: str | None = None, source: str = "cli", create_drafts: bool = True,
           prepared_draft: str | None = None) -> DetectResult:
    """Score ``raw`` signals; recommend, prepare a draft, or do nothing.

    ``create_drafts=False`` (MCP ``handoff_detect`` without ``prepare``: §13
    says it does not create by default): the outcome is reported and the
    recommendation recorded, but no draft is captured. ``prepared_draft``: a
    draft the caller already made for this signal, named in the recorded
    recommendation.

    Raises:
        InputError (exit 2): malformed signals or detector configuration, or a bad session id.
        PolicyBlock (exit 5): the draft's template met the path or secret policy.
    """
    assessed = assess(project, raw, prepare=prepare, session=session, harness=harness, source=source)
    session, harness = assessed.session, assessed.harness
    outcome, config = assessed.outcome, assessed.config
    result_json = assessed.evaluation.to_json()
    if not assessed.records:
        return DetectResult(session, result_json, outcome.action, outcome.suppressed, False,
                            config=config.to_json())
    template: dict[str, Any] | None = None
    missing: tuple[str, ...] = ()
    wants_draft = assessed.prepares and (create_drafts or prepare)
    # The session's open draft is named whether or not this call may create
    # one (MCP ``handoff_detect`` without ``prepare`` creates nothing).
    kept = open_session_draft(project.reading(), project.writer, session) if assessed.prepares and prepared_draft is None else None
    if wants_draft and kept is None and prepared_draft is None:
        template, missing = _draft_template(project, assessed.evaluation, outcome.action, session=session)
    actor = recorded_owner(project) if template is not None else ""  # read before the lock, only for a draft
    with project.writing() as scope, scope.batch():
        # The draft and the recommendation that made it are ONE append (all
        # or nothing, under one lock): a recommendation never names a draft
        # that is not there, and no draft is left without its recommendation.
        draft = prepared_draft
        if template is not None:
            # Looked at again under the lock: two requests of one session at
            # the same moment leave one draft between them.
            kept = open_session_draft(scope.runner, project.writer, session)
            if kept is None:
                draft = capture_in_scope(scope, template, trigger=template["automation"]["trigger"],
                                         origin={"harness": harness} if harness else None,
                                         session=session, actor=actor, hash_budget=capture_budget()).handoff_id
        if kept is not None:
            draft, missing = kept["id"], still_to_complete(kept)
        record_recommendation(scope, assessed, draft, tuple(missing))
    return DetectResult(session, result_json, outcome.action, None, True, draft, tuple(missing),
                        config=config.to_json(), draft_kept=kept is not None)


def _draft_template(project: "Project", evaluation: Any, action: str, *,
                    session: str | None) -> tuple[dict[str, Any], tuple[str, ...]]:
    """A draft's payload from ``handoff prepare``'s template; Baton supplies only
    a labelled placeholder title and objective (a draft needs both), and they
    stay among the fields to complete."""
    trigger = "manual" if evaluation.explicit else "threshold"
    prepared = prepare_handoff(project, trigger=trigger)
    template = dict(prepared.template)
    work = dict(template.get("work") or {})
    missing = tuple(item["field"] for item in prepared.to_complete)
    label = f"session {session}" if session else "this session"
    if not (isinstance(work.get("title"), str) and work["title"].strip()):
        work["title"] = f"{PLACEHOLDER} the work of {label} (prepared by the detector)"
    if not (isinstance(work.get("objective"), str) and work["objective"].strip()):
        work["objective"] = f"{PLACEHOLDER} what {label} was working towards"
    template["work"] = work
    template["automation"] = {"trigger": trigger, "score": evaluation.pressure, "reasons": list(evaluation.reasons),
                              "inputs": dict(evaluation.inputs)}
    return template, missing


# -- snooze, disable, enable ---------------------------------------------------------------

@frozen
class DetectorControlResult:
    session: str | None
    action: str
    until: str | None = None
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session, "action": self.action, "until": self.until}

    def render(self) -> str:
        who = f"session {self.session}" if self.session else "this project (no session named)"
        if self.action == "snooze":
            return f"Detector recommendations snoozed for {who} until {self.until}."
        if self.action == "disable":
            return f"Detector recommendations disabled for {who}."
        return f"Detector recommendations enabled for {who}."


SNOOZE_MAX_MINUTES = 525_600
"""The longest snooze: a year (beyond it, disable the detector for the session)."""


def control(project: "Project", action: str, *, session: str | None = None,
            minutes: float | None = None) -> DetectorControlResult:
    """Record a snooze (``minutes``; default the cooldown), a disable or an enable.

    Raises:
        InputError (exit 2): an unknown action, negative minutes, or disabling without a session.
    """
    session = _session_key(session)
    key = stream_key(session)
    until = None
    if action == "snooze":
        if minutes is None:
            minutes = detector_config(project).cooldown_minutes
        elif not (isinstance(minutes, (int, float)) and not isinstance(minutes, bool)
                  and 0 < minutes <= SNOOZE_MAX_MINUTES):
            raise InputError(f"`snooze` must be a number of minutes above 0 and at most {SNOOZE_MAX_MINUTES:,} "
                             f"(a year), not {minutes!r}")
        now = parse_rfc3339(now_timestamp(project.clock()))
        until = (now + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")
        event: Any = DetectorSnoozed(key=key, session=session, until=until)
    elif action == "disable":
        if session is None:
            raise InputError("disabling the detector is per session: give `session`")
        event = DetectorDisabled(key=key, session=session)
    elif action == "enable":
        event = DetectorEnabled(key=key, session=session)
    else:
        raise InputError(f"`action` must be snooze, disable or enable, not {action!r}")
    with project.writing() as scope:
        record(scope, [event], version=scope.txn.stream_version(stream_of(DETECTOR, key)), session=session)
    return DetectorControlResult(session, action, until)
