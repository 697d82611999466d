"""`baton man`: the manual page installed with this Baton, readable however it was installed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from baton import manual
from baton.errors import NotFound

ROOT = Path(__file__).resolve().parent.parent


def _baton(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "baton", *args], capture_output=True, text=True, timeout=60)


def test_man_prints_the_roff_source_of_the_page() -> None:
    done = _baton("man")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(".TH BATON \"1\"")
    assert done.stdout.rstrip("\n") == (ROOT / "docs" / "baton.1").read_text(encoding="utf-8").rstrip("\n")


def test_man_path_names_an_existing_page() -> None:
    done = _baton("man", "--path")
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).is_file()


def test_man_json_gives_the_path_and_the_roff() -> None:
    out = json.loads(_baton("man", "--json").stdout)
    assert set(out) == {"path", "roff"}
    assert out["roff"].startswith(".TH BATON")
    assert set(json.loads(_baton("man", "--path", "--json").stdout)) == {"path"}


def test_the_environment_prefix_is_looked_in_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "share" / "man" / "man1" / "baton.1"
    page.parent.mkdir(parents=True)
    page.write_text(".TH BATON 1\n", encoding="utf-8")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    assert manual.manual_page_path() == page


def test_no_page_anywhere_is_not_found_naming_where_it_looked(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manual, "manual_page_candidates", lambda: [tmp_path / "a" / "baton.1"])
    with pytest.raises(NotFound, match=str(tmp_path / "a")):
        manual.manual_page_path()
