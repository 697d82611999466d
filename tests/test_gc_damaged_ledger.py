"""``baton gc`` never removes the only readable view of a damaged ledger (tester26 T5), nor
what it cannot rebuild: the marks of batons a session start claimed before any prompt."""

from __future__ import annotations

import json

from baton.commands.gc import UNPROMPTED
from baton.harnesses.hook import UNPROMPTED as HOOK_UNPROMPTED
from tests.conftest import run_baton


def _damage_a_middle_line(project) -> None:
    feed = next((project / ".baton" / "ledger").glob("*.jsonl"))
    lines = feed.read_bytes().split(b"\n")
    middle = len(lines) // 2
    at = lines[middle].index(b'"session":"') + len(b'"session":"')
    lines[middle] = lines[middle][:at] + b"X" + lines[middle][at + 1:]
    feed.write_bytes(b"\n".join(lines))


def _sessions(project, count: int = 4) -> None:
    for n in range(count):
        r = run_baton("session", "begin", f"s{n}", "--project", str(project))
        assert r.returncode == 0, r.stderr


def test_gc_on_a_ledger_that_fails_verify_removes_nothing_and_names_verify_and_repair(project):
    _sessions(project)
    _damage_a_middle_line(project)
    assert run_baton("verify", "--project", str(project)).returncode == 3

    r = run_baton("gc", "--project", str(project))

    assert r.returncode == 3
    assert "gc removed nothing" in r.stderr
    assert "`baton verify`" in r.stderr and "`baton repair`" in r.stderr
    assert (project / ".baton" / "index.sqlite").exists()
    assert run_baton("status", "--project", str(project)).returncode == 0  # the index still answers


def test_gc_json_on_a_damaged_ledger_answers_ledger_corrupt(project):
    _sessions(project)
    _damage_a_middle_line(project)

    r = run_baton("gc", "--json", "--project", str(project))

    assert r.returncode == 3
    assert json.loads(r.stdout)["error"]["code"] == "ledger_corrupt"
    assert (project / ".baton" / "index.sqlite").exists()


def test_gc_dry_run_on_a_damaged_ledger_says_gc_would_remove_nothing(project):
    _sessions(project)
    _damage_a_middle_line(project)

    r = run_baton("gc", "--dry-run", "--project", str(project))

    assert r.returncode == 3 and "gc removed nothing" in r.stderr
    assert "Would remove" not in r.stdout


def test_gc_removes_the_index_once_repair_set_the_damage_aside(project):
    _sessions(project)
    _damage_a_middle_line(project)
    assert run_baton("repair", "--yes", "--project", str(project)).returncode == 0

    r = run_baton("gc", "--project", str(project))

    assert r.returncode == 0, r.stderr
    assert not (project / ".baton" / "index.sqlite").exists()
    assert run_baton("status", "--project", str(project)).returncode == 0


def test_gc_keeps_the_marks_of_batons_claimed_before_any_prompt(project):
    marks = project / ".baton" / "cache" / "unprompted"
    marks.mkdir(parents=True)
    (marks / "sess-1").write_text("0193-baton\n")
    (project / ".baton" / "cache" / "identity.json").write_text("{}")

    r = run_baton("gc", "--json", "--project", str(project))

    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (marks / "sess-1").read_text() == "0193-baton\n"
    assert not (project / ".baton" / "cache" / "identity.json").exists()
    assert [k["path"] for k in out["kept"]] == [".baton/cache/unprompted"]
    assert "claimed before any prompt" in out["kept"][0]["reason"]


def test_gc_spares_the_folder_the_hooks_leave_their_marks_in():
    assert HOOK_UNPROMPTED == (".baton", "cache", UNPROMPTED)
