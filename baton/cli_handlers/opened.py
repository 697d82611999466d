"""Running a handler on an opened project: one ``Baton``, built once and closed when the command is done."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from baton.app import Baton


def run_on_project(handler: Callable[[Baton, argparse.Namespace], Any], args: argparse.Namespace,
                   show: Callable[[Any], None] | None = None) -> Any:
    """The handler's result, handed to ``show`` (its printing) before the
    project is closed: a result printed as it is read (``baton log``) reads
    the ledger while it prints."""
    with Baton.open(args.project) as app:
        # The project's policy, loaded before the command runs: a malformed
        # policy section or policy.json stops it (exit 2), as a malformed
        # config.json does, instead of being silently replaced by the defaults.
        args.output_policy = app.project.policy.redaction
        args.opened = app.project
        if sys.stderr.isatty():
            app.project.on_wait = say_waiting
        result = handler(app, args)
        if show is not None:
            show(result)
        return result


def say_waiting() -> None:
    sys.stderr.write("baton: waiting for another baton process to let go of the ledger (a catch-up in the "
                     "background replays a large one in seconds)...\n")
    sys.stderr.flush()
