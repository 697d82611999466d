"""Lineage: fork, merge and the graph."""

from __future__ import annotations

import argparse

from baton.app import Baton
from baton.cli_read import read_bounded
from baton.domain.lineage import resolution_from_text


def fork(app: Baton, args: argparse.Namespace):
    return app.fork(args.id, label=args.label, session=args.session)


def merge(app: Baton, args: argparse.Namespace):
    resolution = None
    if args.resolution_file is not None:
        resolution = resolution_from_text(read_bounded(args.resolution_file, "--resolution-file").decode("utf-8"))
    return app.merge(list(args.ids), title=args.title, resolution=resolution, session=args.session)


def lineage(app: Baton, args: argparse.Namespace):
    return app.lineage(args.id, format=args.format, as_of=args.as_of)
