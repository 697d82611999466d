"""``baton status``: pending batons and the latest handoffs, as the status API object."""

from __future__ import annotations

import argparse

from baton.app import Baton


def status(app: Baton, args: argparse.Namespace):
    return app.status_overview()
