"""Hostile input (issue 10): what an input can do to a terminal, to the
ledger's keys, to the path policy, to memory and to the policy engine."""

from __future__ import annotations

import json
from pathlib import Path

from baton.domain.limits import MAX_INPUT_BYTES
from baton.domain.redaction import printable
from tests.cli_support import run

AWS_KEY = "AK" + "IAQ7XJ3KZP5HWN4TLA"  # synthetic


def _nothing_under_baton_holds(project: Path, text: str) -> bool:
    return all(text.encode() not in p.read_bytes() for p in (project / ".baton").rglob("*") if p.is_file())


def test_control_characters_are_shown_as_escapes():
    assert printable("a\x1b[31mred\x00\r\u202e") == "a\\x1b[31mred\\x00\\x0d\\u202e"


def test_newlines_and_tabs_stay_in_text():
    assert printable("one\n\ttwo") == "one\n\ttwo"


def test_a_title_with_a_terminal_escape_is_listed_without_it(project, capsys):
    code, _, err = run(capsys, project, "checkpoint", "create", "--no-input", "--title", "red \x1b[31m title",
                       "--objective", "o")
    assert code == 0, err
    code, out, _ = run(capsys, project, "handoff", "list")
    assert "\x1b" not in out and "\\x1b[31m" in out


def test_a_title_with_a_terminal_escape_keeps_it_escaped_in_json(project, capsys):
    run(capsys, project, "checkpoint", "create", "--no-input", "--title", "red \x1b[31m", "--objective", "o")
    code, out, _ = run(capsys, project, "handoff", "list", "--json")
    assert "\x1b" not in out and "\\u001b" in out


def test_an_owner_holding_a_key_after_a_space_is_refused_before_encoding(project, capsys):
    code, out, err = run(capsys, project, "session", "end", "s2", "--handoff-steps", "a",
                         "--owner", f"ci {AWS_KEY}", "--branch", "main")
    assert code == 5
    assert AWS_KEY not in out + err and _nothing_under_baton_holds(project, AWS_KEY)


def test_a_secret_shaped_home_path_is_refused_like_any_path_outside_the_root(project, capsys):
    code, _, err = run(capsys, project, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                       "--artifact", "~/.ssh/id_rsa")
    assert code == 5, err
    assert "home-reference" in err or "refused" in err


def test_a_jwt_in_a_file_name_is_redacted(project, capsys):
    import base64

    header = base64.urlsafe_b64encode(b'{"alg":"HS256"}').decode().rstrip("=")
    jwt = header + "." + "eyJzdWIiOiJzeW50aGV0aWMifQ" + "." + "c2lnbmF0dXJlc3ludGhldGljMDA"
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                         "--artifact", f"src/{jwt}.py")
    assert jwt not in out + err and _nothing_under_baton_holds(project, jwt)


def test_an_input_file_over_the_limit_is_an_input_error(project, capsys, tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b'{"work": {"title": "' + b"x" * (MAX_INPUT_BYTES + 10) + b'"}}')
    code, _, err = run(capsys, project, "checkpoint", "create", "--no-input", "--input", str(big))
    assert code == 2 and "limit" in err


def test_an_input_file_over_the_limit_is_reported_at_its_own_size(project, capsys, tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * 2_000_000)
    code, _, err = run(capsys, project, "checkpoint", "create", "--no-input", "--input", str(big))
    assert code == 2 and "is 2000000 bytes; the limit is 1048576 bytes" in err


def test_stdin_over_the_limit_is_reported_as_over_it_not_at_the_bytes_read(project, tmp_path):
    from tests.handoff_support import baton

    result = baton(project, "checkpoint", "create", "--no-input", "--input", "-", input="x" * 2_000_000)
    assert result.returncode == 2
    assert "stdin is over 1048576 bytes; the limit is 1048576 bytes" in result.stderr
    assert "1048577" not in result.stderr


def test_a_payload_file_that_is_not_utf8_says_so_for_every_flag_that_reads_one(project, capsys, tmp_path):
    from tests.cli_support import ledger_size

    binary = tmp_path / "payload.json"
    binary.write_bytes(b'{"work": {"title": "caf\xe9"}}')  # Latin-1, not UTF-8: byte 23
    before = ledger_size(project)
    for args in (["checkpoint", "create", "--no-input", "--input", str(binary)],
                 ["detect", "--event", str(binary)],
                 ["session", "end", "s1", "--handoff-input", str(binary)],
                 ["merge", "aaaa", "bbbb", "--resolution-file", str(binary)]):
        code, _, err = run(capsys, project, *args)
        assert code == 2, (args, err)
        assert f"{binary}: it is not UTF-8 text (byte 23 is not valid UTF-8)" in err, err
        assert "surrogates" not in err
    assert ledger_size(project) == before


def test_a_payload_file_that_starts_with_a_byte_order_mark_is_read(project, capsys, tmp_path):
    marked = tmp_path / "payload.json"
    marked.write_bytes(b'\xef\xbb\xbf{"work": {"title": "Saved by Notepad", "objective": "o"}}')
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--input", str(marked), "--json")
    assert code == 0, err
    assert json.loads(out)["handoff"]["work"]["title"] == "Saved by Notepad"


def test_arguments_over_the_limit_are_an_input_error(project, capsys):
    code, _, err = run(capsys, project, "checkpoint", "create", "--no-input", "--title", "x" * (MAX_INPUT_BYTES + 1),
                       "--objective", "o")
    assert code == 2 and "limit" in err


def test_a_catastrophic_policy_regex_is_refused_at_load_naming_it(project, capsys):
    (project / ".baton" / "policy.json").write_text(json.dumps(
        {"rules": [{"name": "slow-rule", "regex": "(a+)+$"}]}))
    code, _, err = run(capsys, project, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o")
    assert code == 4 and "slow-rule" in err and "(a+)+$" in err


def test_a_client_that_disconnects_leaves_no_traceback(capsys):
    from baton.web.server import _Server

    server = _Server.__new__(_Server)
    try:
        raise BrokenPipeError(32, "Broken pipe")
    except BrokenPipeError:
        server.handle_error(None, ("127.0.0.1", 1))
    assert capsys.readouterr().err == ""


def test_a_document_pasted_as_a_title_is_clipped_in_the_capture_text_and_whole_in_json(project, capsys):
    title = "Rotate the signing keys " + "x" * 50_000
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--title", title, "--objective", "o")
    assert code == 0, err
    shown = next(line for line in out.splitlines() if line.startswith("  title: "))
    assert shown == "  title: " + title[:119] + "…"
    code, out, _ = run(capsys, project, "handoff", "amend", out.split()[3], "--title", title,
                       "--objective", "o, amended", "--json")
    assert code == 0 and json.loads(out)["handoff"]["work"]["title"] == title


def test_a_supplied_baton_field_is_refused_naming_the_field_not_as_baton_colon_baton(project, capsys, tmp_path):
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"work": {"title": "t", "objective": "o"}, "baton": {"owner": "x"}}))
    code, _, err = run(capsys, project, "checkpoint", "create", "--no-input", "--input", str(payload))
    assert code == 2
    assert err.startswith("baton: the payload's baton field is set by Baton") and "baton: baton:" not in err


def _closed(stream: str, project: Path, *args: str):
    """The real command line started with a standard stream closed (``baton … <&-``, ``>&-``, ``2>&-``):
    its descriptor closed and Python's stream None, as an interpreter started so has it."""
    import os
    import subprocess
    import sys

    fd = ("stdin", "stdout", "stderr").index(stream)
    return subprocess.run([sys.executable, "-c", f"import os, runpy, sys; os.close({fd}); sys.{stream} = None; "
                           "sys.argv = ['baton', *sys.argv[1:]]; runpy.run_module('baton', run_name='__main__')",
                           *args], cwd=project, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "BATON_HOOK_SERVER": "0"})


def _closed_stdin(project: Path, *args: str):
    return _closed("stdin", project, *args)


def test_stdin_closed_is_an_input_error_for_every_flag_that_reads_it(project):
    for flag, args in (("--input", ["checkpoint", "create", "--no-input", "--input", "-"]),
                       ("--event", ["detect", "--event", "-"]),
                       ("--handoff-input", ["session", "end", "s1", "--handoff-input", "-"]),
                       ("--resolution-file", ["merge", "aaaa", "bbbb", "--resolution-file", "-"])):
        done = _closed_stdin(project, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr == (f"baton: cannot read {flag} stdin: standard input is closed; pipe the input in, "
                               "or name a file\n")


def test_forget_with_stdin_closed_asks_nothing_and_wants_yes(project, capsys):
    from tests.cli_support import run_json

    handoff = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "t",
                       "--objective", "o")["id"]
    done = _closed_stdin(project, "forget", handoff)
    assert done.returncode == 2 and "internal error" not in done.stderr
    assert "cannot be undone: pass --yes" in done.stderr


def test_a_command_with_standard_output_closed_runs_and_says_its_errors_on_stderr(project):
    assert _closed("stdout", project, "log").returncode == 0
    assert _closed("stdout", project, "handoff", "list", "--json").returncode == 0
    missing = _closed("stdout", project, "handoff", "show", "zzzz", "--json")
    assert missing.returncode == 4 and missing.stderr == "baton: no handoff matches 'zzzz'\n"


def test_a_command_with_standard_error_closed_runs_and_prints_its_result(project):
    listed = _closed("stderr", project, "handoff", "list", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout)["count"] == 0
    missing = _closed("stderr", project, "handoff", "show", "zzzz", "--json")
    assert missing.returncode == 4 and json.loads(missing.stdout)["error"]["code"] == "not_found"


def test_an_empty_json_input_says_it_is_empty_for_every_flag_that_reads_json(project, capsys, tmp_path):
    from tests.cli_support import ledger_size

    empty = tmp_path / "empty.json"
    empty.write_text("\n")
    before = ledger_size(project)
    for flag, args in (("--input", ["checkpoint", "create", "--no-input", "--input", str(empty)]),
                       ("--event", ["detect", "--event", str(empty)]),
                       ("--handoff-input", ["session", "end", "s1", "--handoff-input", str(empty)])):
        code, _, err = run(capsys, project, *args)
        assert code == 2, (args, err)
        assert err == f"baton: {flag} {empty} is empty: it must hold JSON\n"
    assert ledger_size(project) == before


def test_malformed_json_in_an_event_file_names_the_file(project, capsys, tmp_path):
    bad = tmp_path / "signals.json"
    bad.write_text("{bad")
    code, _, err = run(capsys, project, "detect", "--event", str(bad))
    assert code == 2 and err.startswith(f"baton: --event {bad} is not valid JSON: ")
