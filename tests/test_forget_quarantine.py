"""``baton forget`` reaches the lines ``baton repair`` set aside: a handoff whose
events went to ``.baton/quarantine/`` is still found and forgotten, its
payloads erased there as in the ledger, any other piece holding its text
blanked, and the manifest kept consistent with the copy (docs/ledger.md,
"Quarantine"; docs/security.md)."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import run_baton
from tests.ledger_support import own_feed

SECRET = "FORGET-ME-IN-QUARANTINE-91c2"


def _baton(project: Path, *args: str) -> subprocess.CompletedProcess:
    return run_baton(*args, "--project", str(project))


def _capture(project: Path, title: str, objective: str) -> str:
    r = run_baton("checkpoint", "create", "--title", title, "--objective", objective, "--json",
                  "--project", str(project))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    return out["handoff"]["id"] if "handoff" in out else out["id"]


def _set_aside_from(project: Path, marker: bytes) -> None:
    """Garbage replaces the first line holding ``marker``; ``baton repair --yes`` then sets it
    and every line after it aside."""
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if marker in line)
    feed.write_bytes(b"".join(lines[:at] + [b"garbage where an event was\n"] + lines[at + 1:]))
    assert _baton(project, "repair", "--yes").returncode == 0


def _holding(root: Path, text: str) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and text.encode() in p.read_bytes())


def _copy_and_manifest(project: Path) -> tuple[Path, dict]:
    [copy] = (project / ".baton" / "quarantine").glob("*.repair")
    return copy, orjson.loads(copy.with_name(copy.name.replace(".repair", ".manifest.json")).read_bytes())


@pytest.fixture
def set_aside(project):
    """A handoff captured after another one whose first event garbage replaced: a repair set
    every event of the second handoff aside, and no projection shows it any more."""
    _capture(project, "the first", "before the damage")
    handoff = _capture(project, f"title {SECRET}", f"objective {SECRET}")
    _set_aside_from(project, b'"the first"')
    assert _holding(project / ".baton", SECRET) == [f"quarantine/{_copy_and_manifest(project)[0].name}"]
    return project, handoff


def test_a_handoff_whose_events_a_repair_set_aside_is_forgotten_there(set_aside):
    project, handoff = set_aside
    r = run_baton("forget", handoff, "--yes", "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    copy, _ = _copy_and_manifest(project)
    assert out["forgotten"] is True and out["erased_quarantine"] == {copy.name: 1}
    assert _holding(project / ".baton", SECRET) == []
    assert _baton(project, "verify").returncode == 0


def test_the_forgotten_event_keeps_its_hash_and_digest_in_the_quarantine_copy(set_aside):
    project, handoff = set_aside
    copy, manifest = _copy_and_manifest(project)
    before = [json.loads(line) for line in copy.read_bytes().splitlines()[1:]]
    assert _baton(project, "forget", handoff, "--yes").returncode == 0
    after = [json.loads(line) for line in copy.read_bytes().splitlines()[1:]]
    assert [(e["id"], e["hash"], e["digest"]) for e in after] == [(e["id"], e["hash"], e["digest"]) for e in before]
    assert all("data" not in e for e in after if e["stream"] == f"handoff/{handoff}")


def test_the_manifest_matches_the_copy_after_a_forget(set_aside):
    project, handoff = set_aside
    assert _baton(project, "forget", handoff, "--yes").returncode == 0
    copy, manifest = _copy_and_manifest(project)
    raw = copy.read_bytes()
    assert manifest["sha256"] == hashlib.sha256(raw).hexdigest()
    assert manifest["bytes"] == len(raw) == sum(item["bytes"] for item in manifest["set_aside"])
    assert manifest["forgotten"] == [handoff]
    assert [item.get("forgotten") for item in manifest["set_aside"]] == [None, "erased"]


def test_forget_says_what_it_erased_in_the_quarantine(set_aside):
    project, handoff = set_aside
    r = _baton(project, "forget", handoff, "--yes")
    assert r.returncode == 0 and "erased 1 line of it that `baton repair` had set aside, in .baton/quarantine/" in r.stdout


def test_a_piece_of_garbage_holding_the_text_is_blanked_and_the_rest_of_the_copy_kept(project):
    handoff = _capture(project, f"title {SECRET}", "kept in the ledger")
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if SECRET.encode() in line)
    half = lines[at][: len(lines[at]) // 2] + b"\n"  # a half-line of the handoff glued in after it
    feed.write_bytes(b"".join(lines[:at + 1] + [b"unrelated garbage\n", half] + lines[at + 1:]))
    assert _baton(project, "repair", "--yes").returncode == 0
    copy, _ = _copy_and_manifest(project)
    assert copy.read_bytes() == b"unrelated garbage\n" + half

    assert _baton(project, "forget", handoff, "--yes").returncode == 0
    copy, manifest = _copy_and_manifest(project)
    assert copy.read_bytes() == b"unrelated garbage\n"
    assert [(i["bytes"], i.get("forgotten")) for i in manifest["set_aside"]] == [(18, None), (0, "blanked")]
    assert _holding(project / ".baton", SECRET) == []


def test_another_handoffs_lines_in_the_quarantine_are_left_byte_for_byte(project):
    _capture(project, "the first", "before the damage")
    kept = _capture(project, "another one", "UNRELATED-TEXT-STAYS-4411")
    forgotten = _capture(project, f"title {SECRET}", f"objective {SECRET}")
    _set_aside_from(project, b'"the first"')
    copy, _ = _copy_and_manifest(project)
    theirs = [line for line in copy.read_bytes().splitlines(keepends=True) if kept.encode() in line]
    assert _baton(project, "forget", forgotten, "--yes").returncode == 0
    assert [line for line in copy.read_bytes().splitlines(keepends=True) if kept.encode() in line] == theirs


def test_a_forget_run_again_reaches_a_copy_still_holding_what_the_ledger_had_erased(project):
    handoff = _capture(project, f"title {SECRET}", "objective")
    [line] = [line for line in own_feed(project).read_bytes().splitlines(keepends=True) if SECRET.encode() in line]
    assert _baton(project, "forget", handoff, "--yes").returncode == 0
    quarantine = project / ".baton" / "quarantine"
    quarantine.mkdir(exist_ok=True)
    (quarantine / "w.9.copied.repair").write_bytes(line)  # a copy set aside before the forget, by another clone

    r = run_baton("forget", handoff, "--yes", "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["erased_quarantine"] == {"w.9.copied.repair": 1}
    assert _holding(project / ".baton", SECRET) == []


KILLED_FORGET = r"""
import os, signal, sys
import baton.ledger.quarantined as quarantined
from baton.cli import main

real = quarantined._replace


def replace(path, data):
    real(path, data)
    if path.name.endswith(".manifest.json"):  # the manifest updated, the copy not yet
        os.kill(os.getpid(), signal.SIGKILL)


quarantined._replace = replace
sys.exit(main(["forget", sys.argv[1], "--yes", "--project", sys.argv[2]]))
"""


@pytest.mark.slow
def test_a_forget_killed_between_the_manifest_and_the_copy_is_finished_by_running_it_again(set_aside):
    project, handoff = set_aside
    child = subprocess.run([sys.executable, "-c", KILLED_FORGET, handoff, str(project)], capture_output=True,
                           timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    assert _holding(project / ".baton", SECRET)  # the copy still holds it

    assert _baton(project, "forget", handoff, "--yes").returncode == 0
    copy, manifest = _copy_and_manifest(project)
    assert _holding(project / ".baton", SECRET) == []
    assert manifest["sha256"] == hashlib.sha256(copy.read_bytes()).hexdigest()
    assert _baton(project, "verify").returncode == 0


def test_a_teammates_forget_brought_in_by_sync_erases_the_copy_a_repair_set_aside_here(capsys, tmp_path):
    from tests.cli_support import run, run_json
    from tests.sync_support import make_team, writer_of

    _remote, a, b = make_team(tmp_path)
    out = run_json(capsys, a, "checkpoint", "create", "--title", f"title {SECRET}", "--objective", "o")
    handoff = out["handoff"]["id"] if "handoff" in out else out["id"]
    assert run(capsys, a, "sync")[0] == 0
    assert run(capsys, b, "sync")[0] == 0
    copy_of_a = b / ".baton" / "ledger" / f"{writer_of(a)}.jsonl"
    lines = copy_of_a.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if SECRET.encode() in line)
    copy_of_a.write_bytes(b"".join(lines[:at + 1] + [lines[at]] + lines[at + 1:]))  # a line repeated in b's copy
    assert run(capsys, b, "repair", "--yes")[0] == 0
    assert f"quarantine/{_copy_and_manifest(b)[0].name}" in _holding(b / ".baton", SECRET)

    run_json(capsys, a, "forget", handoff, "--yes")
    assert run(capsys, a, "sync")[0] == 0
    assert run(capsys, b, "sync")[0] == 0
    assert _holding(b / ".baton", SECRET) == []
    copy, manifest = _copy_and_manifest(b)
    assert manifest["sha256"] == hashlib.sha256(copy.read_bytes()).hexdigest()
    assert [item.get("forgotten") for item in manifest["set_aside"]] == ["erased"]
    assert run(capsys, b, "verify")[0] == 0


KILLED_BEFORE_RENAME = r"""
import os, signal, sys
real = os.replace


def replace(src, dst, *args, **kwargs):
    if os.path.basename(str(src)).startswith(".forget."):  # the new copy written, not renamed yet
        os.kill(os.getpid(), signal.SIGKILL)
    return real(src, dst, *args, **kwargs)


os.replace = replace
from baton.cli import main
sys.exit(main(["forget", sys.argv[1], "--yes", "--project", sys.argv[2]]))
"""


@pytest.mark.slow
def test_the_temporary_copy_a_forget_killed_before_its_rename_left_is_named_by_verify_and_removed_by_rebuild(set_aside):
    project, handoff = set_aside
    child = subprocess.run([sys.executable, "-c", KILLED_BEFORE_RENAME, handoff, str(project)], capture_output=True,
                           timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    [leftover] = (project / ".baton" / "quarantine").glob(".forget.*")
    verified = json.loads(run_baton("verify", "--json", "--project", str(project)).stdout)
    assert verified["leftovers"] == [f"quarantine/{leftover.name}"]
    assert _baton(project, "rebuild").returncode == 0
    assert not leftover.exists()
    assert _baton(project, "forget", handoff, "--yes").returncode == 0
    assert _holding(project / ".baton", SECRET) == []
