"""What a writer id may be: ``[a-z0-9][a-z0-9-]{0,63}``, whole (``baton.ledger.feed.is_writer_id``).

A writer id names a feed file (``ledger/<writer id>.jsonl``) and a sync ref, so it is
checked with string tests, not a pattern compiled in every process; it accepts exactly
what the pattern matches in full — no trailing newline, which ``re.match`` with
``^…$`` let through."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from baton.ledger.feed import is_feed_file_name, is_writer_id
from tests.cli_support import run

WHOLE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(alphabet="abz09-\n_A.é ", max_size=70), st.text(max_size=8),
                 st.from_regex(WHOLE, fullmatch=True)))
def test_a_writer_id_is_what_the_documented_pattern_matches_whole(name):
    assert is_writer_id(name) == (WHOLE.fullmatch(name) is not None)


def test_a_writer_id_is_one_to_64_characters_that_do_not_start_with_a_dash():
    assert is_writer_id("a") and is_writer_id("laptop-alice-3f2a1b") and is_writer_id("7" * 64)
    assert not is_writer_id("") and not is_writer_id("7" * 65) and not is_writer_id("-laptop")


def test_a_writer_id_with_a_trailing_newline_is_refused():
    assert re.match(r"^[a-z0-9][a-z0-9-]{0,63}$", "laptop\n")  # what the old pattern let through
    assert not is_writer_id("laptop\n")
    assert not is_feed_file_name("laptop\n.jsonl")


def test_a_local_json_naming_a_writer_id_with_a_trailing_newline_is_a_config_error(capsys, project):
    local = project / ".baton" / "local.json"
    kept = json.loads(local.read_text())
    local.write_text(json.dumps({**kept, "writer": kept["writer"] + "\n"}))
    code, out, _ = run(capsys, project, "handoff", "list", "--json")
    error = json.loads(out)["error"]
    assert code == 4 and error["code"] == "config_error" and "is not a valid writer id" in error["message"]
