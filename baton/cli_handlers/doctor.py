"""``baton doctor``: the installation, the project and each harness wired here."""

from __future__ import annotations

import argparse

from baton.app import Baton
from baton.harnesses.wiring import doctor_checks


def doctor(args: argparse.Namespace):
    return Baton.doctor(args.project, extra=doctor_checks)
