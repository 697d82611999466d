"""A hook never breaks its harness: whatever goes wrong it exits 0, writes
one line to stderr and injects nothing (the harness's empty answer)."""

from __future__ import annotations

import fcntl
import io
import json
import os
import shutil

import pytest

from baton.harnesses.install import install_hooks
from tests.conftest import run_baton
from tests.handoff_support import git_init
from tests.harness_support import fixture, hook, injected


def _run(cwd, harness, event, payload: str):
    return run_baton("hook", harness, event, cwd=cwd, input=payload)


def _assert_quiet_failure(result, empty=""):
    assert result.returncode == 0
    assert result.stdout.strip() == empty
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("baton hook ")


START = {"claude-code": "SessionStart.startup", "codex": "SessionStart.startup",
         "gemini-cli": "SessionStart.startup", "cursor": "sessionStart"}


@pytest.mark.parametrize("harness", sorted(START))
def test_a_session_start_in_a_project_with_hooks_but_no_baton_dir_says_so_in_one_line(project_dir, harness):
    """``install-hooks`` then ``rm -rf .baton`` (or a clone whose committed hook config names
    Baton, never initialised): the start tells the agent, not just a stderr nobody reads."""
    git_init(project_dir)
    install_hooks(project_dir, harness)
    shutil.rmtree(project_dir / ".baton")
    result = _run(project_dir, harness, START[harness].split(".")[0],
                  json.dumps(fixture(harness, START[harness], project_dir)))
    assert result.returncode == 0
    [said] = injected(harness, result.stdout).splitlines()
    assert "hooks are installed here" in said and "no `.baton/`" in said
    assert "`baton init`" in said and f"`baton install-hooks --harness {harness} --remove`" in said
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (project_dir / ".baton").exists()


def test_a_session_start_outside_git_without_baton_dir_says_so_too(project_dir):
    result = _run(project_dir, "gemini-cli", "SessionStart",
                  json.dumps(fixture("gemini-cli", "SessionStart.startup", project_dir)))
    assert result.returncode == 0 and "`baton init`" in injected("gemini-cli", result.stdout)
    assert not (project_dir / ".baton").exists()


def test_a_session_start_told_to_open_a_missing_folder_names_it_not_baton_init(project_dir):
    missing = project_dir / "no-such-folder"
    result = run_baton("hook", "claude-code", "SessionStart", cwd=project_dir, env={"BATON_PROJECT": str(missing)},
                       input=json.dumps(fixture("claude-code", "SessionStart.startup", project_dir)))
    assert result.returncode == 0
    [said] = injected("claude-code", result.stdout).splitlines()
    assert f"`{missing}`" in said and "not a directory" in said and "correct or unset it" in said
    assert "hooks are installed here" not in said
    assert len(result.stderr.strip().splitlines()) == 1 and "no such directory" in result.stderr


def test_a_session_start_told_to_open_a_name_too_long_for_the_os_names_it_not_an_internal_error(project_dir):
    """No folder can have the name (``ENAMETOOLONG``): the same notice as a missing folder,
    where ``Path.is_dir`` raised and the start answered "internal error"."""
    too_long = project_dir / ("x" * 5000)
    result = run_baton("hook", "claude-code", "SessionStart", cwd=project_dir, env={"BATON_PROJECT": str(too_long)},
                       input=json.dumps(fixture("claude-code", "SessionStart.startup", project_dir)))
    assert result.returncode == 0
    [said] = injected("claude-code", result.stdout).splitlines()
    assert f"`{too_long}`" in said and "not a directory" in said and "correct or unset it" in said
    assert "internal error" not in result.stderr


def test_a_session_start_told_to_open_a_folder_without_baton_names_that_folder(project_dir, tmp_path):
    elsewhere = tmp_path / "not-a-project"
    elsewhere.mkdir()
    result = run_baton("hook", "claude-code", "SessionStart", cwd=project_dir, env={"BATON_PROJECT": str(elsewhere)},
                       input=json.dumps(fixture("claude-code", "SessionStart.startup", project_dir)))
    [said] = injected("claude-code", result.stdout).splitlines()
    assert f"`{elsewhere}`" in said and "not a Baton project" in said and "`$BATON_PROJECT`" in said
    assert "hooks are installed here" not in said


@pytest.mark.parametrize(("value", "kind"), [(12, "a number"), ("  ", "a blank one"), ({"a": 1}, "an object")])
def test_a_session_id_of_the_wrong_kind_is_named_so_never_echoed(project, value, kind):
    payload = {**fixture("claude-code", "SessionStart.startup", project), "session_id": value}
    result = _run(project, "claude-code", "SessionStart", json.dumps(payload))
    _assert_quiet_failure(result)
    assert f"`session_id` must be a non-empty string, not {kind}" in result.stderr


@pytest.mark.parametrize(("harness", "event", "name", "empty"), [
    ("claude-code", "SessionEnd", "SessionEnd", ""),
    ("claude-code", "PreCompact", "PreCompact.auto", ""),
    ("claude-code", "UserPromptSubmit", "UserPromptSubmit", ""),  # "continue later": a request
    ("codex", "Stop", "Stop", ""),
    ("gemini-cli", "SessionEnd", "SessionEnd", "{}"),
    ("gemini-cli", "PreCompress", "PreCompress.manual", "{}"),
])
def test_every_other_hook_of_a_project_with_no_baton_dir_stays_quiet(project_dir, harness, event, name, empty):
    git_init(project_dir)
    _assert_quiet_failure(_run(project_dir, harness, event, json.dumps(fixture(harness, name, project_dir))), empty)
    assert not (project_dir / ".baton").exists()


def test_a_payload_that_is_not_json_exits_0(project):
    _assert_quiet_failure(_run(project, "codex", "SessionStart", "not json {"))


@pytest.mark.parametrize(("harness", "event", "undone"), [
    ("claude-code", "SessionEnd", "the session's end was not recorded and no baton was left"),
    ("codex", "Stop", "the session's end was not recorded and no baton was left"),
    ("gemini-cli", "PreCompress", "no draft was prepared before compaction"),
    ("claude-code", "SessionStart", "no brief was delivered"),
])
def test_a_payload_that_is_not_json_says_what_the_hook_left_undone(project, harness, event, undone):
    """Known from the event alone: the notice the next brief carries says a baton may be missing,
    not just that a payload did not parse (nor "nothing injected" for an end, which injects nothing)."""
    from baton.harnesses import notices

    result = _run(project, harness, event, "not json {")
    assert result.stderr.rstrip().endswith(f"; {undone}")
    [notice] = notices.take(project / ".baton")
    assert notice["problem"].startswith("the hook's input on stdin was not JSON (it began `not json {`)")
    assert notice["problem"].endswith(f"; {undone}")


def test_a_payload_that_is_not_json_is_said_in_baton_s_words_not_the_parser_s(project):
    from baton.harnesses import notices

    result = _run(project, "codex", "Stop", "not json{")
    [notice] = notices.take(project / ".baton")
    for said in (notice["problem"], result.stderr):
        assert "was not JSON (it began `not json{`)" in said
        assert "literal" not in said and "expected" not in said and "line 1" not in said


def test_the_start_of_a_payload_that_is_not_json_is_screened_and_clipped(project):
    from baton.harnesses import notices

    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    _run(project, "codex", "Stop", f"{token} \x1b[31m" + "x" * 5000)
    [notice] = notices.take(project / ".baton")
    problem = notice["problem"]
    assert token not in problem and "[REDACTED" in problem and "\x1b" not in problem
    began = problem[problem.index("it began `") + len("it began `"):problem.index("`)")]
    assert began.endswith("…") and len(began) <= 60


def test_a_json_payload_that_is_not_an_object_says_so(project):
    from baton.harnesses import notices

    _run(project, "codex", "Stop", "[1, 2]")
    [notice] = notices.take(project / ".baton")
    assert notice["problem"].startswith("the hook's input on stdin was JSON but not an object (it began `[1, 2]`)")


def test_a_payload_without_a_session_id_exits_0(project):
    _assert_quiet_failure(_run(project, "claude-code", "SessionEnd", json.dumps({"cwd": str(project)})))


def test_an_event_baton_does_not_handle_exits_0(project):
    _assert_quiet_failure(_run(project, "claude-code", "PostToolUse", json.dumps({"session_id": "s"})))


def test_a_ledger_locked_by_another_process_exits_0_without_waiting_long(project, monkeypatch):
    monkeypatch.setenv("BATON_HOOK_LOCK_WAIT", "0.2")
    lock = project / ".baton" / "ledger.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        # A handoff request, which is not kept (a start still delivers its brief: test_hook_start_while_busy).
        outcome = hook(project, "claude-code", "UserPromptSubmit", fixture("claude-code", "UserPromptSubmit", project))
    finally:
        os.close(fd)
    assert outcome.answer == "" and "locked" in outcome.problem


def test_an_internal_error_exits_0_with_one_line(project, monkeypatch):
    from baton.app import Baton

    def broken(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(Baton, "start_harness_session", broken)
    outcome = hook(project, "cursor", "sessionStart", fixture("cursor", "sessionStart", project))
    assert outcome.answer == "{}" and "RuntimeError" in outcome.problem


def test_the_cli_prints_the_problem_on_one_line(project_dir, capsys, monkeypatch):
    from baton.cli import main

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    code = main(["hook", "claude-code", "SessionStart", "--project", str(project_dir)])
    out, err = capsys.readouterr()
    assert code == 0 and out == "" and len(err.strip().splitlines()) == 1


def test_an_unknown_harness_name_exits_0_with_one_line(project):
    done = run_baton("hook", "claud", "SessionStart", cwd=project, input="{}")
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "baton hook claud SessionStart: unknown harness 'claud'; the harnesses are: claude-code, codex, "
        "gemini-cli, cursor; nothing injected"]


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini-cli", "cursor"])
def test_an_unknown_event_name_is_not_an_error_for_the_harness(project, harness):
    outcome = hook(project, harness, "Notification", {"session_id": "s"})
    assert outcome.exit_code == 0 and outcome.problem


def test_cursor_prompt_hook_lets_the_prompt_through_when_baton_fails(project_dir):
    """Cursor reads beforeSubmitPrompt's stdout as a verdict: ``{}`` might hold the prompt back."""
    git_init(project_dir)  # not a Baton project
    result = _run(project_dir, "cursor", "beforeSubmitPrompt",
                  json.dumps(fixture("cursor", "beforeSubmitPrompt", project_dir)))
    _assert_quiet_failure(result, '{"continue":true}')


def test_a_session_start_on_a_corrupt_ledger_exits_0_and_says_why(project):
    git_init(project)
    result = _run(project, "claude-code", "SessionStart", json.dumps(fixture("claude-code", "SessionStart.startup",
                                                                             project, session_id="first")))
    assert result.returncode == 0 and "additionalContext" in result.stdout
    (feed,) = (project / ".baton" / "ledger").glob("*.jsonl")
    feed.write_bytes(feed.read_bytes().replace(b'"first"', b'"fIrst"', 1))
    os.utime(feed)
    (project / ".baton" / "index.sqlite").unlink()  # the damage is in bytes the index had folded
    result = _run(project, "claude-code", "SessionStart", json.dumps(fixture("claude-code", "SessionStart.startup",
                                                                             project, session_id="second")))
    assert result.returncode == 0 and len(result.stderr.strip().splitlines()) == 1
    assert "baton verify" in result.stderr or "corrupt" in result.stderr or "damaged" in result.stderr


def _corrupt_feed(project) -> None:
    """A line that is not an event inserted after the feed's first (the index, behind it, reads it)."""
    (feed,) = (project / ".baton" / "ledger").glob("*.jsonl")
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(lines[0] + b"garbage line\n" + b"".join(lines[1:]))


@pytest.mark.parametrize("harness", sorted(START))
def test_a_session_start_on_a_corrupt_ledger_tells_the_agent_first_what_to_run(project, harness):
    git_init(project)
    assert run_baton("session", "end", "s1", "--handoff-steps", "Step one", cwd=project).returncode == 0
    _corrupt_feed(project)
    result = _run(project, harness, START[harness].split(".")[0],
                  json.dumps(fixture(harness, START[harness], project, session_id="second")))
    assert result.returncode == 0
    said = injected(harness, result.stdout)
    assert said.startswith("> ⚠️ Baton could not read the ledger: feed ")
    assert "run `baton verify`, then `baton repair`" in said


def test_a_session_start_on_a_corrupt_ledger_tells_it_at_every_start_not_once(project):
    git_init(project)
    assert run_baton("session", "end", "s1", "--handoff-steps", "Step one", cwd=project).returncode == 0
    _corrupt_feed(project)
    for session in ("second", "third"):
        outcome = hook(project, "claude-code", "SessionStart",
                       fixture("claude-code", "SessionStart.startup", project, session_id=session))
        said = injected("claude-code", outcome.answer)
        assert said.startswith("> ⚠️ Baton could not read the ledger") and said.count("could not read") == 1


def test_a_session_start_with_a_malformed_config_tells_the_agent_what_to_fix(project):
    git_init(project)
    (project / ".baton" / "config.json").write_text("{not json")
    outcome = hook(project, "gemini-cli", "SessionStart", fixture("gemini-cli", "SessionStart.startup", project))
    said = injected("gemini-cli", outcome.answer)
    assert said.startswith("> ⚠️ Baton's gemini-cli SessionStart hook") and "config.json" in said
    assert "git checkout -- .baton/config.json" in said


def test_a_failed_session_start_puts_the_end_hooks_failures_after_its_own(project):
    from baton.harnesses import notices

    git_init(project)
    (project / ".baton" / "config.json").write_text("{not json")
    ended = _run(project, "claude-code", "SessionEnd", json.dumps(fixture("claude-code", "SessionEnd", project,
                                                                          session_id="ending")))
    assert ended.returncode == 0
    outcome = hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", project))
    first, second = injected("claude-code", outcome.answer).splitlines()[:2]
    assert "SessionStart hook" in first and "SessionEnd hook (session ending) failed" in second
    assert notices.take(project / ".baton") == []  # told: neither is said again


def test_the_problem_line_goes_through_the_secret_screen(project):
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    result = _run(project, "claude-code", token, json.dumps({"session_id": "s1"}))
    _assert_quiet_failure(result)
    assert token not in result.stderr and "[REDACTED" in result.stderr


def test_a_session_end_that_fails_says_what_it_left_undone(project):
    git_init(project)
    (project / ".baton" / "config.json").write_text("{not json")
    result = _run(project, "claude-code", "SessionEnd", json.dumps(fixture("claude-code", "SessionEnd", project,
                                                                           session_id="ending")))
    _assert_quiet_failure(result)
    assert "config.json" in result.stderr
    assert "the session's end was not recorded and no baton was left" in result.stderr


@pytest.mark.parametrize("cwd", ["b" * 300, "/a" * 100_000], ids=["a-name-too-long", "a-path-of-100k-parts"])
def test_a_cwd_no_file_system_could_hold_is_a_folder_that_is_not_there_not_an_internal_error(project, cwd):
    """tester-use21 section 3: ``Path.is_dir`` raises ENAMETOOLONG: the hook said "internal error" and
    quoted the whole value on stderr; it answers as for a session folder that is gone."""
    payload = fixture("claude-code", "SessionStart.startup", project, session_id="s-long-cwd")
    payload["cwd"] = str(project / cwd) if not cwd.startswith("/") else cwd
    result = _run(project, "claude-code", "SessionStart", json.dumps(payload))
    assert result.returncode == 0
    assert "internal error" not in result.stderr and len(result.stderr) < 1000
    assert injected("claude-code", result.stdout)


@pytest.mark.parametrize("stdin", ["", "\n  \n"])
def test_an_empty_payload_is_said_to_be_empty_not_to_lack_a_session_id(project, stdin):
    result = _run(project, "claude-code", "SessionStart", stdin)
    _assert_quiet_failure(result)
    assert "the hook's input on stdin was empty (claude-code sends a JSON object naming the session, " \
           "`session_id`)" in result.stderr
    assert "a session id is required" not in result.stderr
