"""The committed man page is generated from the parser and kept current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = ["--module", "baton.cli", "--function", "build_parser", "--prog", "baton", "--project-name", "baton",
           "--version", "0.1.0", "--description", "portable, verified continuity for AI coding agents",
           "--url", "https://baton.dev", "--manual-title", "Baton Manual",
           "--include", str(ROOT / "docs" / "baton.1.include")]


def _body(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith(".TH ")]


def test_the_man_page_matches_the_cli(tmp_path):
    out = tmp_path / "baton.1"
    r = subprocess.run([sys.executable, "-c", "import sys; from argparse_manpage.cli import main; sys.exit(main())", *COMMAND, "--output", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert _body(out.read_text()) == _body((ROOT / "docs" / "baton.1").read_text()), (
        "docs/baton.1 is stale: regenerate it with the command in docs/cli.md")


def test_the_man_page_has_the_sections_a_reader_looks_for():
    text = (ROOT / "docs" / "baton.1").read_text()
    assert "Generated Python Manual" not in text
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "ENVIRONMENT", "EXIT STATUS", "EXAMPLES", "FILES"):
        assert f".SH {section}" in text or f'.SH "{section}"' in text, section


def test_every_baton_variable_the_program_reads_is_in_the_man_page():
    import re

    read = set()
    for path in (ROOT / "baton").rglob("*.py"):
        read |= set(re.findall(r"environ(?:\.get)?\(?\[?[\"'](BATON_[A-Z_]+)", path.read_text()))
    read.discard("BATON_RECHECK")  # set by Baton for the commands it re-runs, not read from the user
    text = (ROOT / "docs" / "baton.1").read_text()
    assert read and all(name.replace("_", "_") in text for name in read), sorted(read)
