"""Sessions, their batons, the bootstrap brief and the local metrics."""

from __future__ import annotations

from baton.app import Baton
from baton.errors import InputError, NotFound, NotInitialized
from baton.harnesses.notices import for_brief

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import argparse


def session_begin(app: Baton, args: argparse.Namespace):
    session_id = one_session_id("session begin", args.session_id_positional, args.session_id)
    return app.begin_session(session_id=session_id, harness=args.harness, objective=args.objective,
                             owner=args.owner, branch=args.branch, wording=CLI_START_WORDING)


def one_session_id(command: str, given: str | None, option: str | None) -> str | None:
    """The id given as `COMMAND ID` or `COMMAND --session-id ID` (one of them, or both alike)."""
    if given is not None and option is not None and given.strip() != option.strip():
        raise InputError(f"{command} got two session ids ({given!r} and --session-id {option!r}); "
                         "give one; nothing was done")
    return given if given is not None else option


def session_handoff(app: Baton, args: argparse.Namespace):
    if args.shared and args.from_id is None:
        raise InputError("--shared applies only with --from ID (scoping a handoff as a shared baton); "
                         "nothing was done")
    if args.not_mine and args.dismiss is None and not args.cancel:
        raise InputError("--not-mine applies only with --dismiss ID or --cancel; nothing was done")
    if args.all:
        return app.pending_batons()
    if args.cancel:
        return app.cancel_baton(owner=args.owner, branch=args.branch, not_mine=args.not_mine)
    if args.dismiss is not None:
        try:
            return app.dismiss_baton(args.dismiss, not_mine=args.not_mine)
        except NotInitialized:
            raise
        except NotFound as exc:  # an id mistyped or from elsewhere: where the ids are
            raise NotFound(f"{exc.message}; `baton session handoff --all` lists the pending batons",
                           details=exc.details) from None
    if args.from_id is not None:
        return app.hand_on(args.from_id, owner=args.owner, branch=args.branch, shared=args.shared)
    return app.active_baton(owner=args.owner, branch=args.branch)


CLI_START_WORDING = {"see_baton": "`baton resume {id}` reads it",
                     "begin_as": "`baton session begin --owner {owner}` claims it"}
"""What the brief's notices of a lost claim and of a baton left for another owner tell the
reader to run, in this command line's options. The baton is named by its id: a lost claim's
baton is claimed, which `baton session handoff --all` (pending batons only) never lists."""


def bootstrap(app: Baton, args: argparse.Namespace):
    session_id = one_session_id("bootstrap", args.session_id_positional, args.session_id)
    return app.bootstrap(session_id=session_id, max_bytes=args.max_bytes, owner=args.owner,
                         branch=args.branch, peek=args.peek, budget="--max-bytes", wording=CLI_START_WORDING,
                         told=lambda: for_brief(app, use_up=not args.peek))


def metrics(app: Baton, args: argparse.Namespace):
    return app.metrics()
