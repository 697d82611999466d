"""The policy's commands: show, trust, untrust (``baton.commands.trust_policy``)."""

from __future__ import annotations

import argparse

from baton.app import Baton


def policy_show(app: Baton, args: argparse.Namespace):
    return app.show_policy()


def policy_trust(app: Baton, args: argparse.Namespace):
    return app.trust_policy(digest=args.digest)


def policy_untrust(app: Baton, args: argparse.Namespace):
    return app.untrust_policy()
