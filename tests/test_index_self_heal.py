"""The index is a cache: a damaged index.sqlite is moved aside and rebuilt from the ledger."""

from __future__ import annotations

import json

from tests.conftest import run_baton


def _capture(project) -> str:
    r = run_baton("checkpoint", "create", "--no-input", "--json", "--title", "Heal", "--objective", "o",
                  "--project", str(project))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["id"]


def test_a_garbage_index_is_rebuilt_by_the_next_command(project):
    handoff_id = _capture(project)
    (project / ".baton" / "index.sqlite").write_bytes(b"this is not a database" * 100)
    r = run_baton("handoff", "list", "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert handoff_id in r.stdout


def test_the_damaged_index_is_kept_aside_in_the_cache(project):
    _capture(project)
    (project / ".baton" / "index.sqlite").write_bytes(b"garbage")
    run_baton("handoff", "list", "--project", str(project))
    kept = list((project / ".baton" / "cache").glob("index.sqlite.damaged.*"))
    assert [p.read_bytes() for p in kept] == [b"garbage"]


def test_rebuild_recovers_from_a_garbage_index(project):
    _capture(project)
    (project / ".baton" / "index.sqlite").write_bytes(b"garbage")
    r = run_baton("rebuild", "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["documents"]["handoffs"] == 1


def test_an_index_replaced_by_a_directory_is_moved_aside_and_rebuilt(project):
    handoff_id = _capture(project)
    index = project / ".baton" / "index.sqlite"
    index.unlink()
    index.mkdir()
    (index / "x").write_text("x")
    r = run_baton("handoff", "list", "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert handoff_id in r.stdout
    assert index.is_file()
