"""The pure rules of trusting a committed policy (``baton.domain.policy_trust``): which settings
widen the policy, the digest of exactly those, and the verdict on a trust record."""

from __future__ import annotations

import pytest

from baton.domain.policy_keys import may_widen
from baton.domain.policy_trust import (
    REQUIRED_BY_KEPT_TRUST,
    REQUIRED_BY_SETTING,
    REQUIRED_BY_TRUST,
    TRUSTED,
    UNTRUSTED,
    WIDENING_KEYS,
    PolicyTrust,
    SignersInForce,
    TrustRecord,
    find_widening,
    judge_trust,
    kept_record,
    safe_document,
    signer_lines,
    signers_in_force,
    trust_record,
    withholds_recheck,
)
from baton.domain.writer_place import Place

POLICY = ".baton/policy.json"
CONFIG = ".baton/config.json"
HERE = Place("/home/bob/proj", "bobbox", 2049, 1234)


def widening(*documents: tuple[str, dict]):
    return find_widening(list(documents), entropy_default=3.0, length_default=8)


@pytest.mark.parametrize("doc", [{}, {"recheck_allowlist": []}, {"actions": {}}, {"rules": [{"name": "x"}]},
                                 {"path_fields": ["where"]}], ids=["empty", "init", "no-actions", "rules", "fields"])
def test_a_document_without_a_widening_value_is_not_looked_at_by_the_trust_rules(doc):
    assert not may_widen(doc)


@pytest.mark.parametrize("key", WIDENING_KEYS)
def test_a_document_with_any_widening_key_set_is_judged_by_the_trust_rules(key):
    assert may_widen({key: ["x"]})


def test_a_recheck_command_is_withheld_only_when_the_untrusted_allowlist_lists_it_exactly():
    assert withholds_recheck(["pytest  -q"], "pytest -q")
    assert not withholds_recheck(["pytest -q"], "pytest -q; rm -rf ~")


@pytest.mark.parametrize("reason, note", [("changed", ", changed since trusted"),
                                          ("elsewhere", ", trusted in another folder"), ("never", "")])
def test_policy_show_qualifies_an_untrusted_state_with_its_reason(reason, note):
    found = PolicyTrust(UNTRUSTED, widening((POLICY, {"allowed_roots": [".."]})), reason)
    assert found.reason_note == note


def test_a_refused_path_is_blamed_on_untrusted_roots_only_when_roots_are_withheld():
    roots = PolicyTrust(UNTRUSTED, widening((POLICY, {"allowed_roots": [".."]})), "never")
    allowlist = PolicyTrust(UNTRUSTED, widening((POLICY, {"recheck_allowlist": ["make"]})), "never")
    assert roots.withholds_root_reason().startswith(f"the allowed_roots of {POLICY} are not trusted")
    assert allowlist.withholds_root_reason() == ""


@pytest.mark.parametrize("doc", [
    {"allowed_roots": ["../lib"]},
    {"recheck_allowlist": ["pytest -q"]},
    {"disable_rules": ["jwt"]},
    {"entropy_threshold": 3.5},
    {"min_secret_length": 12},
], ids=lambda d: next(iter(d)))
def test_a_setting_that_widens_the_policy_needs_trust(doc):
    assert widening((POLICY, doc)).to_json() == {POLICY: doc}


@pytest.mark.parametrize("doc", [
    {"allowed_roots": [], "recheck_allowlist": [], "disable_rules": [], "actions": {}},
    {"entropy_threshold": 3.0, "min_secret_length": 8},
    {"entropy_threshold": 2.5, "min_secret_length": 6},
    {"rules": [{"name": "ticket", "regex": "TKT-[0-9]{8}"}], "path_fields": ["attachment"]},
    {"actions": {"github-token": "block"}},
], ids=["empty lists", "the defaults", "stricter numbers", "rules and path fields", "an action that blocks"])
def test_a_setting_that_only_protects_needs_no_trust(doc):
    assert widening((POLICY, doc)).empty


def test_an_action_that_lowers_a_custom_block_rule_to_redact_needs_trust():
    doc = {"rules": [{"name": "ticket", "regex": "TKT-[0-9]{8}", "action": "block"}],
           "actions": {"ticket": "redact"}}
    assert widening((POLICY, doc)).to_json() == {POLICY: {"actions": {"ticket": "redact"}}}


def test_an_action_that_sets_a_redacting_rule_to_redact_needs_no_trust():
    assert widening((POLICY, {"actions": {"github-token": "redact"}})).empty


def test_a_lowered_action_in_one_file_counts_against_a_block_rule_defined_in_the_other():
    rules = {"rules": [{"name": "ticket", "regex": "TKT-[0-9]{8}", "action": "block"}]}
    found = widening((CONFIG, rules), (POLICY, {"actions": {"ticket": "redact"}}))
    assert found.files == (POLICY,)


def test_the_digest_changes_when_a_widening_value_changes():
    before = widening((POLICY, {"recheck_allowlist": ["pytest -q"]}))
    after = widening((POLICY, {"recheck_allowlist": ["pytest -q", "make deploy"]}))
    assert before.digest != after.digest


def test_the_digest_changes_when_a_setting_moves_to_the_other_file():
    setting = {"allowed_roots": ["../lib"]}
    assert widening((POLICY, setting)).digest != widening((CONFIG, setting)).digest


def test_the_digest_changes_with_any_change_to_either_document_of_a_widening_policy():
    before = widening((CONFIG, {"path_fields": ["a"]}), (POLICY, {"allowed_roots": ["../lib"]}))
    after = widening((CONFIG, {"path_fields": ["b"]}), (POLICY, {"allowed_roots": ["../lib"]}))
    assert before.digest != after.digest


def test_the_digest_changes_when_an_allowed_root_resolves_elsewhere():
    doc = {"allowed_roots": ["shared"]}
    here = find_widening([(POLICY, doc)], entropy_default=3.0, length_default=8,
                         resolved_roots=[("shared", "/home/bob/proj/shared")])
    there = find_widening([(POLICY, doc)], entropy_default=3.0, length_default=8, resolved_roots=[("shared", "/")])
    assert here.digest != there.digest


def test_without_a_record_widening_settings_are_untrusted():
    verdict = judge_trust(widening((POLICY, {"allowed_roots": [".."]})), None, HERE)
    assert (verdict.state, verdict.reason) == (UNTRUSTED, "never")


def test_a_record_of_exactly_these_settings_made_in_this_folder_trusts_them():
    found = widening((POLICY, {"allowed_roots": [".."]}))
    assert judge_trust(found, trust_record(found, HERE, "2026-12-05T00:00:00Z"), HERE).state == TRUSTED


def test_a_record_of_other_values_is_untrusted_as_changed():
    old = widening((POLICY, {"allowed_roots": ["../lib"]}))
    new = widening((POLICY, {"allowed_roots": [".."]}))
    verdict = judge_trust(new, trust_record(old, HERE, "2026-12-05T00:00:00Z"), HERE)
    assert (verdict.state, verdict.reason) == (UNTRUSTED, "changed")


def test_a_record_made_in_another_folder_trusts_nothing():
    found = widening((POLICY, {"allowed_roots": [".."]}))
    mallorys = Place("/home/mallory/proj", "evilbox", 2049, 999)
    verdict = judge_trust(found, trust_record(found, mallorys, "2026-12-05T00:00:00Z"), HERE)
    assert (verdict.state, verdict.reason) == (UNTRUSTED, "elsewhere")


def test_a_record_made_for_another_root_trusts_nothing_even_in_the_same_folder():
    found = widening((POLICY, {"allowed_roots": [".."]}))
    moved = Place("/home/bob/elsewhere", "bobbox", HERE.dev, HERE.ino)
    assert judge_trust(found, trust_record(found, HERE, "2026-12-05T00:00:00Z"), moved).state == UNTRUSTED


def test_in_a_git_directory_a_remounted_folder_keeps_its_trust():
    found = widening((POLICY, {"allowed_roots": [".."]}))
    remounted = Place(HERE.root, HERE.host, HERE.dev + 1, HERE.ino)
    assert judge_trust(found, trust_record(found, HERE, "2026-12-05T00:00:00Z"), remounted).state == TRUSTED


def test_outside_git_only_the_exact_folder_keeps_its_trust():
    found = widening((POLICY, {"allowed_roots": [".."]}))
    record = trust_record(found, HERE, "2026-12-05T00:00:00Z")
    remounted = Place(HERE.root, HERE.host, HERE.dev + 1, HERE.ino)
    assert judge_trust(found, record, remounted, in_git_dir=False).state == UNTRUSTED
    assert judge_trust(found, record, HERE, in_git_dir=False).state == TRUSTED


def test_a_record_without_a_place_trusts_nothing():
    found = widening((POLICY, {"allowed_roots": [".."]}))
    record = TrustRecord.from_json({"policy": {"digest": found.digest}})
    assert judge_trust(found, record, HERE).reason == "elsewhere"


def test_the_safe_document_drops_exactly_the_widening_values():
    doc = {"allowed_roots": [".."], "recheck_allowlist": ["make"], "entropy_threshold": 4.0,
           "path_fields": ["attachment"], "actions": {"github-token": "block", "ticket": "redact"},
           "rules": [{"name": "ticket", "regex": "TKT-[0-9]{8}", "action": "block"}]}
    safe = safe_document(doc, widening((POLICY, doc)), POLICY)
    assert safe == {"path_fields": ["attachment"], "actions": {"github-token": "block"}, "rules": doc["rules"]}


def test_the_safe_document_leaves_out_a_rule_meant_to_replace_a_switched_off_default():
    doc = {"disable_rules": ["jwt"], "rules": [{"name": "jwt", "regex": "never-[0-9]{40}"}]}
    assert safe_document(doc, widening((POLICY, doc)), POLICY) == {"rules": []}


def test_the_untrusted_message_names_the_file_the_values_and_the_command():
    message = judge_trust(widening((POLICY, {"recheck_allowlist": ["touch PWNED"]})), None, HERE).message()
    assert all(part in message for part in (POLICY, '["touch PWNED"]', "`baton policy trust`"))


SIGNERS = ".baton/allowed_signers"
ALICE = "alice@example.com,alicebox-* ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA"
MALLORY = "mallory@example.com,alicebox-* ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB"


def signing(lines, sync=None, *documents):
    return find_widening(list(documents), entropy_default=3.0, length_default=8, signers=(SIGNERS, lines), sync=sync)


def test_an_allowed_signers_file_with_a_key_line_needs_trust():
    assert signing((ALICE,)).settings == ((SIGNERS, {"allowed_signers": [ALICE]}),)


def test_an_allowed_signers_file_of_comments_only_needs_no_trust():
    assert signing(signer_lines("# no keys yet\n\n")).empty


def test_the_digest_covers_the_sync_section_with_the_signers():
    assert signing((ALICE,), {"require_signatures": True}).digest != signing((ALICE,), {}).digest


def test_a_policy_without_signers_keeps_its_digest_whatever_its_sync_section():
    policy = (POLICY, {"allowed_roots": ["../lib"]})
    assert (find_widening([policy], entropy_default=3.0, length_default=8, sync={"require_signatures": True}).digest
            == widening(policy).digest)


@pytest.mark.parametrize("record, required, expected", [
    (None, False, SignersInForce((), False)),
    (None, True, SignersInForce((), True)),
    (("trusted", False), False, SignersInForce((ALICE,), False)),
    (("trusted", True), False, SignersInForce((ALICE,), True, by_trust=True)),
], ids=["never-trusted", "never-trusted-required", "changed", "changed-was-required"])
def test_untrusted_signers_leave_only_the_trusted_ones_and_keep_signatures_required(record, required, expected):
    trusted_sync = {"require_signatures": record[1]} if record else None
    now = signing((ALICE, MALLORY), {"require_signatures": required})
    before = signing((ALICE,), trusted_sync)
    found = judge_trust(now, trust_record(before, HERE, "t") if record else None, HERE)
    assert signers_in_force(found, required) == expected


def test_trusted_signers_apply_as_the_file_and_section_say():
    now = signing((ALICE, MALLORY), {})
    found = judge_trust(now, trust_record(now, HERE, "t"), HERE)
    assert signers_in_force(found, False) == SignersInForce(None, False)


def test_signers_trusted_in_another_folder_vouch_for_nothing():
    now = signing((ALICE,), {"require_signatures": True})
    elsewhere = Place("/home/bob/other", "bobbox", 2049, 99)
    found = judge_trust(now, trust_record(signing((ALICE,), {"require_signatures": True}), elsewhere, "t"), HERE)
    assert signers_in_force(found, False) == SignersInForce((), False)


def test_requiring_signatures_on_top_of_trusted_signers_needs_no_new_trust():
    trusted = signing((ALICE,), {})
    found = judge_trust(signing((ALICE,), {"require_signatures": True}), trust_record(trusted, HERE, "t"), HERE)
    assert found.state == TRUSTED
    assert signers_in_force(found, True) == SignersInForce(None, True)


def test_turning_required_signatures_off_needs_trust_again():
    trusted = signing((ALICE,), {"require_signatures": True})
    found = judge_trust(signing((ALICE,), {"require_signatures": False}), trust_record(trusted, HERE, "t"), HERE)
    assert found.state == UNTRUSTED


def test_a_changed_sync_section_is_named_and_the_unchanged_key_lines_are_not_listed():
    trusted = signing((ALICE,), {})
    now = signing((ALICE,), {"allowed_signers": ".baton/other"})
    message = judge_trust(now, trust_record(trusted, HERE, "t"), HERE).message()
    assert "changed: .baton/config.json sync" in message
    assert ALICE not in message and "1 key line" in message


def test_changed_key_lines_are_named_by_their_file_and_counted():
    message = judge_trust(signing((ALICE, MALLORY), {}), trust_record(signing((ALICE,), {}), HERE, "t"), HERE).message()
    assert f"changed: {SIGNERS} allowed_signers" in message and "2 key lines" in message
    assert MALLORY not in message


def test_a_checkout_naming_no_signers_keeps_the_signers_and_requirement_trusted_here():
    trusted = trust_record(signing((ALICE,), {"require_signatures": True}), HERE, "t")
    nothing = judge_trust(find_widening([], entropy_default=3.0, length_default=8), trusted, HERE)
    assert signers_in_force(nothing, False, kept_record(trusted, HERE)) == SignersInForce((ALICE,), True, kept=True,
                                                                                          by_trust=True)


def test_a_checkout_naming_no_signers_keeps_nothing_when_signatures_were_not_required():
    trusted = trust_record(signing((ALICE,), {}), HERE, "t")
    assert kept_record(trusted, HERE) is None


def test_a_record_made_in_another_folder_keeps_no_requirement():
    elsewhere = Place("/home/bob/other", "bobbox", 2049, 99)
    trusted = trust_record(signing((ALICE,), {"require_signatures": True}), elsewhere, "t")
    assert kept_record(trusted, HERE) is None


@pytest.mark.parametrize("in_force, said", [
    (SignersInForce(None, False), ""),
    (SignersInForce(None, True), REQUIRED_BY_SETTING),
    (SignersInForce((ALICE,), True), REQUIRED_BY_SETTING),
    (SignersInForce((ALICE,), True, by_trust=True), REQUIRED_BY_TRUST),
    (SignersInForce((ALICE,), True, kept=True), REQUIRED_BY_SETTING),
    (SignersInForce((ALICE,), True, kept=True, by_trust=True), REQUIRED_BY_KEPT_TRUST),
], ids=["none", "setting", "setting-untrusted-file", "trusted-before", "kept-and-set", "kept"])
def test_a_requirement_says_where_it_comes_from(in_force, said):
    assert in_force.required_by == said


def test_a_checkout_naming_no_signers_that_requires_signatures_itself_names_its_setting():
    trusted = trust_record(signing((ALICE,), {"require_signatures": True}), HERE, "t")
    nothing = judge_trust(find_widening([], entropy_default=3.0, length_default=8), trusted, HERE)
    assert signers_in_force(nothing, True, kept_record(trusted, HERE)).required_by == REQUIRED_BY_SETTING
