"""A signer removed from the allowed-signers file (docs/sync.md, "Key rotation"): the verdict every
surface reads is the one the sync reached, never the one recorded before the removal.

Real ``ssh-keygen`` keys, a bare remote, real clones (tester-use20 T2).
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.cli_support import run, run_json
from tests.test_feed_vouch_reads import _ready
from tests.test_sync_signing import (  # noqa: F401 - ``team`` is a fixture
    allow,
    require_signatures,
    sync,
    team,
    team_signers,
    writer,
)

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")


def _alice_removed(capsys, team) -> tuple[object, object, str]:
    """alice's ready handoff taken by b under a good signature; then alice's line removed from b's
    allowed-signers file in review and the new file trusted there, signatures required. Returns (a, b, id)."""
    _remote, a, b, keys = team
    require_signatures(b)
    ident = _ready(capsys, a, "alice work")
    sync(capsys, a)
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["feeds"][writer(a)]["status"] == "good"
    allow(b, lines=team_signers(a, b, keys)[1:])  # alice's line removed in review
    return a, b, ident


def _recorded(b) -> dict:
    return json.loads((b / ".baton" / "sync-signers.json").read_text())


def test_the_sync_after_a_signer_is_removed_records_the_verdict_it_reached_not_the_earlier_good_one(capsys, team):
    a, b, _ = _alice_removed(capsys, team)
    code, result = sync(capsys, b)
    assert code == 3
    assert [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "unknown_key")]
    assert _recorded(b)["feeds"][writer(a)]["status"] == "unknown_key"
    assert result["signers"]["feeds"][writer(a)]["status"] == "unknown_key"


def test_every_later_sync_keeps_refusing_the_removed_signers_feed(capsys, team):
    a, b, _ = _alice_removed(capsys, team)
    sync(capsys, b)
    for _ in range(2):
        code, result = sync(capsys, b)
        assert code == 3
        assert [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "unknown_key")]
        assert result["signers"]["feeds"][writer(a)]["status"] == "unknown_key"


def test_status_names_no_signer_for_the_removed_signers_feed(capsys, team):
    a, b, _ = _alice_removed(capsys, team)
    sync(capsys, b)
    _code, out, _ = run(capsys, b, "status")
    line = next(line for line in out.splitlines() if line.startswith(f"Signer of feed {writer(a)}:"))
    assert line.startswith(f"Signer of feed {writer(a)}: unknown_key:")
    assert "alice@example.com" not in line


def test_resume_withholds_a_handoff_of_the_removed_signers_feed(capsys, team):
    a, b, ident = _alice_removed(capsys, team)
    sync(capsys, b)
    code, out, err = run(capsys, b, "resume", ident)
    assert code == 4
    assert "was withheld" in err and "alice work" not in out


def test_bootstrap_withholds_the_removed_signers_handoff(capsys, team):
    a, b, ident = _alice_removed(capsys, team)
    sync(capsys, b)
    brief = run_json(capsys, b, "bootstrap", "--peek", "--json")["brief"]
    assert "alice work" not in brief


def test_a_clone_whose_own_signer_line_was_removed_records_its_feed_as_not_good(capsys, team):
    """The same comparison for this clone's own feed, held back (``REFUSED local feed``): the
    record does not keep the good verdict its last published head had under the old lines."""
    _remote, a, b, keys = team
    _ready(capsys, a, "alice work")
    assert sync(capsys, a)[0] == 0
    allow(a, lines=team_signers(a, b, keys)[1:])  # alice's own line removed in review
    require_signatures(a)
    _ready(capsys, a, "after removal")
    code, result = sync(capsys, a)
    assert code == 3 and [(r["feed"], r["side"]) for r in result["refused"]] == [(writer(a), "local")]
    assert _recorded(a)["feeds"][writer(a)]["status"] == "unknown_key"
