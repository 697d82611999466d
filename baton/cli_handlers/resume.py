"""``baton resume``: the resume brief of a ready handoff."""

from __future__ import annotations

from baton.app import Baton

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import argparse  # for annotations only: ``resume latest`` is read without a parser (``cli_run.fixed_run``)


def resume(app: Baton, args: argparse.Namespace):
    return app.resume(args.id, format=args.format, mark_resumed=args.mark_resumed, max_tokens=args.max_tokens,
                      session=args.session, harness=args.harness, any_branch=args.any_branch)
