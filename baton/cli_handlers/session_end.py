"""``baton session end``: the session's end, the baton it leaves from the ``--handoff-*`` flags
(or ``--handoff-input``), and what was redacted named by the flag that carried it
(``record_fields``; a module of its own, so that the other session commands — a harness's
bootstrap among them — never load the record's field names)."""

from __future__ import annotations

from baton.app import Baton
from baton.cli_handlers.output import Noted
from baton.cli_handlers.record_fields import SESSION_END_DESTS, name_redactions
from baton.cli_handlers.sessions import one_session_id
from baton.cli_read import read_json_bounded
from baton.domain.batons import split_flag_list
from baton.errors import InputError
from baton.values import replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import argparse


def _handoff_payload(args: argparse.Namespace):
    """The session-end payload from --handoff-input (JSON) or the comma-separated flags."""
    flags = {
        "nextSteps": split_flag_list(args.handoff_steps),
        "failedApproaches": split_flag_list(args.handoff_failed),
        "openQuestions": split_flag_list(args.handoff_questions),
    }
    given = {k: v for k, v in flags.items() if v is not None}
    if args.handoff_input is None:
        return given or None
    if given:
        raise InputError("give the handoff either as --handoff-input JSON or with --handoff-* flags, not both")
    return read_json_bounded(args.handoff_input, "--handoff-input")


def _ended_session_id(args: argparse.Namespace) -> str:
    chosen = one_session_id("session end", args.session_id, args.session_id_option)
    if chosen is None:
        raise InputError("session end needs the session id: `baton session end ID` "
                         "(or --session-id ID); nothing was done")
    return chosen


def session_end(app: Baton, args: argparse.Namespace):
    ended = app.end_session(_ended_session_id(args), _handoff_payload(args), harness=args.harness,
                            owner=args.owner, branch=args.branch, shared=True if args.shared else None)
    if ended.created is not None and ended.created.redactions:  # each named by the flag that carried it
        named = name_redactions(ended.created.redactions, vars(args), SESSION_END_DESTS)
        ended = replace(ended, created=replace(ended.created, redactions=named))
    return Noted(ended, ended.not_begun_note) if ended.not_begun_note else ended
