"""``baton status serve``: the status page and its API on loopback, until Ctrl-C."""

from __future__ import annotations

import argparse
import sys

from baton.cli_handlers.output import print_json
from baton.web.server import serve_status_page


def status_serve(args: argparse.Namespace):
    def announce(info: dict) -> None:
        if args.json:
            print_json(info)
        else:
            print(f"Serving Baton status for {info['root']} at {info['url']} (Ctrl-C to stop)")
        sys.stdout.flush()

    return serve_status_page(args.project, host=args.host, port=args.port, on_ready=announce)
