"""A harness's session lifecycle, as its hooks report it: a session starts,
its context is about to be compacted, it ends.

These are the use cases behind ``baton hook HARNESS EVENT`` (the hook
adapters in ``baton.harnesses`` only translate a harness's payload and
answer). They are built from the session-baton use cases and keep their
rules; what they add is what a hook needs and a person typing commands does
not:

- **A brief is delivered once per session.** A harness fires its start hook
  again for the same session after a compaction, a resume or a ``/clear``
  that keeps the id; the session's ``session.begun`` event is the record
  that it already received its brief, so a repeated start delivers nothing
  and writes nothing. After a compaction (``source`` ``compact``) it points
  the agent at the draft saved before it, when that is still open.
- **Before compaction, a draft.** The agent is about to lose detail, so
  Baton captures a draft handoff for the session, prefilled only with what
  it observed itself (``handoff prepare``: repository, changed files, the
  session objective) and marked ``automation.trigger: hook`` with the
  detector inputs that caused it. One per session: a later compaction finds
  it and adds nothing. The agent completes, validates and promotes it.
- **The agent knows its session.** The brief a start delivers ends with the
  session's id and asks the agent to pass it as ``session_id`` to Baton's
  MCP tools: the harness gives the id to its hooks, never to the model or
  to an MCP server, so this is how a capture over MCP names its session.
- **At the end, the baton the session wrote.** The newest ready handoff
  captured by this session (and not yet a baton) is handed on to the next
  session on this owner and branch; the session is ended either way, in
  the same single append. An agent that captured over MCP without the id
  still hands on: the newest ready handoff naming no session, captured on
  the session's branch by its owner while it was open, is the session's —
  unless another session of that owner was open on that branch then (it
  is then nobody's, and the end says so). A
  session that already ended (its agent called ``prompt`` with
  ``session_end``, or a harness fires its end hook after every turn) is not
  ended again.

Baton never reads the harness's transcript: the session id, the event and
the harness's own fields (source, trigger, reason) are all it uses.
"""

from __future__ import annotations

from typing import Any

# The three use cases live in modules of their own, so that a session start
# loads neither the compaction's capture and detector nor the end's hand-on:
# ``harness_start``, ``harness_compaction``, ``harness_finish`` (and
# ``session_drafts``, what they share). Until ``baton.app`` names them, the
# names it reads from here resolve on first use. Remove this table when it does.

_MOVED = {
    **dict.fromkeys(("SessionStartResult", "start_session", "session_line", "compaction_notice", "COMPACT"),
                    "baton.commands.harness_start"),
    **dict.fromkeys(("CompactionDraftResult", "prepare_before_compaction", "detector_inputs", "HOOK_TRIGGER"),
                    "baton.commands.harness_compaction"),
    **dict.fromkeys(("SessionFinishResult", "finish_session", "ATTRIBUTION_HORIZON_HOURS"),
                    "baton.commands.harness_finish"),
    **dict.fromkeys(("SESSION_WINDOW", "session_handoffs", "open_session_draft", "parents_of"),
                    "baton.commands.session_drafts"),
}


def __getattr__(name: str) -> Any:
    # ``__import__``: the import system's C path, which ``python -X importtime`` reports
    # (the hook-path tests read it), as ``baton.harnesses`` loads its adapters.
    if name in _MOVED:
        return getattr(__import__(_MOVED[name], fromlist=["_"]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
