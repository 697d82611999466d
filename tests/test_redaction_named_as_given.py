"""What a command says it redacted names the field as the person gave it.

A record's field path (``open_items[0].description``) is the record's name for
it, not what someone at a terminal typed: the text names the flag
(``--open-item``) beside the path, and ``--json`` keeps ``field`` (the record
path) and adds ``flag``. Content from ``--input`` (a JSON payload, written in
the record's own names) keeps the path alone. The mapping is
``baton.cli_handlers.record_fields``."""

from __future__ import annotations

import json

from tests.cli_support import run, run_json

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2


def test_checkpoint_create_names_the_flag_that_carried_the_secret_and_keeps_the_path(project, capsys):
    args = ("checkpoint", "create", "--title", "t", "--objective", "o", "--open-item", f"use {TOKEN}")
    code, out, err = run(capsys, project, *args)
    assert code == 0, err
    assert "redacted 1 field: --open-item (open_items[0].description, github-token)" in out
    assert TOKEN not in out
    (redaction,) = run_json(capsys, project, *args)["redactions"]
    assert (redaction["field"], redaction["flag"]) == ("open_items[0].description", "--open-item")


def test_a_secret_in_a_summary_flag_is_named_by_that_flag(project, capsys):
    out = run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", "o",
                   "--discovery", f"the key is {TOKEN}")
    assert [(r["field"], r["flag"]) for r in out["redactions"]] == [("summary.discoveries[0]", "--discovery")]


def test_content_from_input_keeps_the_record_path_alone(project, capsys, tmp_path):
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"work": {"title": "t", "objective": "o"},
                                   "open_items": [{"description": f"use {TOKEN}"}]}))
    code, out, err = run(capsys, project, "checkpoint", "create", "--input", str(payload))
    assert code == 0, err
    assert "redacted 1 field: open_items[0].description (github-token)" in out
    (redaction,) = run_json(capsys, project, "checkpoint", "create", "--input", str(payload))["redactions"]
    assert "flag" not in redaction


def test_session_end_names_the_handoff_flags(project, capsys):
    args = ("session", "end", "s-1", "--handoff-steps", f"rotate {TOKEN} first", "--handoff-failed", f"tried {TOKEN}")
    code, out, err = run(capsys, project, *args)
    assert code == 0, err
    assert "--handoff-steps (open_items[0].description, github-token)" in out
    assert "--handoff-failed (failed_attempts[0].approach, github-token)" in out
    redactions = run_json(capsys, project, "session", "end", "s-2", *args[3:])["redactions"]
    assert {(r["field"], r.get("flag")) for r in redactions} >= {
        ("open_items[0].description", "--handoff-steps"), ("failed_attempts[0].approach", "--handoff-failed")}
