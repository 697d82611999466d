"""Validation (§10) and the draft/ready requirements (§7.2): one behaviour per test."""

from __future__ import annotations

from pathlib import Path

import attrs
import orjson
from hypothesis import given

from baton.domain.handoff import Handoff, Validation, handoff_from_json
from baton.domain.validation import (
    CHECK_NAMES,
    ArtifactFact,
    PolicyFinding,
    RecheckResult,
    ValidationFacts,
    draft_problems,
    path_escapes_root,
    ready_problems,
    validate_handoff,
    validation_report_from_json,
)
from tests.strategies import draft, handoffs, minimal_payload

PARENT_A = "018f0000-0000-7000-8000-0000000000b1"
PARENT_B = "018f0000-0000-7000-8000-0000000000b2"
NOW = "2026-09-02T14:40:00Z"
HASH_A = "sha256:" + "a" * 64
HASH_B = "sha256:" + "b" * 64
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def check(h: Handoff, name: str, facts: ValidationFacts | None = None):
    return validate_handoff(h, facts or ValidationFacts(now=NOW)).check(name)


def paths(result) -> set[str]:
    return set(result.paths)


def with_payload(**overrides) -> Handoff:
    return draft(minimal_payload(**overrides))


# --------------------------------------------------------------------------- the report


def test_a_complete_draft_passes_every_gating_check():
    report = validate_handoff(draft(), ValidationFacts(now=NOW))
    assert report.status == "pass"
    assert [c.name for c in report.checks] == list(CHECK_NAMES)
    assert all(c.status == "pass" for c in report.checks if not c.advisory)


def test_the_report_json_has_status_checks_quality_and_freshness():
    out = validate_handoff(draft(), ValidationFacts(now=NOW)).to_json()
    assert set(out) == {"status", "validated_at", "checks", "quality", "freshness"}
    assert out["validated_at"] == NOW
    assert {"name", "status", "detail", "paths", "findings", "advisory"} <= set(out["checks"][0])
    orjson.dumps(out)


def test_the_worst_gating_check_sets_the_overall_status():
    h = with_payload(artifacts=[{"path": "src/a.py", "role": "modified"}])  # unchecked -> warn
    assert validate_handoff(h, ValidationFacts(now=NOW)).status == "warn"
    h = with_payload(artifacts=[{"path": "/etc/passwd", "role": "read"}])
    assert validate_handoff(h, ValidationFacts(now=NOW)).status == "fail"


def test_validation_is_deterministic():
    h = with_payload(decisions=[{"id": "D-1", "decision": "x", "evidence_ids": ["E-9"]}])
    facts = ValidationFacts(now=NOW, git_head_now="abc1234")
    assert validate_handoff(h, facts).to_json() == validate_handoff(h, facts).to_json()


@given(handoffs())
def test_any_readable_record_gets_a_complete_report(h):
    report = validate_handoff(h, ValidationFacts(now=NOW))
    assert [c.name for c in report.checks] == list(CHECK_NAMES)
    assert report.status in ("pass", "warn", "fail")
    orjson.dumps(report.to_json())


def test_the_report_becomes_the_records_validation_object():
    report = validate_handoff(draft(), ValidationFacts(now=NOW))
    v = report.to_validation()
    assert v.status == "pass" and v.validated_at == NOW
    assert [c.name for c in v.checks] == list(CHECK_NAMES)
    assert v.quality == report.quality
    assert validation_report_from_json(report.to_json()) == v


# --------------------------------------------------------------------------- schema


def test_schema_fails_an_unsupported_schema_version():
    h = attrs.evolve(draft(), schema_version="9.9")
    assert "schema_version" in paths(check(h, "schema"))


def test_schema_fails_a_record_built_in_code_with_a_bad_enum_value():
    h = attrs.evolve(draft(), status="finished")
    result = check(h, "schema")
    assert result.status == "fail" and "status" in paths(result)


def test_schema_fails_a_decision_citing_unknown_evidence():
    h = with_payload(decisions=[{"id": "D-1", "decision": "x", "evidence_ids": ["E-404"]}])
    result = check(h, "schema")
    assert result.status == "fail" and paths(result) == {"decisions[0].evidence_ids[0]"}


def test_schema_fails_a_failed_attempt_citing_unknown_evidence():
    h = with_payload(failed_attempts=[{"id": "F-1", "approach": "a", "outcome": "failed", "evidence_ids": ["E-404"]}])
    result = check(h, "schema")
    assert result.status == "fail" and paths(result) == {"failed_attempts[0].evidence_ids[0]"}


def test_schema_passes_evidence_references_that_resolve():
    h = with_payload(
        evidence=[{"id": "E-1", "type": "observation", "claim": "synthetic"}],
        decisions=[{"id": "D-1", "decision": "x", "evidence_ids": ["E-1"]}],
        failed_attempts=[{"id": "F-1", "approach": "a", "outcome": "failed", "evidence_ids": ["E-1"]}],
    )
    assert check(h, "schema").status == "pass"


def _evidence_ids(first: str, second: str) -> Handoff:
    """A record whose two evidence items carry ``first`` and ``second``: capture refuses a duplicate
    now, but a ledger written before that rule may still hold one."""
    h = with_payload(evidence=[{"id": "E-1", "type": "human", "claim": "a"}, {"id": "E-2", "type": "human", "claim": "b"}])
    return attrs.evolve(h, evidence=(attrs.evolve(h.evidence[0], id=first), attrs.evolve(h.evidence[1], id=second)))


def test_schema_fails_duplicate_item_ids():
    assert paths(check(_evidence_ids("E-1", "E-1"), "schema")) == {"evidence[0].id", "evidence[1].id"}


def test_schema_fails_item_ids_that_name_one_item_as_typed():
    assert paths(check(_evidence_ids("E-001", "e-1"), "schema")) == {"evidence[0].id", "evidence[1].id"}


def blank_objective(objective: str) -> Handoff:
    """A record with a blank objective: capture refuses one now, but a ledger
    written before that rule (or a hand-edited file) may still hold it."""
    h = with_payload(work={"title": "t", "objective": "o"})
    return attrs.evolve(h, work=attrs.evolve(h.work, objective=objective))


def test_schema_fails_a_blank_objective():
    h = blank_objective("  ")
    assert "work.objective" in paths(check(h, "schema"))


def test_schema_fails_updated_before_created():
    h = attrs.evolve(draft(), updated_at="2026-09-01T00:00:00Z")
    assert "updated_at" in paths(check(h, "schema"))


# --------------------------------------------------------------------------- policy


def test_policy_fails_a_raw_transcript_field_at_the_top_level():
    h = draft(minimal_payload(transcript="user: hi\nassistant: hello"))
    result = check(h, "policy")
    assert result.status == "fail" and paths(result) == {"transcript"}


def test_policy_fails_a_transcript_field_nested_anywhere():
    h = with_payload(summary={"current_state": "s", "chat_history": ["..."]})
    assert paths(check(h, "policy")) == {"summary.chat_history"}


def test_policy_reports_the_policy_engines_findings_by_severity():
    facts = ValidationFacts(now=NOW, policy_findings=(
        PolicyFinding("evidence[0].ref", "matched secret policy", "block"),
        PolicyFinding("artifacts[0].path", "credential-like file name", "warn"),
    ))
    result = check(draft(), "policy", facts)
    assert result.status == "fail"
    assert {(f.level, f.path) for f in result.findings} == {("fail", "evidence[0].ref"), ("warn", "artifacts[0].path")}


def test_policy_warning_alone_warns():
    facts = ValidationFacts(now=NOW, policy_findings=(PolicyFinding("work.title", "looks like a path", "warn"),))
    assert check(draft(), "policy", facts).status == "warn"


# --------------------------------------------------------------------------- artifacts


def artifact_handoff(**artifact) -> Handoff:
    return with_payload(artifacts=[{"path": "src/a.py", "role": "modified", **artifact}])


def test_artifacts_pass_when_present_inside_root_and_unchanged():
    facts = ValidationFacts(now=NOW, artifacts={"src/a.py": ArtifactFact(exists=True, sha256=HASH_A)})
    assert check(artifact_handoff(content_hash=HASH_A), "artifacts", facts).status == "pass"


def test_artifacts_fail_a_missing_in_root_file():
    facts = ValidationFacts(now=NOW, artifacts={"src/a.py": ArtifactFact(exists=False)})
    result = check(artifact_handoff(), "artifacts", facts)
    assert result.status == "fail" and paths(result) == {"artifacts[0].path"}


def test_artifacts_accept_a_missing_file_marked_deleted():
    facts = ValidationFacts(now=NOW, artifacts={"src/a.py": ArtifactFact(exists=False)})
    assert check(artifact_handoff(role="deleted"), "artifacts", facts).status == "pass"


def test_artifacts_fail_a_path_outside_the_root_without_looking():
    for bad in ("../secrets.txt", "/etc/passwd", "src/../../x", "C:\\Windows\\x", "~/.ssh/id_rsa"):
        h = with_payload(artifacts=[{"path": bad, "role": "read"}])
        assert check(h, "artifacts").status == "fail", bad


def test_artifacts_fail_a_path_that_resolves_outside_the_root():
    facts = ValidationFacts(now=NOW, artifacts={"src/a.py": ArtifactFact(exists=True, inside_root=False)})
    assert check(artifact_handoff(), "artifacts", facts).status == "fail"


def test_artifacts_warn_when_the_content_hash_changed():
    facts = ValidationFacts(now=NOW, artifacts={"src/a.py": ArtifactFact(exists=True, sha256=HASH_B)})
    result = check(artifact_handoff(content_hash=HASH_A), "artifacts", facts)
    assert result.status == "warn" and paths(result) == {"artifacts[0].content_hash"}


def test_artifacts_warn_when_a_path_was_not_checked():
    assert check(artifact_handoff(), "artifacts").status == "warn"


def test_an_artifact_path_redacted_at_capture_warns_naming_the_rule_and_what_to_do():
    h = with_payload(artifacts=[{"path": "[REDACTED:dotenv-file]", "role": "read"}])
    result = check(h, "artifacts")
    assert result.status == "warn"
    assert "rule dotenv-file replaced the path at capture" in result.detail
    assert "remove the artifact, or accept this warning" in result.detail


def test_path_containment_is_lexical_and_allows_inner_dotdot():
    assert not path_escapes_root("src/x/../a.py")
    assert path_escapes_root("src/../../a.py")
    assert path_escapes_root("")


# --------------------------------------------------------------------------- repository


def repo_handoff(head="abc1234def", dirty=False) -> Handoff:
    return draft(minimal_payload(), project={"id": "sha256:p", "repository": {"vcs": "git", "head": head, "dirty": dirty}})


def test_repository_passes_when_the_head_is_unchanged():
    facts = ValidationFacts(now=NOW, git_head_now="abc1234def", git_dirty_now=False)
    assert check(repo_handoff(), "repository", facts).status == "pass"


def test_repository_drift_is_reported_as_a_warning_not_a_failure():
    facts = ValidationFacts(now=NOW, git_head_now="fff9999")
    report = validate_handoff(repo_handoff(), facts)
    assert report.check("repository").status == "warn"
    assert "moved from abc1234def to fff9999" in report.check("repository").detail
    assert report.status == "warn"
    assert report.freshness["state"] == "stale"


def test_repository_warns_when_a_clean_capture_is_dirty_now():
    facts = ValidationFacts(now=NOW, git_head_now="abc1234def", git_dirty_now=True)
    assert paths(check(repo_handoff(), "repository", facts)) == {"project.repository.dirty"}


def test_repository_warns_when_git_state_was_not_recorded_in_a_git_project():
    facts = ValidationFacts(now=NOW, git_head_now="abc1234")
    assert paths(check(draft(), "repository", facts)) == {"project.repository"}


def test_repository_passes_outside_git():
    assert check(draft(), "repository").status == "pass"


# --------------------------------------------------------------------------- evidence


def evidence_handoff(**evidence) -> Handoff:
    return with_payload(evidence=[{"id": "E-1", "claim": "synthetic claim", **evidence}])


def test_evidence_passes_a_well_formed_test_record():
    h = evidence_handoff(type="test", ref="pytest -q", result="pass", digest=HASH_A)
    assert check(h, "evidence").status == "pass"


def test_evidence_fails_a_command_record_without_command_or_result():
    result = check(evidence_handoff(type="command"), "evidence")
    assert result.status == "fail" and paths(result) == {"evidence[0].ref", "evidence[0].result"}


def test_evidence_fails_a_blank_claim():
    assert paths(check(evidence_handoff(type="human", claim=" "), "evidence")) == {"evidence[0].claim"}


def test_evidence_fails_a_file_reference_outside_the_root():
    assert check(evidence_handoff(type="file", ref="../../etc/hosts#L1-3"), "evidence").status == "fail"


def test_evidence_accepts_a_file_reference_with_a_line_range():
    assert check(evidence_handoff(type="file", ref="src/a.py#L10-20"), "evidence").status == "pass"


def test_evidence_warns_on_a_malformed_commit_url_or_digest():
    assert check(evidence_handoff(type="commit", ref="not a sha"), "evidence").status == "warn"
    assert check(evidence_handoff(type="url", ref="ftp://x"), "evidence").status == "warn"
    assert check(evidence_handoff(type="human", digest="md5:1"), "evidence").status == "warn"


def test_evidence_refuses_a_recheck_that_is_not_allowlisted():
    h = evidence_handoff(type="test", ref="rm -rf build && make test", result="pass")
    facts = ValidationFacts(now=NOW, recheck_allowlist=("pytest -q",),
                            rechecks=(RecheckResult("E-1", "rm -rf build && make test", allowlisted=False),))
    result = check(h, "evidence", facts)
    assert result.status == "fail" and "not on the recheck allowlist" in result.detail


def test_evidence_fails_an_allowlisted_recheck_that_contradicts_a_recorded_pass():
    h = evidence_handoff(type="test", ref="pytest -q", result="pass")
    facts = ValidationFacts(now=NOW, recheck_allowlist=("pytest -q",),
                            rechecks=(RecheckResult("E-1", "pytest -q", allowlisted=True, status="fail"),))
    assert check(h, "evidence", facts).status == "fail"


def test_evidence_passes_an_allowlisted_recheck_that_agrees():
    h = evidence_handoff(type="test", ref="pytest -q", result="pass")
    facts = ValidationFacts(now=NOW, recheck_allowlist=("pytest -q",),
                            rechecks=(RecheckResult("E-1", "pytest -q", allowlisted=True, status="pass"),))
    assert check(h, "evidence", facts).status == "pass"


def test_evidence_fails_a_recheck_of_unknown_evidence():
    facts = ValidationFacts(now=NOW, recheck_allowlist=("x",), rechecks=(RecheckResult("E-404", "x", True, "pass"),))
    assert check(draft(), "evidence", facts).status == "fail"


# --------------------------------------------------------------------------- actionability


def test_actionability_passes_with_an_open_item_that_has_action_and_acceptance_check():
    assert check(draft(), "actionability").status == "pass"


def test_actionability_fails_when_no_open_item_is_actionable():
    h = with_payload(open_items=[{"id": "O-1", "description": "something", "suggested_action": "do it"}])
    result = check(h, "actionability")
    assert result.status == "fail" and paths(result) == {"open_items"}


def test_actionability_fails_without_open_items_or_completion():
    assert check(with_payload(open_items=[]), "actionability").status == "fail"


def test_actionability_passes_an_explicitly_completed_work_state():
    h = with_payload(open_items=[], work={"title": "t", "objective": "o", "state": "completed"})
    assert check(h, "actionability").status == "pass"


def test_actionability_passes_when_every_definition_of_done_item_is_completed():
    h = with_payload(open_items=[], work={"title": "t", "objective": "o", "definition_of_done": ["Tests pass"]},
                     summary={"completed": ["tests  pass."]})
    assert check(h, "actionability").status == "pass"


def test_actionability_fails_when_part_of_the_definition_of_done_is_open():
    h = with_payload(open_items=[], work={"title": "t", "objective": "o", "definition_of_done": ["Tests pass", "Docs"]},
                     summary={"completed": ["Tests pass"]})
    assert check(h, "actionability").status == "fail"


def test_actionability_fails_a_blank_objective():
    h = blank_objective("")
    assert "work.objective" in paths(check(h, "actionability"))


# --------------------------------------------------------------------------- lineage


def lineage_handoff(relation: str, parents: list[str], **payload) -> Handoff:
    return with_payload(lineage={"relation": relation, "parents": parents}, **payload)


KNOWN = ValidationFacts(now=NOW, known_handoff_ids=frozenset({PARENT_A, PARENT_B}))


def test_lineage_passes_a_continuation_of_a_known_parent():
    assert check(lineage_handoff("continue", [PARENT_A]), "lineage", KNOWN).status == "pass"


def test_lineage_fails_a_parent_that_is_not_known_locally():
    facts = ValidationFacts(now=NOW, known_handoff_ids=frozenset({PARENT_B}))
    result = check(lineage_handoff("continue", [PARENT_A]), "lineage", facts)
    assert result.status == "fail" and paths(result) == {"lineage.parents[0]"}


def test_lineage_does_not_judge_parent_existence_without_local_knowledge():
    assert check(lineage_handoff("fork", [PARENT_A]), "lineage").status == "pass"


def test_lineage_fails_a_merge_with_one_parent():
    h = lineage_handoff("merge", [PARENT_A], decisions=[{"id": "D-1", "decision": "r", "kind": "merge_resolution"}])
    assert paths(check(h, "lineage", KNOWN)) == {"lineage.parents"}


def test_lineage_fails_a_merge_without_a_resolution_decision():
    h = lineage_handoff("merge", [PARENT_A, PARENT_B], decisions=[{"id": "D-1", "decision": "plain"}])
    assert paths(check(h, "lineage", KNOWN)) == {"decisions"}


def test_lineage_passes_a_merge_of_two_parents_with_a_resolution():
    h = lineage_handoff("merge", [PARENT_A, PARENT_B],
                        decisions=[{"id": "D-1", "decision": "keep A", "kind": "merge_resolution"}])
    assert check(h, "lineage", KNOWN).status == "pass"


def test_lineage_fails_a_root_with_parents_and_a_continuation_without_one():
    assert check(lineage_handoff("root", [PARENT_A]), "lineage", KNOWN).status == "fail"
    assert check(lineage_handoff("continue", []), "lineage", KNOWN).status == "fail"
    assert check(lineage_handoff("amend", [PARENT_A, PARENT_B]), "lineage", KNOWN).status == "fail"


def test_lineage_fails_a_handoff_that_is_its_own_parent():
    h = draft(minimal_payload(lineage={"relation": "continue", "parents": ["018f0000-0000-7000-8000-0000000000a1"]}))
    assert check(h, "lineage").status == "fail"


def test_lineage_warns_on_merge_basis_outside_a_merge():
    h = with_payload(lineage={"relation": "continue", "parents": [PARENT_A], "merge_basis": [PARENT_B]})
    assert check(h, "lineage", KNOWN).status == "warn"


# --------------------------------------------------------------------------- quality (advisory)


def test_quality_is_reported_with_the_checks_and_the_report():
    report = validate_handoff(draft(), ValidationFacts(now=NOW))
    q = report.check("quality")
    assert q.advisory and "continuity score" in q.detail
    assert set(report.quality["dimensions"]) >= {"objective_clarity", "freshness"}
    assert 0 <= report.quality["overall"] <= 100


def test_a_low_quality_score_never_changes_the_overall_status():
    report = validate_handoff(draft(), ValidationFacts(now=NOW))
    assert report.check("quality").status == "warn"  # a bare synthetic draft scores low
    assert report.status == "pass"


# --------------------------------------------------------------------------- requirements


def test_draft_requirements_hold_for_a_new_draft():
    assert draft_problems(draft()) == []


def test_draft_requirements_list_every_blank_required_field():
    h = attrs.evolve(draft(), work=attrs.evolve(draft().work, title="", objective=""),
                     project=attrs.evolve(draft().project, id=" "))
    assert set(draft_problems(h)) == {"work.title: required", "work.objective: required", "project.id: required"}


def validated(h: Handoff, status: str) -> Handoff:
    return attrs.evolve(h, status="validated", validation=Validation(status=status, validated_at=NOW))


def test_ready_requires_validation_to_have_run():
    assert any("not validated" in p for p in ready_problems(draft()))


def test_ready_requires_a_pass_or_an_acknowledged_warn():
    assert ready_problems(validated(draft(), "pass")) == []
    assert any("`accept_warnings`" in p for p in ready_problems(validated(draft(), "warn")))
    assert ready_problems(validated(draft(), "warn"), accepted_warnings="reviewed drift") == []
    assert any("validation failed" in p for p in ready_problems(validated(draft(), "fail")))


def test_ready_requires_an_open_item_or_an_explicit_completed_state():
    h = validated(with_payload(open_items=[]), "pass")
    assert any(p.startswith("open_items:") for p in ready_problems(h))
    done = attrs.evolve(h, work=attrs.evolve(h.work, state="completed"))
    assert ready_problems(done) == []


def test_ready_requires_no_secret_policy_violation():
    report = validate_handoff(draft(), ValidationFacts(now=NOW, policy_findings=(PolicyFinding("work.title", "secret"),)))
    h = attrs.evolve(draft(), status="validated",
                     validation=attrs.evolve(report.to_validation(), status="warn"))
    assert any("policy check failed" in p for p in ready_problems(h, accepted_warnings="ok"))


def test_ready_requires_no_flag():
    h = attrs.evolve(validated(draft(), "pass"), flags=("conflicted",))
    assert ready_problems(h) == ["flags: the handoff is flagged conflicted; revise it first"]


# --------------------------------------------------------------------------- fixtures


def test_the_ready_example_passes_validation_with_matching_facts():
    h = handoff_from_json(orjson.loads((EXAMPLES / "handoff-ready.json").read_bytes()))
    facts = ValidationFacts(now=NOW, git_head_now="3f9a1c2", git_dirty_now=True, known_handoff_ids=frozenset(),
                            artifacts={a.path: ArtifactFact(exists=True) for a in h.artifacts})
    report = validate_handoff(h, facts)
    assert report.status == "pass", report.to_json()
    assert ready_problems(h) == []


def test_the_merge_example_passes_lineage_when_its_parents_are_known():
    h = handoff_from_json(orjson.loads((EXAMPLES / "handoff-merge.json").read_bytes()))
    facts = ValidationFacts(now=NOW, known_handoff_ids=frozenset(h.lineage.parents) | frozenset(h.lineage.merge_basis))
    assert check(h, "lineage", facts).status == "pass"


def test_an_artifact_that_now_resolves_outside_the_root_makes_freshness_stale():
    from baton.domain.validation import freshness_from_facts

    h = with_payload(artifacts=[{"path": "src/a.py", "role": "modified", "content_hash": HASH_A}])
    facts = {"src/a.py": ArtifactFact(exists=True, inside_root=False, sha256=HASH_A)}
    report = freshness_from_facts(h, facts, None)
    assert report.state == "stale"
    assert [d.kind for d in report.drift] == ["unclassified"]
