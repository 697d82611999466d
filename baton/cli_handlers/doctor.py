"""``baton doctor``: the installation, the project and each harness wired here."""

from __future__ import annotations

import argparse
import sys

from baton.app import Baton
from baton.cli_handlers.opened import say_waiting
from baton.harnesses.wiring import doctor_checks
from baton.launch import server_state


def doctor(args: argparse.Namespace):
    return Baton.doctor(args.project, extra=_checks, on_wait=say_waiting if sys.stderr.isatty() else None)


def _checks(root, project) -> list[tuple[str, str, str]]:
    """Each wired harness's checks, then the hook server's line."""
    return [*doctor_checks(root, project), server_state()]
