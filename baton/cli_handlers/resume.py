"""``baton resume``: the resume brief of a ready handoff."""

from __future__ import annotations

import argparse

from baton.app import Baton


def resume(app: Baton, args: argparse.Namespace):
    return app.resume(args.id, format=args.format, mark_resumed=args.mark_resumed, max_tokens=args.max_tokens,
                      session=args.session, harness=args.harness, any_branch=args.any_branch)
