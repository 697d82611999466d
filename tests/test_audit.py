"""``baton audit``: fields, redactions, references, policy and deletable records, never a value (spec §16)."""

from __future__ import annotations

import json

from baton.domain.wording import counted
from tests.cli_support import run, run_json

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
BODY = "PLANTED-OBJECTIVE-4411"


def test_audit_counts_redactions_per_rule_and_never_shows_the_value(capsys, project):
    run_json(capsys, project, "session", "begin", "--session", "s1", "--objective", f"use {TOKEN} here")
    report = run_json(capsys, project, "audit")
    assert report["redactions"] == {"github-token": 2}  # the session and its objective
    assert TOKEN not in json.dumps(report)


def test_audit_names_the_fields_records_hold_without_their_values(capsys, project):
    run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", BODY)
    report = run_json(capsys, project, "audit")
    assert report["fields"]["handoffs"]["work.objective"] == 1
    assert report["records"]["handoffs"] == 1
    code, out, _ = run(capsys, project, "audit")
    assert code == 0 and BODY not in out and BODY not in json.dumps(report)


def test_audit_counts_external_references_by_kind(capsys, project):
    run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", "o",
             "--evidence", json.dumps({"type": "url", "claim": "docs say so", "ref": "https://example.com/a"}),
             "--artifact", "README.md:read")
    refs = run_json(capsys, project, "audit")["references"]
    assert refs["evidence"] == {"url": 1}
    assert refs["artifacts"] == 1


def test_audit_lists_archived_handoffs_as_eligible_for_deletion(capsys, project):
    kept = run_json(capsys, project, "checkpoint", "create", "--title", "kept", "--objective", "o")["id"]
    gone = run_json(capsys, project, "checkpoint", "create", "--title", "old", "--objective", "o")["id"]
    run_json(capsys, project, "handoff", "archive", gone)
    eligible = run_json(capsys, project, "audit")["eligible_for_deletion"]
    assert [r["id"] for r in eligible] == [gone]
    assert kept not in json.dumps(eligible)


def test_audit_reports_the_policy_in_force(capsys, project):
    policy = run_json(capsys, project, "audit")["policy"]
    assert any(rule["name"] == "github-token" for rule in policy["rules"])


def test_audit_counts_payloads_erased_by_forget(capsys, project):
    handoff = run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", BODY)["id"]
    run_json(capsys, project, "forget", handoff, "--yes")
    assert run_json(capsys, project, "audit")["erased"] == {"payloads": 1, "handoffs": 1}


def test_audit_text_lists_the_oldest_eligible_records_and_counts_the_rest(capsys, project, monkeypatch):
    """At 13,000 handoffs the text listed 6,667 eligible records, the rest of the report lost above them."""
    from baton.commands import audit

    monkeypatch.setattr(audit, "SHOWN_ELIGIBLE", 2)
    archived = []
    for n in range(3):
        made = run_json(capsys, project, "checkpoint", "create", "--title", f"old {n}", "--objective", "o")
        archived.append(made["id"])
        run_json(capsys, project, "handoff", "archive", archived[-1])
    code, out, _ = run(capsys, project, "audit")
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("  ") and line.split()[0] in archived]
    assert code == 0 and "Eligible for deletion (3;" in out
    assert len(listed) == 2 and "… and 1 more, newer (`baton --json audit` lists every one)" in out
    assert len(run_json(capsys, project, "audit")["eligible_for_deletion"]) == 3


def test_audit_says_how_many_of_the_handoff_records_are_session_batons(capsys, project):
    """``audit`` counted 26,668 handoffs where ``status`` and ``handoff list`` say 13,334: the
    other half are the records of session batons, which it now names as such."""
    run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", "o")
    run_json(capsys, project, "session", "end", "s-1", "--handoff-steps", "Run the suite",
             "--owner", "alice@example.com", "--branch", "main")
    report = run_json(capsys, project, "audit")
    assert report["records"]["handoffs"] == 2 and report["baton_records"] == 1
    code, out, _ = run(capsys, project, "audit")
    assert code == 0 and out.startswith("Records: 2 handoffs (1 of them a session baton), 1 baton, ")


def test_audit_without_session_batons_counts_the_handoffs_alone(capsys, project):
    run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", "o")
    assert run_json(capsys, project, "audit")["baton_records"] == 0
    code, out, _ = run(capsys, project, "audit")
    assert code == 0 and out.startswith("Records: 1 handoff, 0 batons, ")


def test_audit_text_puts_one_of_a_thing_in_the_singular_and_others_in_the_plural(capsys, project):
    """It said "1 handoffs", "1 artifact(s)" and "1 payload(s) of 1 handoff(s)"."""
    run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", "o", "--artifact", "README.md:read")
    code, out, _ = run(capsys, project, "audit")
    assert code == 0 and out.startswith("Records: 1 handoff, 0 batons, 0 sessions, 0 objectives\n")
    assert "External references: 1 artifact, evidence none" in out
    assert "Erased by forget: 0 payloads of 0 handoffs" in out
    rules = len(run_json(capsys, project, "audit")["policy"]["rules"])
    assert f"Policy: {rules} redaction rules from " in out and rules > 1


def test_audit_text_counts_one_erased_payload_of_one_handoff_in_the_singular(capsys, project):
    handoff = run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", BODY)["id"]
    run_json(capsys, project, "forget", handoff, "--yes")
    code, out, _ = run(capsys, project, "audit")
    assert code == 0 and "Erased by forget: 1 payload of 1 handoff\n" in out


def test_a_count_takes_the_singular_only_for_exactly_one():
    assert [counted(n, "handoff") for n in (0, 1, 2)] == ["0 handoffs", "1 handoff", "2 handoffs"]
    assert counted(1, "redaction rule") == "1 redaction rule" and counted(3, "entry", "entries") == "3 entries"
