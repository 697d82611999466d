"""``baton doctor``: the installation, the project and each harness wired here."""

from __future__ import annotations

import argparse
import sys

import attrs

from baton.app import Baton
from baton.cli_handlers.opened import catching_up, progress, say_waiting
from baton.commands.doctor import FORGET_AGAIN, KEPT_WAITING, Check
from baton.harnesses.wiring import doctor_checks
from baton.launch import server_state

BY_HAND = "; by hand: `baton rebuild --if-needed` (it replays only if the index needs it)"


def doctor(args: argparse.Namespace):
    result = Baton.doctor(args.project, extra=_checks, on_wait=say_waiting if sys.stderr.isatty() else None,
                          on_progress=catching_up(),
                          verifying=None if args.json else progress("baton: verifying the ledger:"))
    return attrs.evolve(result, checks=[_by_hand(check) for check in result.checks])


def _by_hand(check: Check) -> Check:
    """A check with the command that does what it advises: the waiting kept
    hooks' catch-up without a replay; an interrupted forget run again, with
    ``--yes`` (it was confirmed once, and off a terminal ``forget`` asks nothing: it refuses)."""
    if check.detail.endswith(KEPT_WAITING):
        return attrs.evolve(check, detail=check.detail + BY_HAND)
    if check.handoff is not None and check.detail.endswith(FORGET_AGAIN):
        return attrs.evolve(check, detail=f"{check.detail}: `baton forget {check.handoff} --yes`")
    return check


def _checks(root, project) -> list[tuple[str, str, str]]:
    """Each wired harness's checks, then the hook server's line."""
    return [*doctor_checks(root, project), server_state()]
