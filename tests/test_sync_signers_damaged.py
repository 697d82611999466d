"""A damaged ``.baton/sync-signers.json`` (``baton sync``'s record of each feed's head, its
signature and the verdict on it) is handled as a damaged ``sync-state.json`` is: read as no
record at all, never half of one and never a traceback; ``baton status`` and ``baton doctor``
say what is wrong and what mends it, ``baton verify`` knows no verdict (and fails while
signatures are required), and the next ``baton sync`` checks every signature again and
writes the record afresh (docs/sync.md, "A damaged `sync-signers.json`").

Real ``ssh-keygen`` keys and a bare remote; one scene built once, its record put back after each test."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from baton.config import LOCAL_JSON_LIMIT
from tests.cli_support import run, run_here, run_json
from tests.sync_support import make_team
from tests.test_sync_signing import allow, keygen, require_signatures, sign_with, team_signers, writer

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")


def _cut_short(record: Path, outside: Path) -> None:
    record.write_bytes(record.read_bytes()[: record.stat().st_size // 2])


def _not_json(record: Path, outside: Path) -> None:
    record.write_text("{x")


def _wrong_type(record: Path, outside: Path) -> None:
    raw = json.loads(record.read_text())
    for entry in raw["feeds"].values():
        entry["seq"] = "7"
    record.write_text(json.dumps(raw))


def _missing_key(record: Path, outside: Path) -> None:
    raw = json.loads(record.read_text())
    for entry in raw["feeds"].values():
        del entry["status"]
    record.write_text(json.dumps(raw))


def _huge(record: Path, outside: Path) -> None:
    with open(record, "r+b") as fh:  # sparse: the size says it, no disk is spent on it
        fh.truncate(LOCAL_JSON_LIMIT + 1)


def _link_out(record: Path, outside: Path) -> None:
    outside.write_bytes(record.read_bytes())  # a sound record, but out of the project: never read
    record.unlink()
    record.symlink_to(outside)


DAMAGES = {
    "truncated": (_cut_short, "is not valid JSON"),
    "not JSON": (_not_json, "is not valid JSON"),
    "a wrong type": (_wrong_type, "is damaged: the `seq` of feed"),
    "a missing key": (_missing_key, "has no `status`"),
    "a huge file": (_huge, f"bytes, over the {LOCAL_JSON_LIMIT} it can hold: not read"),
    "a symlink out of the project": (_link_out, "is a symbolic link"),
}
MENDS = "the next `baton sync` checks every feed's signature again and rewrites it"


def build_scene(made: Path) -> tuple[Path, Path]:
    """Clones a and b of a bare remote, each signing its feed with a key the trusted
    allowed-signers file binds to its writer and requiring signatures; a synced b's feed, so
    a's record holds a good verdict on it."""
    _remote, a, b = make_team(made)
    keys = made / "keys"
    sign_with(a, keygen(keys, "alice"))
    sign_with(b, keygen(keys, "bob"))
    allow(a, b, lines=team_signers(a, b, keys))
    for clone, title in ((b, "bob's work"), (a, "alice's work")):
        require_signatures(clone)
        assert run_here("checkpoint", "create", "--title", title, "--objective", "o", "--no-input", "--json",
                        cwd=clone)[0] == 0
    for clone in (b, a):
        code, out, err = run_here("sync", "--json", cwd=clone)
        assert code == 0, (out, err)
    record = json.loads((a / ".baton" / "sync-signers.json").read_text())
    assert record["feeds"][writer(b)]["status"] == "good"
    return a, b


@pytest.fixture(scope="module")
def scene(tmp_path_factory) -> tuple[Path, Path]:
    """``build_scene``, once per module (a project cannot be copied: a copy is another clone)."""
    return build_scene(tmp_path_factory.mktemp("signers"))


@pytest.fixture
def team(scene, tmp_path):
    """(a, b's writer id, a file out of the project); a's record as the scene left it afterwards."""
    a, b = scene
    record = a / ".baton" / "sync-signers.json"
    kept = record.read_bytes()
    yield a, writer(b), tmp_path / "outside.json"
    record.unlink()
    record.write_bytes(kept)


def damage(team, case: str) -> Path:
    a, _bob, outside = team
    record = a / ".baton" / "sync-signers.json"
    DAMAGES[case][0](record, outside)
    return record


@pytest.mark.parametrize("case", DAMAGES)
def test_sync_checks_every_signature_again_and_rewrites_a_damaged_signers_record(capsys, team, case):
    record = damage(team, case)
    a, bob, outside = team
    before = outside.read_bytes() if outside.exists() else None
    result = run_json(capsys, a, "sync")
    assert any(DAMAGES[case][1] in note and "read as no record" in note for note in result["signers"]["notes"])
    assert result["signers"]["feeds"][bob]["status"] == "good"
    assert not record.is_symlink()
    assert json.loads(record.read_text())["feeds"][bob]["status"] == "good"
    assert (outside.read_bytes() if outside.exists() else None) == before  # a link's target is never written


@pytest.mark.parametrize("case", DAMAGES)
def test_status_says_no_signer_is_known_and_what_mends_a_damaged_signers_record(capsys, team, case):
    damage(team, case)
    a = team[0]
    status = run_json(capsys, a, "status")
    assert DAMAGES[case][1] in status["syncSignersDamaged"] and MENDS in status["syncSignersDamaged"]
    code, out, err = run(capsys, a, "status")
    assert code == 0, err
    assert "Signers: unknown: " in out and DAMAGES[case][1] in out


@pytest.mark.parametrize("case", DAMAGES)
def test_verify_knows_no_verdict_and_fails_while_signatures_are_required(capsys, team, case):
    damage(team, case)
    a, bob, _outside = team
    code, out, err = run(capsys, a, "verify", "--json")
    assert code == 3, err
    result = json.loads(out)
    assert {s["feed"]: s["status"] for s in result["signers"]}[bob] == "unrecorded"
    assert DAMAGES[case][1] in result["signers_damaged"] and MENDS in result["signers_damaged"]
    code, out, _err = run(capsys, a, "verify")
    assert f"FAIL signer of {bob}: unrecorded: no verdict known" in out
    assert "FAIL sync signers: " in out and DAMAGES[case][1] in out


def test_verify_only_notes_a_damaged_signers_record_when_signatures_are_not_required(capsys, tmp_path):
    a, b = build_scene(tmp_path)
    require_signatures(a, False)
    (a / ".baton" / "sync-signers.json").write_text("{x")
    code, out, err = run(capsys, a, "verify")
    assert code == 0, (out, err)
    assert f"note signer of {writer(b)}: unrecorded: " in out and "note sync signers: " in out


def test_verify_after_the_sync_that_rewrote_a_damaged_signers_record_passes(capsys, team):
    damage(team, "not JSON")
    a = team[0]
    run_json(capsys, a, "sync")
    code, out, err = run(capsys, a, "verify")
    assert code == 0, (out, err)
    assert "unrecorded" not in out and "sync signers" not in out


def test_doctor_flags_a_damaged_signers_record(capsys, team):
    damage(team, "a wrong type")
    _code, out, _err = run(capsys, team[0], "doctor")
    assert "warn  sync signers: " in out and "is damaged: the `seq` of feed" in out and MENDS in out


def feed_marks(capsys, project: Path) -> dict[str, dict | None]:
    """``handoff list --json``: each handoff's mark of a feed no trusted key vouches for, by title."""
    return {h["title"]: h["feed"] for h in run_json(capsys, project, "handoff", "list")["handoffs"]}


def test_a_damaged_signers_record_vouches_for_no_feed(capsys, team):
    """A handoff from b's feed, signed and checked good, is withheld (signatures are required)
    once the record of that verdict is damaged: never a verdict read from half a record."""
    a, bob, _outside = team
    assert feed_marks(capsys, a)["bob's work"] is None  # vouched for
    record = damage(team, "a missing key")
    raw = json.loads(record.read_text())
    raw["feeds"][bob]["status"] = "good"  # b's verdict whole, another feed's entry out of shape
    raw["feeds"]["zz-another-writer"] = {"seq": 1, "hash": None, "hlc": 1}
    record.write_text(json.dumps(raw))
    marks = feed_marks(capsys, a)
    assert marks["bob's work"]["withheld"] is True and marks["bob's work"]["status"] is None
    assert marks["alice's work"] is None  # this clone's own


def test_sync_rewrites_a_damaged_signers_record_when_signing_is_not_in_play(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    record = a / ".baton" / "sync-signers.json"
    record.write_text("{x")
    assert "syncSignersDamaged" in run_json(capsys, a, "status")
    result = run_json(capsys, a, "sync")
    assert any("read as no record" in note for note in result["signers"]["notes"])
    assert json.loads(record.read_text()) == {"allowed_signers": None, "feeds": {}}
    assert "syncSignersDamaged" not in run_json(capsys, a, "status")


def test_a_signers_record_that_is_a_fifo_is_not_read(capsys, team):
    record = team[0] / ".baton" / "sync-signers.json"
    record.unlink()
    os.mkfifo(record)
    status = run_json(capsys, team[0], "status")
    assert "is not a regular file" in status["syncSignersDamaged"]


@pytest.mark.parametrize("name", ["sync-signers.json", "sync-state.json"])
def test_a_folder_in_place_of_a_sync_record_is_reported_not_a_crash(capsys, team, name):
    record = team[0] / ".baton" / name
    kept = record.read_bytes() if record.is_file() else None
    record.unlink(missing_ok=True)
    record.mkdir()
    try:
        status = run_json(capsys, team[0], "status")
        damaged = status["syncSignersDamaged" if name == "sync-signers.json" else "syncStateDamaged"]
        assert "is not a regular file" in damaged
        code, out, _err = run(capsys, team[0], "verify")
        assert "internal error" not in out and code in (0, 3)
        code, out, _err = run(capsys, team[0], "doctor")
        assert "is not a regular file" in out
    finally:
        record.rmdir()
        if kept is not None:
            record.write_bytes(kept)
