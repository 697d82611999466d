"""Every command that names a session takes it as `--session` and as `--session-id`.

The session-start brief tells an agent "`--session cc-1` to `baton checkpoint
create`"; `bootstrap` and `session begin` took `--session-id`: an agent that
generalises from one to the other must not meet `unrecognized arguments`."""

from __future__ import annotations

import pytest

from baton.cli import build_parser

COMMANDS = [
    (["checkpoint", "create"], "session"),
    (["resume", "latest"], "session"),
    (["fork", "0123abcd"], "session"),
    (["merge", "0123abcd", "4567cdef"], "session"),
    (["detect"], "session"),
    (["bootstrap"], "session_id"),
    (["session", "begin"], "session_id"),
    (["session", "end"], "session_id_option"),
]


@pytest.mark.parametrize("spelling", ["--session", "--session-id"])
@pytest.mark.parametrize(("words", "dest"), COMMANDS, ids=[" ".join(c[0][:2]) for c in COMMANDS])
def test_a_command_naming_a_session_takes_both_spellings_of_the_flag(words, dest, spelling):
    args = build_parser().parse_args([*words, spelling, "cc-1"])

    assert getattr(args, dest) == "cc-1"
