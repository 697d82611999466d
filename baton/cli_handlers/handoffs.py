"""The handoff lifecycle: checkpoint, prepare, validate, ready, list, show, amend, archive, resume."""

from __future__ import annotations

import argparse

from baton.app import Baton
from baton.cli import REPLACE_FLAGS
from baton.cli_input import ContentOptions, amend_inputs, capture_payload, read_replacement_list, terminal_prompter


def _content(args: argparse.Namespace):
    return ContentOptions(
        title=args.title, objective=args.objective, scope=args.scope or (), constraints=args.constraint or (),
        definition_of_done=args.done or (), work_state=args.work_state, completed=args.completed or (),
        in_progress=args.in_progress or (), discoveries=args.discovery or (), current_state=args.current_state,
        why_it_matters=args.why_it_matters, decisions=args.decision or (), artifacts=args.artifact or (),
        evidence=args.evidence or (), failed_attempts=args.failed_attempt or (), open_items=args.open_item or (),
        risks=args.risk or (), harness=args.harness, model=args.model, actor_type=args.actor_type,
    )


def checkpoint_create(app: Baton, args: argparse.Namespace):
    prompter = None if args.no_input or args.input == "-" else terminal_prompter()
    payload = capture_payload(_content(args), input_source=args.input, prompter=prompter)
    return app.capture(payload, parent=args.from_id, trigger=args.trigger, session=args.session)


def handoff_prepare(app: Baton, args: argparse.Namespace):
    return app.prepare(source=args.from_id, trigger=args.trigger, output=args.output, force=args.force)


def handoff_validate(app: Baton, args: argparse.Namespace):
    return app.validate(args.id, recheck=args.recheck)


def handoff_ready(app: Baton, args: argparse.Namespace):
    return app.promote(args.id, accept_warnings=args.accept_warnings)


def handoff_list(app: Baton, args: argparse.Namespace):
    return app.list_handoffs(status=args.status, work=args.work, limit=args.limit, kind=args.kind,
                             branch=args.branch)


def handoff_show(app: Baton, args: argparse.Namespace):
    return app.show(args.id, format=args.format, max_tokens=args.max_tokens, as_of=args.as_of)


def handoff_amend(app: Baton, args: argparse.Namespace):
    lists = {section: read_replacement_list(section, getattr(args, "replace_" + section))
             for section in REPLACE_FLAGS if getattr(args, "replace_" + section, None) is not None}
    close, drop = args.close_item or (), args.drop or ()
    replacement, changes = amend_inputs(_content(args), input_source=args.input,
                                        edits=bool(lists or close or drop))
    return app.amend(args.id, replacement=replacement, changes=changes, session=args.session,
                     close_items=close, drop_items=drop, replace_lists=lists)


def handoff_archive(app: Baton, args: argparse.Namespace):
    return app.archive(args.id, reason=args.reason)


def resume(app: Baton, args: argparse.Namespace):
    return app.resume(args.id, format=args.format, mark_resumed=args.mark_resumed, max_tokens=args.max_tokens,
                      session=args.session, harness=args.harness, any_branch=args.any_branch)
