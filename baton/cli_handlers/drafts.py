"""Writing a draft's content: ``checkpoint create`` and ``handoff amend`` (the content flags, ``--input``)."""

from __future__ import annotations

import argparse

import attrs

from baton.app import Baton
from baton.cli import REPLACE_FLAGS
from baton.cli_handlers.output import Noted
from baton.cli_handlers.record_fields import CONTENT_DESTS, lacking_note, name_item_flags, name_redactions
from baton.cli_input import (
    ContentOptions,
    amend_inputs,
    capture_payload,
    cwd_in_worktree,
    read_replacement_list,
    terminal_prompter,
)
from baton.errors import HandoffInputError


def _content(args: argparse.Namespace, app: Baton):
    """The content flags; their project paths are taken from the current directory."""
    return ContentOptions(
        title=args.title, objective=args.objective, scope=args.scope or (), constraints=args.constraint or (),
        definition_of_done=args.done or (), work_state=args.work_state, completed=args.completed or (),
        in_progress=args.in_progress or (), discoveries=args.discovery or (), current_state=args.current_state,
        why_it_matters=args.why_it_matters, decisions=args.decision or (), artifacts=args.artifact or (),
        evidence=args.evidence or (), failed_attempts=args.failed_attempt or (), open_items=args.open_item or (),
        risks=args.risk or (), harness=args.harness, model=args.model, actor_type=args.actor_type,
        base=cwd_in_worktree(app.project.paths.worktree), root=str(app.project.paths.worktree),
    )


MISSING_FLAGS = {"work: required": "--title (what the work is) and --objective (what done looks like)",
                 "work.title: required": "--title (what the work is)",
                 "work.objective: required": "--objective (what done looks like)"}
"""A capture from flags alone: the payload paths a missing flag shows up as, and the flags to give."""


def checkpoint_create(app: Baton, args: argparse.Namespace):
    prompter = None if args.no_input or args.input == "-" else terminal_prompter()
    payload = capture_payload(_content(args, app), input_source=args.input, prompter=prompter)
    try:
        # ``--harness ""`` reaches the one identifier screen (refused there, as every command refuses it)
        # rather than being dropped from the payload as no harness.
        given = {"harness": args.harness} if args.harness is not None else None
        captured = app.capture(payload, parent=args.from_id, trigger=args.trigger, origin=given, session=args.session)
    except HandoffInputError as exc:
        flags = [MISSING_FLAGS[p] for p in exc.problems if p in MISSING_FLAGS]
        if args.input is not None or not flags:
            raise name_item_flags(exc, vars(args)) from None
        rest = [p for p in exc.problems if p not in MISSING_FLAGS]
        raise HandoffInputError(rest, message=f"checkpoint create needs {' and '.join(flags)}") from None
    note = lacking_note(captured, captured.lacking)  # an open item given as plain text: validation will fail it
    return Noted(_named(captured, args), note) if note else _named(captured, args)


def _named(captured, args: argparse.Namespace):
    """``captured`` with each redaction in a field a flag filled naming that flag (``record_fields``)."""
    return attrs.evolve(captured, redactions=name_redactions(captured.redactions, vars(args), CONTENT_DESTS))


def handoff_amend(app: Baton, args: argparse.Namespace):
    # ``--no-input`` (never ask) holds trivially: an amendment asks nothing, on a
    # terminal or not — nothing is required of it that a question could fill in.
    lists = {section: read_replacement_list(section, getattr(args, "replace_" + section))
             for section in REPLACE_FLAGS if getattr(args, "replace_" + section, None) is not None}
    close, drop = args.close_item or (), args.drop or ()
    replacement, changes = amend_inputs(_content(args, app), input_source=args.input,
                                        edits=bool(lists or close or drop))
    try:
        amended = app.amend(args.id, replacement=replacement, changes=changes, session=args.session,
                            close_items=close, drop_items=drop, replace_lists=lists)
    except HandoffInputError as exc:  # an item a flag gave: that flag named after it
        raise name_item_flags(exc, vars(args)) from None
    return _named(amended, args)
