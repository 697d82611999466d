"""The checks CI runs before the tests: a type check, a linter and a dependency audit.

    .venv/bin/python scripts/check.py                   # all three, in this order
    .venv/bin/python scripts/check.py typecheck audit   # some of them

Install the pinned tools first: ``pip install -e '.[test,lint]'``. Their settings live in
``pyproject.toml`` (``[tool.mypy]``, ``[tool.ruff]``); this script only runs them, and prints one
verdict line a check. It runs every check asked for, then exits 1 if any failed (0 otherwise).

- ``typecheck``: mypy over ``baton/`` — strict on ``baton/ledger/``, ``baton/events/`` and
  ``baton/domain/``, the default checks on the rest.
- ``lint``: ruff over ``baton/``, ``tests/``, ``benchmarks/`` and ``scripts/`` (import order,
  unused names, a few bug patterns).
- ``audit``: pip-audit over the installed dependency set, against the vulnerability data the
  package index (PyPI) publishes for each release. A known vulnerability fails the check. When
  that data cannot be fetched (no network, or an index mirror that does not serve it) the audit
  is skipped with one line saying so, and does not fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LINTED = ["baton", "tests", "benchmarks", "scripts"]

NOT_ON_INDEX = "not found on PyPI"
"""pip-audit's skip reason for a release the index has no vulnerability data for (its JSON API answered 404)."""

UNREACHABLE = ("ConnectionError", "Could not connect", "network may be blocking", "Max retries exceeded",
               "NameResolutionError", "Temporary failure in name resolution", "timed out", "ServiceError",
               "SSLError", "ProxyError")
"""What pip-audit's error output says when it could not reach the index's vulnerability data."""


def run_tool(module: str, *args: str) -> int:
    """``python -m module args`` in the repository, its output passed through; its exit code."""
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT).returncode


def typecheck() -> tuple[bool, str]:
    code = run_tool("mypy")
    return code == 0, "typecheck: ok" if code == 0 else "typecheck: FAILED (mypy, above)"


def lint() -> tuple[bool, str]:
    code = run_tool("ruff", "check", *LINTED)
    return code == 0, "lint: ok" if code == 0 else "lint: FAILED (ruff, above)"


def audit_verdict(report: dict[str, Any]) -> tuple[bool, str]:
    """The verdict on pip-audit's JSON report: (passed, the lines to print)."""
    dependencies = report.get("dependencies", [])
    vulnerable = [dep for dep in dependencies if dep.get("vulns")]
    unaudited = [dep["name"] for dep in dependencies if NOT_ON_INDEX in dep.get("skip_reason", "")]
    audited = [dep for dep in dependencies if "skip_reason" not in dep]
    if vulnerable:
        found = sum(len(dep["vulns"]) for dep in vulnerable)
        lines = [f"audit: FAILED: {found} known vulnerabilities in {len(vulnerable)} installed packages"]
        for dep in vulnerable:
            for vuln in dep["vulns"]:
                fix = ", ".join(vuln.get("fix_versions") or []) or "none yet"
                lines.append(f"  {dep['name']} {dep.get('version', '')}: {vuln.get('id')} (fixed in: {fix})")
        return False, "\n".join(lines)
    if not audited and unaudited:
        return True, (f"audit: skipped: the package index gave no vulnerability data for any of the "
                      f"{len(unaudited)} installed packages (offline, or a mirror without PyPI's JSON API)")
    note = f" ({len(unaudited)} not on PyPI, not audited: {', '.join(unaudited)})" if unaudited else ""
    return True, f"audit: ok: {len(audited)} installed packages, no known vulnerabilities{note}"


def unreachable(error_output: str) -> bool:
    """Whether pip-audit failed because it could not reach the vulnerability data (not a fault of ours)."""
    return any(marker in error_output for marker in UNREACHABLE)


def audit() -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "audit.json"
        done = subprocess.run(
            [sys.executable, "-m", "pip_audit", "--skip-editable", "--progress-spinner", "off",
             "--format", "json", "--output", str(out)],
            cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        report = json.loads(out.read_text()) if out.is_file() else None
    if report is not None:
        return audit_verdict(report)
    if unreachable(done.stderr):
        reason = done.stderr.strip().splitlines()[-1][:160]
        return True, f"audit: skipped: could not reach the package index's vulnerability data ({reason})"
    return False, f"{done.stderr.rstrip()}\naudit: FAILED (pip-audit exited {done.returncode}, above)"


CHECKS = {"typecheck": typecheck, "lint": lint, "audit": audit}


def main(argv: list[str]) -> int:
    unknown = [name for name in argv if name not in CHECKS]
    if unknown:
        print(f"unknown check {', '.join(unknown)}: choose from {', '.join(CHECKS)}", file=sys.stderr)
        return 2
    verdicts = []
    for name in argv or list(CHECKS):
        print(f"-- {name}", flush=True)
        passed, line = CHECKS[name]()
        print(line, flush=True)
        verdicts.append(passed)
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
