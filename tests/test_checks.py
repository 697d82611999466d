"""scripts/check.py's verdict on the dependency audit: a known vulnerability fails, no data skips."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _check_module():
    spec = importlib.util.spec_from_file_location("check", ROOT / "scripts" / "check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check = _check_module()


def _not_on_index(name: str, version: str) -> dict:
    return {"name": name, "skip_reason": f"Dependency not found on PyPI and could not be audited: {name} ({version})"}


def test_a_known_vulnerability_fails_the_audit_and_names_the_advisory_and_the_fix():
    report = {"dependencies": [
        {"name": "attrs", "version": "26.1.0", "vulns": []},
        {"name": "urllib3", "version": "2.0.0", "vulns": [
            {"id": "GHSA-xxxx-yyyy-zzzz", "fix_versions": ["2.0.7"], "aliases": ["CVE-2023-45803"]}]},
    ], "fixes": []}

    passed, lines = check.audit_verdict(report)

    assert not passed
    assert lines.startswith("audit: FAILED: 1 known vulnerabilities in 1 installed packages")
    assert "urllib3 2.0.0: GHSA-xxxx-yyyy-zzzz (fixed in: 2.0.7)" in lines


def test_an_index_without_vulnerability_data_skips_the_audit_in_one_line():
    report = {"dependencies": [_not_on_index("attrs", "26.1.0"), _not_on_index("orjson", "3.13.0")]}

    passed, lines = check.audit_verdict(report)

    assert passed
    assert lines.count("\n") == 0
    assert lines.startswith("audit: skipped: the package index gave no vulnerability data for any of the 2")


def test_a_clean_audit_passes_and_names_the_packages_it_could_not_audit():
    report = {"dependencies": [{"name": "attrs", "version": "26.1.0", "vulns": []},
                               _not_on_index("in-house", "1.0")]}

    passed, lines = check.audit_verdict(report)

    assert passed
    assert lines == "audit: ok: 1 installed packages, no known vulnerabilities (1 not on PyPI, not audited: in-house)"


def test_an_unreachable_index_is_told_apart_from_a_failing_audit_tool():
    assert check.unreachable("pip-audit: error: Tip: your network may be blocking this service.")
    assert check.unreachable("requests.exceptions.ConnectionError: HTTPSConnectionPool(host='pypi.org', port=443): "
                             "Max retries exceeded")
    assert not check.unreachable("pip-audit: error: invalid requirement: 'attrs=='")


def test_an_unknown_check_name_is_refused_without_running_anything(capsys):
    assert check.main(["typo"]) == 2
    assert "unknown check typo: choose from typecheck, lint, audit" in capsys.readouterr().err
