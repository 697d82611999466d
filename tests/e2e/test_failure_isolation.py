"""A broken Baton never breaks the harness, for real: Claude Code 2.1.337 against
the scripted model, with Baton's project damaged, its lock held, its hooks
stalled, or ``baton`` missing from PATH.

In each case the session still ends normally (exit 0, the model's answer in
the result) within the run's bound, and where Baton ran at all, the next
session that gets a brief is told once what went wrong — or, on a damaged
ledger, every session is told it first. No assertion is about
time: a stall would show as the run's timeout, a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.common import BATON_BIN, ledger_events, no_baton_lost_beside_a_cpu_hog, run_baton
from tests.e2e.fake_anthropic import said
from tests.e2e.test_claude_code import (  # noqa: F401 - claude, env, model, project: the fixtures, shared
    capture_validate_ready,
    claude,
    draft_named_in,
    env,
    model,
    project,
    session,
)
from tests.harness_support import lock_held_elsewhere, process_running
from tests.start_support import as_an_upgrade_finds_it as _as_an_upgrade_finds_it

pytestmark = pytest.mark.e2e

NOTICE = "> ⚠️ Baton's"
"""How a brief starts when a hook failed since the last one (docs/hooks.md)."""



def hello(claude, project, env, model) -> str:
    """One ordinary session; what its first model request told the agent."""
    model.script = ["Hello."]
    asked = len(model.turns())
    result = session(claude, project, env, model, "hello")
    assert result["result"] == "Hello."
    return said(model.turns()[asked])


def types(project, env) -> list[str]:
    return [e.get("type") for e in ledger_events(project, env)]


def _ended(project, env) -> set[str]:
    return {e["stream"] for e in ledger_events(project, env) if e.get("type") == "session.ended"}


HELD_UP = "Another process held Baton's ledger"
"""The line of a brief read while another process held the ledger lock (docs/hooks.md)."""


def test_a_session_ends_normally_while_another_process_holds_the_ledger_and_the_next_is_told_once(
        claude, project, env, model):
    hello(claude, project, env, model)  # the project exists, a session has begun before
    before = _ended(project, env)
    with lock_held_elsewhere(project):
        told = hello(claude, project, {**env, "BATON_HOOK_LOCK_WAIT": "0.5"}, model)
    # Its brief all the same, read from the index, saying why it claims nothing — told there, once.
    assert "## Baton" in told and HELD_UP in told and "## 🤝" not in told and NOTICE not in told
    after = hello(claude, project, env, model)
    assert HELD_UP not in after
    assert "the session's end is kept" not in after  # done once the lock was let go: no longer so, not said
    assert len(_ended(project, env) - before) == 2  # the session the lock held up, and the one after it
    assert NOTICE not in hello(claude, project, env, model)


def test_a_session_started_while_another_process_holds_the_ledger_gets_its_brief_and_the_next_the_baton(
        claude, project, env, model):
    step = "Wire the zebra-42 parser into the CLI"
    left = run_baton(project, env, "session", "end", "earlier-session", "--handoff-steps", step)
    assert left.returncode == 0, left.stderr
    with lock_held_elsewhere(project):
        told = hello(claude, project, {**env, "BATON_HOOK_LOCK_WAIT": "0.5"}, model)
    assert "## Baton" in told and HELD_UP in told  # the model's first request holds the brief
    assert step not in told and "baton.claimed" not in types(project, env)  # the baton stays pending
    assert step in hello(claude, project, env, model)  # the next session's brief delivers it
    assert types(project, env).count("baton.claimed") == 1


AS_IT_STANDS = "Baton's index is being brought up to date in the background"
"""The line of a brief read from an index too far behind to bring up to date in the hook's time (docs/hooks.md)."""


def _wait_for_the_catch_up(project: Path, seconds: float = 120) -> None:
    """Until the background catch-up a hook started (if any) has ended: it holds
    ``.baton/cache/catch-up.lock`` while it runs (``baton.background.running``)."""
    import time

    from baton.background import running

    deadline = time.monotonic() + seconds
    while running(project / ".baton")[0]:
        assert time.monotonic() < deadline, "the background catch-up did not end"
        time.sleep(0.1)


def test_a_session_started_after_an_upgrade_gets_its_brief_as_the_index_stands_and_the_next_the_baton(
        claude, project, env, model):
    step = "Wire the zebra-42 parser into the CLI"
    left = run_baton(project, env, "session", "end", "earlier-session", "--handoff-steps", step)
    assert left.returncode == 0, left.stderr
    _as_an_upgrade_finds_it(project, "lineage")  # a projection the brief does not read
    told = hello(claude, project, {**env, "BATON_HOOK_FOLD_MB": "0.000001"}, model)  # any replay is "large"
    assert "## Baton" in told and AS_IT_STANDS in told  # the model's first request holds the brief
    assert step not in told and "baton.claimed" not in types(project, env)  # the baton stays pending
    _wait_for_the_catch_up(project)
    done = run_baton(project, env, "rebuild", "--if-needed")  # after the background catch-up, or in its stead
    assert done.returncode == 0, done.stderr
    after = hello(claude, project, env, model)
    assert step in after and AS_IT_STANDS not in after  # the next session's brief delivers it
    assert types(project, env).count("baton.claimed") == 1


def test_a_stalled_baton_is_cut_off_by_its_own_deadline_and_the_next_session_is_told(claude, project, env, model):
    hello(claude, project, env, model)
    with lock_held_elsewhere(project):  # every hook would wait two minutes for the lock: its deadline ends it
        hello(claude, project, {**env, "BATON_HOOK_LOCK_WAIT": "120", "BATON_HOOK_DEADLINE": "2"}, model)
    after = hello(claude, project, env, model)
    assert NOTICE in after and "BATON_HOOK_DEADLINE" in after


def test_a_session_ends_normally_with_a_corrupt_feed(claude, project, env, model):
    hello(claude, project, env, model)
    [feed] = list((project / ".baton" / "ledger").glob("*.jsonl"))
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(lines[0] + b'{"this is": "not an event"}\n' + b"".join(lines[1:]))
    hello(claude, project, env, model)


def test_every_session_on_a_damaged_ledger_is_told_first_what_to_run(claude, project, env, model):
    """Until the ledger is repaired each start says so, first in the model's first request, not once in a
    notice file no brief ever comes to deliver."""
    left = run_baton(project, env, "session", "end", "s1", "--handoff-steps", "Step one")
    assert left.returncode == 0, left.stderr
    [feed] = list((project / ".baton" / "ledger").glob("*.jsonl"))
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(lines[0] + b"garbage line\n" + b"".join(lines[1:]))
    for _ in range(2):
        told = hello(claude, project, env, model)
        assert "> ⚠️ Baton could not read the ledger: feed " in told
        assert "run `baton verify`, then `baton repair`" in told


def test_a_session_ends_normally_with_a_malformed_config(claude, project, env, model):
    hello(claude, project, env, model)
    (project / ".baton" / "config.json").write_text("{ not json")
    hello(claude, project, env, model)


def test_a_session_in_a_project_whose_baton_folder_was_removed_tells_the_agent_and_ends_normally(
        claude, project, env, model):
    """Hooks wired, then ``.baton/`` removed: the start tells the agent what to run, not nothing."""
    hello(claude, project, env, model)
    shutil.rmtree(project / ".baton")
    told = hello(claude, project, env, model)
    assert "hooks are installed here, but this project has no `.baton/`" in told and "`baton init`" in told
    assert "`baton install-hooks --harness claude-code --remove`" in told
    assert not (project / ".baton").exists()


def test_an_unreadable_index_is_rebuilt_and_the_brief_still_arrives(claude, project, env, model):
    left = run_baton(project, env, "session", "end", "earlier-session",
                     "--handoff-steps", "Wire the zebra-42 parser into the CLI")
    assert left.returncode == 0, left.stderr
    (project / ".baton" / "index.sqlite").write_bytes(b"this is not a database" * 100)
    told = hello(claude, project, env, model)
    assert "Wire the zebra-42 parser into the CLI" in told
    assert "baton.claimed" in types(project, env)


def _without_baton(env) -> dict[str, str]:
    path = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if Path(p) != BATON_BIN)
    assert not any((Path(p) / "baton").exists() for p in path.split(os.pathsep))
    return {**env, "PATH": path}


def test_a_session_ends_normally_when_baton_is_not_on_path(claude, project, env, model):
    """The portable wiring (``--command baton``, for files a team commits) on a machine without it."""
    rewired = run_baton(project, env, "install-hooks", "--harness", "claude-code", "--command", "baton",
                         "--events", "all")
    assert rewired.returncode == 0, rewired.stderr
    told = hello(claude, project, _without_baton(env), model)
    assert not (project / ".baton").exists() or "session.begun" not in types(project, env)
    # Claude Code shows a failing hook's stderr in verbose mode only: the start hook's fallback
    # tells the agent why instead (harness14 F5, as for Codex).
    assert ("Baton could not run its SessionStart hook (exit status 127; 127: the command was not found on the "
            "PATH Claude Code runs hooks with)") in told


def test_the_default_wiring_runs_baton_even_when_it_is_not_on_the_harness_path(claude, project, env, model):
    """``install-hooks`` wrote the absolute path of the ``baton`` it ran from (issue 26)."""
    hello(claude, project, _without_baton(env), model)
    assert "session.begun" in types(project, env)


READ_ONLY_MOUNT = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" || exit 97; shift; exec "$@"'
"""Run as ``sh -c READ_ONLY_MOUNT sh FOLDER PROGRAM ARGS…`` inside ``unshare --mount``: FOLDER becomes a
read-only bind mount in a mount namespace of its own (private: nothing outside sees it), then PROGRAM
runs there, and every process it starts (the hooks, ``baton mcp``) inherits the namespace."""


def read_only_for(program: Path, folder: Path, wrapper: Path) -> Path:
    """A script at ``wrapper`` that runs ``program`` with ``folder`` read-only, even for root (which file
    modes do not stop, and a read-only mount does: EROFS). Skips the test, saying why, when this
    machine allows no mount namespace (no ``unshare``, or no CAP_SYS_ADMIN in a container)."""
    import shlex
    import shutil

    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("running as root, and `unshare` is not installed: a read-only .baton/ cannot be made "
                    "(root writes through file modes)")
    prefix = [unshare, "--mount", "--", "sh", "-c", READ_ONLY_MOUNT, "sh", str(folder)]
    probe = folder / ".read-only-probe"
    done = subprocess.run([*prefix, "touch", str(probe)], capture_output=True, text=True, timeout=60)
    if done.returncode == 97 or not done.returncode or probe.exists():
        probe.unlink(missing_ok=True)
        pytest.skip(f"running as root, and this machine allows no read-only bind mount in a mount namespace "
                    f"({(done.stderr.strip() or 'the folder stayed writable')[:200]}): root writes through file modes")
    wrapper.write_text(f"#!/bin/sh\nexec {shlex.join([*prefix, str(program)])} \"$@\"\n")
    wrapper.chmod(0o755)
    return wrapper


def test_a_session_ends_normally_with_a_read_only_baton_folder(claude, project, env, model, tmp_path):
    """The session ends normally, and Baton's hooks, which could write nothing, left nothing."""
    hello(claude, project, env, model)
    before = types(project, env)
    folder = project / ".baton"
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        hello(read_only_for(claude, folder, tmp_path / "claude-with-baton-read-only"), project, env, model)
    else:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
        try:
            hello(claude, project, env, model)
        finally:
            for path in [folder, *folder.rglob("*")]:
                path.chmod(path.stat().st_mode | 0o200)
    assert types(project, env) == before


def test_no_baton_is_lost_beside_a_cpu_hog(claude, project, env, model):
    """Each session hands off (the agent completes the draft Baton prepared) while every core is busy:
    each session's end leaves its baton, and the next session receives it."""
    def hand_off() -> None:
        model.script = capture_validate_ready(parent=draft_named_in)
        session(claude, project, env, model, "handoff")

    no_baton_lost_beside_a_cpu_hog(hand_off, lambda: types(project, env))


def test_an_index_too_far_behind_for_a_hook_is_caught_up_in_the_background_and_the_next_session_has_its_brief(
        claude, project, env, model):
    import json
    import re
    import time

    hello(claude, project, env, model)
    for path in (project / ".baton").glob("index.sqlite*"):  # as after an upgrade whose projections changed
        path.unlink()
    # A one-byte limit makes this small ledger "a year of use" for the hook (docs/hooks.md).
    told = hello(claude, project, {**env, "BATON_HOOK_FOLD_MB": "0.000001"}, model)
    assert "session `" not in told  # no brief: the hook folded nothing and said so
    notices = [json.loads(line) for line in (project / ".baton" / "hook-notices.jsonl").read_text().splitlines()]
    pid = int(re.search(r"pid (\d+)", notices[-1]["problem"]).group(1))
    deadline = time.monotonic() + 120
    while process_running(pid):
        assert time.monotonic() < deadline, "the background catch-up did not end"
        time.sleep(0.1)
    after = hello(claude, project, {**env, "BATON_HOOK_FOLD_MB": "0.000001"}, model)
    assert "session `" in after  # the brief, from the index the background process rebuilt
    assert NOTICE in after and "in the background (pid " in after


def test_a_session_end_while_the_index_is_too_far_behind_is_kept_and_the_next_session_receives_its_baton(
        claude, project, env, model):
    import json
    import re
    import time

    hello(claude, project, env, model)
    tiny = {**env, "BATON_HOOK_FOLD_MB": "0.000001"}  # the hook's limit: one byte (docs/hooks.md)
    *steps, done = capture_validate_ready(parent=draft_named_in)

    def index_lost_then_done(recorded):
        # The handoff is ready; before the session ends, the index goes (as when Baton
        # is upgraded mid-session to other projections): its end meets a full replay.
        for path in (project / ".baton").glob("index.sqlite*"):
            path.unlink()
        return done(recorded)

    model.script = [*steps, index_lost_then_done]
    session(claude, project, tiny, model, "handoff")
    notices = [json.loads(line) for line in (project / ".baton" / "hook-notices.jsonl").read_text().splitlines()]
    ended = [n for n in notices if n["event"] == "SessionEnd"][-1]["problem"]
    assert "the session's end is kept" in ended and "was not recorded" not in ended
    pid = int(re.search(r"pid (\d+)", ended).group(1))
    deadline = time.monotonic() + 120
    while process_running(pid):
        assert time.monotonic() < deadline, "the background catch-up did not end"
        time.sleep(0.1)
    assert types(project, env).count("baton.created") == 1  # the kept end handed the handoff on
    after = hello(claude, project, tiny, model)
    assert "## 🤝 Active Session Handoff" in after  # the baton the kept end left
    assert "the session's end is kept" not in after  # done since: its notice is no longer so, not said
    assert types(project, env).count("baton.claimed") == 1
