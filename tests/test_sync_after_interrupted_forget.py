"""``baton sync`` after a ``baton forget`` killed before its rewrite (tester-use20 T4): the sync
finishes the erasure first, so the text the user asked to forget is never published.

The forget is a real process killed with SIGKILL right after its ``handoff.forgotten`` append
(``tests/test_forget.py``'s seam); the remote is a real bare repository.
"""

from __future__ import annotations

import json
from pathlib import Path

from dulwich.repo import Repo

from baton.commands import forget
from tests.cli_support import run, run_json
from tests.conftest import run_baton
from tests.sync_support import REF, make_team
from tests.test_forget import SECRET_TEXT, _forget_killed_after_its_record, files_holding, handoff_of_baton


def _ref_blobs(repo_path: Path) -> list[bytes]:
    """Every blob the ledger ref's tree holds (every feed segment, head and signature)."""
    with Repo(str(repo_path)) as repo:
        sha = repo.refs.as_dict().get(REF)
        if sha is None:
            return []
        out, todo = [], [repo[repo[sha].tree]]
        while todo:
            for entry in todo.pop().items():
                obj = repo[entry.sha]
                if obj.type_name == b"tree":
                    todo.append(obj)
                else:
                    out.append(obj.data)
        return out


def _published_by_a_sync(remote: Path, a: Path) -> list[bytes]:
    """``baton sync`` run in ``a`` (it succeeds), then every blob the remote's ledger ref holds."""
    done = run_baton("sync", cwd=a)
    assert done.returncode == 0, done.stderr
    return _ref_blobs(remote)


def _interrupted(capsys, tmp_path: Path, *, by_an_older_baton: bool = False) -> tuple[Path, Path, str]:
    """A handoff whose forget was killed before its rewrite: (the remote, the clone, the handoff's id).
    ``by_an_older_baton``: killed in a Baton that wrote no ``.baton/forget.pending``: the ledger holds
    its ``handoff.forgotten`` and the payloads it names, and nothing else says so."""
    remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "session", "end", "s1", "--handoff-steps", f"{SECRET_TEXT} step", "--owner", "al",
             "--branch", "main")
    handoff = handoff_of_baton(capsys, a)
    _forget_killed_after_its_record(a, handoff[-8:])
    assert files_holding(a / ".baton" / "ledger", SECRET_TEXT)
    if by_an_older_baton:
        (a / ".baton" / "forget.pending").unlink()
    return remote, a, handoff


def test_a_sync_after_an_interrupted_forget_publishes_none_of_the_text_it_was_erasing(capsys, tmp_path):
    remote, a, _handoff = _interrupted(capsys, tmp_path)
    published = _published_by_a_sync(remote, a)
    assert published and not [b for b in published if SECRET_TEXT.encode() in b]


def test_the_sync_finishes_the_interrupted_forget_and_says_so(capsys, tmp_path):
    _remote, a, handoff = _interrupted(capsys, tmp_path)
    done = run_baton("sync", cwd=a)
    assert f"Finished the interrupted `baton forget` of handoff {handoff} before publishing" in done.stdout
    assert files_holding(a / ".baton" / "ledger", SECRET_TEXT) == []
    assert run_json(capsys, a, "verify")["unfinished_forgets"] == []
    assert not (a / ".baton" / "forget.pending").exists()


def test_sync_json_names_the_forget_it_finished(capsys, tmp_path):
    _remote, a, handoff = _interrupted(capsys, tmp_path)
    result = run_json(capsys, a, "sync")
    assert [f["handoff"] for f in result["finished_forgets"]] == [handoff]
    assert result["finished_forgets"][0]["payloads"] > 0


def test_a_forget_that_finished_leaves_nothing_for_sync_to_finish(capsys, tmp_path):
    _remote, a, handoff = _interrupted(capsys, tmp_path)
    run_json(capsys, a, "forget", handoff[-8:], "--yes")
    assert not (a / ".baton" / "forget.pending").exists()
    assert run_json(capsys, a, "sync")["finished_forgets"] == []


def test_a_sync_after_a_forget_an_older_baton_left_unfinished_publishes_none_of_its_text(capsys, tmp_path):
    remote, a, _handoff = _interrupted(capsys, tmp_path, by_an_older_baton=True)
    published = _published_by_a_sync(remote, a)
    assert published and not [b for b in published if SECRET_TEXT.encode() in b]


def test_the_sync_finishes_a_forget_an_older_baton_left_unfinished_and_says_so(capsys, tmp_path):
    _remote, a, handoff = _interrupted(capsys, tmp_path, by_an_older_baton=True)
    result = run_json(capsys, a, "sync")
    assert [f["handoff"] for f in result["finished_forgets"]] == [handoff]
    assert files_holding(a / ".baton" / "ledger", SECRET_TEXT) == []
    assert run_json(capsys, a, "verify")["unfinished_forgets"] == []


def test_forgetting_again_finishes_a_forget_an_older_baton_left_unfinished(capsys, tmp_path):
    _remote, a, handoff = _interrupted(capsys, tmp_path, by_an_older_baton=True)
    run_json(capsys, a, "forget", handoff[-8:], "--yes")
    assert files_holding(a / ".baton" / "ledger", SECRET_TEXT) == []
    assert run_json(capsys, a, "sync")["finished_forgets"] == []


def test_a_sync_after_a_finished_forget_finishes_nothing_and_the_next_one_neither(capsys, tmp_path):
    _remote, a, handoff = _interrupted(capsys, tmp_path)
    run_json(capsys, a, "forget", handoff[-8:], "--yes")
    assert run_json(capsys, a, "sync")["finished_forgets"] == []
    assert run_json(capsys, a, "sync")["finished_forgets"] == []


def _published_unfinished_by_an_older_sync(capsys, tmp_path: Path, monkeypatch) -> tuple[Path, Path, str]:
    """A forget clone ``a`` left unfinished (by an older Baton), then published by an older Baton's sync,
    one that did not finish it first: (clone ``a``, clone ``b`` of the same team, the handoff's id)."""
    _remote, a, handoff = _interrupted(capsys, tmp_path, by_an_older_baton=True)
    with monkeypatch.context() as older:
        older.setattr(forget, "finish_interrupted", lambda project: [])  # the older Baton's sync
        run_json(capsys, a, "sync")
    return a, tmp_path / "b", handoff


def test_a_sync_leaves_another_clones_unfinished_forget_to_that_clone(capsys, tmp_path, monkeypatch):
    """A forget clone ``a`` left unfinished, published by an older Baton's sync (one that did not
    finish it first), is ``a``'s to finish: ``b``'s sync records no ``handoff.forgotten`` of its own
    for it (its user forgot nothing); ``a``'s next sync finishes it."""
    a, b, handoff = _published_unfinished_by_an_older_sync(capsys, tmp_path, monkeypatch)
    for _ in range(2):  # the import, then a sync that finds the imported forget unfinished
        assert run_json(capsys, b, "sync")["finished_forgets"] == []
    assert files_holding(b / ".baton" / "ledger", SECRET_TEXT)  # a's feed as a published it, whole
    writer = json.loads((b / ".baton" / "local.json").read_text())["writer"]
    assert b"handoff.forgotten" not in (b / ".baton" / "ledger" / f"{writer}.jsonl").read_bytes()
    assert [f["handoff"] for f in run_json(capsys, a, "sync")["finished_forgets"]] == [handoff]
    run_json(capsys, b, "sync")  # a's erasure, fetched
    assert files_holding(b / ".baton" / "ledger", SECRET_TEXT) == []


def test_verify_and_doctor_say_another_clones_unfinished_forget_is_that_clones_to_finish(capsys, tmp_path, monkeypatch):
    a, b, handoff = _published_unfinished_by_an_older_sync(capsys, tmp_path, monkeypatch)
    run_json(capsys, b, "sync")
    verified = run_json(capsys, b, "verify")
    assert verified["unfinished_forgets_of_other_clones"] == [handoff]
    assert [f["handoff"] for f in verified["unfinished_forgets"]] == [handoff]
    _code, out, _err = run(capsys, b, "doctor", "--json")
    checks = [c for c in json.loads(out)["checks"] if c["name"] == "forget"]
    assert checks and "that clone's next `baton sync` finishes it" in checks[0]["detail"]
    assert run_json(capsys, a, "verify")["unfinished_forgets_of_other_clones"] == []
