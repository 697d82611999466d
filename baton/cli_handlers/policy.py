"""The policy's commands: show, trust, untrust (``baton.commands.trust_policy``)."""

from __future__ import annotations

import argparse
import sys

from baton.app import Baton
from baton.cli_handlers.ledger import _asking_a_person
from baton.errors import Conflict, InputError


def policy_show(app: Baton, args: argparse.Namespace):
    return app.show_policy()


def policy_trust(app: Baton, args: argparse.Namespace):
    """With ``--digest``: trust exactly what was reviewed. Without: only a person at a
    terminal, shown the settings and asked y/N (as ``baton forget`` asks); off a terminal
    (an agent, a script) it refuses and says a person must review and trust them."""
    if args.digest is not None:
        return _trusting(app, args.digest, args.roll_back_signers)
    shown = app.show_policy()
    if shown.trust.digest is None:
        return app.trust_policy()  # nothing to trust: writes nothing
    if not _asking_a_person() or args.json:
        raise InputError("trusting the policy needs a person's review: ask the user to review its settings "
                         "(`baton policy show`) and trust them at a terminal (`baton policy trust` asks them to "
                         "confirm), or to pass --digest SHA, the digest `baton policy show` prints; nothing was "
                         "trusted", details={"digest": shown.trust.digest, "settings": shown.trust.widening.to_json()})
    sys.stderr.write(shown.render() + "\nTrust these settings in this checkout? [y/N] ")
    sys.stderr.flush()
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        raise InputError("nothing was trusted (not confirmed)")
    return _trusting(app, shown.trust.digest, args.roll_back_signers)


def _trusting(app: Baton, digest: str, roll_back_signers: bool):
    """``trust_policy``, its refusal of an older allowed-signers file naming the flag that overrides it."""
    try:
        return app.trust_policy(digest=digest, roll_back_signers=roll_back_signers)
    except Conflict as exc:
        if exc.details.get("behind") is not True:
            raise
        text = str(exc).replace("(`roll_back_signers`)", "(`baton policy trust --roll-back-signers`)")
        raise Conflict(text, details=exc.details) from None


def policy_untrust(app: Baton, args: argparse.Namespace):
    return app.untrust_policy()
