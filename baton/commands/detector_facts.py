"""What the detector reads besides an event's signals: its configuration,
a session's stream key, and HEAD's commit (read from the git files).

Light on purpose: ``handoff ready`` and ``status`` need these, not the
detector's use cases (``baton.commands.detect``, which captures drafts).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from baton import gitinfo
from baton.domain.detector import DetectorConfig

if TYPE_CHECKING:
    from baton.commands.context import Project

NO_SESSION = "-"


def detector_config(project: "Project") -> Any:
    return DetectorConfig.from_section(project.config.section("detector"))


def stream_key(session: str | None) -> str:
    """The key of a session's ``detector/<key>`` stream (percent-encoded: a
    session id is opaque), ``-`` for none."""
    return quote(session, safe="") if session else NO_SESSION


def repository_head(worktree: Any) -> str | None:
    """HEAD's commit read from the git files (no dulwich: hooks call this on
    every prompt): a detached sha, a loose ref, or a packed ref."""
    where = gitinfo.locate(worktree)
    if where is None:
        return None
    try:
        with open(os.path.join(where.git_dir, "HEAD"), "rb") as fh:
            head = fh.read().strip()
        if not head.startswith(b"ref: "):
            return head.decode("ascii", "replace") or None
        ref = head[5:].strip().decode("utf-8", "replace")
        loose = os.path.join(where.common_dir, ref)
        if os.path.isfile(loose):
            with open(loose, "rb") as fh:
                return fh.read().strip().decode("ascii", "replace") or None
        packed = os.path.join(where.common_dir, "packed-refs")
        if os.path.isfile(packed):
            with open(packed, "rb") as fh:
                lines = fh.read().splitlines()
            for line in lines:
                parts = line.split(b" ", 1)
                if len(parts) == 2 and parts[1].strip().decode("utf-8", "replace") == ref:
                    return parts[0].decode("ascii", "replace")
    except OSError:
        return None
    return None
