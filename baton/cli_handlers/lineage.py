"""Lineage: fork, merge and the graph."""

from __future__ import annotations

import argparse

import attrs

from baton.app import Baton
from baton.cli_handlers.output import Noted
from baton.cli_read import read_bounded
from baton.domain.lineage import resolution_from_text
from baton.domain.redaction.as_given import named_as_given
from baton.domain.short_ids import short_id


def fork(app: Baton, args: argparse.Namespace):
    return app.fork(args.id, label=args.label, session=args.session)


def merge(app: Baton, args: argparse.Namespace):
    resolution = None
    if args.resolution_file is not None:
        resolution = resolution_from_text(read_bounded(args.resolution_file, "--resolution-file").decode("utf-8"))
    merged = app.merge(list(args.ids), title=args.title, resolution=resolution, session=args.session)
    if not merged.given_as:
        return merged
    # Each redaction of what the person gave names the flag it came in, as a capture's does
    # (``record_fields.name_redactions``): ``--title``, or ``--resolution-file`` for its members.
    named = named_as_given(merged.capture.redactions,
                           lambda field: MERGE_FLAGS.get(merged.given_as.get(field, "").split(".", 1)[0]), "flag")
    return attrs.evolve(merged, capture=attrs.evolve(merged.capture, redactions=named))


MERGE_FLAGS = {"title": "--title", "resolution": "--resolution-file"}
"""The flag of each input a merge's ``given_as`` names (``lineage.merge_given_as``)."""


def lineage(app: Baton, args: argparse.Namespace):
    """Without ``--limit``, the newest 50 handoffs (``lineage.DEFAULT_LIMIT``); when the limit
    leaves some out, the view is followed by a line on stderr saying how many (``--json`` and
    ``--format json``: ``truncated``, ``more``, ``total``)."""
    result = app.lineage(args.id, format=args.format, as_of=args.as_of, limit=args.limit)
    if not result.more:
        return result
    total = result.total if result.total is not None else result.shown
    which = (f"the {result.shown} nearest {short_id(result.root)} of the {total:,} handoffs connected to it"
             if result.root else f"the newest {result.shown} of {total:,} handoffs")
    return Noted(result, f"{which} shown ({result.more:,} more); a larger --limit shows more, --limit 0 the "
                         "whole graph")
