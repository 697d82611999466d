"""Policy configuration (spec §10 Policy, §16): `.baton/policy.json` and the
`policy` section of config.json add rules, disable defaults, tune entropy,
allow roots and list recheck commands; a malformed policy is an input error
(exit 2) naming the file and every problem.

SYNTHETIC SECRETS ONLY, assembled at runtime from pieces.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from baton.config import ProjectConfig
from baton.errors import ConfigError, InputError, PolicyBlock
from baton.policy import Policy, load_policy, redact_or_block
from baton.project import ProjectPaths
from tests.policy_support import trust_policy_files


@pytest.fixture
def paths(tmp_path) -> ProjectPaths:
    p = ProjectPaths(tmp_path / "proj")
    p.baton_dir.mkdir(parents=True)
    return p


def config(section: dict | None = None) -> ProjectConfig:
    return ProjectConfig(project_id="p-1", extra={} if section is None else {"policy": section})


def write_policy(paths: ProjectPaths, doc) -> None:
    raw = doc if isinstance(doc, (bytes, str)) else orjson.dumps(doc)
    paths.policy.write_bytes(raw.encode() if isinstance(raw, str) else raw)


def fake_github_token() -> str:
    return "gh" + "p_" + "SYNTHETIC" + "fakeTokenValue" + "0123456789" + "abc"


def test_without_any_policy_the_defaults_apply(paths):
    policy = load_policy(paths, config())
    assert policy == Policy(sources=())
    assert "github-token" in policy.redaction.rule_names
    assert policy.allowed_roots == () and policy.recheck_allowlist == ()


def test_init_default_policy_section_loads(paths):
    policy = load_policy(paths, config({"recheck_allowlist": []}))
    assert policy.sources == (f"{paths.config} (policy section)",)


def test_custom_rule_from_policy_json_redacts(paths):
    write_policy(paths, {"rules": [{"name": "ticket-token", "regex": "TKT-[0-9a-f]{8}",
                                    "action": "redact", "reason": "internal ticket token"}]})
    outcome = load_policy(paths, config()).redact({"note": "use TKT-" + "0badf00d"})
    assert outcome.payload == {"note": "use [REDACTED:ticket-token]"}
    assert outcome.redactions[0].reason == "internal ticket token"


def test_custom_block_rule_from_policy_json_blocks(paths):
    write_policy(paths, {"rules": [{"name": "prod-host", "regex": r"prod-db-\d+", "action": "block",
                                    "reason": "production hosts must not be named"}]})
    with pytest.raises(PolicyBlock) as caught:
        redact_or_block({"summary": {"current_state": "ran on prod-db-7"}}, load_policy(paths, config()))
    assert caught.value.exit_code == 5
    assert "summary.current_state" in caught.value.message
    assert "prod-db-7" not in caught.value.message


def test_custom_glob_rule_applies_to_path_fields_only(paths):
    write_policy(paths, {"rules": [{"name": "db-dump", "glob": "*.sqlite", "reason": "database dump"}]})
    policy = load_policy(paths, config())
    outcome = policy.redact({"artifacts": [{"path": "data/app.sqlite"}], "note": "see data/app.sqlite"})
    assert outcome.payload == {"artifacts": [{"path": "[REDACTED:db-dump]"}], "note": "see data/app.sqlite"}


def test_default_rule_can_be_disabled(paths):
    write_policy(paths, {"disable_rules": ["github-token"]})
    trust_policy_files(paths, config())
    policy = load_policy(paths, config())
    assert "github-token" not in policy.redaction.rule_names
    assert policy.redact(fake_github_token()).redactions == ()


def test_default_rule_action_can_be_switched_to_block(paths):
    write_policy(paths, {"actions": {"github-token": "block"}})
    outcome = load_policy(paths, config()).redact({"note": fake_github_token()})
    assert [r.rule for r in outcome.blocked] == ["github-token"]


def test_entropy_threshold_and_minimum_length_are_configurable(paths):
    write_policy(paths, {"entropy_threshold": 2.5, "min_secret_length": 10})
    trust_policy_files(paths, config())
    policy = load_policy(paths, config())
    assert (policy.redaction.entropy_threshold, policy.redaction.min_secret_length) == (2.5, 10)
    assert policy.redact("password = hunter2hunter2").redactions != ()


def test_extra_path_fields_are_treated_as_paths(paths):
    write_policy(paths, {"path_fields": ["attachment"]})
    outcome = load_policy(paths, config()).redact({"attachment": "deploy/.env"})
    assert outcome.payload == {"attachment": "[REDACTED:dotenv-file]"}


def test_allowed_roots_are_resolved_against_the_project_root(paths, tmp_path):
    write_policy(paths, {"allowed_roots": ["../shared-lib", str(tmp_path / "abs")]})
    trust_policy_files(paths, config())
    policy = load_policy(paths, config())
    assert policy.allowed_roots == ((tmp_path / "shared-lib").resolve(), (tmp_path / "abs").resolve())


def test_allowed_roots_expand_the_users_home(paths, isolated_home):
    write_policy(paths, {"allowed_roots": ["~/work/lib"]})
    trust_policy_files(paths, config())
    assert load_policy(paths, config()).allowed_roots == ((isolated_home / "work" / "lib").resolve(),)


def test_recheck_allowlist_is_loaded_and_matched_exactly(paths):
    write_policy(paths, {"recheck_allowlist": ["pytest -q tests/auth"]})
    trust_policy_files(paths, config())
    policy = load_policy(paths, config())
    assert policy.recheck_allowlist == ("pytest -q tests/auth",)
    assert policy.allows_recheck("pytest  -q   tests/auth")
    assert not policy.allows_recheck("pytest -q tests/auth; rm -rf ~")


def test_config_section_and_policy_json_add_up(paths):
    write_policy(paths, {"recheck_allowlist": ["npm test"], "entropy_threshold": 3.5,
                         "rules": [{"name": "b-rule", "regex": "BBB[0-9]{4}"}]})
    section = config({"recheck_allowlist": ["pytest -q"], "entropy_threshold": 2.0,
                      "rules": [{"name": "a-rule", "regex": "AAA[0-9]{4}"}]})
    trust_policy_files(paths, section)
    policy = load_policy(paths, section)
    assert policy.recheck_allowlist == ("pytest -q", "npm test")
    assert policy.redaction.entropy_threshold == 3.5  # policy.json wins
    assert {"a-rule", "b-rule"} <= set(policy.redaction.rule_names)
    assert policy.sources == (f"{paths.config} (policy section)", str(paths.policy))


# -- malformed policy files -----------------------------------------------------------

@pytest.mark.parametrize("doc,problem", [
    ({"rules": [{"name": "bad", "regex": "([unclosed"}]}, "bad regex"),
    ({"rules": [{"name": "bad", "regex": "x", "action": "delete"}]}, "unknown action 'delete'"),
    ({"rules": [{"name": "bad", "regex": "a*"}]}, "matches the empty string"),
    ({"rules": [{"name": "Bad Name!", "regex": "x"}]}, "name 'Bad Name!'"),
    ({"rules": [{"regex": "x"}]}, "'name' is required"),
    ({"rules": [{"name": "both", "regex": "x", "glob": "*.x"}]}, "exactly one of 'regex' or 'glob'"),
    ({"rules": [{"name": "typo", "regex": "x", "actoin": "block"}]}, "unknown key ['actoin']"),
    ({"rules": [{"name": "jwt", "regex": "x"}]}, "disable the default rule first"),
    ({"rules": "not a list"}, "rules must be a list"),
    ({"disable_rules": ["no-such-rule"]}, "unknown default rule ['no-such-rule']"),
    ({"actions": {"github-token": "shred"}}, "unknown action 'shred'"),
    ({"actions": {"nope": "block"}}, "unknown rule 'nope'"),
    ({"entropy_threshold": "high"}, "entropy_threshold must be a number"),
    ({"min_secret_length": 0}, "min_secret_length must be a positive integer"),
    ({"allowed_roots": [""]}, "allowed_roots[0] must be non-empty strings"),
    ({"recheck_allowlist": [3]}, "recheck_allowlist[0] must be non-empty strings"),
    ({"disabled_rules": ["jwt"]}, "unknown key ['disabled_rules']"),
    ({"schema_version": 99}, "schema_version 99 is not supported"),
])
def test_malformed_policy_json_is_a_config_error_naming_file_and_problem(paths, doc, problem):
    write_policy(paths, doc)
    with pytest.raises(ConfigError) as caught:
        load_policy(paths, config())
    assert caught.value.exit_code == 4 and caught.value.code == "config_error"
    assert str(paths.policy) in caught.value.message
    assert problem in caught.value.message


def test_unknown_policy_keys_are_named_in_the_plural_when_several_never_with_key_s(paths):
    write_policy(paths, {"colour": 1, "flavour": 2, "disable_rules": ["nope", "nada"]})
    with pytest.raises(ConfigError) as caught:
        load_policy(paths, config())
    assert "unknown keys ['colour', 'flavour']" in caught.value.message and "(s)" not in caught.value.message


def test_policy_json_that_is_not_json_is_a_config_error(paths):
    write_policy(paths, "{ not json")
    with pytest.raises(ConfigError) as caught:
        load_policy(paths, config())
    assert str(paths.policy) in caught.value.message and "not valid JSON" in caught.value.message


def test_policy_json_that_is_not_an_object_is_an_input_error(paths):
    write_policy(paths, "[]")
    with pytest.raises(InputError, match="must be a JSON object"):
        load_policy(paths, config())


def test_every_problem_of_a_policy_file_is_reported_at_once(paths):
    write_policy(paths, {"rules": [{"name": "a", "regex": "("}, {"name": "b", "regex": "x", "action": "nuke"}],
                         "entropy_threshold": -1})
    with pytest.raises(InputError) as caught:
        load_policy(paths, config())
    problems = caught.value.details["problems"]
    assert len(problems) == 3 and "entropy_threshold" in problems[2]  # both rules, and the numbers too
    assert any("bad regex" in p for p in problems) and any("nuke" in p for p in problems)
    assert caught.value.details["file"] == str(paths.policy)


def test_a_malformed_config_policy_section_names_config_json(paths):
    with pytest.raises(InputError) as caught:
        load_policy(paths, config({"rules": [{"name": "x", "regex": "["}]}))
    assert f"{paths.config} (policy section)" in caught.value.message


def test_a_rule_defined_in_both_sources_is_an_error_naming_the_first(paths):
    write_policy(paths, {"rules": [{"name": "dup", "regex": "y"}]})
    with pytest.raises(InputError) as caught:
        load_policy(paths, config({"rules": [{"name": "dup", "regex": "x"}]}))
    assert str(paths.policy) in caught.value.message and "already defined" in caught.value.message


def test_policy_to_json_lists_rules_without_their_patterns(paths):
    shown = load_policy(paths, config()).to_json()
    assert {"name": "jwt", "kind": "pattern", "action": "redact", "reason": "JSON Web Token"} in shown["rules"]


def test_a_committed_example_policy_file_loads(paths):
    """The example in docs/security.md is a valid policy."""
    docs = Path(__file__).resolve().parent.parent / "docs" / "security.md"
    text = docs.read_text()
    start = text.index("```json\n", text.index("<!-- example-policy -->")) + len("```json\n")
    paths.policy.write_text(text[start:text.index("```", start)])
    policy = load_policy(paths, config())
    assert "internal-ticket-token" in policy.redaction.rule_names


def test_a_policy_file_with_several_problems_names_every_one_at_once(paths):
    write_policy(paths, {"rules": [{"name": "Bad Name!", "regex": "x"}],
                         "actions": {"nope": "redact", "Bad Name!": "block"}, "entropy_threshold": "high"})
    with pytest.raises(ConfigError) as caught:
        load_policy(paths, config())
    problems = caught.value.details["problems"]
    assert len(problems) == 2 and "'Bad Name!'" in problems[0]
    assert "unknown rule 'nope'" in problems[1] and "entropy_threshold" in problems[1]
    assert "unknown rule 'Bad Name!'" not in caught.value.message  # its own problem is already named


def test_an_untrusted_replacement_of_a_default_rule_loads_with_the_default_rule_on(paths):
    write_policy(paths, {"disable_rules": ["github-token"],
                         "rules": [{"name": "github-token", "regex": "never-[0-9]{40}"}]})
    policy = load_policy(paths, config())
    assert policy.untrusted
    assert [r.rule for r in policy.redact(fake_github_token()).redactions] == ["github-token"]
