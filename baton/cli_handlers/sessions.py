"""Sessions, their batons, the bootstrap brief and the local metrics."""

from __future__ import annotations

import argparse

from baton.app import Baton
from baton.cli_handlers.output import Noted
from baton.cli_read import read_json_bounded
from baton.domain.batons import split_flag_list
from baton.errors import InputError, NotFound, NotInitialized


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


def session_begin(app: Baton, args: argparse.Namespace):
    session_id = _one_session_id("session begin", args.session_id_positional, args.session_id)
    return app.begin_session(session_id=session_id, harness=args.harness, objective=args.objective,
                             owner=args.owner, branch=args.branch)


def _one_session_id(command: str, given: str | None, option: str | None) -> str | None:
    """The id given as `COMMAND ID` or `COMMAND --session-id ID` (one of them, or both alike)."""
    if given is not None and option is not None and given.strip() != option.strip():
        raise InputError(f"{command} got two session ids ({given!r} and --session-id {option!r}); "
                         "give one; nothing was done")
    return given if given is not None else option


def _ended_session_id(args: argparse.Namespace) -> str:
    chosen = _one_session_id("session end", args.session_id, args.session_id_option)
    if chosen is None:
        raise InputError("session end needs the session id: `baton session end ID` "
                         "(or --session-id ID); nothing was done")
    return chosen


def session_end(app: Baton, args: argparse.Namespace):
    ended = app.end_session(_ended_session_id(args), _handoff_payload(args), harness=args.harness,
                            owner=args.owner, branch=args.branch, shared=True if args.shared else None)
    return Noted(ended, ended.not_begun_note) if ended.not_begun_note else ended


def session_handoff(app: Baton, args: argparse.Namespace):
    if args.shared and args.from_id is None:
        raise InputError("--shared applies only with --from ID (scoping a handoff as a shared baton); "
                         "nothing was done")
    if args.all:
        return app.pending_batons()
    if args.cancel:
        return app.cancel_baton(owner=args.owner, branch=args.branch)
    if args.dismiss is not None:
        try:
            return app.dismiss_baton(args.dismiss)
        except NotInitialized:
            raise
        except NotFound as exc:  # an id mistyped or from elsewhere: where the ids are
            raise NotFound(f"{exc.message}; `baton session handoff --all` lists the pending batons",
                           details=exc.details) from None
    if args.from_id is not None:
        return app.hand_on(args.from_id, owner=args.owner, branch=args.branch, shared=args.shared)
    return app.active_baton(owner=args.owner, branch=args.branch)


def bootstrap(app: Baton, args: argparse.Namespace):
    session_id = _one_session_id("bootstrap", args.session_id_positional, args.session_id)
    return app.bootstrap(session_id=session_id, max_bytes=args.max_bytes, owner=args.owner,
                         branch=args.branch, peek=args.peek, budget="--max-bytes")


def metrics(app: Baton, args: argparse.Namespace):
    return app.metrics()
