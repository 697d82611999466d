"""The commands hooks run at every session start and end import only what they need.

Measured, not timed: ``python -X importtime`` lists every module a command
loads. On a project whose index is warm, the hook path must not load the MCP
SDK, sqlite-utils (the index opens with the stdlib ``sqlite3``; sqlite-utils
only builds tables) or dulwich's porcelain.
"""

from __future__ import annotations

import ast
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from tests.app_support import end_session, promote_handoff, validate_handoff_command
from tests.handoff_support import git_init

HEAVY = ("mcp", "sqlite_utils", "dulwich.porcelain", "click")


@pytest.fixture
def warm(project):
    from baton.app import Baton
    from tests.handoff_support import payload

    git_init(project, {"src/app.py": "x = 1\n"})
    with Baton.open(project) as app:
        handoff_id = app.capture(payload()).handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id)
    end_session(project, "s1", {"nextSteps": ["carry on"]})
    return project


def _loaded(project, *args: str) -> set[str]:
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "baton", *args, "--project", str(project)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}


@pytest.mark.parametrize("command", [
    ("bootstrap", "--json", "--session-id", "s2"),
    ("bootstrap", "--peek"),
    ("session", "handoff", "--json"),
    ("session", "end", "s3"),
    ("resume", "latest"),
], ids=" ".join)
def test_a_hook_path_command_loads_no_heavy_module(warm, command):
    loaded = _loaded(warm, *command)
    assert "baton.app" in loaded  # the command really ran through the application
    assert not [m for m in HEAVY if m in loaded]


def test_a_hook_path_command_on_a_policy_that_widens_nothing_loads_no_trust_rules(warm):
    """``baton init``'s policy (an empty allowlist) needs no trust: the trust rules stay unloaded."""
    loaded = _loaded(warm, "bootstrap", "--peek")
    assert "baton.policy" in loaded  # the policy was read
    assert "baton.domain.policy_trust" not in loaded


def test_leaving_a_baton_loads_the_git_status_machinery_and_nothing_else_heavy(warm):
    """A baton is a captured handoff, which records whether the worktree is
    dirty: that needs dulwich's status (in its porcelain), nothing more."""
    loaded = _loaded(warm, "session", "end", "s3", "--handoff-steps", "next")
    assert not [m for m in HEAVY if m in loaded and m != "dulwich.porcelain"]


@pytest.mark.parametrize("command", [
    ("session", "handoff", "--json"),
    ("bootstrap", "--peek", "--json"),
    ("bootstrap", "--json", "--session-id", "s9"),
], ids=" ".join)
def test_with_nothing_to_claim_a_hook_path_command_loads_no_dulwich_at_all(warm, command):
    """Finding the worktree and its branch are two small file reads, and the
    owner comes from the identity kept under ``.baton/cache``: no repository
    is opened unless a baton's freshness must be judged."""
    from baton.app import Baton

    with Baton.open(warm) as app:
        app.cancel_baton()  # nothing pending; this also caches git's identity
    loaded = _loaded(warm, *command)
    assert "baton.app" in loaded
    assert not [m for m in loaded if m == "dulwich" or m.startswith("dulwich.")]
    assert "baton.domain.freshness" not in loaded  # no baton's freshness to judge: not even its rules


def test_resuming_the_latest_handoff_loads_no_dulwich(warm):
    """Its freshness compares the record's head with HEAD's commit, read from
    ``HEAD`` and the branch's ref file: no repository is opened."""
    loaded = _loaded(warm, "resume", "latest")
    assert "baton.commands.resume" in loaded
    assert not [m for m in loaded if m == "dulwich" or m.startswith("dulwich.")]


@pytest.mark.parametrize("command", [
    ("bootstrap", "--peek", "--json"),
    ("session", "handoff", "--json"),
    ("resume", "latest"),
], ids=" ".join)
def test_a_read_with_nothing_new_to_fold_defines_no_event_class(warm, command):
    """Routing needs only the type names (``baton.events.names``); the 24 event
    classes, the aggregates and ``record`` are for writing and folding."""
    _loaded(warm, "session", "handoff", "--json")  # catch up once: nothing is new after this
    loaded = _loaded(warm, *command)
    assert "baton.app" in loaded
    assert not {"baton.events.catalogue", "baton.events.base", "baton.events.session", "baton.events.baton",
                "baton.events.handoff", "baton.events.project", "baton.events.detector",
                "baton.domain.aggregates.baton", "baton.domain.aggregates.session", "baton.commands.record"} & loaded


@pytest.mark.parametrize("command", [
    ("bootstrap", "--json", "--session-id", "s2"),
    ("session", "handoff", "--json"),
], ids=" ".join)
def test_reading_and_claiming_a_baton_defines_none_of_the_other_baton_use_cases(warm, command):
    """Leaving, listing, cancelling and dismissing batons (and their result
    classes) are in ``baton.commands.baton_cases``: a session start needs none."""
    loaded = _loaded(warm, *command)
    assert "baton.commands.batons" in loaded
    assert "baton.commands.baton_cases" not in loaded


def test_resume_reads_scores_and_renders_a_record_without_what_it_does_not_run(warm):
    """Reading the stored record needs no converter (the index's records were
    checked before they were stored: ``stored_handoff``), its freshness no
    validation rule, a project without branches no lineage domain, a score
    no ``decimal``, its counted nouns no typo's hint (``difflib``: ``baton.domain.close_names``),
    and nothing is run (no ``subprocess``)."""
    _loaded(warm, "session", "handoff", "--json")
    loaded = _loaded(warm, "resume", "latest")
    assert {"baton.commands.resume", "baton.domain.wording"} <= loaded
    assert not {"baton.domain.validation", "baton.domain.lineage", "decimal", "subprocess", "cattrs",
                "difflib", "baton.domain.close_names"} & loaded


def test_folding_an_event_of_no_known_family_loads_the_whole_catalogue_and_its_upcasters_first(warm):
    """Upcasters are registered with their event's class: a catch-up loads
    an event's family before the first event of its type is upcast, and the
    whole catalogue (``baton.events``) for a type no family names."""
    from baton.ledger.envelope import EventDraft
    from baton.ledger.store import Ledger

    _loaded(warm, "session", "handoff", "--json")
    other = Ledger(warm / ".baton", "another-writer", fsync="never")  # another machine's feed, not yet folded
    with other.locked() as txn:
        txn.append([EventDraft("note.added", "note/x", {"text": "from elsewhere"})])
    loaded = _loaded(warm, "session", "handoff", "--json")
    assert "baton.events.catalogue" in loaded


def test_claiming_a_baton_judges_its_freshness_without_dulwich(warm):
    """The freshness line compares the baton's head with HEAD's commit, read
    from the ref files; with git's identity cached, nothing opens the repository."""
    from baton.app import Baton

    _loaded(warm, "session", "handoff", "--json")  # caches git's identity (read once through dulwich)
    with Baton.open(warm) as app:
        assert app.pending_batons().to_json()["total"] == 1
    loaded = _loaded(warm, "bootstrap", "--json", "--session-id", "s2")
    with Baton.open(warm) as app:
        assert app.pending_batons().to_json()["total"] == 0  # it was claimed
    assert not [m for m in loaded if m == "dulwich" or m.startswith("dulwich.")]


CLAIM_OFF = {"baton.domain.aggregates.handoff", "baton.domain.lifecycle", "baton.domain.readiness",
             "baton.domain.readiness_codes"}
"""What a claim no longer loads: it decides its handoff's resume from the stored record's status and
flags (``baton.domain.lifecycle_table.resume_of_stored``), not through the handoff aggregate and the record's lifecycle."""


def test_a_session_start_receiving_a_baton_claims_it_without_the_handoff_aggregate_or_lifecycle(warm):
    from tests.harness_support import fixture

    _loaded(warm, "session", "handoff", "--json")
    payload = json.dumps(fixture("claude-code", "SessionStart.startup", warm, session_id="receives-1"))
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "baton", "hook", "claude-code", "SessionStart"],
                       input=payload, capture_output=True, text=True, cwd=warm,
                       env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert {"baton.commands.baton_claim", "baton.domain.lifecycle_table"} <= loaded  # it claimed the baton
    assert not CLAIM_OFF & loaded, sorted(CLAIM_OFF & loaded)


RECEIVING_START_MODULES = {
    "baton.commands.baton_claim",
    "baton.commands.handoff_facts", "baton.domain.aggregates.baton", "baton.domain.content_hash",
    "baton.domain.freshness", "baton.domain.lifecycle_table",
    "baton.domain.wording", "baton.events.baton", "baton.events.handoff", "baton.projections.folds.batons",
    "baton.commands.feed_vouch", "baton.domain.feed_vouch",
}
"""What a SessionStart that receives a baton loads beyond a steady one: whether the feed that carried
the baton vouches for it (``feed_vouch``), the freshness line (the worktree's
facts and the stored record as its freshness reads it, ``domain.freshness.stored_record``), the claim (the
baton aggregate, whose state and commands are value classes, and the carried handoff's resume decided from the
stored record; ``baton.events.handoff`` only when that is a resume: not for a session's draft) and the
claim's fold. Not the record model, attrs or ``typing`` (~150 M instructions)."""


def test_a_session_start_receiving_a_baton_loads_no_module_and_defines_no_class_beyond_the_named_ones(warm):
    from tests.harness_support import fixture

    _loaded(warm, "session", "handoff", "--json")
    payload = json.dumps(fixture("claude-code", "SessionStart.startup", warm, session_id="receives-2"))
    modules, classes = _steady_run(warm, "hook", "claude-code", "SessionStart", stdin=payload)
    assert {"baton.commands.baton_claim", "baton.commands.handoff_facts"} <= modules  # it claimed the baton
    assert modules - STEADY_START_MODULES - RECEIVING_START_MODULES == set() and classes == set(), \
        (sorted(modules - STEADY_START_MODULES), sorted(classes))


def test_a_session_start_receiving_a_session_ends_draft_loads_no_handoff_event_class(warm):
    """The baton a session's end leaves carries its draft, whose claim records no resume
    (``domain.lifecycle_table.resume_of_stored``): the handoff events' family (``baton.events.handoff``, ~3 M
    instructions) is loaded only to build ``handoff.resumed``, not for a claim that builds none."""
    from tests.harness_support import fixture

    _loaded(warm, "session", "handoff", "--json")
    payload = json.dumps(fixture("claude-code", "SessionStart.startup", warm, session_id="receives-4"))
    modules, _ = _steady_run(warm, "hook", "claude-code", "SessionStart", stdin=payload)
    assert "baton.commands.baton_claim" in modules  # it claimed the baton
    appended = [json.loads(line)["type"] for name in sorted(os.listdir(warm / ".baton" / "ledger"))
                for line in (warm / ".baton" / "ledger" / name).read_text().splitlines() if line.strip()]
    assert "baton.claimed" in appended and "handoff.resumed" not in appended  # a draft: no resume recorded
    assert "baton.events.handoff" not in modules


def test_a_session_start_receiving_a_baton_imports_neither_attrs_nor_typing(warm):
    """Its freshness line reads the stored record without the record model (``stored_record``) and its
    claim decides with the baton aggregate's value classes: attrs (~0.3x the stack's floor) and
    ``typing`` stay unloaded, as on a steady start."""
    from tests.harness_support import fixture

    _loaded(warm, "session", "handoff", "--json")
    payload = json.dumps(fixture("claude-code", "SessionStart.startup", warm, session_id="receives-3"))
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "baton", "hook", "claude-code", "SessionStart"],
                       input=payload, capture_output=True, text=True, cwd=warm,
                       env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0 and "Freshness: " in r.stdout, r.stderr[-2000:]  # it judged the baton's freshness
    loaded = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert not [m for m in loaded if m in (*_ATTRS_MODULES, "typing", "baton.domain.handoff")
                or m.startswith(("attr.", "cattrs."))], sorted(loaded)


def test_a_start_without_a_baton_names_the_latest_handoff_without_loading_the_record_model(warm):
    """The pointer to the latest ready handoff needs its short id, not the
    handoff model and its converter (~10 ms of imports)."""
    from tests.app_support import bootstrap

    bootstrap(warm, session_id="s2")  # claims the waiting baton: the next start has none
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "baton", "bootstrap", "--session-id", "s3",
                        "--project", str(warm)], capture_output=True, text=True)
    assert r.returncode == 0 and "## Latest ready handoff" in r.stdout
    loaded = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert "baton.domain.handoff" not in loaded


def _capture_elsewhere(warm, *, late: bool = False) -> str:
    """A capture written by another checkout of ``warm`` (its own feed), delivered as a sync
    would; ``late``: captured before ``warm`` appends once more, so it sorts before what
    ``warm``'s index has folded. The capture's id."""
    import shutil

    from baton.app import Baton
    from baton.commands.context import Project
    from tests.handoff_support import payload

    _loaded(warm, "session", "handoff", "--json")
    elsewhere = warm.parent / "another-checkout"
    shutil.copytree(warm, elsewhere, symlinks=True)
    opened = Project.open(elsewhere)
    other = Baton(Project(opened.paths, opened.config, "another-writer"))  # another checkout's feed
    opened.close()
    try:
        handoff_id = other.capture(payload()).handoff_id
    finally:
        other.project.close()
    feed = "another-writer.jsonl"
    lines = (elsewhere / ".baton" / "ledger" / feed).read_bytes()
    if late:
        end_session(warm, "s-after", {"nextSteps": ["later, here"]})
        _loaded(warm, "session", "handoff", "--json")  # folded: the capture now sorts before it
        with sqlite3.connect(warm / ".baton" / "index.sqlite") as db:
            folded = json.loads(db.execute("SELECT value FROM meta WHERE key = 'last_key'").fetchone()[0])[0]
        assert json.loads(lines.splitlines()[-1])["hlc"] < folded
    (warm / ".baton" / "ledger" / feed).write_bytes(lines)  # a sync
    return handoff_id


def test_folding_a_capture_from_another_writer_loads_the_handoff_events_and_not_the_rest_of_the_catalogue(warm):
    """A handoff's aggregate names the handoff family's events only: a capture
    that arrives from another writer is folded without the session, baton,
    detector and project events (~5 ms of classes a hook would not use)."""
    _capture_elsewhere(warm)
    loaded = _loaded(warm, "resume", "latest")
    assert {"baton.events.handoff", "baton.domain.aggregates.handoff"} <= loaded  # the capture was folded
    assert not {"baton.events.catalogue", "baton.events.detector", "baton.events.project"} & loaded


def test_folding_a_late_capture_from_another_writer_reads_and_writes_its_record_without_cattrs(warm):
    """The capture's record is read by the model's strict readers and written
    by its writers, walking each class's plan (``baton.domain.record_reader``):
    no cattrs (~10 ms of imports), no converter for the 19 classes (~9 ms),
    nothing compiled for one record."""
    from baton.app import Baton

    handoff_id = _capture_elsewhere(warm, late=True)
    loaded = _loaded(warm, "session", "handoff", "--json")
    assert {"baton.domain.aggregates.handoff", "baton.domain.record_reader"} <= loaded  # the capture was folded
    assert not [m for m in loaded if m == "cattrs" or m.startswith("cattrs.")]
    with Baton.open(warm) as app:
        assert app.show(handoff_id).record["id"] == handoff_id


_CLASSES_AT_EXIT = """
import os, runpy, sys
exit_now = os._exit
def report(code):
    names = sorted(f"{m.__name__}.{k}" for m in list(sys.modules.values())
                   if (m.__name__ or "").startswith("baton") for k, v in vars(m).items()
                   if isinstance(v, type) and hasattr(v, "__attrs_attrs__") and v.__module__ == m.__name__)
    sys.stderr.write("ATTRS " + " ".join(names) + "\\n")
    sys.stderr.flush()
    exit_now(code)
os._exit = report
sys.argv = ["baton", *sys.argv[1:]]
runpy.run_module("baton", run_name="__main__", alter_sys=True)
"""


def _steady_run(project, *args: str, stdin: str | None = None) -> tuple[set[str], set[str]]:
    """The Baton modules a hook-path command loads and the attrs classes it defines
    (``-X importtime``, and the classes found in the modules at its ``os._exit``)."""
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", _CLASSES_AT_EXIT, *args], input=stdin,
                       capture_output=True, text=True, cwd=project, env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0, r.stderr[-2000:]
    modules = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    classes = next(line for line in r.stderr.splitlines() if line.startswith("ATTRS ")).split()[1:]
    return {m for m in modules if m == "baton" or m.startswith("baton.")}, set(classes)


STEADY_MODULES = {
    "baton", "baton.app", "baton.canonical", "baton.cli_run", "baton.cli_handlers",
    "baton.cli_handlers.output", "baton.commands", "baton.commands.batons", "baton.commands.bootstrap",
    "baton.commands.context", "baton.commands.identity", "baton.commands.objectives", "baton.config",
    "baton.domain", "baton.domain.batons", "baton.domain.claimed_elsewhere", "baton.domain.freshness_states",
    "baton.domain.identifiers", "baton.domain.limits", "baton.domain.paths", "baton.domain.percent", "baton.domain.policy_keys",
    "baton.domain.redaction",
    "baton.domain.redaction.output", "baton.domain.redaction.policy", "baton.domain.redaction.rules",
    "baton.domain.redaction.secret_rules", "baton.domain.redaction.table", "baton.domain.redaction.walk",
    "baton.domain.regexes", "baton.domain.short_ids", "baton.values", "baton.domain.visible", "baton.errors",
    "baton.events",
    "baton.events.names", "baton.gitinfo", "baton.ledger", "baton.ledger.changes", "baton.ledger.clock",
    "baton.ledger.envelope", "baton.ledger.feed", "baton.ledger.files", "baton.ledger.ids",
    "baton.ledger.integrity", "baton.ledger.listing", "baton.ledger.protocol", "baton.ledger.store",
    "baton.ledger.upcast", "baton.ledger.versions", "baton.oplog", "baton.policy",
    "baton.process_end", "baton.project", "baton.projections", "baton.projections.base",
    "baton.projections.batons", "baton.projections.continuity_metrics", "baton.projections.detector",
    "baton.projections.event_counts", "baton.projections.handoffs", "baton.projections.lineage",
    "baton.projections.registry", "baton.projections.runner", "baton.projections.sessions", "baton.writer_id",
}
"""Baton's modules a steady ``bootstrap --json`` and SessionStart hook both load
(``baton.domain.policy_keys``: the pure check of whether a policy may widen, apart from the trust
rules so that a policy that widens nothing loads only it; ``baton.domain.claimed_elsewhere``: a
start that receives no baton asks whether another session claimed this owner and branch's newest)."""
RECORD_START_MODULES = {
    "baton.commands.record", "baton.commands.session_records", "baton.domain.aggregates",
    "baton.domain.aggregates.session", "baton.domain.repeated_start", "baton.events.base", "baton.events.session",
    "baton.projections.folds", "baton.projections.folds.sessions",
    # whether another open session's objective stands past this start (tester26 T3): the rule a
    # session is taken for ended by, and this machine's reading of a harness process (both loaded
    # by every start hook already; small, and import nothing more)
    "baton.domain.unended", "baton.launch",
}
"""What records a named session's start (``session.begun``) and folds it, and what a repeated
start of it is told (``baton.domain.repeated_start``, the session's rule's words)."""
STEADY_READ_MODULES = STEADY_MODULES | RECORD_START_MODULES | {
    "baton.cli_handlers.opened", "baton.cli_handlers.sessions", "baton.cli_read",
    "baton.domain.shell_words",  # the lock-wait message quotes the lock's path (not ``shlex``)
    # the notices failed hooks left, which a start shows (tester26 T4): what every hook loads already
    "baton.harnesses", "baton.harnesses.notices",
}
"""``bootstrap --json --session-id`` from the command line: its handlers' modules besides, and
what records the session's start, as the SessionStart hook does, so that the session starts once
(docs/batons.md, "A session starts once"; 79 in all)."""
STEADY_START_MODULES = STEADY_MODULES | {
    "baton.commands.harness_start", "baton.commands.record",
    "baton.commands.session_records", "baton.domain.aggregates",
    "baton.domain.repeated_start",
    "baton.domain.unended",  # whether the newest ready handoff still waits (review15 F12): no class
    "baton.domain.aggregates.session", "baton.domain.shell_words", "baton.events.base",
    "baton.events.session", "baton.harnesses", "baton.harnesses.claude_code", "baton.harnesses.hook",
    "baton.harnesses.hook_project", "baton.harnesses.notices", "baton.harnesses.protocol",
    "baton.projections.folds", "baton.projections.folds.sessions",
    "baton.launch",  # the harness process the start records: the `baton` program's entry, loaded by every hook
}                    # a harness runs (here, run as `python -m baton`, it is the one module more)
"""The SessionStart hook: its adapter and runner, and what records ``session.begun`` (85 in all: neither
the kept hooks' runner, ``baton.commands.deferred``, nor a session's drafts, ``baton.commands.session_drafts``)."""
STEADY_CLASSES: set[str] = set()
"""The attrs classes both define: none (the output screen's, the ledger's, the events', the
baton's and the commands' values are named tuples, ``baton.values.Value``, or plain classes)."""
RECORD_START_CLASSES: set[str] = set()
"""The attrs classes that record a start define besides: none."""
STEADY_READ_CLASSES = STEADY_CLASSES | RECORD_START_CLASSES
STEADY_START_CLASSES = STEADY_CLASSES | set()
"""... and a start defines none besides."""


@pytest.fixture
def steady(warm):
    """The warm project with nothing waiting and nothing new to fold: a session start's usual case."""
    from baton.app import Baton

    with Baton.open(warm) as app:
        app.cancel_baton()
    _loaded(warm, "session", "handoff", "--json")
    return warm


def test_a_steady_bootstrap_loads_no_module_and_defines_no_class_beyond_the_named_ones(steady):
    """What ``bootstrap --json`` loads in a project in use (a warm index, nothing
    new, no baton waiting) is named here, module by module and class by class:
    each one costs every hook (~0.1 ms a module, ~0.2 ms an attrs class: docs/performance.md,
    "The hook path in its own process, fifth pass"), so one more must be a decision."""
    modules, classes = _steady_run(steady, "bootstrap", "--json", "--session-id", "s7")
    assert "baton.commands.bootstrap" in modules  # it ran through the application
    assert modules - STEADY_READ_MODULES == set() and classes - STEADY_READ_CLASSES == set(), \
        (sorted(modules), sorted(classes))


def test_a_steady_session_start_hook_loads_no_module_and_defines_no_class_beyond_the_named_ones(steady):
    """The same for the SessionStart hook, which also records ``session.begun``."""
    from tests.harness_support import fixture

    payload = json.dumps(fixture("claude-code", "SessionStart.startup", steady, session_id="steady-1"))
    modules, classes = _steady_run(steady, "hook", "claude-code", "SessionStart", stdin=payload)
    assert {"baton.commands.harness_start", "baton.events.session"} <= modules  # it started the session
    assert modules - STEADY_START_MODULES == set() and classes - STEADY_START_CLASSES == set(), \
        (sorted(modules), sorted(classes))


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd"])
def test_a_session_hook_run_with_the_hook_server_off_loads_no_socket_library(steady, event):
    """``baton`` (``baton.launch.run``) loads ``_socket`` only to ask a hook server: with the
    server off (``BATON_HOOK_SERVER=0``) a hook runs in its own process without the library."""
    from tests.harness_support import fixture

    kind = "SessionStart.startup" if event == "SessionStart" else "SessionEnd"
    payload = json.dumps(fixture("claude-code", kind, steady, session_id="no-socket-1"))
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", "from baton.launch import run; run()",
                        "hook", "claude-code", event], input=payload, capture_output=True, text=True, cwd=steady,
                       env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert "baton.harnesses.hook_project" in loaded  # the hook ran here
    assert not {"_socket", "socket"} & loaded


_ATTRS_MODULES = ("attr", "attrs", "cattrs", "baton.model")


@pytest.mark.parametrize("command", [
    ("bootstrap", "--json"),
    ("bootstrap", "--json", "--peek"),
    ("session", "handoff", "--json"),
    ("bootstrap", "--json", "--session-id", "s8"),
    ("session", "end", "s8"),
], ids=" ".join)
def test_a_steady_hook_path_command_imports_no_attrs(steady, command):
    """attrs' import is ~0.3x the stack's floor and each class it builds ~0.2 ms
    (docs/performance.md): every value a steady hook-path command builds is a named
    tuple (``baton.values.Value``) or a plain class, so none of them loads attrs."""
    loaded = _loaded(steady, *command)
    assert "baton.app" in loaded  # it ran through the application
    assert not [m for m in loaded if m in _ATTRS_MODULES or m.startswith(("attr.", "cattrs."))], sorted(loaded)


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd"])
def test_a_steady_session_hook_imports_no_attrs(steady, event):
    """The same for the SessionStart and SessionEnd hooks in their own process."""
    from tests.harness_support import fixture

    kind = "SessionStart.startup" if event == "SessionStart" else "SessionEnd"
    payload = json.dumps(fixture("claude-code", kind, steady, session_id="no-attrs-1"))
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "baton", "hook", "claude-code", event],
                       input=payload, capture_output=True, text=True, cwd=steady,
                       env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert "baton.harnesses.hook_project" in loaded
    assert not [m for m in loaded if m in _ATTRS_MODULES or m.startswith(("attr.", "cattrs."))], sorted(loaded)


def test_the_output_screen_loads_neither_attrs_nor_typing():
    """Every answer passes the output screen (``baton.domain.redaction.output``): its
    rules, policy and outcome are named tuples, so a path that needs no model class
    screens its answer without attrs (~0.2x the stack's floor) or ``typing``."""
    r = subprocess.run([sys.executable, "-X", "importtime", "-c",
                        "from baton.domain.redaction import RedactionPolicy, screen_text\n"
                        "token = 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'\n"
                        "assert screen_text('token ' + token, RedactionPolicy()) == 'token [REDACTED:github-token]'"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert "baton.domain.redaction.output" in loaded
    assert not [m for m in loaded if m in ("attr", "attrs", "typing", "cattrs", "baton.model")]


_NO_PARSER = """
import runpy, sys
import baton.cli as cli
def refused(words=None):
    sys.stderr.write("PARSER BUILT\\n")
    raise SystemExit(3)
cli.build_parser = refused
sys.argv = ["baton", *sys.argv[1:]]
runpy.run_module("baton", run_name="__main__", alter_sys=True)
"""


def test_a_session_start_hook_delivers_its_brief_without_building_a_command_line_parser(steady):
    """The hook's own words (``hook claude-code SessionStart``) are read by ``cli.hook_run``:
    no argparse parser is built in the process that answers the harness."""
    from tests.harness_support import fixture

    payload = json.dumps(fixture("claude-code", "SessionStart.startup", steady, session_id="no-parser-1"))
    r = subprocess.run([sys.executable, "-c", _NO_PARSER, "hook", "claude-code", "SessionStart"], input=payload,
                       capture_output=True, text=True, cwd=steady, env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0 and "PARSER BUILT" not in r.stderr, r.stderr[-2000:]
    assert "additionalContext" in r.stdout


def _attrs_generated(method) -> bool:
    code = getattr(method, "__code__", None)
    return code is not None and code.co_filename.startswith("<attrs generated")


@pytest.mark.parametrize("command", [
    ("bootstrap", "--json", "--session-id", "s2"),
    ("session", "end", "s3"),
], ids=" ".join)
def test_every_class_a_hook_path_command_defines_uses_the_shared_methods(warm, command):
    """attrs writes and compiles ``__eq__``, ``__hash__`` and ``__repr__`` for
    each class it defines; the hook path's classes use ``baton.model``'s
    decorators, which share one of each instead (``baton.model``)."""
    import importlib

    import attrs

    loaded = _loaded(warm, *command)
    generated = []
    for name in sorted(m for m in loaded if m == "baton" or m.startswith("baton.")):
        module = importlib.import_module(name)
        for cls in vars(module).values():
            if isinstance(cls, type) and cls.__module__ == name and attrs.has(cls):
                generated += [f"{name}.{cls.__qualname__}.{m}" for m in ("__eq__", "__hash__", "__repr__")
                              if _attrs_generated(cls.__dict__.get(m))]
    assert generated == []


def test_completing_handoff_ids_under_a_git_config_with_an_include_loads_no_dulwich(warm, tmp_path):
    """A config that includes another file has no identity stamp; the list's
    reader then stays lazy, and a TAB that marks no row "(you)" reads no git config."""
    included = tmp_path / "identity.gitconfig"
    included.write_text("[user]\n\temail = me@example.com\n")
    config = tmp_path / "global.gitconfig"
    config.write_text(f"[include]\n\tpath = {included}\n")
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "baton", "completion", "--words", "ids",
                        "--project", str(warm)], capture_output=True, text=True,
                       env={**os.environ, "GIT_CONFIG_GLOBAL": str(config)})
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip()  # the ids were offered
    loaded = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert "baton.commands.listing" in loaded
    assert not [m for m in loaded if m == "dulwich" or m.startswith("dulwich.")]


def test_resume_latest_defines_no_attrs_class(steady):
    """Its record is read as values (``baton.domain.record_view``), as are its freshness, score,
    brief, choice of ``latest`` and result; the brief's layout rows are plain classes."""
    _, classes = _steady_run(steady, "resume", "latest")
    assert classes == set()


def test_resume_latest_imports_neither_attrs_nor_typing_nor_the_record_model(steady):
    """attrs with ``typing`` is a quarter of the stack's floor, the record model's 19 classes
    another eighth (docs/performance.md): ``resume`` reads its record without them."""
    loaded = _loaded(steady, "resume", "latest")
    assert {"baton.commands.resume", "baton.domain.record_view"} <= loaded  # it read and rendered a record
    assert not {"attrs", "typing", "baton.domain.handoff", "baton.model", "baton.domain.lifecycle"} & loaded, \
        sorted(loaded)


def test_resume_latest_that_finds_a_ready_handoff_loads_no_module_for_what_it_does_not_say(steady):
    """Why nothing is ready (``teammate_archive``'s archived-latest wording, with the authorship
    words) is loaded only when nothing is; the options it checks live with the bounds
    (``baton.domain.limits``), not in a module of their own."""
    loaded = _loaded(steady, "resume", "latest")
    assert "baton.commands.resume" in loaded
    assert not {"baton.domain.teammate_archive", "baton.domain.authorship", "baton.commands.resume_options"} & loaded


WALKERS = {"dulwich.repo", "dulwich.object_store", "dulwich.walk", "dulwich.porcelain", "baton.repo_state",
           "baton.git_status", "baton.commands.project_snapshot"}
"""What a walk of a moved head's history does not load on a line of commits: dulwich's repository
(its config, hooks and worktree machinery), its object store and walker (their imports were most of
a moved head's cost), and git status, which only a capture's snapshot reads."""


def test_resume_latest_after_the_head_moved_reads_loose_commits_with_dulwichs_object_reader_alone(steady):
    """How the head moved is read from the commits' own files by ``dulwich.objects``
    (``gitinfo._ObjectFiles``): with every commit loose, not even ``dulwich.pack``."""
    from tests.handoff_support import git_commit

    git_commit(steady, {"src/app.py": "x = 2\n"})
    loaded = _loaded(steady, "resume", "latest")
    assert "dulwich.objects" in loaded  # the history was walked
    assert not (WALKERS | {"dulwich.pack"}) & loaded, sorted(loaded)


def test_resume_latest_after_the_head_moved_reads_packed_commits_with_dulwichs_pack_reader_alone(steady):
    """After ``git gc`` the captured commit is in a pack: ``dulwich.pack`` reads it, still
    without dulwich's object store or walker."""
    from tests.handoff_support import git_commit

    subprocess.run(["git", "gc", "-q"], cwd=steady, check=True)
    git_commit(steady, {"src/app.py": "x = 2\n"})
    loaded = _loaded(steady, "resume", "latest")
    assert "dulwich.pack" in loaded  # the packed commit was read
    assert not WALKERS & loaded, sorted(loaded)


_STDLIB_NOT_NEEDED = ("argparse", "typing")


@pytest.mark.parametrize("command", [("resume", "latest"), ("session", "end", "s8")], ids=" ".join)
def test_resume_latest_and_ending_a_session_are_read_without_argparse(steady, command):
    """``resume latest`` and ``session end ID`` are fixed forms too (``cli_run.FIXED_POSITIONAL``):
    no parser, no argparse."""
    loaded = _loaded(steady, *command)
    assert "baton.app" in loaded  # it ran through the application
    assert not {"argparse", "baton.cli"} & loaded, sorted(loaded)


@pytest.mark.parametrize("command", [
    ("bootstrap", "--json"),
    ("session", "handoff", "--json"),
], ids=" ".join)
def test_a_steady_session_command_a_hook_runs_imports_neither_argparse_nor_typing(steady, command):
    """``bootstrap --json`` and ``session handoff --json`` are read without a parser
    (``baton.cli_run.fixed_run``): argparse, with ``gettext``, is ~0.09x the stack's floor;
    and their modules import ``typing`` (~0.04x) for type checkers only."""
    loaded = _loaded(steady, *command)
    assert "baton.app" in loaded  # it ran through the application
    assert not {*_STDLIB_NOT_NEEDED, "baton.cli"} & loaded, sorted(loaded)


def _session_hook_loaded(steady, event: str) -> set[str]:
    from tests.harness_support import fixture

    kind = "SessionStart.startup" if event == "SessionStart" else "SessionEnd"
    payload = json.dumps(fixture("claude-code", kind, steady, session_id="no-argparse-1"))
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "baton", "hook", "claude-code", event],
                       input=payload, capture_output=True, text=True, cwd=steady,
                       env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0, r.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}


RARE_PATH_MODULES = {"baton.background", "baton.commands.draft_fields", "baton.domain.detector_config"}
"""Loaded by name, each for a path a steady start or end never takes: the background catch-up
(a lock waited for, an index behind past the fold limit, a lock held past the wait), what a draft
still lacks (a session with a draft open), the detector's settings checks (a ``detector`` section)."""

NOT_ON_A_STEADY_HOOK = {
    # A hook's own words go from the entry point to ``baton.cli_run``, which has no parser: the
    # module with the parser (``baton.cli``) and argparse are never imported, nor ``typing``.
    "imports neither argparse nor typing": {*_STDLIB_NOT_NEEDED, "baton.cli"},
    # The session line quotes its session id with ``baton.domain.shell_words`` (``shlex`` is ~1.1 M
    # instructions), only a prompt's metadata loads the recogniser of handoff requests
    # (``baton.harnesses.protocol.RECOGNISER``, with ``unicodedata``: ~1.3 M), and only a hook that
    # leaves or settles a notice loads their writer (``HookRun.settle``, ``leave_kept``).
    "loads neither shlex nor the prompt recogniser":
        {"shlex", "unicodedata", "baton.domain.handoff_requests", "baton.harnesses.notices_write"},
    "loads neither the background catch-up nor the draft fields nor the detector settings": RARE_PATH_MODULES,
    # A hook is kept for later (``baton.commands.deferred``, ~1 M instructions) only when its lock or index
    # holds it up (``Baton._kept_if_held_up``), and ``_socket`` (~1 M) is only to ask a hook server.
    "loads neither the kept hooks' keeper nor the socket library": {"baton.commands.deferred", "_socket"},
}
"""What a steady ``SessionStart`` or ``SessionEnd`` hook never loads, by what the check says of it."""


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd"])
@pytest.mark.parametrize("unneeded", NOT_ON_A_STEADY_HOOK, ids=list(NOT_ON_A_STEADY_HOOK))
def test_a_steady_session_hook_loads_none_of_what_it_does_not_need(steady, unneeded, event):
    loaded = _session_hook_loaded(steady, event)
    assert "baton.harnesses.hook_project" in loaded
    assert not NOT_ON_A_STEADY_HOOK[unneeded] & loaded, sorted(loaded)


NOT_ON_A_STEADY_COMMAND = {
    "loads neither the background catch-up nor the detector settings": RARE_PATH_MODULES,
    # The lock-wait message quotes the lock's path with ``baton.domain.shell_words``, not ``shlex``.
    "loads no shlex": {"shlex"},
}
"""What a steady session command never loads, by what the check says of it."""


def test_a_steady_session_start_loads_neither_the_kept_hooks_runner_nor_a_sessions_drafts(steady):
    """With no hook kept for later, a start asks ``ProjectPaths.hooks_waiting`` (one ``listdir``) and
    loads ``baton.commands.deferred`` only when one waits; it reads a session's drafts
    (``baton.commands.session_drafts``) only after a compaction."""
    loaded = _session_hook_loaded(steady, "SessionStart")
    assert "baton.commands.harness_start" in loaded  # the start ran
    assert not {"baton.commands.deferred", "baton.commands.session_drafts"} & loaded, sorted(loaded)


@pytest.mark.parametrize("command", [
    ("bootstrap", "--json", "--session-id", "s9"),
    ("bootstrap", "--json", "--peek"),
    ("session", "handoff", "--json"),
], ids=" ".join)
@pytest.mark.parametrize("unneeded", NOT_ON_A_STEADY_COMMAND, ids=list(NOT_ON_A_STEADY_COMMAND))
def test_a_steady_session_command_loads_none_of_what_it_does_not_need(steady, unneeded, command):
    loaded = _loaded(steady, *command)
    assert "baton.app" in loaded
    assert not NOT_ON_A_STEADY_COMMAND[unneeded] & loaded, sorted(loaded)


_PATTERNS_AT_EXIT = """
import os, re, runpy, sys
compile_now, exit_now, made = re._compile, os._exit, []
def spy(pattern, flags):
    caller = sys._getframe(1)
    while caller is not None and caller.f_code.co_filename.endswith(("re/__init__.py", "functools.py", "regexes.py")):
        caller = caller.f_back
    where = caller.f_code.co_filename if caller is not None else ""
    if "/baton/" in where and "/redaction/" not in where and (type(pattern), pattern, int(flags)) not in re._cache:
        made.append(f"{where.rsplit('/baton/', 1)[1]}:{pattern}")
    return compile_now(pattern, flags)
re._compile = spy
"""


_MADE_AT_EXIT = """
def report(code):
    sys.stderr.write("MADE " + repr(made) + "\\n")
    sys.stderr.flush()
    exit_now(code)
os._exit = report
sys.argv = ["baton", *sys.argv[1:]]
runpy.run_module("baton", run_name="__main__", alter_sys=True)
"""
"""The ``baton`` program run after a spy that collects ``made`` (and keeps ``os._exit`` as
``exit_now``): at its exit, ``made`` is written to stderr."""


def _made_by_a_steady_hook(steady, event: str, spy: str, session_id: str) -> list[str]:
    """What ``spy`` collected in ``made`` while a steady Claude Code ``event`` hook ran (no hook server)."""
    from tests.harness_support import fixture

    kind = "SessionStart.startup" if event == "SessionStart" else "SessionEnd"
    payload = json.dumps(fixture("claude-code", kind, steady, session_id=session_id))
    return _made_by_baton(steady, spy, "hook", "claude-code", event, input=payload)


def _made_by_baton(project, spy: str, *argv: str, input: str | None = None) -> list[str]:
    """What ``spy`` collected in ``made`` while ``baton ARGV…`` ran in ``project`` (no hook server)."""
    r = subprocess.run([sys.executable, "-c", spy + _MADE_AT_EXIT, *argv], input=input,
                       capture_output=True, text=True, cwd=project, env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0, r.stderr[-2000:]
    made: list[str] = ast.literal_eval(next(line for line in r.stderr.splitlines() if line.startswith("MADE "))[5:])
    return made


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd"])
def test_a_steady_session_hook_compiles_no_pattern_of_its_own(steady, event):
    """``re``'s compiler is Python (~0.2-0.5 M instructions a pattern): a steady start or end
    compiles none of Baton's — writer ids and timestamps are read with string tests, and every
    rule table's patterns are compiled on first use (``baton.domain.regexes.lazy``). The output
    screen's secret rules are the exception: a rule whose keyword the text holds is compiled
    to look (``baton.domain.redaction.rules``)."""
    made = _made_by_a_steady_hook(steady, event, _PATTERNS_AT_EXIT, "no-patterns-1")
    assert made == [], made


_SECRET_PATTERNS_AT_EXIT = _PATTERNS_AT_EXIT.replace('and "/redaction/" not in where ', "")
"""The same spy, keeping the output screen's own patterns too."""


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd"])
def test_a_steady_session_hook_compiles_no_prechecked_secret_rule_for_ordinary_text(steady, event):
    """The brief's prose holds ``.``, ``ey`` and ``1/`` (keywords of the Discord bot token, JWT and
    Asana token rules), may hold ``token`` or ``secret`` (``named-secret-in-prose``'s) and ``%``-escapes (an owner's ``@`` in a stream name): their pre-checks
    (``baton.domain.redaction.rules``) and the escape view's string tests (``baton.domain.percent.escapes``)
    keep those patterns uncompiled (~0.5-1.2 M instructions each, issue 27)."""
    from baton.domain.redaction import DEFAULT_RULES
    from baton.domain.redaction.walk import _ESCAPE

    prechecked = {rule.regex for rule in DEFAULT_RULES if getattr(rule, "could_match", None) is not None}
    assert len(prechecked) == 5
    made = {entry.split(":", 1)[1]
            for entry in _made_by_a_steady_hook(steady, event, _SECRET_PATTERNS_AT_EXIT, "no-secret-patterns-1")}
    assert made  # the screen did compile the rules the text may match
    assert not made & {*prechecked, _ESCAPE}, made


@pytest.fixture
def trapped(project):
    """A project in use whose latest handoff records a failed attempt to avoid: every start's brief
    lists it under Baton's own heading, "Traps — do not retry"."""
    from baton.app import Baton
    from tests.handoff_support import payload

    git_init(project, {"src/app.py": "x = 1\n"})
    attempt = {"id": "F-1", "approach": "Cache seen tokens in process memory", "outcome": "failed",
               "reason": "Workers do not share memory", "avoid_repeating": True}
    with Baton.open(project) as app:
        handoff_id = app.capture(payload(failed_attempts=[attempt])).handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id)
    end_session(project, "s1", {"nextSteps": ["carry on"]})
    with Baton.open(project) as app:
        app.cancel_baton()
    return project


def test_a_steady_start_whose_brief_lists_traps_compiles_no_wrapped_secret_pattern(trapped):
    """``base64-wrapped-secret`` has no keywords (every run of base64 that decodes to text is
    decoded and screened), so every text of the brief, the traps' heading included, reaches its
    pre-check (``baton.domain.redaction.table.could_be_wrapped_secret``), which keeps its pattern
    uncompiled (~2.2 M instructions, issue 27)."""
    from baton.domain.batons import TRAPS_HEADING
    from baton.domain.redaction import DEFAULT_RULES
    from tests.harness_support import fixture

    rule = next(rule for rule in DEFAULT_RULES if rule.name == "base64-wrapped-secret")
    payload = json.dumps(fixture("claude-code", "SessionStart.startup", trapped, session_id="trapped-1"))
    r = subprocess.run([sys.executable, "-c", _SECRET_PATTERNS_AT_EXIT + _MADE_AT_EXIT, "hook", "claude-code",
                        "SessionStart"], input=payload, capture_output=True, text=True, cwd=trapped,
                       env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0, r.stderr[-2000:]
    brief = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert TRAPS_HEADING in brief and not rule.keywords  # the rule is tried on every text
    made = {entry.split(":", 1)[1] for entry in
            ast.literal_eval(next(line for line in r.stderr.splitlines() if line.startswith("MADE "))[5:])}
    assert rule.regex not in made, made


def test_reading_a_policy_compiles_no_pattern_for_its_signers_keys():
    """The trust rules' key pattern is compiled when a widening names signers, not at import."""
    r = subprocess.run([sys.executable, "-c", "import baton.domain.policy_trust as p; print(p._KEY_BLOB.compiled)"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr[-2000:]


URL_MODULES = ("pathlib", "urllib", "urllib.parse", "ipaddress")
"""``urllib.parse`` with ``ipaddress`` is ~10 M instructions, ``pathlib`` ~5.5 M more (issue 27):
3.11's ``pathlib`` imports ``urllib.parse`` (for ``as_uri``), which imports ``ipaddress``."""


def _importtime_without_site(cwd, argv: list[str], stdin: str | None = None) -> list[tuple[int, str]]:
    """``python -S -X importtime ARGV``, the ``(depth, module)`` of each line in order (a
    module after the ones it imported, one level deeper). ``-S``: an editable install's
    finder (site's ``.pth``) imports ``pathlib`` and ``urllib.parse`` before Baton runs;
    Baton and its dependencies come from ``PYTHONPATH`` instead, as from a regular install."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.pathsep.join([root, *(p for p in sys.path if p and os.path.isdir(p) and p != root)])
    r = subprocess.run([sys.executable, "-S", "-X", "importtime", *argv], input=stdin, capture_output=True,
                       text=True, cwd=cwd, env={**os.environ, "PYTHONPATH": path, "BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [line.split("|")[-1] for line in r.stderr.splitlines() if line.startswith("import time:") and "|" in line]
    return [((len(name) - len(name.lstrip())) // 2, name.strip()) for name in lines[1:]]  # [0]: the header


@pytest.mark.parametrize("harness,event", [("claude-code", "UserPromptSubmit"), ("codex", "UserPromptSubmit"),
                                           ("gemini-cli", "BeforeAgent"), ("cursor", "beforeSubmitPrompt")])
def test_an_ordinary_prompt_imports_neither_pathlib_nor_urllib(warm, harness, event):
    """The prompt hook reads a prompt and answers from the payload alone: no path
    object, no URL parser (nor ``ipaddress``, which ``urllib.parse`` imports)."""
    from tests.harness_support import fixture

    payload = json.dumps(fixture(harness, event, warm, prompt="fix the failing parser test in src/app.py"))
    loaded = {name for _, name in _importtime_without_site(warm, ["-m", "baton", "hook", harness, event], payload)}
    assert "baton.harnesses.hook" in loaded  # the hook really ran
    assert not [m for m in URL_MODULES if m in loaded], sorted(loaded)


def _hook_path_tree(warm, command: tuple[str, ...]) -> list[tuple[int, str]]:
    if command[0] != "hook":
        return _importtime_without_site(warm, ["-m", "baton", *command, "--project", str(warm)])
    from tests.harness_support import fixture

    kind = "SessionStart.startup" if command[2] == "SessionStart" else command[2]
    payload = json.dumps(fixture(command[1], kind, warm, session_id="url-1"))
    return _importtime_without_site(warm, ["-m", "baton", *command], payload)


@pytest.mark.parametrize("command", [
    ("bootstrap", "--json", "--session-id", "s2"),
    ("bootstrap", "--json", "--peek"),
    ("session", "handoff", "--json"),
    ("session", "end", "s3"),
    ("resume", "latest"),
    ("hook", "claude-code", "SessionStart"),
    ("hook", "claude-code", "SessionEnd"),
], ids=" ".join)
def test_a_hook_path_command_imports_neither_pathlib_nor_urllib_nor_ipaddress(warm, command):
    """Every path a hook-path command holds is a string read with ``os.path``
    (``ProjectPaths``' ``*_folder`` and ``*_file``, ``gitinfo.GitDirs``): ``pathlib``,
    ``urllib`` and ``ipaddress`` are not loaded (a module that still names ``pathlib`` imports
    it inside what only a command off the hook path runs, or for type checkers; 3.11's
    ``pathlib`` imports ``urllib.parse``, which imports ``ipaddress``: ~16 M instructions,
    docs/performance.md). The start here receives the baton ``warm`` left."""
    loaded = {name for _, name in _hook_path_tree(warm, command)}
    assert "baton.app" in loaded  # the command ran through the application
    assert not [m for m in URL_MODULES if m in loaded], sorted(loaded)


@pytest.mark.parametrize("command", [
    ("hook", "claude-code", "SessionStart"),
    ("bootstrap", "--json", "--session-id", "s2"),
], ids=" ".join)
def test_a_steady_session_start_imports_neither_pathlib_nor_urllib_nor_ipaddress(warm, command):
    """The same of a start with no baton waiting (the one ``warm`` left is claimed first)."""
    _hook_path_tree(warm, ("hook", "claude-code", "SessionStart"))  # claims the baton
    loaded = {name for _, name in _hook_path_tree(warm, command)}
    assert "baton.app" in loaded
    assert not [m for m in URL_MODULES if m in loaded], sorted(loaded)


_SOURCE_AT_EXIT = """
import builtins, os, runpy, sys
exec_now, eval_now, exit_now, made = builtins.exec, builtins.eval, os._exit, []
def spied(real):
    def run(source, *args, **kwargs):
        if isinstance(source, (str, bytes)):
            frame = sys._getframe(1)
            while frame.f_back is not None and frame.f_code.co_filename.endswith("collections/__init__.py"):
                frame = frame.f_back  # a named tuple's: who defined it
            made.append(frame.f_code.co_filename)
        return real(source, *args, **kwargs)
    return run
builtins.exec, builtins.eval = spied(exec_now), spied(eval_now)
"""


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd"])
def test_a_steady_session_hook_compiles_no_source_for_a_class_of_its_own(steady, event):
    """A value class's ``__new__`` is one ``baton.values`` compiled with itself, not an ``exec``
    of source for each number of fields (~0.5 M instructions each, 11-14 on a hook path), and
    ``GitDirs`` is a value class, not a ``collections.namedtuple`` (which ``eval``s its ``__new__``).
    What ``exec``s or ``eval``s source is the standard library's alone (``inspect``'s named tuples)."""
    made = _made_by_a_steady_hook(steady, event, _SOURCE_AT_EXIT, "no-source-1")
    assert made  # the spy saw the standard library's
    assert not [where for where in made if "/baton/" in where], made


_ATTRS_SOURCE_AT_EXIT = """
import builtins, os, runpy, sys
compile_now, exit_now, made = builtins.compile, os._exit, []
def spied(source, filename, *args, **kwargs):
    if str(filename).startswith("<attrs generated"):
        made.append(str(filename))
    return compile_now(source, filename, *args, **kwargs)
builtins.compile = spied
"""


def test_resume_latest_compiles_no_source_for_the_record_models_classes(steady):
    """The record model's 19 ``__init__``s are compiled with ``baton.domain.record_inits``
    (``baton.model.precompiled``), not written and compiled by attrs in every ``resume``
    (~1 M instructions a class): ``resume latest`` compiles no source attrs writes for a class of Baton's."""
    made = _made_by_baton(steady, _ATTRS_SOURCE_AT_EXIT, "resume", "latest")
    assert not [name for name in made if "baton." in name], made
