"""A session start whose index is too far behind the ledger to bring up to date
in the hook's time — after an upgrade to a Baton whose projections changed,
or a large sync — hands the catch-up to a process of its own (as
``test_hook_index_behind`` shows) and still gives its agent the brief, read
from the index as it stands, when that is safe: the index is of this Baton's
schema and every projection the brief reads was folded by this Baton's
version of it (the index's recorded signature says which). The brief says in
one line that the index is being brought up to date and may miss the newest
events; nothing is claimed or recorded, and the next start, once the
catch-up is done, claims the baton waiting, exactly once. An index whose
brief projections changed, or of another schema, gives no brief (as before).

Run as the harness runs it: ``baton hook`` in a child process, the payload on
stdin; an upgrade is simulated as ``test_handoff_projection`` does, by
rewriting a projection's version in the index's signature
(``BATON_HOOK_FOLD_MB`` makes the small project here "large").
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import orjson
import pytest

from baton.app import Baton
from baton.commands.bootstrap import BRIEF_PROJECTIONS
from baton.commands.context import Limits
from baton.ledger import Ledger
from baton.ledger.envelope import EventDraft
from baton.projections.runner import INDEX_SCHEMA, ProjectionRunner
from tests.background_support import WAITS_FOR_A_CATCH_UP, background_pid, wait_gone
from tests.cli_support import run_here
from tests.conftest import run_baton
from tests.handoff_support import git_init
from tests.harness_support import fixture, injected
from tests.start_support import as_an_upgrade_finds_it as _upgrade
from tests.start_support import claims as _claims
from tests.start_support import feeds as _feeds
from tests.start_support import pending as _pending

TINY = {"BATON_HOOK_FOLD_MB": "0.000001", "BATON_HOOK_SERVER": "0"}  # one byte: any catch-up is "large"
FREE = {"BATON_HOOK_SERVER": "0"}
STEP = "Wire the zebra-42 parser into the CLI"
AS_IT_STANDS = "Baton's index is being brought up to date in the background"
NOT_BRIEF = "lineage"
"""A projection the brief does not read (its change leaves the brief readable)."""


@pytest.fixture
def repo(project):
    """A git project where an earlier session left a baton for this owner and branch."""
    git_init(project, {"src/app.py": "x = 1\n"})
    code, _, err = run_here("session", "end", "s-before", "--handoff-steps", STEP, cwd=project)  # the scene
    assert code == 0, err
    return project


def _start(repo: Path, session: str, env: dict[str, str], *args: str):
    body = fixture("claude-code", "SessionStart.startup", repo, session_id=session)
    return run_baton("hook", "claude-code", "SessionStart", *args, cwd=repo, input=json.dumps(body), env=env,
                     timeout=60)


@WAITS_FOR_A_CATCH_UP
def test_a_start_after_an_upgrade_that_changed_no_projection_the_brief_reads_delivers_the_brief_as_it_stands(repo):
    [waiting] = _pending(repo)
    _upgrade(repo, NOT_BRIEF)
    started = _start(repo, "s-upgraded", TINY)
    assert started.returncode == 0, started.stderr
    brief = injected("claude-code", started.stdout)
    assert brief is not None and "## Baton" in brief and "s-upgraded" in brief
    [line] = [line for line in brief.splitlines() if AS_IT_STANDS in line]
    assert "may miss the newest events" in line and "claims nothing" in line
    assert f"the baton {waiting.id} waiting for this owner and branch stays pending" in line
    assert "`baton session begin s-upgraded`" in line
    wait_gone(background_pid(started.stderr))


@WAITS_FOR_A_CATCH_UP
def test_a_start_from_the_index_as_it_stands_claims_nothing_and_appends_nothing(repo):
    _upgrade(repo, NOT_BRIEF)
    before = _feeds(repo)
    started = _start(repo, "s-upgraded", TINY)
    brief = injected("claude-code", started.stdout)
    assert brief is not None and "Active Session Handoff" not in brief and STEP not in brief
    assert _feeds(repo) == before  # no claim, no session.begun
    wait_gone(background_pid(started.stderr))
    assert len(_pending(repo)) == 1 and _claims(repo) == []


@WAITS_FOR_A_CATCH_UP
def test_a_start_from_the_index_as_it_stands_says_so_in_one_line_on_stderr(repo):
    _upgrade(repo, NOT_BRIEF)
    started = _start(repo, "s-upgraded", TINY)
    [said] = started.stderr.strip().splitlines()
    assert said.startswith("baton hook claude-code SessionStart: the index needs a full replay")
    assert "in the background (pid " in said
    assert "the brief was delivered from the index as it stands" in said and "nothing was claimed" in said
    assert "no brief was delivered" not in said
    wait_gone(background_pid(started.stderr))


@WAITS_FOR_A_CATCH_UP
def test_a_start_from_the_index_as_it_stands_says_in_its_json_why_it_claimed_nothing(repo):
    _upgrade(repo, NOT_BRIEF)
    started = _start(repo, "s-upgraded", TINY, "--json")
    result = json.loads(started.stdout)["result"]
    assert result["claimed"] is False and result["handoffId"] is None and result["repeated"] is False
    assert result["ledgerBusy"] is None
    assert "the index needs a full replay" in result["indexBehind"] and AS_IT_STANDS in result["brief"]
    wait_gone(background_pid(started.stderr or result["indexBehind"]))


@WAITS_FOR_A_CATCH_UP
def test_the_next_start_after_the_catch_up_claims_the_baton_exactly_once(repo):
    [waiting] = _pending(repo)
    _upgrade(repo, NOT_BRIEF)
    wait_gone(background_pid(_start(repo, "s-upgraded", TINY).stderr))
    after = injected("claude-code", _start(repo, "s-next", TINY).stdout)
    assert after is not None and "Active Session Handoff" in after and STEP in after
    assert AS_IT_STANDS not in after and "the index needs a full replay" not in after  # told once, in its brief
    later = injected("claude-code", _start(repo, "s-later", TINY).stdout)
    assert later is not None and "Active Session Handoff" not in later
    [claim] = _claims(repo)
    assert claim["session"] == "s-next" and claim["data"]["handoff_id"] == waiting.id


@WAITS_FOR_A_CATCH_UP
def test_a_session_started_from_the_index_as_it_stands_gets_its_baton_when_it_starts_again(repo):
    """Its start was not recorded: a resume of the same session, after the catch-up, is its first recorded one."""
    _upgrade(repo, NOT_BRIEF)
    wait_gone(background_pid(_start(repo, "s-upgraded", TINY).stderr))
    body = fixture("claude-code", "SessionStart.resume", repo, session_id="s-upgraded")
    resumed = run_baton("hook", "claude-code", "SessionStart", cwd=repo, input=json.dumps(body), env=TINY)
    brief = injected("claude-code", resumed.stdout)
    assert brief is not None and STEP in brief
    assert [claim["session"] for claim in _claims(repo)] == ["s-upgraded"]


@WAITS_FOR_A_CATCH_UP
@pytest.mark.parametrize("projection", BRIEF_PROJECTIONS)
def test_a_start_after_an_upgrade_that_changed_a_projection_the_brief_reads_delivers_no_brief(repo, projection):
    _upgrade(repo, projection)
    started = _start(repo, "s-upgraded", TINY)
    assert started.returncode == 0 and started.stdout == ""  # Claude Code's "nothing", as before
    assert "the index needs a full replay" in started.stderr and "no brief was delivered" in started.stderr
    wait_gone(background_pid(started.stderr))
    assert _claims(repo) == []
    after = injected("claude-code", _start(repo, "s-next", TINY).stdout)
    assert after is not None and STEP in after


@WAITS_FOR_A_CATCH_UP
def test_a_start_on_an_index_of_another_schema_delivers_no_brief(repo):
    with sqlite3.connect(repo / ".baton" / "index.sqlite") as db:
        signature = orjson.loads(db.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()[0])
        signature[0] = INDEX_SCHEMA + 1
        db.execute("UPDATE meta SET value = ? WHERE key = 'signature'", [orjson.dumps(signature).decode()])
    started = _start(repo, "s-upgraded", TINY)
    assert started.stdout == "" and "no brief was delivered" in started.stderr
    wait_gone(background_pid(started.stderr))


@WAITS_FOR_A_CATCH_UP
def test_a_start_far_behind_after_a_large_sync_delivers_the_brief_as_it_stands(repo):
    ledger = Ledger(repo / ".baton", "otherreplica0001", fsync="never")  # as a sync delivers another feed
    try:
        with ledger.locked() as txn:
            txn.append([EventDraft("note.added", f"note/{i}", {"text": "x" * 200}) for i in range(20)])
    finally:
        ledger.close()
    before = _feeds(repo)
    started = _start(repo, "s-synced", TINY)
    brief = injected("claude-code", started.stdout)
    assert brief is not None and AS_IT_STANDS in brief
    assert "the index is" in started.stderr and "behind the ledger" in started.stderr
    assert _feeds(repo) == before
    wait_gone(background_pid(started.stderr))


@WAITS_FOR_A_CATCH_UP
def test_a_start_from_the_index_as_it_stands_returns_its_reason_to_the_application(repo):
    _upgrade(repo, NOT_BRIEF)
    with Baton.open(repo, limits=Limits(write_wait=0, read_wait=0, fold_limit=1)) as app:
        started = app.start_harness_session("s-app", harness="claude-code", source="startup")
    assert started.delivered is not None and started.delivered.record is None
    assert started.held_up is None and started.behind is not None
    assert started.to_json()["indexBehind"] == started.behind
    wait_gone(background_pid(started.behind))


@WAITS_FOR_A_CATCH_UP
def test_the_brief_reads_no_projection_but_those_it_names(repo, monkeypatch):
    """``BRIEF_PROJECTIONS`` is what makes a brief from a stale index safe: every document and
    query table a start reads belongs to one of them."""
    read: set[str] = set()
    tables: set[str] = set()
    for member in ("get", "has"):
        original = getattr(ProjectionRunner, member)
        monkeypatch.setattr(ProjectionRunner, member, lambda self, name, key, _o=original: (read.add(name),
                                                                                            _o(self, name, key))[1])
    docs = ProjectionRunner.docs
    monkeypatch.setattr(ProjectionRunner, "docs", lambda self, name: (read.add(name), docs(self, name))[1])
    _upgrade(repo, NOT_BRIEF)
    with Baton.open(repo, limits=Limits(write_wait=0, read_wait=0, fold_limit=1)) as app:
        runner = app.project.runner

        def watch(action, table, *_):
            if action == sqlite3.SQLITE_READ and table:
                tables.add(table)
            return sqlite3.SQLITE_OK

        runner.db.conn.set_authorizer(watch)
        started = app.start_harness_session("s-app", harness="claude-code", source="startup")
        runner.db.conn.set_authorizer(None)
        query_tables = {t for p in runner.projections if p.name in BRIEF_PROJECTIONS for t in p.index_tables}
    assert started.behind is not None
    assert read and read <= set(BRIEF_PROJECTIONS)
    assert tables - {"docs", "meta", "cursors", "sqlite_master"} <= query_tables
    wait_gone(background_pid(started.behind))
