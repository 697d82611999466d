"""The ``baton`` command line: parse, call one function of ``baton.commands``,
print. No decisions are made here.

Every command takes ``--json`` (a stable shape on stdout) and ``--project``.
Errors go to stderr as one line, never a traceback (``BATON_DEBUG=1`` shows
one); with ``--json`` the error object is also printed on stdout. Exit codes:
0 ok, 2 input error, 3 validation failure, 4 not found or conflict, 5 policy
block, 1 anything else. Heavy modules are imported inside the handlers so
``baton --help`` stays fast in hooks.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable, Sequence

from baton import __version__

Handler = Callable[[argparse.Namespace], Any]


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print a stable JSON result on stdout")
    common.add_argument("--project", metavar="DIR", default=argparse.SUPPRESS,
                        help="project root (default: $BATON_PROJECT, else the git top level, else the current directory)")
    return common


def _progress(label: str):
    """A progress display on a terminal; nothing when stderr is not one."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        sys.stderr.write(f"\r{label} {done}/{total} events")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


# -- ledger core -------------------------------------------------------------

def _init(args: argparse.Namespace):
    from baton.commands.init import init_project

    return init_project(args.project, project_id=args.project_id)


def _log(args: argparse.Namespace):
    from baton.commands.log import ledger_log

    return ledger_log(args.project, event_type=args.type, stream=args.stream,
                      since=args.since, until=args.until, limit=args.limit)


def _verify(args: argparse.Namespace):
    from baton.commands.verify import verify_project

    return verify_project(args.project)


def _rebuild(args: argparse.Namespace):
    from baton.commands.rebuild import rebuild_projections

    return rebuild_projections(args.project, until=args.until,
                               progress=None if args.json else _progress("replaying"))


def _doctor(args: argparse.Namespace):
    from baton.commands.doctor import diagnose

    return diagnose(args.project)


def _gc(args: argparse.Namespace):
    from baton.commands.gc import collect_garbage

    return collect_garbage(args.project, dry_run=args.dry_run)


def add_ledger_commands(sub, common) -> None:
    p = sub.add_parser("init", parents=[common], help="make this directory a Baton project",
                       description="Create .baton/ (config, ledger, ignore file) and record the first event. "
                                   "Running it again changes nothing. Never touches global git configuration.")
    p.add_argument("--project-id", metavar="ID", help="use this project id instead of a new UUIDv7")
    p.set_defaults(func=_init)

    p = sub.add_parser("log", parents=[common], help="show the project's events in ledger order",
                       description="Events merged across every feed by (hlc, writer, seq). "
                                   "With --json, one event per line.")
    p.add_argument("--type", metavar="T", help="event type, exact or a glob such as 'handoff.*'")
    p.add_argument("--stream", metavar="S", help="stream, exact or a glob such as 'baton/*'")
    p.add_argument("--since", metavar="X", help="only events after this event id or RFC 3339 time")
    p.add_argument("--until", metavar="X", help="only events up to this event id or RFC 3339 time")
    p.add_argument("--limit", metavar="N", type=int, help="only the last N matching events")
    p.set_defaults(func=_log)

    p = sub.add_parser("verify", parents=[common], help="check every feed's hash chain",
                       description="Check every feed's chain, digests, sequence gaps and forks, and every "
                                   "stream's versions. Exit 0 when all hold, 3 when any does not.")
    p.set_defaults(func=_verify)

    p = sub.add_parser("rebuild", parents=[common], help="drop and replay every projection",
                       description="Drop every projection and replay the ledger. With --until, show the "
                                   "project as of that event or time (the index stays pinned there until "
                                   "a plain rebuild).")
    p.add_argument("--until", metavar="ID|TIME", help="stop after this event id, or at this RFC 3339 time")
    p.set_defaults(func=_rebuild)

    p = sub.add_parser("doctor", parents=[common], help="check the installation and the project",
                       description="Report what Baton sees here: versions, git, config, ledger, index.")
    p.set_defaults(func=_doctor)

    p = sub.add_parser("gc", parents=[common], help="remove rebuildable caches (index, cache/)",
                       description="Remove only rebuildable local data: index.sqlite and .baton/cache/. "
                                   "Never the ledger, quarantine or materialized records.")
    p.add_argument("--dry-run", action="store_true", help="say what would be removed; remove nothing")
    p.set_defaults(func=_gc)


COMMAND_GROUPS: list[Callable[[Any, argparse.ArgumentParser], None]] = [
    add_ledger_commands,
]


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(
        prog="baton",
        description="Portable, verified continuity for AI coding agents: structured handoffs "
                    "in an append-only, hash-chained ledger.",
        epilog="Exit codes: 0 ok, 2 input error, 3 validation failure, 4 not found or conflict, "
               "5 policy block.",
    )
    parser.add_argument("--version", action="version", version=f"baton {__version__}")
    parser.add_argument("--json", action="store_true", help="print a stable JSON result on stdout")
    parser.add_argument("--project", metavar="DIR", help="project root")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in COMMAND_GROUPS:
        add(sub, common)
    return parser


def _print_json(value: Any) -> None:
    import orjson

    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    from baton.errors import BatonError

    try:
        result = args.func(args)
        if args.json:
            lines = getattr(result, "json_lines", None)
            if lines is not None:
                text = lines()
                if text:
                    sys.stdout.write(text + "\n")
            else:
                _print_json(result.to_json())
        else:
            text = result.render()
            if text:
                print(text)
        sys.stdout.flush()
        return int(getattr(result, "exit_code", 0))
    except BatonError as exc:
        if getattr(args, "json", False):
            _print_json({"error": exc.to_json()})
        print(f"baton: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("baton: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no tracebacks for users
        if os.environ.get("BATON_DEBUG"):
            raise
        if getattr(args, "json", False):
            _print_json({"error": {"code": "internal_error", "message": str(exc), "exit_code": 1}})
        print(f"baton: internal error: {type(exc).__name__}: {exc} (set BATON_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return 1
