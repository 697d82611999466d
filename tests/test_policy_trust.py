"""A policy committed with a repository widens what Baton does on a cloner's
machine only once that clone trusts it (docs/security.md, "Trusting a
committed policy").

The scenario as a user meets it: Mallory's repository commits a
``.baton/policy.json`` that reaches outside the project root and allowlists
a command; Bob clones it with the real ``git clone`` and runs the real
``baton`` in child processes.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from baton.app import Baton
from baton.mcp_server import build_server
from tests.cli_support import on_a_terminal, run_here
from tests.conftest import isolate, run_baton
from tests.handoff_support import baton_json, handoff_events, payload

WIDENING = {"allowed_roots": [".."], "recheck_allowlist": ["touch PWNED"]}
GITHUB_TOKEN = "gh" + "p_" + "SYNTHETIC" + "fakeTokenValue" + "0123456789" + "abc"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=Mallory", "-c", "user.email=m@example.com", *args], cwd=cwd,
                   check=True, capture_output=True)


def upstream_with(tmp_path: Path, policy: dict, *, commit_trust: bool = False) -> Path:
    """A repository whose committed ``.baton/policy.json`` is ``policy``; with ``commit_trust``,
    its author trusted it there and committed the trust record too (``git add -f``)."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git(upstream, "init", "-q")
    assert run_here("init", "--project", str(upstream), cwd=upstream)[0] == 0
    (upstream / ".baton" / "policy.json").write_text(json.dumps(policy))
    (upstream / "src").mkdir()
    (upstream / "src" / "app.py").write_text("x = 1\n")
    git(upstream, "add", "-A")
    if commit_trust:
        trust(upstream)
        kept = json.loads((upstream / ".git" / "baton" / "policy-trust.json").read_text())
        (upstream / ".baton" / "policy-trust.json").write_text(json.dumps(next(iter(kept["projects"].values()))))
        git(upstream, "add", "-f", ".baton/policy-trust.json")
    git(upstream, "commit", "-qm", "a project with a policy")
    return upstream


def clone_of(upstream: Path) -> Path:
    clone = upstream.parent / "clone"
    git(upstream.parent, "clone", "-q", str(upstream), str(clone))
    return clone


@pytest.fixture(scope="module")
def cloned_template(tmp_path_factory) -> Path:
    """Built once per module (a clone costs a ``baton init`` process and five of git); each test
    gets a copy of its own (``cloned``). Bob's clone has never run Baton here."""
    with pytest.MonkeyPatch.context() as mp:
        isolate(mp, tmp_path_factory.mktemp("template-home"))
        made = tmp_path_factory.mktemp("cloned-template")
        (made / "outside.txt").write_text("not the project's\n")
        clone_of(upstream_with(made, WIDENING))
    return made


@pytest.fixture
def cloned(tmp_path, cloned_template) -> Path:
    """Bob's clone of a repository whose policy allowlists ``touch PWNED`` and allows ``..``
    (a copy of ``cloned_template`` whose ``origin`` is the copied upstream)."""
    shutil.copytree(cloned_template, tmp_path, symlinks=True, dirs_exist_ok=True)
    clone = tmp_path / "clone"
    git(clone, "remote", "set-url", "origin", str(tmp_path / "upstream"))
    return clone


def capture_with_command(clone: Path, command: str) -> str:
    evidence = [{"id": "E-001", "type": "command", "claim": "it passes", "ref": command, "result": "pass"}]
    with Baton.open(clone) as app:
        return app.capture(payload(evidence=evidence)).handoff_id


def recheck(clone: Path, handoff_id: str) -> subprocess.CompletedProcess:
    return run_baton("handoff", "validate", handoff_id, "--recheck", "--project", str(clone))


def capture_outside(clone: Path) -> subprocess.CompletedProcess:
    body = json.dumps(payload(artifacts=[{"path": "../outside.txt", "role": "read"}]))
    return run_baton("checkpoint", "create", "--input", "-", "--project", str(clone), input=body)


def policy_show(root: Path) -> dict:
    """``baton policy show --json``, read in this process: what it prints is the point, not its process."""
    code, out, err = run_here("policy", "show", "--json", "--project", str(root), cwd=root)
    assert code == 0, (code, out, err)
    return json.loads(out)


def trust(clone: Path) -> None:
    """What the user does after reviewing ``policy show``: trust exactly the digest it printed
    (a scene step, in this process; the tests of ``policy trust`` itself run the real program)."""
    digest = policy_show(clone)["trust"]["digest"]
    code, out, err = run_here("policy", "trust", "--digest", digest, "--project", str(clone), cwd=clone)
    assert code == 0, err


# -- recheck ---------------------------------------------------------------------------

def test_a_cloned_allowlist_runs_nothing_on_recheck(cloned):
    handoff_id = capture_with_command(cloned, "touch PWNED")
    r = recheck(cloned, handoff_id)
    assert r.returncode == 5
    assert not (cloned / "PWNED").exists()


def test_the_refused_recheck_says_the_allowlist_is_untrusted_and_how_to_trust_it(cloned):
    r = recheck(cloned, capture_with_command(cloned, "touch PWNED"))
    assert "recheck_allowlist of .baton/policy.json is not trusted" in r.stderr
    assert "nothing was run" in r.stderr and "`baton policy trust`" in r.stderr


def test_after_trusting_the_cloned_allowlist_recheck_runs_its_command(cloned):
    handoff_id = capture_with_command(cloned, "touch PWNED")
    trust(cloned)
    r = recheck(cloned, handoff_id)
    assert r.returncode == 0, r.stderr
    assert (cloned / "PWNED").exists()


def test_a_pulled_change_to_the_trusted_allowlist_is_untrusted_again(cloned):
    trust(cloned)
    upstream = cloned.parent / "upstream"
    (upstream / ".baton" / "policy.json").write_text(json.dumps({**WIDENING, "recheck_allowlist": ["touch PWNED2"]}))
    git(upstream, "commit", "-qam", "another command")
    git(cloned, "pull", "-q", "--ff-only")
    r = recheck(cloned, capture_with_command(cloned, "touch PWNED2"))
    assert r.returncode == 5
    assert not (cloned / "PWNED2").exists()
    assert "changed since they were trusted" in r.stderr


def test_a_trust_record_committed_with_the_repository_trusts_nothing_in_the_clone(tmp_path):
    clone = clone_of(upstream_with(tmp_path, WIDENING, commit_trust=True))
    assert (clone / ".baton" / "policy-trust.json").is_file()  # it came with the clone
    r = recheck(clone, capture_with_command(clone, "touch PWNED"))
    assert r.returncode == 5
    assert not (clone / "PWNED").exists()
    assert policy_show(clone)["trust"]["reason"] == "never"


def test_a_committed_trust_record_made_for_exactly_this_clone_trusts_nothing(tmp_path):
    """The reviewer's attack at its strongest: the committed record names exactly the clone's
    root, host, device and inode (as a fresh tmpfs clone makes predictable) and arrives by a pull."""
    upstream = upstream_with(tmp_path, WIDENING)
    clone = clone_of(upstream)
    st = (clone / ".baton").stat()
    record = {"schema_version": 1, "policy": {
        "digest": policy_show(clone)["trust"]["digest"],
        "place": {"root": str(clone.resolve()), "host": socket.gethostname(), "dev": st.st_dev, "ino": st.st_ino},
        "settings": {}, "trusted_at": "2026-12-05T00:00:00Z"}}
    ignore = upstream / ".baton" / ".gitignore"
    ignore.write_text(ignore.read_text() + "!policy-trust.json\n")
    (upstream / ".baton" / "policy-trust.json").write_text(json.dumps(record))
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "trust, committed")
    git(clone, "pull", "-q", "--ff-only")
    assert json.loads((clone / ".baton" / "policy-trust.json").read_text()) == record  # it arrived as written
    r = recheck(clone, capture_with_command(clone, "touch PWNED"))
    assert r.returncode == 5
    assert not (clone / "PWNED").exists()
    assert policy_show(clone)["trust"]["state"] == "untrusted"


def test_the_trust_record_is_kept_in_the_clones_git_directory(cloned):
    trust(cloned)
    shown = policy_show(cloned)
    assert shown["trust_file"] == str(cloned.resolve() / ".git" / "baton" / "policy-trust.json")
    assert (cloned / ".git" / "baton" / "policy-trust.json").is_file()
    assert not (cloned / ".baton" / "policy-trust.json").exists()


def test_a_linked_worktree_uses_the_trust_of_the_main_worktree_whose_policy_it_reads(cloned):
    """Linked worktrees share the main worktree's ``.baton/`` (its policy), so its trust too."""
    trust(cloned)
    git(cloned, "worktree", "add", "-q", str(cloned.parent / "wt2"))
    shown = policy_show(cloned.parent / "wt2")
    assert shown["trust"]["state"] == "trusted"
    assert shown["trust_file"] == str(cloned.resolve() / ".git" / "baton" / "policy-trust.json")


def test_doctor_says_where_trust_is_kept(cloned):
    r = run_baton("doctor", "--project", str(cloned))
    assert str(cloned.resolve() / ".git" / "baton" / "policy-trust.json") in r.stdout


def test_outside_git_a_trust_record_copied_with_the_folder_trusts_nothing(tmp_path):
    """Outside git the record stays in ``.baton/``: only the exact folder it was made in counts."""
    project = tmp_path / "plain"
    project.mkdir()
    assert run_here("init", "--project", str(project), cwd=project)[0] == 0
    (project / ".baton" / "policy.json").write_text(json.dumps(WIDENING))
    trust(project)
    assert (project / ".baton" / "policy-trust.json").is_file()
    assert policy_show(project)["trust"]["state"] == "trusted"
    moved = tmp_path / "moved"
    project.rename(moved)  # same device and inode, another root: no longer trusted
    assert policy_show(moved)["trust"]["state"] == "untrusted"


def test_editing_the_custom_rule_that_replaces_a_trusted_disabled_default_is_untrusted_again(tmp_path):
    replacing = {"name": "github-token", "regex": "gh" + "p_[A-Za-z0-9]{20,}", "action": "block"}
    upstream = upstream_with(tmp_path, {"disable_rules": ["github-token"], "rules": [replacing]})
    clone = clone_of(upstream)
    trust(clone)
    assert policy_show(clone)["trust"]["related_rules"] == [replacing]
    (upstream / ".baton" / "policy.json").write_text(json.dumps(
        {"disable_rules": ["github-token"], "rules": [{**replacing, "regex": "NEVER-MATCHES-[0-9]{99}"}]}))
    git(upstream, "commit", "-qam", "the replacing rule never matches")
    git(clone, "pull", "-q", "--ff-only")
    shown = policy_show(clone)["trust"]
    assert (shown["state"], shown["reason"]) == ("untrusted", "changed")
    r = run_baton("checkpoint", "create", "--input", "-", "--project", str(clone),
                  input=json.dumps(payload(summary={**payload()["summary"], "current_state": f"token {GITHUB_TOKEN}"})))
    assert r.returncode == 0, r.stderr
    assert GITHUB_TOKEN not in json.dumps(handoff_events(clone))  # the default rule runs again


def test_an_allowed_root_later_replaced_by_a_symlink_elsewhere_is_untrusted_again(tmp_path):
    upstream = upstream_with(tmp_path, {"allowed_roots": ["shared"]})
    (upstream / "shared").mkdir()
    (upstream / "shared" / "README").write_text("shared\n")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "a shared folder")
    clone = clone_of(upstream)
    trust(clone)
    shown = policy_show(clone)["trust"]
    assert shown["resolved_roots"] == {"shared": str(clone.resolve() / "shared")}
    git(upstream, "rm", "-rq", "shared")
    (upstream / "shared").symlink_to("/")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "shared is now the whole disk")
    git(clone, "pull", "-q", "--ff-only")
    shown = policy_show(clone)["trust"]
    assert (shown["state"], shown["reason"]) == ("untrusted", "changed")
    assert shown["resolved_roots"] == {"shared": "/"}
    assert "resolves to /" in run_baton("policy", "show", "--project", str(clone)).stdout


def test_the_untrusted_policy_warning_shows_control_and_invisible_characters_as_escapes(tmp_path):
    sneaky = "make\u202etset\u200b\x9b31m\x1b[2J"
    clone = clone_of(upstream_with(tmp_path, {"recheck_allowlist": [sneaky]}))
    r = run_baton("status", "--project", str(clone))
    warning = next(line for line in r.stderr.splitlines() if "not applied" in line)
    assert not any(ch in warning for ch in "\u202e\u200b\x9b\x1b")
    assert "\\u202e" in warning


# -- paths -------------------------------------------------------------------------------

def test_an_artifact_outside_the_root_is_refused_while_the_cloned_roots_are_untrusted(cloned):
    r = capture_outside(cloned)
    assert r.returncode == 5
    assert "refused" in r.stderr
    assert handoff_events(cloned) == []


def test_the_refused_outside_artifact_says_the_roots_are_untrusted(cloned):
    r = capture_outside(cloned)
    assert "the allowed_roots of .baton/policy.json are not trusted on this machine" in r.stderr


def test_after_trusting_the_cloned_roots_an_artifact_outside_the_root_is_captured(cloned):
    trust(cloned)
    r = capture_outside(cloned)
    assert r.returncode == 0, r.stderr


def test_untrusting_refuses_the_outside_artifact_again(cloned):
    trust(cloned)
    assert run_baton("policy", "untrust", "--project", str(cloned)).returncode == 0
    assert capture_outside(cloned).returncode == 5


# -- redaction ---------------------------------------------------------------------------

def test_an_untrusted_disable_rules_keeps_redacting(tmp_path):
    clone = clone_of(upstream_with(tmp_path, {"disable_rules": ["github-token"]}))
    body = json.dumps(payload(work={"title": f"token {GITHUB_TOKEN}", "objective": "ship it"}))
    r = run_baton("checkpoint", "create", "--input", "-", "--project", str(clone), input=body)
    assert r.returncode == 0, r.stderr
    ledger = b"".join(p.read_bytes() for p in (clone / ".baton" / "ledger").glob("*.jsonl"))
    assert GITHUB_TOKEN.encode() not in ledger
    assert b"[REDACTED:github-token]" in ledger


def test_a_trusted_disable_rules_switches_the_rule_off(tmp_path):
    clone = clone_of(upstream_with(tmp_path, {"disable_rules": ["github-token"]}))
    trust(clone)
    with Baton.open(clone) as app:
        assert "github-token" not in app.project.policy.redaction.rule_names


# -- what every command says ---------------------------------------------------------------

def test_a_command_on_an_untrusted_policy_warns_once_on_stderr_naming_file_settings_and_command(cloned):
    r = run_baton("handoff", "list", "--project", str(cloned))
    assert r.returncode == 0
    warnings = [line for line in r.stderr.splitlines() if line.startswith("baton: warning:")]
    assert len(warnings) == 1
    assert all(word in warnings[0] for word in (".baton/policy.json", "allowed_roots", "touch PWNED",
                                                  "`baton policy trust`"))


def test_a_json_answer_on_an_untrusted_policy_carries_untrusted_policy(cloned):
    listed = baton_json(cloned, "handoff", "list")
    assert listed["untrusted_policy"]["state"] == "untrusted"
    assert listed["untrusted_policy"]["settings"] == {".baton/policy.json": WIDENING}
    assert listed["untrusted_policy"]["review"] == "baton policy show"


def test_a_trusted_policy_says_nothing(cloned):
    trust(cloned)
    r = run_baton("handoff", "list", "--project", str(cloned))
    assert r.stderr == ""
    assert "untrusted_policy" not in baton_json(cloned, "handoff", "list")


def test_a_policy_that_widens_nothing_never_mentions_trust(project):
    (project / ".baton" / "policy.json").write_text(json.dumps(
        {"recheck_allowlist": [], "rules": [{"name": "ticket", "regex": "TKT-[0-9]{8}"}], "entropy_threshold": 2.5}))
    r = run_baton("handoff", "list", "--project", str(project))
    assert r.stderr == ""
    assert policy_show(project)["trust"]["state"] == "none"


def test_doctor_warns_about_untrusted_settings_and_names_them(cloned):
    checks = {c["name"]: c for c in baton_json(cloned, "doctor")["checks"]}
    assert checks["policy trust"]["status"] == "warn"
    assert "allowed_roots" in checks["policy trust"]["detail"]


def test_doctor_is_content_once_the_settings_are_trusted(cloned):
    trust(cloned)
    checks = {c["name"]: c for c in baton_json(cloned, "doctor")["checks"]}
    assert checks["policy trust"]["status"] == "ok"


def test_audit_reports_the_trust_state_of_the_policy(cloned):
    assert baton_json(cloned, "audit")["policy"]["trust"]["state"] == "untrusted"
    trust(cloned)
    assert baton_json(cloned, "audit")["policy"]["trust"]["state"] == "trusted"


# -- the commands ----------------------------------------------------------------------------

def test_policy_trust_shows_the_settings_and_values_it_trusts(cloned):
    digest = policy_show(cloned)["trust"]["digest"]
    r = run_baton("policy", "trust", "--digest", digest, "--project", str(cloned))
    assert r.returncode == 0
    assert "allowed_roots = '..'" in r.stdout and "recheck_allowlist = 'touch PWNED'" in r.stdout


def test_policy_trust_records_the_digest_policy_show_prints(cloned):
    shown = policy_show(cloned)["trust"]["digest"]
    trusted = baton_json(cloned, "policy", "trust", "--digest", shown)
    assert (trusted["state"], trusted["digest"], trusted["changed"]) == ("trusted", shown, True)


def test_a_mistyped_digest_is_refused_as_one_not_as_changed_settings(cloned):
    r = run_baton("policy", "trust", "--digest", "sha256:deadbeef", "--project", str(cloned))
    assert r.returncode == 2
    assert "is not a digest `baton policy show` prints" in r.stderr and "changed since" not in r.stderr
    assert policy_show(cloned)["trust"]["state"] == "untrusted"


def test_policy_trust_off_a_terminal_without_the_digest_trusts_nothing_and_says_a_person_must(cloned):
    r = run_baton("policy", "trust", "--project", str(cloned))
    assert r.returncode != 0
    assert "ask the user to review" in r.stderr and "--digest" in r.stderr
    assert policy_show(cloned)["trust"]["state"] == "untrusted"


def test_the_json_untrusted_policy_names_no_command_an_agent_could_run_alone(cloned):
    shown = policy_show(cloned)["trust"]
    assert "command" not in shown and shown["review"] == "baton policy show"
    assert "ask the user to review" in shown["message"]


def test_policy_trust_with_a_stale_digest_trusts_nothing(cloned):
    error = baton_json(cloned, "policy", "trust", "--digest", "sha256:" + "0" * 64, expect=4)["error"]
    assert error["code"] == "conflict"
    assert not (cloned / ".git" / "baton" / "policy-trust.json").exists()


def test_trusting_leaves_the_work_tree_as_it_was(cloned):
    trust(cloned)
    status = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=cloned, capture_output=True,
                            text=True, check=True).stdout
    assert "policy-trust" not in status


def test_policy_trust_on_a_policy_that_widens_nothing_writes_nothing(project):
    trusted = baton_json(project, "policy", "trust")
    assert (trusted["state"], trusted["changed"]) == ("none", False)
    assert not (project / ".baton" / "policy-trust.json").exists()


def test_policy_trust_refuses_a_malformed_policy(project):
    (project / ".baton" / "policy.json").write_text(json.dumps({"allowed_roots": [".."], "disabled_rules": ["jwt"]}))
    r = run_baton("policy", "trust", "--project", str(project))
    assert r.returncode == 4
    assert not (project / ".baton" / "policy-trust.json").exists()


def test_policy_untrust_without_a_record_changes_nothing(cloned):
    untrusted = baton_json(cloned, "policy", "untrust")
    assert (untrusted["changed"], untrusted["state"]) == (False, "untrusted")


# -- the MCP server ---------------------------------------------------------------------------

@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_server_refuses_an_artifact_outside_the_root_while_the_roots_are_untrusted(cloned):
    async with Client(build_server(cloned)) as client:
        result = await client.call_tool("handoff_capture",
                                        payload(artifacts=[{"path": "../outside.txt", "role": "read"}]))
    assert result.is_error
    assert result.structured_content["error"]["exit_code"] == 5
    assert "allowed_roots of .baton/policy.json are not trusted" in result.structured_content["error"]["message"]


@pytest.mark.anyio
async def test_the_running_mcp_server_stops_applying_the_roots_once_the_user_untrusts_them(cloned):
    trust(cloned)
    artifact = payload(artifacts=[{"path": "../outside.txt", "role": "read"}])
    async with Client(build_server(cloned)) as client:
        accepted = await client.call_tool("handoff_capture", artifact)
        assert not accepted.is_error, accepted.structured_content
        assert run_baton("policy", "untrust", "--project", str(cloned)).returncode == 0
        refused = await client.call_tool("handoff_capture", artifact)
    assert refused.is_error
    assert refused.structured_content["error"]["exit_code"] == 5


def test_the_running_status_page_reads_the_policy_again_once_the_user_untrusts_it(cloned):
    from baton.web.server import StatusApp

    trust(cloned)
    app = StatusApp(str(cloned), "p", "127.0.0.1")
    try:
        assert not app.application().project.policy.untrusted
        assert run_baton("policy", "untrust", "--project", str(cloned)).returncode == 0
        assert app.application().project.policy.untrusted
    finally:
        app.close()


def _trust_at_a_terminal(clone: Path, answer: bytes) -> tuple[int, str]:
    """``baton policy trust`` with its standard input and error on a pseudo-terminal, answering ``answer``."""
    code, shown, out = on_a_terminal("policy", "trust", "--project", str(clone), answer=answer)
    return code, shown.decode(errors="replace") + out.decode()


def test_policy_trust_at_a_terminal_shows_the_settings_and_trusts_on_yes(cloned):
    code, said = _trust_at_a_terminal(cloned, b"y\n")
    assert code == 0, said
    assert "Trust these settings in this checkout? [y/N]" in said and "allowed_roots" in said
    assert policy_show(cloned)["trust"]["state"] == "trusted"


def test_policy_trust_at_a_terminal_trusts_nothing_without_yes(cloned):
    code, said = _trust_at_a_terminal(cloned, b"\n")
    assert code == 2, said
    assert policy_show(cloned)["trust"]["state"] == "untrusted"


def test_amending_a_handoff_whose_artifact_is_outside_the_root_says_the_untrusted_roots_are_why(cloned):
    """Captured while the roots were trusted; amended after ``policy untrust``: its artifact's hash is refreshed."""
    trust(cloned)
    with Baton.open(cloned) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": "../outside.txt", "role": "read"}])).handoff_id
    assert run_baton("policy", "untrust", "--project", str(cloned)).returncode == 0
    r = run_baton("handoff", "amend", handoff_id, "--artifact", "src/app.py:read", "--no-input",
                  "--project", str(cloned))
    assert r.returncode == 5, r.stderr
    assert "allowed_roots of .baton/policy.json are not trusted" in r.stderr


# -- validate and prepare say when an untrusted allowed root would allow a path -----------------

ONCE_TRUSTED = "allowed by .baton/policy.json's allowed_roots once the user trusts them: baton policy show"


def _captured_outside_then_untrusted(clone: Path) -> str:
    """A draft whose artifact lies in the allowed root ``..``, captured while trusted, then untrusted."""
    trust(clone)
    with Baton.open(clone) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": "../outside.txt", "role": "read"}])).handoff_id
    assert run_baton("policy", "untrust", "--project", str(clone)).returncode == 0
    return handoff_id


def _artifact_findings(report: dict) -> list[str]:
    [check] = [c for c in report["report"]["checks"] if c["name"] == "artifacts"]
    return [f["message"] for f in check["findings"]]


def test_validate_says_an_artifact_outside_the_root_is_allowed_by_the_untrusted_roots_once_trusted(cloned):
    handoff_id = _captured_outside_then_untrusted(cloned)
    r = run_baton("handoff", "validate", handoff_id, "--project", str(cloned))
    assert r.returncode == 3
    assert f"'../outside.txt' is outside the project root ({ONCE_TRUSTED}" in r.stdout


def test_validate_json_says_an_artifact_outside_the_root_is_allowed_by_the_untrusted_roots_once_trusted(cloned):
    handoff_id = _captured_outside_then_untrusted(cloned)
    r = run_baton("handoff", "validate", handoff_id, "--json", "--project", str(cloned))
    assert r.returncode == 3
    [message] = _artifact_findings(json.loads(r.stdout))
    assert ONCE_TRUSTED in message


def test_validate_says_nothing_of_trust_for_a_path_no_allowed_root_holds(cloned):
    trust(cloned)
    with Baton.open(cloned) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": "../outside.txt", "role": "read"}])).handoff_id
    (cloned / ".baton" / "policy.json").write_text(json.dumps({"allowed_roots": ["src"]}))  # no longer ".."
    r = run_baton("handoff", "validate", handoff_id, "--json", "--project", str(cloned))
    [message] = _artifact_findings(json.loads(r.stdout))
    assert message == "'../outside.txt' is outside the project root"


def test_validate_checks_an_artifact_in_a_trusted_allowed_root_as_any_other(cloned):
    trust(cloned)
    with Baton.open(cloned) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": "../outside.txt", "role": "read"}])).handoff_id
    r = run_baton("handoff", "validate", handoff_id, "--json", "--project", str(cloned))
    assert _artifact_findings(json.loads(r.stdout)) == []


def test_prepare_says_a_left_out_path_is_allowed_by_the_untrusted_roots_once_trusted(cloned):
    (cloned / "shared").symlink_to(cloned.parent / "outside.txt")  # a changed file leading out of the clone
    [entry] = baton_json(cloned, "handoff", "prepare")["left_out"]
    assert (entry["path"], entry["reason"]) == ("shared", "symlink-escape")
    assert entry["note"].startswith(ONCE_TRUSTED)
    r = run_baton("handoff", "prepare", "--project", str(cloned))
    assert f"shared (symlink-escape; {ONCE_TRUSTED}" in r.stdout


def _edit_config_policy(project: Path, section: dict) -> None:
    path = project / ".baton" / "config.json"
    config = json.loads(path.read_text())
    config["policy"] = section
    path.write_text(json.dumps(config))


def test_the_running_status_page_reads_config_json_again_once_its_policy_section_is_edited(project):
    from baton.web.server import StatusApp

    rule = {"name": "ticket-id", "regex": "TKT-[0-9a-f]{8}", "action": "redact", "reason": "internal ticket ids"}
    app = StatusApp(str(project), "p", "127.0.0.1")
    try:
        assert "ticket-id" not in [r.name for r in app.application().project.policy.redaction.rules]
        _edit_config_policy(project, {"rules": [rule]})
        assert "ticket-id" in [r.name for r in app.application().project.policy.redaction.rules]
    finally:
        app.close()


def test_the_running_status_page_fails_requests_while_config_json_does_not_read_and_recovers_once_fixed(project):
    from baton.errors import ConfigError
    from baton.web.server import StatusApp

    path = project / ".baton" / "config.json"
    good = path.read_text()
    app = StatusApp(str(project), "p", "127.0.0.1")
    try:
        app.application()
        path.write_text(good[:-5])  # a half-saved edit
        with pytest.raises(ConfigError):
            app.application()
        with pytest.raises(ConfigError):
            app.application()  # still not read: not taken for the settings read before
        path.write_text(json.dumps({**json.loads(good), "policy": {"min_secret_length": 6}}))
        assert app.application().project.policy.redaction.min_secret_length == 6
    finally:
        app.close()


SIGNER_LINE = "alice@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx3c2lnbmVyc2lnbmVyc2lnbmVyc2lnbmVyc2ln"


def _project_with_trusted_signers(tmp_path: Path) -> Path:
    root = tmp_path / "signed"
    root.mkdir()
    git(root, "init", "-q")
    Baton.init(root)
    (root / ".baton" / "allowed_signers").write_text(SIGNER_LINE + "\n")
    trust(root)
    return root


def _set_sync(root: Path, sync: dict) -> None:
    config = root / ".baton" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "sync": sync}))


def test_requiring_signatures_on_top_of_trusted_signers_applies_without_a_warning(tmp_path):
    root = _project_with_trusted_signers(tmp_path)
    _set_sync(root, {"require_signatures": True})
    r = run_baton("handoff", "list", "--project", str(root))
    assert r.returncode == 0, r.stderr
    assert "policy" not in r.stderr


def test_a_changed_sync_section_is_named_in_a_short_warning_without_the_key_lines(tmp_path):
    root = _project_with_trusted_signers(tmp_path)
    _set_sync(root, {"allowed_signers": ".baton/allowed_signers", "require_signatures": False, "x": 1})
    r = run_baton("handoff", "list", "--project", str(root))
    assert "changed: .baton/config.json sync" in r.stderr
    assert SIGNER_LINE not in r.stderr and "baton policy trust" in r.stderr


def test_policy_show_names_the_allowed_signers_file_among_its_sources(tmp_path):
    root = _project_with_trusted_signers(tmp_path)
    r = run_baton("policy", "show", "--project", str(root))
    assert r.stdout.splitlines()[0] == "Policy sources: .baton/config.json, .baton/allowed_signers"
    assert ".baton/allowed_signers" in baton_json(root, "policy", "show")["sources"]


def test_policy_untrust_lists_the_settings_it_had_trusted_not_the_files_now(tmp_path):
    root = _project_with_trusted_signers(tmp_path)
    added = SIGNER_LINE.replace("alice", "mallory")
    (root / ".baton" / "allowed_signers").write_text(SIGNER_LINE + "\n" + added + "\n")
    r = run_baton("policy", "untrust", "--project", str(root))
    assert r.returncode == 0, r.stderr
    assert "the settings it trusted no longer apply" in r.stdout
    assert SIGNER_LINE in r.stdout and added not in r.stdout
