"""Every command is one append (issue 25): whatever one command records lands
in ONE write to the feed, all or nothing.

- every writing use case of the application object writes the feed at most
  once per call (a census over every public method, so a new writer must be
  classified here);
- a property test over the multi-event commands x every write point x every
  byte cut: a process that dies there leaves a ledger in which a fresh reader
  sees all of the command's events or none of them, and the project goes on;
- a real SIGKILL in the middle of the write of a baton left by hand and of a
  detector's draft (``test_session_end_atomic`` does the same for a session end).
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.app import Baton
from baton.ledger import files
from tests.handoff_support import git_init, payload

ALICE = "alice@example.com"
ASKED = {"handoff_request": True}  # an explicit request: the detector prepares a draft
STEPS = {"nextSteps": ["finish the parser"]}


class Killed(BaseException):
    """The process died here: nothing of the command after this point runs."""


def _is_feed(root: Path, fd: int) -> bool:
    """``fd`` is open on one of the project's feeds (``.baton/ledger/*.jsonl``)."""
    st = os.fstat(fd)
    return any((f.stat().st_dev, f.stat().st_ino) == (st.st_dev, st.st_ino)
               for f in (root / ".baton" / "ledger").glob("*.jsonl"))


class FeedWrites:
    """Watches (and may cut) this process's writes to the project's feeds."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch, cut: tuple[int, float] | None = None) -> None:
        self.root, self.cut, self.sizes = root, cut, []
        real = files.write_all

        def write_all(fd: int, data: bytes) -> None:
            if not _is_feed(self.root, fd):
                return real(fd, data)
            point = len(self.sizes)
            self.sizes.append(len(data))
            if self.cut is not None and self.cut[0] == point:
                os.write(fd, data[:round(self.cut[1] * len(data))])
                raise Killed(point)
            return real(fd, data)

        monkeypatch.setattr(files, "write_all", write_all)


def _visible(root: Path) -> list[Any]:
    """The ledger as a fresh reader reads it (another process, nothing cached)."""
    from baton.commands.context import Project

    opened = Project.open(root)
    try:
        return opened.ledger.read_all()
    finally:
        opened.close()


def _types(events: list[Any]) -> list[str]:
    return [e.type for e in events if not e.type.startswith("ledger.")]


# -- the commands ---------------------------------------------------------------------
# Each: set the project up (returns what the command needs), then run the command.

def _ready(app: Baton, body: dict | None = None, **kw: Any) -> str:
    handoff_id = app.capture(body or payload(), **kw).handoff_id
    app.validate(handoff_id)
    app.promote(handoff_id, accept_warnings="tests")
    return handoff_id


def _left_baton(app: Baton, session: str = "s0") -> str:
    return app.end_session(session, STEPS, owner=ALICE, branch="main").created.record.id


def _revision(app: Baton) -> str:
    revised = app.amend(_ready(app), changes={"summary": {"current_state": "the parser is half done"}})
    app.validate(revised.handoff_id)
    return revised.handoff_id


def _hook_session_with_ready_handoff(app: Baton) -> str:
    app.start_harness_session("s-hook", harness="claude-code", source="startup")
    return _ready(app, session="s-hook")


def _handed_on(app: Baton) -> str:
    handoff_id = _ready(app)
    app.hand_on(handoff_id, owner=ALICE, branch="main")
    return handoff_id


Setup = Callable[[Baton], Any]
Run = Callable[[Baton, Any], Any]

MULTI: dict[str, tuple[Setup, Run]] = {
    "session end leaving a baton": (
        lambda app: app.begin_session(session_id="s1", owner=ALICE, branch="main", objective="ship the parser"),
        lambda app, _: app.end_session("s1", STEPS, owner=ALICE, branch="main")),
    "session begin claiming a baton": (
        _left_baton,
        lambda app, _: app.begin_session(session_id="s1", owner=ALICE, branch="main", objective="ship it")),
    "bootstrap claiming a handed-on ready handoff": (
        _handed_on,
        lambda app, _: app.bootstrap(session_id="s2", owner=ALICE, branch="main")),
    "session start hook claiming a baton": (
        lambda app: app.create_baton(STEPS),  # for this worktree's owner and branch
        lambda app, _: app.start_harness_session("s-start", harness="claude-code", source="startup")),
    "session end hook handing on": (
        _hook_session_with_ready_handoff,
        lambda app, _: app.finish_harness_session("s-hook", harness="claude-code", reason="exit")),
    "baton create": (
        lambda app: None,
        lambda app, _: app.create_baton(STEPS, owner=ALICE, branch="main")),
    "detect creating a draft": (
        lambda app: None,
        lambda app, _: app.detect(ASKED, session="s-detect", harness="claude-code")),
    "compaction's draft and its recommendation": (
        lambda app: None,
        lambda app, _: app.prepare_for_compaction("s-compact", harness="claude-code", trigger="auto")),
    "handoff ready superseding its parent": (
        _revision,
        lambda app, revision: app.promote(revision, accept_warnings="tests")),
    "handoff archive dismissing its baton": (
        _left_baton,
        lambda app, handoff_id: app.archive(handoff_id, reason="done elsewhere")),
}


def _same_clone(root: Path) -> None:
    """The copy at ``root`` is the project the template was made at, not a copied clone:
    its ``local.json`` names this ``.baton`` folder as where its writer id was minted,
    so the command keeps the writer whose sessions the setup began (sessions are their
    clone's: docs/batons.md), as the project left at its path would."""
    local = root / ".baton" / "local.json"
    data = json.loads(local.read_text())
    here = (root / ".baton").stat()
    data["minted_in"] = {**data["minted_in"], "dev": here.st_dev, "ino": here.st_ino}
    local.write_text(json.dumps(data))


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Path, Any, Path]]:
    """``prepared(name)``: the project at a fixed path, set up for command
    ``name`` (a fresh copy of one template each call), what the setup
    returned, and the template (so a test can start over)."""
    base = tmp_path_factory.mktemp("one-append")
    root = base / "project"
    templates: dict[str, tuple[Path, Any]] = {}

    def restore(name: str) -> tuple[Path, Any, Path]:
        if name not in templates:
            if root.exists():
                shutil.rmtree(root)
            root.mkdir()
            git_init(root, {"src/app.py": "x = 1\n"})
            Baton.init(root)
            with Baton.open(root) as app:
                context = MULTI[name][0](app)
            template = base / f"template-{len(templates)}"
            shutil.copytree(root, template, symlinks=True)
            templates[name] = (template, context)
        template, context = templates[name]
        if root.exists():
            shutil.rmtree(root)
        shutil.copytree(template, root, symlinks=True)
        _same_clone(root)
        return root, context, template

    return restore


def _run(root: Path, name: str, context: Any) -> Any:
    with Baton.open(root) as app:
        return MULTI[name][1](app, context)


@pytest.mark.parametrize("name", sorted(MULTI))
def test_a_multi_event_command_is_one_write_of_one_batch(prepared, monkeypatch, name):
    root, context, _ = prepared(name)
    before = len(_visible(root))
    writes = FeedWrites(root, monkeypatch)
    _run(root, name, context)
    written = _visible(root)[before:]
    assert len(_types(written)) >= 2, "not a multi-event command any more: move it to the census only"
    assert len(writes.sizes) == 1
    assert len({(e.extra or {}).get("batch", {}).get("id") for e in written}) == 1
    assert all((e.extra or {}).get("batch", {}).get("of") == len(written) for e in written)


@pytest.mark.parametrize("name", sorted(MULTI))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_command_killed_at_any_write_point_leaves_all_of_it_or_none(prepared, monkeypatch, name, data):
    root, context, template = prepared(name)
    with monkeypatch.context() as patch:  # a full run: its write points, and all it records
        writes = FeedWrites(root, patch)
        before = len(_visible(root))
        _run(root, name, context)
        everything = _types(_visible(root)[before:])
    point = data.draw(st.integers(0, len(writes.sizes) - 1), label="write point")
    fraction = data.draw(st.sampled_from([0.0, 1.0]) | st.floats(0, 1), label="share of its bytes written")
    shutil.rmtree(root)
    shutil.copytree(template, root, symlinks=True)
    _same_clone(root)
    with monkeypatch.context() as patch:
        FeedWrites(root, patch, cut=(point, fraction))
        with pytest.raises(Killed):
            _run(root, name, context)
    left = _types(_visible(root)[before:])
    assert left in ([], everything), f"a reader sees part of {name}: {left}"
    # The project goes on: the next writer builds on it, and reads it whole.
    with Baton.open(root) as app:
        app.capture(payload())
        assert app.verify().to_json()["ok"] is True
    assert _types(_visible(root)[before:]) == left + ["handoff.captured"]


# -- the census: every writing use case, one write at most ------------------------------

def _census_steps() -> list[tuple[str, Callable[[Baton, dict], Any]]]:
    """Every writing method of ``Baton``, called in an order that gives each
    something to act on; ``ids`` carries what earlier steps made."""
    def keep(key: str, fn: Callable[[Baton, dict], Any]) -> Callable[[Baton, dict], Any]:
        def step(app: Baton, ids: dict) -> Any:
            ids[key] = fn(app, ids)
            return ids[key]
        return step

    return [
        ("capture", keep("draft", lambda app, ids: app.capture(payload()).handoff_id)),
        ("capture", keep("other", lambda app, ids: app.capture(payload(
            summary={"current_state": "another state", "completed": ["y"]})).handoff_id)),
        ("validate", lambda app, ids: app.validate(ids["draft"])),
        ("promote", lambda app, ids: app.promote(ids["draft"], accept_warnings="tests")),
        ("amend", keep("revision", lambda app, ids: app.amend(
            ids["draft"], changes={"summary": {"current_state": "changed"}}).handoff_id)),
        ("fork", lambda app, ids: app.fork(ids["draft"], label="spike")),
        ("merge", lambda app, ids: app.merge([ids["draft"], ids["other"]], title="both",
                                             resolution={"decision": "keep both", "rationale": "tests"})),
        ("resume", lambda app, ids: app.resume(ids["draft"], mark_resumed=True, session="s-resume")),
        ("prepare", lambda app, ids: app.prepare()),
        ("detect", lambda app, ids: app.detect(ASKED, session="s-detect")),
        ("control_detector", lambda app, ids: app.control_detector("snooze", session="s-detect", minutes=5)),
        ("begin_session", lambda app, ids: app.begin_session(session_id="s1", owner=ALICE, branch="main",
                                                             objective="ship the parser")),
        ("end_session", lambda app, ids: app.end_session("s1", STEPS, owner=ALICE, branch="main")),
        ("bootstrap", lambda app, ids: app.bootstrap(session_id="s2", owner=ALICE, branch="main")),
        ("create_baton", keep("baton", lambda app, ids: app.create_baton(
            STEPS, owner=ALICE, branch="main").created.record.id)),
        ("cancel_baton", lambda app, ids: app.cancel_baton(owner=ALICE, branch="main")),
        ("hand_on", keep("handed", lambda app, ids: app.hand_on(
            ids["draft"], owner=ALICE, branch="main").created.record.id)),
        ("dismiss_baton", lambda app, ids: app.dismiss_baton(ids["handed"])),
        ("start_harness_session", lambda app, ids: app.start_harness_session(
            "s-hook", harness="claude-code", source="startup")),
        ("prepare_for_compaction", lambda app, ids: app.prepare_for_compaction(
            "s-hook", harness="claude-code", trigger="auto")),
        ("finish_harness_session", lambda app, ids: app.finish_harness_session(
            "s-hook", harness="claude-code", reason="exit")),
        ("archive", lambda app, ids: app.archive(ids["other"], reason="done")),
        ("forget", lambda app, ids: app.forget(ids["revision"], reason="tests", yes=True)),
    ]


READERS = {
    "log", "log_stream", "verify", "audit", "list_handoffs", "show", "lineage", "active_baton", "pending_batons", "metrics",
    "status", "status_overview", "handoff_view", "listen_target", "sanitize", "doctor", "close", "open",
    "notice_fates", "notices_as_now", "begun_here", "show_policy", "start_hook_missing",
}
"""Methods that record nothing (``resume`` and ``bootstrap`` write only when they mark or claim)."""
ELSEWHERE = {
    "init": "one append (project.initialized), before any other command can run",
    "rebuild": "rebuilds the index; appends nothing",
    "gc": "removes derived files; appends nothing",
    "trust_policy": "writes this checkout's trust record (<gitdir>/baton/policy-trust.json); appends nothing (trust is never in the ledger)",
    "untrust_policy": "removes this checkout's trust record; appends nothing",
    "sync": "imports other writers' feeds (out of this scope); its own feed gets no event",
    "repair": "one scope.append of every quarantine event (tests/test_repair*.py)",
    "dismiss_from_status_page": "dismiss_baton, from the status page",
    "run_deferred_hooks": "finish_harness_session and prepare_for_compaction (in the census), once per kept hook",
}


def test_every_public_method_of_the_application_object_is_in_the_census():
    public = {name for name, _ in inspect.getmembers(Baton, callable) if not name.startswith("_")}
    writers = {name for name, _ in _census_steps()}
    assert public == writers | READERS | set(ELSEWHERE), "classify the new method: a writer joins the census"


def test_every_writing_command_writes_the_feed_at_most_once_per_call(project, monkeypatch):
    git_init(project, {"src/app.py": "x = 1\n"})
    writes = FeedWrites(project, monkeypatch)
    ids: dict[str, Any] = {}
    for name, step in _census_steps():
        writes.sizes.clear()
        with Baton.open(project) as app:
            step(app, ids)
        assert len(writes.sizes) <= 1, f"{name} wrote the feed {len(writes.sizes)} times"
        if name in ("capture", "end_session", "create_baton", "detect", "forget", "merge"):
            assert len(writes.sizes) == 1, f"{name} recorded nothing"


# -- a harness's hooks: one event, one write ----------------------------------------------

HOOK_EVENTS = [("SessionStart", "SessionStart.startup", {}),
               ("PreCompact", "PreCompact.auto", {}),
               ("PreCompact", "PreCompact.manual", {}),  # the session's draft kept: the recommendation only
               ("UserPromptSubmit", "UserPromptSubmit", {"prompt": "continue later"}),  # asks for a draft
               ("SessionEnd", "SessionEnd", {})]


def test_each_hook_of_a_session_writes_the_feed_at_most_once(project, monkeypatch):
    from tests.harness_support import fixture, hook

    git_init(project, {"src/app.py": "x = 1\n"})
    writes = FeedWrites(project, monkeypatch)
    for event, name, changes in HOOK_EVENTS:
        writes.sizes.clear()
        before = len(_visible(project))
        outcome = hook(project, "claude-code", event, fixture("claude-code", name, project, session_id="s-hook",
                                                               **changes))
        assert outcome.problem is None, (name, outcome.problem)
        written = _types(_visible(project)[before:])
        assert len(writes.sizes) <= 1, f"the {name} hook wrote the feed {len(writes.sizes)} times: {written}"
        if name == "PreCompact.auto":  # the session's draft and the detector's record of the compaction
            assert written == ["handoff.captured", "detector.recommended"]


# -- a real kill --------------------------------------------------------------------------

KILLER = textwrap.dedent("""
    import os, signal, sys
    from baton.ledger import files

    real = files.write_all

    def killed(fd, data):
        if b'"handoff.captured"' in data and b'"stream_version"' in data:  # a feed's lines
            cut = len(data) if sys.argv[3] == "after" else len(data) // 2
            os.write(fd, data[:cut])
            os.kill(os.getpid(), signal.SIGKILL)
        return real(fd, data)

    files.write_all = killed
    from baton.app import Baton

    with Baton.open(sys.argv[1]) as app:
        if sys.argv[2] == "baton create":
            app.create_baton({"nextSteps": ["finish the parser"]}, owner="alice@example.com", branch="main")
        else:
            app.detect({"handoff_request": True}, session="s-kill")
""")

KILLED = {"baton create": ["handoff.captured", "baton.created"],
          "detect creating a draft": ["handoff.captured", "detector.recommended"]}


@pytest.mark.parametrize("where", ["after", "inside"])
@pytest.mark.parametrize("name", sorted(KILLED))
def test_a_command_sigkilled_in_its_write_leaves_all_or_nothing_to_baton_log(project, name, where):
    import json

    from tests.conftest import run_baton

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", KILLER, str(project), name, where], env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == -9, done.stderr.decode()
    logged = run_baton("log", "--json", "--project", str(project))
    assert logged.returncode == 0, logged.stderr
    types = [json.loads(line)["type"] for line in logged.stdout.splitlines() if line.strip()]
    left = [t for t in types if t in KILLED[name]]
    assert left == (KILLED[name] if where == "after" else [])


def test_a_forget_killed_after_its_append_leaves_its_record_and_a_second_forget_finishes(project, monkeypatch):
    """``forget`` is one append (``handoff.forgotten``) and then a rewrite: a
    death in between leaves the whole record and payloads still to erase,
    never an erasure nobody recorded; running it again erases them."""
    from baton.ledger import erase

    with Baton.open(project) as app:
        handoff_id = app.capture(payload()).handoff_id

    def killed(ledger_dir, event_ids):
        raise Killed("before the erasure")

    with monkeypatch.context() as patch:
        patch.setattr(erase, "erase_payloads", killed)
        with pytest.raises(Killed):
            with Baton.open(project) as app:
                app.forget(handoff_id, reason="tests", yes=True)
    visible = _visible(project)
    assert _types(visible).count("handoff.forgotten") == 1
    assert next(e for e in visible if e.type == "handoff.captured").data is not None  # still to erase
    with Baton.open(project) as app:
        assert app.verify().to_json()["ok"] is True
        app.forget(handoff_id, reason="tests", yes=True)
    assert all(e.data is None for e in _visible(project) if e.type == "handoff.captured")
