"""``install-hooks``: write (or take out) a harness's wiring."""

from __future__ import annotations

import argparse
import sys

import attrs

from baton.cli_handlers.output import output_policy
from baton.domain.redaction import screen_text
from baton.errors import InputError
from baton.harnesses.install import default_wiring, parse_events
from baton.harnesses.install import install_hooks as write_hooks
from baton.harnesses.wiring import remove_wiring
from baton.project import named_elsewhere, resolve_root, resolve_worktree


def install_hooks(args: argparse.Namespace):
    events = parse_events(args.events) if not args.remove else ()
    root = resolve_root(args.project)
    worktree = resolve_worktree(root, args.project)
    if args.remove:
        if args.command is not None:
            raise InputError("--command has no meaning with --remove: Baton's hooks are found whatever they run")
        if args.events is not None:
            raise InputError("--events has no meaning with --remove: it takes out all of Baton's hooks")
        if args.user_level:
            raise InputError("--user-level has no meaning with --remove: it takes Baton's part out wherever it is")
        return remove_wiring(root, args.harness, dry_run=args.dry_run, worktree=worktree)
    command, hook_command, kept_for = (default_wiring(worktree or root, args.harness) if args.command is None
                                       else (args.command, None, ()))
    result = write_hooks(root, args.harness, dry_run=args.dry_run, command=command, worktree=worktree,
                         events=events, hook_command=hook_command, user_level=args.user_level, kept_for=kept_for)
    if result.warnings:
        for line in result.warnings:
            print(f"baton: {screen_text(line, output_policy())}", file=sys.stderr)
    elsewhere = named_elsewhere(args.project)
    return attrs.evolve(result, named_by=elsewhere[0]) if elsewhere else result
