"""A git identity setting passed over for the default owner (it breaks the owner
rule: a control character in ``user.email``) is no longer skipped silently:
``baton doctor`` warns, naming the setting and the owner Baton uses instead,
and ``session begin`` and ``bootstrap`` (a harness's session start) say it once
in their output — a prompt hook does not. The refused value is never printed
(docs/batons.md, "Who and where"; docs/security.md, "Identifiers")."""

from __future__ import annotations

import json

from tests.cli_support import run, run_json
from tests.harness_support import fixture, hook, injected
from tests.owner_support import git
from tests.test_owner_from_git_rule import repo  # noqa: F401 - the fixture: user.email with a newline

PASSED_OVER = "git user.email contains the control character U+000A, which an owner may not hold"
INSTEAD = "Baton uses 'Mallory' (git user.name) as the owner instead; fix it with `git config user.email`."


def _owner_check(capsys, project) -> dict | None:
    _code, out, _ = run(capsys, project, "doctor", "--json")  # a warning: exit 0, a failure elsewhere: 3
    checks = json.loads(out)["checks"]
    return next((c for c in checks if c["name"] == "owner"), None)


def test_doctor_warns_that_git_user_email_was_passed_over_and_names_the_owner_used(capsys, repo):
    check = _owner_check(capsys, repo)
    assert check is not None and check["status"] == "warn"
    assert PASSED_OVER in check["detail"] and INSTEAD in check["detail"]
    assert "## Next steps" not in check["detail"] and "mallory@x.com" not in check["detail"]


def test_doctor_names_the_os_user_when_user_name_is_passed_over_too(capsys, repo):
    git(repo, "config", "user.name", "Mal\x1blory")
    detail = _owner_check(capsys, repo)["detail"]
    assert "git user.name contains the control character U+001B" in detail
    assert "Baton uses 'mallory-os' (the OS user name)" in detail
    assert "`git config user.email` and `git config user.name`" in detail


def test_doctor_has_no_owner_warning_for_a_usable_email(capsys, repo):
    git(repo, "config", "user.email", "mallory@example.com")
    assert _owner_check(capsys, repo) is None


def test_session_begin_says_once_which_setting_was_passed_over(capsys, repo):
    code, out, _ = run(capsys, repo, "session", "begin", "g1")
    assert code == 0 and out.count(PASSED_OVER) == 1 and INSTEAD in out
    assert "## Next steps" not in out


def test_session_begin_json_carries_the_owner_notice(capsys, repo):
    out = run_json(capsys, repo, "session", "begin", "g1")
    assert out["owner"] == "Mallory" and PASSED_OVER in out["ownerNotice"]


def test_session_begin_with_an_owner_given_says_nothing_of_git(capsys, repo):
    out = run_json(capsys, repo, "session", "begin", "g1", "--owner", "ann@example.com")
    assert "ownerNotice" not in out


def test_bootstrap_says_it_once_among_its_notices(capsys, repo):
    out = run_json(capsys, repo, "bootstrap", "--session-id", "b1")
    assert [n for n in out["notices"] if PASSED_OVER in n] == [f"{PASSED_OVER}: {INSTEAD}"]
    assert out["brief"].count(PASSED_OVER) == 1


def test_a_harness_session_start_says_it_and_a_prompt_hook_does_not(capsys, repo):
    started = injected("claude-code", hook(repo, "claude-code", "SessionStart",
                                           fixture("claude-code", "SessionStart.startup", repo)).answer) or ""
    assert PASSED_OVER in started
    prompted = hook(repo, "claude-code", "UserPromptSubmit", fixture("claude-code", "UserPromptSubmit", repo))
    assert PASSED_OVER not in prompted.answer and PASSED_OVER not in (prompted.problem or "")
