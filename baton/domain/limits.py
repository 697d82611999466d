"""The one size limit every entry point applies to what it is given.

A handoff is a summary, not an archive: 1 MiB holds any real one many times
over (the largest example in ``examples/`` is under 4 KB), and past it the
cost of redaction, hashing and rendering grows with no benefit. The CLI
(arguments, ``--input``, ``--handoff-input``) and the MCP server (a tool's
arguments) refuse a larger input with exit 2 before reading any of it into a
command.
"""

from __future__ import annotations

from baton.errors import InputError

MAX_INPUT_BYTES = 1024 * 1024

# The bounds of a few arguments, here so that what publishes them (the MCP
# tools' input schemas) need not import the commands that enforce them.
MIN_MAX_BYTES = 1024
"""The smallest byte budget of a session-start brief (``bootstrap --max-bytes``)."""
SESSION_ID_MAX = 200
HANDOFF_ID_MAX = 36
"""A handoff id's longest form: the full id (a UUID, 36 characters). A longer token names no
handoff; it is refused as bad input before it reaches the index (whose ``LIKE`` refuses a
pattern over 50,000 characters: tester-use18 T12)."""
QUERY_MAX = 1000
"""A ``handoff list --work`` search (MCP ``handoff_list`` ``work``), in characters: a few
hundred words, more than anyone types. Each distinct word is one term of the full-text
match, whose cost grows faster than the number of terms (200,000 words took 30 s and held
every other MCP call back: tester-use18 T13)."""
CURSOR_MAX = 20 + HANDOFF_ID_MAX
"""A ``handoff list`` page's ``next_cursor`` (``<hlc>.<id>``: at most 19 digits, a dot, an id)."""
NAME_ARGUMENT_MAX = 1000
"""An MCP tool's owner, branch, harness or model argument, in characters (a name, not a text)."""
OBJECTIVE_MAX = 2000
BRANCH_LABEL_MAX = 100
REASON_MAX = 500
"""Why a handoff was archived (``handoff archive``'s reason), in characters: a sentence or two.
Each teammate whose handoff it was is told it in their session-start brief, ``status`` and
``sync``; a 30,000-character reason made each of those 32 KB (tester25 T3)."""
"""A fork's label names a branch of the work (``fork --label``), not its story."""
AGENT_RECORD_BYTES = 32 * 1024
AGENT_LIST_MAX = 200
"""At most this many handoffs in one ``handoff_list`` answer to an agent: a larger
``limit`` lists this many, with ``more`` and ``total`` saying what is left (a
year's project answered 1 MB in one tool result: tester team15 G8)."""
"""The largest record (as JSON) an answer meant for an agent's context echoes
whole (MCP ``handoff_capture``, ``handoff_fork``, ``handoff_merge``): about 8k
tokens. A larger one is left out (``record_omitted``), its id and lineage kept."""
PREPARE_FOLDER_FILES = 200
"""``handoff prepare`` lists an untracked folder's files one by one up to this many; a folder
with more (a forgotten build folder) is one entry, ``dir/`` with its count, not an artifact."""
PREPARE_COUNT_CAP = 5000
"""Such a folder's files are counted up to this many (then "5000 or more"): the ignore rules
are asked about each, and a 50,000-file folder would cost seconds to count."""
PREPARE_CHANGED_FILES = 500
"""``handoff prepare`` lists at most this many changed files (and proposes at most these as
artifacts), saying how many more there are: a template of 500 artifacts is ~40 KB, far within
:data:`MAX_INPUT_BYTES`, which a list of every file of a large change would pass."""
MIN_MAX_TOKENS = 500
"""Below this even the never-dropped core (banner, objective, state, Do not retry, next action) may not fit."""
MAX_MAX_TOKENS = 1_000_000
"""A brief is for a fresh context window; no window holds more than this."""
RESUME_FORMATS = ("prompt", "md", "json")
"""What ``baton resume`` renders (``--format``; MCP ``handoff_resume``'s ``format``)."""


def check_input_size(what: str, size: int | None, *, hint: str = "") -> None:
    """``size`` None: over the limit by an unknown amount (a stream read no
    further than one byte past it).

    Raises:
        InputError (exit 2): ``size`` bytes is over :data:`MAX_INPUT_BYTES`.
    """
    if size is None or size > MAX_INPUT_BYTES:
        amount = f"over {MAX_INPUT_BYTES} bytes" if size is None else f"{size} bytes"
        raise InputError(f"{what} is {amount}; the limit is {MAX_INPUT_BYTES} bytes (1 MiB)"
                         + (f" ({hint})" if hint else ""),
                         details={"bytes": size, "limit": MAX_INPUT_BYTES})


def check_reason(reason: str | None) -> None:
    """Raises:
        InputError (exit 2): ``reason`` is longer than :data:`REASON_MAX` characters."""
    if reason is not None and len(reason) > REASON_MAX:
        raise InputError(f"the reason is {len(reason)} characters; the limit is {REASON_MAX} (a sentence or two: "
                         "it is told to the handoff's author in their next brief)",
                         details={"characters": len(reason), "limit": REASON_MAX})


def check_resume_options(format: str, mark_resumed: bool, session: str | None, harness: str | None) -> None:
    """What ``baton resume`` accepts, checked before anything is read: one of :data:`RESUME_FORMATS`,
    and a session or harness only with ``mark_resumed``.

    Raises:
        InputError (exit 2): an unknown format, or a session or harness given without ``mark_resumed``.
    """
    if format not in RESUME_FORMATS:
        raise InputError(f"`format` must be one of {', '.join(RESUME_FORMATS)}, not {format!r}")
    if not mark_resumed and (session is not None or harness is not None):
        given = " and ".join(f"`{n}`" for n, v in (("session", session), ("harness", harness)) if v is not None)
        raise InputError(f"{given} {'is' if ' and ' not in given else 'are'} recorded only with `mark_resumed`; "
                         "add it, or leave them out (nothing was written)")
