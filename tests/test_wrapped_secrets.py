"""A secret a careless user wraps or mangles still never reaches the ledger nor
any output (docs/security.md, `base64-wrapped-secret` and `url-credentials`):
a token base64-encoded (whole, at an offset, URL-safe, wrapped at 76) in any
handoff field, and a remote URL whose password holds a "/", which an AWS
secret key does."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.cli_support import run
from tests.sync_support import make_team, set_remote

# Synthetic, built from pieces so no token-shaped string sits in the source.
GITHUB = "gh" + "p_" + "Zq7Lm2Xv9Rt4Wb8Nc1Kd6Hs3Jf5Gp0YaQ2e4"
STRIPE = "sk" + "_live_" + "Mx4hh2FDEEtfjgVvVqE1SkHb"
ANTHROPIC = "sk" + "-ant-api03-" + "z9w3QlY7Zkuvqdt7s8Stqcbnr3yBdGBLEPH1qhT61qtc4xatws8phP9nhFyJfm5di4PzJ59FHz5r1" + "AA"
AWS_SECRET = "c7Tvo+hBKqFYY+kv5ZJr3J1TWDtkwtDDb/xHKas1"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


WRAPPED = {
    "whole": _b64(GITHUB),
    "after a space": _b64(" " + STRIPE),
    "an env line": _b64(f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET}\n"),
    "url-safe": base64.urlsafe_b64encode(f"token={GITHUB}".encode()).decode().rstrip("="),
    "wrapped at 76": "\n".join((lambda s: [s[i:i + 76] for i in range(0, len(s), 76)])(_b64(ANTHROPIC))),
}


def _every_file_under(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("form", sorted(WRAPPED))
def test_a_token_wrapped_in_base64_in_any_handoff_field_is_never_stored_or_printed(capsys, project, tmp_path, form):
    wrapped = WRAPPED[form]
    body = {"work": {"title": "t", "objective": "o"},
            "summary": {"current_state": f"the CI variable holds {wrapped}"},
            "decisions": [{"id": "D-1", "decision": "rotate it", "rationale": wrapped}],
            "evidence": [{"id": "E-1", "type": "command", "claim": "decoded", "ref": f"echo {wrapped} | base64 -d",
                          "result": "pass", "captured_at": "2026-12-05T12:00:00Z"}],
            "risks": [{"description": wrapped}]}
    payload = tmp_path / "body.json"
    payload.write_text(json.dumps(body))
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--json", "--input", str(payload))
    assert code == 0, out + err
    handoff = json.loads(out)["handoff"]
    assert "[REDACTED:base64-wrapped-secret]" in handoff["summary"]["current_state"]
    for shown in (out, err, _every_file_under(project / ".baton").decode("utf-8", "replace")):
        assert wrapped not in shown and wrapped.replace("\n", "\\n") not in shown
    for again in (["handoff", "show", handoff["id"], "--json"], ["log", "--json"]):
        code, out, err = run(capsys, project, *again)
        assert code == 0 and wrapped.replace("\n", "\\n") not in out + err


def test_base64_of_prose_naming_a_token_prefix_is_kept(capsys, project):
    prose = _b64("gh" + "p_ tokens are GitHub's classic personal access tokens")
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--json",
                         "--title", "t", "--objective", "o", "--current-state", prose)
    assert code == 0, out + err
    assert json.loads(out)["handoff"]["summary"]["current_state"] == prose


def test_a_url_password_holding_a_slash_is_redacted_in_a_handoff(capsys, project):
    url = f"https://ci:{AWS_SECRET}@git.example.com/app.git"
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--json",
                         "--title", "t", "--objective", "o", "--current-state", f"origin is {url}")
    assert code == 0, out + err
    state = json.loads(out)["handoff"]["summary"]["current_state"]
    assert state == "origin is https://ci:[REDACTED:url-credentials]@git.example.com/app.git"
    assert AWS_SECRET.encode() not in _every_file_under(project / ".baton")


def test_a_port_and_a_path_before_an_at_sign_are_no_password(capsys, project):
    url = "https://discord.com:443/users/@me"
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--json",
                         "--title", "t", "--objective", "o", "--current-state", url)
    assert code == 0 and json.loads(out)["handoff"]["summary"]["current_state"] == url, out + err


def test_sync_never_shows_a_remote_password_holding_a_slash(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    set_remote(a, f"http://ci:{AWS_SECRET}@127.0.0.1:9/app.git")
    for argv in (["sync", "--json"], ["sync"]):
        code, out, err = run(capsys, a, *argv)
        assert code == 4, out + err
        assert AWS_SECRET not in out + err and AWS_SECRET.split("/")[1] not in out + err
        assert "Traceback" not in err


@pytest.mark.parametrize("token,at", [(GITHUB, 20), (STRIPE, 12), (ANTHROPIC, 60)], ids=["github", "stripe", "anthropic"])
def test_a_token_a_line_break_cut_in_two_is_redacted_whole(capsys, project, token, at):
    wrapped = token[:at] + "\n  " + token[at:]
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--json",
                         "--title", "t", "--objective", "o", "--current-state", f"pasted:\n{wrapped}\nthen rotated")
    assert code == 0, out + err
    assert json.loads(out)["handoff"]["summary"]["current_state"] == \
        "pasted:\n[REDACTED:line-wrapped-secret]\nthen rotated"
    stored = _every_file_under(project / ".baton")
    assert token[:at].encode() not in stored and token[at:].encode() not in stored


def test_a_name_assigned_on_the_line_after_a_token_keeps_its_assignment_rule(capsys, project):
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--json", "--title", "t",
                         "--objective", "o", "--current-state", f"{GITHUB}\npassword = hunter2-{STRIPE[-8:]}x9")
    assert code == 0, out + err
    state = json.loads(out)["handoff"]["summary"]["current_state"]
    assert state == "[REDACTED:github-token]\npassword = [REDACTED:generic-secret-assignment]"


def test_the_word_after_a_whole_classic_token_on_the_next_line_is_kept_by_session_end(capsys, project):
    code, out, err = run(capsys, project, "session", "end", "lw1", "--json",
                         "--handoff-steps", f"revoke {GITHUB}\nthen redeploy")
    assert code == 0, out + err
    assert json.loads(out)["handoff"]["nextSteps"] == ["revoke [REDACTED:github-token]\nthen redeploy"]
    assert GITHUB.encode() not in _every_file_under(project / ".baton")


def test_the_next_output_line_after_a_whole_classic_token_is_printed_whole(capsys, project):
    code, out, err = run(capsys, project, "session", "begin", "e7", "--objective", f"see https://a.io/x?tok={GITHUB}")
    assert code == 0, out + err
    assert "tok=[REDACTED:github-token]\n" in out and "line-wrapped-secret" not in out
    assert GITHUB not in out + err
