"""``baton demo``: the five-minute handoff in a temporary git project."""

from __future__ import annotations

import argparse
import contextlib
import io

from baton.cli import main
from baton.demo import run_demo


def demo(args: argparse.Namespace):
    if args.json:
        with contextlib.redirect_stdout(io.StringIO()):
            return run_demo(main, keep=args.keep)
    return run_demo(main, keep=args.keep)
