"""One person's batons whose e-mail was given in two letter cases (tester-use21 T5; docs/batons.md
"Who and where: owner and branch", "The baton index"): ``Q@Ex.com`` and ``q@ex.com`` are one owner,
so they have one baton key — a newer baton supersedes the older whatever its spelling, on one
clone, across clones (``baton sync``), and on a ledger older Batons wrote, whose batons sit on one
stream per spelling (``baton/Q%40Ex.com__qq``, ``baton/q%40ex.com__qq``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from baton.commands.context import Project
from baton.domain.batons import baton_key, context_key
from baton.events.baton import BatonCancelled, BatonClaimed, BatonCreated, BatonDismissed
from tests.batons_support import capture_handoff
from tests.cli_support import run_json
from tests.sync_support import make_team
from tests.test_sync_baton_owners import as_user

UPPER, LOWER = "Q@Ex.com", "q@ex.com"


def leave(capsys, project: Path, session: str, step: str, owner: str | None = None, branch: str = "qq") -> str:
    """``baton session end SESSION --handoff-steps STEP [--owner OWNER] --branch BRANCH``: the baton's id."""
    args = ["session", "end", session, "--harness", "codex", "--handoff-steps", step, "--branch", branch]
    out = run_json(capsys, project, *args, *(["--owner", owner] if owner else []))
    return out["created"]["id"] if "created" in out else out["handoff"]["id"]


def begin(capsys, project: Path, owner: str, branch: str = "qq") -> dict:
    return run_json(capsys, project, "session", "begin", "--harness", "codex", "--owner", owner, "--branch", branch)


def received(result: dict) -> str | None:
    handoff = result.get("handoff")
    return handoff.get("handoffId") or handoff.get("id") if isinstance(handoff, dict) else None


def pending(capsys, project: Path) -> list[str]:
    return [item["handoffId"] for item in run_json(capsys, project, "session", "handoff", "--all")["items"]
            if item.get("status", "pending") == "pending"]


def test_the_two_spellings_of_one_email_have_one_baton_key():
    assert baton_key(UPPER, "qq", False) == baton_key(LOWER, "qq", False) == "q%40ex.com__qq"
    assert baton_key("Bob", "qq", False) != baton_key("bob", "qq", False)  # not an e-mail: exact


def test_only_ascii_letters_are_folded_in_an_email_owners_key():
    assert baton_key("stra\u00dfe@ex.com", "qq", False) != baton_key("strasse@ex.com", "qq", False)
    assert baton_key("\u212aim@ex.com", "qq", False) != baton_key("kim@ex.com", "qq", False)  # Kelvin sign
    assert baton_key("STRA\u00dfE@EX.COM", "qq", False) == baton_key("stra\u00dfe@ex.com", "qq", False)


def test_a_baton_left_for_one_mailbox_is_not_delivered_to_another_that_casefolds_alike(capsys, project):
    leave(capsys, project, "q1", "for strasse only", "stra\u00dfe@ex.com")
    assert received(begin(capsys, project, "strasse@ex.com")) is None


def test_a_long_email_owners_two_spellings_have_one_baton_key():
    long = "Bob" + "x" * 130 + "@Ex.com"
    assert baton_key(long, "qq", False) == baton_key(long.lower(), "qq", False)
    assert "~" in baton_key(long, "qq", False).split("__")[0]  # capped, after folding


def test_a_baton_left_for_a_long_email_is_delivered_to_its_other_spelling(capsys, project):
    long = "Bob" + "x" * 130 + "@Ex.com"
    ident = leave(capsys, project, "q1", "long owner", long)
    assert received(begin(capsys, project, long.lower())) == ident


def test_a_newer_baton_for_one_email_in_another_letter_case_supersedes_the_older(capsys, project):
    first = leave(capsys, project, "q1", "first upper", UPPER)
    second = leave(capsys, project, "q2", "second lower", LOWER)
    assert pending(capsys, project) == [second]
    assert received(begin(capsys, project, LOWER)) == second
    assert received(begin(capsys, project, LOWER)) is None  # never the older one after the newer
    assert first != second


def test_a_baton_for_one_spelling_is_claimed_by_a_session_of_the_other(capsys, project):
    ident = leave(capsys, project, "q1", "upper step", UPPER)
    assert received(begin(capsys, project, LOWER)) == ident
    assert received(begin(capsys, project, UPPER)) is None


def test_one_person_on_two_clones_in_two_letter_cases_is_handed_only_the_newer_baton_after_sync(
        capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    as_user(a, "Alice@Ex.com")
    as_user(b, "alice@ex.com")
    older = leave(capsys, a, "cs1", "A upper-case step", branch="main")
    newer = leave(capsys, b, "cs2", "B lower-case step", branch="main")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")

    first = run_json(capsys, b, "bootstrap", "--session-id", "cs3", "--branch", "main")
    second = run_json(capsys, b, "bootstrap", "--session-id", "cs4", "--branch", "main")

    assert first["handoff"]["handoffId"] == newer
    assert older in first["brief"]  # the baton it replaced unseen is named, once
    assert second["handoff"] is None
    assert "A upper-case step" not in second["brief"]


def _old_baton(project: Path, owner: str, step: str, session: str, supersedes: str | None = None) -> str:
    """A baton as Batons before one key per e-mail wrote it: on the stream of the owner as given."""
    ident = capture_handoff(project, {"work": {"title": step, "objective": step},
                                       "open_items": [{"description": step, "priority": "high"}]})
    created = BatonCreated(key=context_key(owner, "qq"), operation="handoff_created", handoff_id=ident,
                           owner=owner, branch="qq", shared=False, session=session, harness="codex",
                           supersedes=supersedes, payload={"nextSteps": [step], "failedApproaches": [],
                                                           "openQuestions": []})
    _append(project, created)
    return ident


def _append(project: Path, event) -> None:
    opened = Project.open(project)
    try:
        with opened.writing() as scope:
            draft = event.draft(actor=LOWER, session=getattr(event, "session", None))
            scope.append([draft], expected={draft.stream: scope.txn.stream_version(draft.stream)})
    finally:
        opened.close()


def _index(project: Path, rebuild: bool = False) -> dict:
    opened = Project.open(project)
    try:
        if rebuild:
            opened.runner.rebuild()
        return opened.runner.snapshot()["batons"]
    finally:
        opened.close()


def test_a_ledger_with_one_persons_batons_on_two_spellings_streams_delivers_only_the_newer(capsys, project):
    older = _old_baton(project, UPPER, "old upper step", "o1")
    newer = _old_baton(project, LOWER, "old lower step", "o2")
    streams = {e.stream for e in _events(project) if e.type == BatonCreated.TYPE}
    assert streams == {"baton/Q%40Ex.com__qq", "baton/q%40ex.com__qq"}  # as the old code wrote them

    assert pending(capsys, project) == [newer]
    assert received(begin(capsys, project, UPPER)) == newer
    assert received(begin(capsys, project, LOWER)) is None
    assert older != newer


def test_a_baton_on_an_old_spellings_stream_is_claimed_once_on_that_stream(capsys, project):
    ident = _old_baton(project, UPPER, "old upper step", "o1")
    assert received(begin(capsys, project, LOWER)) == ident
    assert received(begin(capsys, project, UPPER)) is None
    [claim] = [e for e in _events(project) if e.type == BatonClaimed.TYPE]
    assert claim.stream == "baton/Q%40Ex.com__qq"  # where an older Baton reads it against its baton


@pytest.mark.parametrize("how", ["cancel", "dismiss"])
def test_a_baton_on_an_old_spellings_stream_is_ended_on_that_stream(capsys, project, how):
    ident = _old_baton(project, UPPER, "old upper step", "o1")
    if how == "cancel":
        run_json(capsys, project, "session", "handoff", "--cancel", "--not-mine", "--owner", LOWER, "--branch", "qq")
    else:
        run_json(capsys, project, "session", "handoff", "--dismiss", ident, "--not-mine", "--owner", LOWER,
                 "--branch", "qq")
    [ended] = [e for e in _events(project) if e.type in (BatonCancelled.TYPE, BatonDismissed.TYPE)]
    assert ended.stream == "baton/Q%40Ex.com__qq"
    assert received(begin(capsys, project, LOWER)) is None
    assert _index(project) == _index(project, rebuild=True)


def test_a_baton_an_older_baton_left_and_a_newer_claimed_is_not_delivered_again_by_the_older(
        capsys, project, tmp_path):
    """The mixed setup docs/batons.md describes: a clone still on the Baton before one key per
    e-mail (``OLD``, run from git) reads its spelling's stream only."""
    ident = _old_baton(project, UPPER, "old upper step", "o1")
    assert received(begin(capsys, project, LOWER)) == ident
    old = _older_baton(tmp_path)
    started = subprocess.run([sys.executable, "-m", "baton", "session", "begin", "--json", "--harness", "codex",
                              "--owner", UPPER, "--branch", "qq"], cwd=project, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(old)}, check=True)
    assert received(json.loads(started.stdout)) is None


def test_the_index_folded_as_events_came_equals_the_index_rebuilt_from_the_ledger(capsys, project):
    _old_baton(project, UPPER, "old upper step", "o1")
    _old_baton(project, LOWER, "old lower step", "o2")
    leave(capsys, project, "q3", "new upper step", UPPER)
    begin(capsys, project, LOWER)
    _old_baton(project, UPPER, "an old clone's step", "o4")  # an older Baton still writing its stream
    incremental = _index(project)
    assert incremental == _index(project, rebuild=True)
    assert list(incremental) == ["q%40ex.com__qq"]


def _events(project: Path) -> list:
    opened = Project.open(project)
    try:
        return list(opened.ledger.read_all())
    finally:
        opened.close()


def test_an_old_clones_earlier_baton_arriving_by_sync_after_a_newer_one_was_folded_stays_superseded(
        capsys, tmp_path):
    # Clone a runs an older Baton (its baton on the stream of the spelling it was given); clone b
    # leaves a newer baton for the same person later, folds it, and only then receives a's by sync:
    # an event that sorts before one already folded into the same key's document.
    _remote, a, b = make_team(tmp_path)
    as_user(b, LOWER)
    for clone in (a, b, a):
        run_json(capsys, clone, "sync")  # each has the other's feed: what comes later is only the batons
    older = _old_baton(a, UPPER, "old clone's step", "o1")
    newer = leave(capsys, b, "n1", "new clone's step")
    assert pending(capsys, b) == [newer]
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")

    assert pending(capsys, b) == [newer]
    assert _index(b) == _index(b, rebuild=True)
    assert received(begin(capsys, b, UPPER)) == newer
    assert received(begin(capsys, b, UPPER)) is None
    assert older != newer


OLD = "12d9e8eb"
"""The Baton before one key per e-mail: a baton stream per spelling, one index document each."""


def _older_baton(tmp_path: Path) -> Path:
    """``OLD``'s ``baton`` package, from git, in a folder of its own."""
    root = Path(__file__).resolve().parent.parent
    archive = subprocess.run(["git", "-C", str(root), "archive", OLD, "baton"], capture_output=True)
    if archive.returncode != 0:
        pytest.skip(f"the older Baton ({OLD}) is not in this checkout's git history")
    folder = tmp_path / "older"
    folder.mkdir()
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder
