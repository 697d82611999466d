"""Trusting a project's policy in tests that stand for its own user's policy: settings that
widen it apply only once this clone trusts them (docs/security.md, "Trusting a committed policy")."""

from __future__ import annotations

from pathlib import Path

from baton.app import Baton
from baton.config import ProjectConfig
from baton.domain.policy_trust import trust_record
from baton.policy import here_place, policy_sources, policy_widening, write_trust_record
from baton.project import ProjectPaths


def trust_policy(root: Path) -> None:
    """Trust the project's policy as it is now, as `baton policy trust` does."""
    with Baton.open(root) as app:
        app.trust_policy()


def trust_policy_files(paths: ProjectPaths, config: ProjectConfig) -> None:
    """Trust the policy ``paths`` and ``config`` hold (a project without a config file of its own)."""
    widening = policy_widening(paths, policy_sources(paths, config), config)
    write_trust_record(paths, trust_record(widening, here_place(paths), "2026-12-05T00:00:00Z"))
