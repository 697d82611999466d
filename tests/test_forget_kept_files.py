"""``baton forget`` reaches the files a repair kept from events the ledger lost.

When a feed loses a capture the index acknowledged (its last line cut short),
``baton repair --yes`` moves the capture's handoff file into
``.baton/quarantine/kept.<uuid>.<name>`` (a list beside it) and sets the torn
line aside in a ``.repair`` copy. A user who then forgets that handoff because
it held a secret must be left with no copy of its text anywhere under
``.baton/``: forget finds the handoff in the kept file, removes it (and takes it
out of the list), blanks the torn piece, and says so in text and ``--json``.
Real processes, the feed cut as a disk or an editor would cut it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_baton
from tests.ledger_support import own_feed

SECRET = "zebra-marmalade-4711-quokka"


def capture(project: Path, title: str, objective: str = "o") -> dict:
    r = run_baton("checkpoint", "create", "--no-input", "--title", title, "--objective", objective, "--json",
                  "--project", str(project))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def holding(project: Path, text: str) -> list[str]:
    """Every file under ``.baton/`` whose bytes hold ``text``."""
    found = []
    for folder, _dirs, names in os.walk(project / ".baton"):
        for name in names:
            path = Path(folder) / name
            if text.encode() in path.read_bytes():
                found.append(str(path.relative_to(project)))
    return found


def forget(project: Path, token: str, *more: str):
    return run_baton("forget", token, *more, "--project", str(project))


@pytest.fixture
def cut_secret(project):
    """A capture holding ``SECRET`` whose ledger line was cut short (``head -c -40``), then
    ``baton repair --yes``: its handoff file kept in quarantine, its torn line in a ``.repair``
    copy. Returns the project and the capture's ``--json``."""
    capture(project, "kept in the ledger")
    secret = capture(project, "holds a secret", f"the token is {SECRET}")
    feed = own_feed(project)
    feed.write_bytes(feed.read_bytes()[:-40])
    r = run_baton("repair", "--yes", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert any(p.startswith(".baton/quarantine/kept.") for p in holding(project, SECRET))
    return project, secret


def test_forget_after_a_repair_kept_the_handoff_leaves_no_copy_of_its_text_under_baton(cut_secret):
    project, secret = cut_secret

    r = forget(project, secret["id"], "--yes")

    assert r.returncode == 0, r.stderr
    assert holding(project, SECRET) == []


def test_forget_says_it_removed_the_kept_file_and_recorded_nothing(cut_secret):
    project, secret = cut_secret
    [kept] = (project / ".baton" / "quarantine").glob(f"kept.*--{secret['id'][-8:]}.json")

    r = forget(project, secret["id"], "--yes")

    assert "the ledger holds none of its events (they were lost), so nothing was recorded" in r.stdout
    assert f"removed 1 file `baton repair` kept from events the ledger lost: .baton/quarantine/{kept.name}" in r.stdout


def test_forget_json_lists_the_kept_files_it_removed(cut_secret):
    project, secret = cut_secret
    [kept] = (project / ".baton" / "quarantine").glob(f"kept.*--{secret['id'][-8:]}.json")

    r = forget(project, secret["id"], "--yes", "--json")

    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["forgotten"] is True and out["recorded"] is False and out["events"] == []
    assert out["kept_files"] == [f"quarantine/{kept.name}"]
    assert list(out["erased_quarantine"].values()) == [1]  # the torn piece of its line, blanked


def test_forget_finds_the_kept_handoff_by_the_short_id_its_file_name_ends_in(cut_secret):
    project, secret = cut_secret

    r = forget(project, secret["id"][-8:], "--yes")

    assert r.returncode == 0, r.stderr
    assert holding(project, SECRET) == []


def test_forget_without_yes_names_the_kept_file_and_removes_nothing(cut_secret):
    project, secret = cut_secret
    before = holding(project, SECRET)

    r = forget(project, secret["id"], "--json")

    assert r.returncode == 2
    error = json.loads(r.stdout)["error"]
    assert "would remove 1 file kept from lost events" in error["message"]
    assert error["details"]["kept_files"][0].startswith("quarantine/kept.")
    assert holding(project, SECRET) == before


def test_the_ledger_verifies_after_forgetting_a_kept_handoff(cut_secret):
    project, secret = cut_secret
    assert forget(project, secret["id"], "--yes").returncode == 0

    r = run_baton("verify", "--project", str(project))

    assert r.returncode == 0, r.stdout + r.stderr


def test_forget_of_one_kept_handoff_leaves_the_other_in_the_list_beside_them(project):
    """A repair that kept two handoff files: the one forgotten goes from the list, the other stays listed."""
    capture(project, "kept in the ledger")
    feed = own_feed(project)
    cut_at = feed.stat().st_size
    first = capture(project, "first lost", f"the token is {SECRET}")
    second = capture(project, "second lost", "nothing secret here at all")
    whole = feed.read_bytes()
    feed.write_bytes(whole[:cut_at + 100])  # both captures lost, the first torn
    assert run_baton("repair", "--yes", "--project", str(project)).returncode == 0

    assert forget(project, first["id"], "--yes").returncode == 0

    quarantine = project / ".baton" / "quarantine"
    [listing] = quarantine.glob("kept.*.files.json")
    listed = [item["path"] for item in json.loads(listing.read_bytes())["kept"]]
    assert listed == [second["file"].removeprefix(".baton/")]
    assert list(quarantine.glob(f"kept.*--{second['id'][-8:]}.json"))
    assert holding(project, SECRET) == []


def test_forget_of_a_kept_handoff_spares_another_kept_file_that_shares_a_string_with_it(project):
    """Two lost captures made in the same second share their timestamps: the forget of one
    removes its own kept file and never the other's, which may be that handoff's only copy."""
    capture(project, "kept in the ledger")
    feed = own_feed(project)
    cut_at = feed.stat().st_size
    first = capture(project, "first lost", f"the token is {SECRET}")
    second = capture(project, "second lost", "written after first lost")  # holds the first's title
    whole = feed.read_bytes()
    feed.write_bytes(whole[:cut_at + 100])
    assert run_baton("repair", "--yes", "--project", str(project)).returncode == 0

    assert forget(project, first["id"], "--yes").returncode == 0

    quarantine = project / ".baton" / "quarantine"
    [kept] = quarantine.glob(f"kept.*--{second['id'][-8:]}.json")
    assert json.loads(kept.read_bytes())["work"]["objective"] == "written after first lost"
    assert holding(project, SECRET) == []


def test_a_sync_applying_a_teammates_forget_removes_that_handoffs_kept_file_from_its_list_and_spares_the_other(
        project):
    """``baton sync`` erasing a handoff another replica forgot (``scrub_after_erasure``): the kept
    file holding it goes and leaves the list; the other kept file, sharing its title, stays listed."""
    from baton.commands import forget as forget_command
    from baton.commands.context import Project
    from baton.sync.local import ledger_lock

    capture(project, "kept in the ledger")
    feed = own_feed(project)
    cut_at = feed.stat().st_size
    first = capture(project, "first lost", f"the token is {SECRET}")
    second = capture(project, "second lost", "written after first lost")
    feed.write_bytes(feed.read_bytes()[:cut_at + 100])
    assert run_baton("repair", "--yes", "--project", str(project)).returncode == 0
    quarantine = project / ".baton" / "quarantine"
    [first_kept] = quarantine.glob(f"kept.*--{first['id'][-8:]}.json")
    erased = [{"handoff": json.loads(first_kept.read_bytes()), "redactions": []}]

    opened = Project.open(project)
    try:
        with ledger_lock(opened):  # as `baton sync` holds it
            forget_command.scrub_after_erasure(opened, erased)
    finally:
        opened.close()

    assert not first_kept.exists()
    [listing] = quarantine.glob("kept.*.files.json")
    assert [item["path"] for item in json.loads(listing.read_bytes())["kept"]] == [second["file"].removeprefix(".baton/")]
    assert list(quarantine.glob(f"kept.*--{second['id'][-8:]}.json"))


def test_the_list_beside_a_kept_file_goes_with_the_last_file_it_named(cut_secret):
    project, secret = cut_secret

    assert forget(project, secret["id"], "--yes").returncode == 0

    assert list((project / ".baton" / "quarantine").glob("kept.*")) == []


def test_forget_before_the_repair_is_refused_and_says_to_repair_first(project):
    """The kept file is still in ``.baton/handoffs/`` and the feed still ends in the torn line:
    writes stop until a repair records the loss, and forget says so, removing nothing."""
    capture(project, "kept in the ledger")
    secret = capture(project, "holds a secret", f"the token is {SECRET}")
    feed = own_feed(project)
    feed.write_bytes(feed.read_bytes()[:-40])
    assert run_baton("status", "--project", str(project)).returncode == 0

    r = forget(project, secret["id"][-8:], "--yes", "--json")

    assert r.returncode == 3
    error = json.loads(r.stdout)["error"]
    assert "a confirmed `baton repair` first moves the file into .baton/quarantine/" in error["message"]
    assert error["details"]["kept_files"] == [secret["file"].removeprefix(".baton/")]
    assert (project / secret["file"]).is_file()


def test_forget_of_a_handoff_whose_revision_was_cut_off_leaves_no_copy_of_the_revision(project):
    """The capture is in the ledger; its amendment, holding the secret, was cut off (its torn
    line set aside by the repair): forget erases the capture's payloads and blanks the torn piece."""
    capture(project, "kept in the ledger")
    draft = capture(project, "a draft")
    r = run_baton("handoff", "amend", draft["id"], "--no-input", "--objective", f"the token is {SECRET}",
                  "--project", str(project))
    assert r.returncode == 0, r.stderr
    feed = own_feed(project)
    feed.write_bytes(feed.read_bytes()[:-40])
    assert run_baton("repair", "--yes", "--project", str(project)).returncode == 0
    assert holding(project, SECRET)

    r = forget(project, draft["id"], "--yes", "--json")

    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["recorded"] is True
    assert holding(project, SECRET) == []
