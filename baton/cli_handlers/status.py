"""The status API object and the status page."""

from __future__ import annotations

import argparse
import sys

from baton.app import Baton
from baton.cli_handlers.output import print_json
from baton.web.server import serve_status_page


def status(app: Baton, args: argparse.Namespace):
    return app.status_overview()


def status_serve(args: argparse.Namespace):
    def announce(info: dict) -> None:
        if args.json:
            print_json(info)
        else:
            print(f"Serving Baton status for {info['root']} at {info['url']} (Ctrl-C to stop)")
        sys.stdout.flush()

    return serve_status_page(args.project, host=args.host, port=args.port, on_ready=announce)
