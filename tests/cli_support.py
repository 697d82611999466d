"""Drive the real command line in-process (``baton.cli.main``), as a user types it.

Tests written this way hold the CLI's behaviour — exit codes, printed text,
the ``--json`` shapes — whatever the modules behind it look like.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from baton.cli import main


def run(capsys, project: Path, *args: str) -> tuple[int, str, str]:
    """``baton ARGS --project PROJECT``; returns (exit code, stdout, stderr)."""
    capsys.readouterr()  # drop anything printed before
    code = main([*args, "--project", str(project)])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, project: Path, *args: str, expect: int = 0) -> Any:
    """``baton ARGS --json --project PROJECT``, asserting the exit code; returns the parsed JSON."""
    code, out, err = run(capsys, project, *args, "--json")
    assert code == expect, (code, out, err)
    return json.loads(out)


def ledger_size(project: Path) -> int:
    """Lines in every feed: what a refused command must leave unchanged."""
    return sum(len(p.read_bytes().splitlines()) for p in (project / ".baton" / "ledger").glob("*.jsonl"))
