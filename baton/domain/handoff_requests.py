"""Whether a prompt a person typed is an explicit request to hand off (spec §9.1 ``handoff_request``).

The recogniser is a documented phrase set (docs/detector.md, "Explicit
requests"), conservative on purpose: a prompt that only *mentions* a handoff
("fix the handoff parser", "hand off the job to the worker") is not one.

A prompt is a request when

- it starts with one of the slash commands (``/handoff``, ``/baton-handoff``,
  ``/baton handoff``, and the MCP prompt commands ``/baton:handoff`` and
  ``/mcp__baton__handoff``); or
- it is short (at most ``MAX_WORDS`` words and ``MAX_CHARS`` characters) and one of its clauses — the
  prompt cut at punctuation and at "and" / "then" / "so" — is, once polite
  and filler words are dropped, one of the phrases below. A file name, path
  or dotted name (``handoff.py``, ``src/handoff``) is one word, never cut
  into a clause of its own; and a phrase that asks to stop ("stop here",
  "pause here", "wrap up") counts only when nothing but fillers or other
  phrases follows it in its sentence, and no later sentence starts with a
  verb of work ("stop here and fix the bug on line 3", "Stop here. Fix the
  bug on line 3." ask to go on working). A sentence ends at ".", "!", "?",
  ";" and a spaced dash (" - ", " -- ", an em or en dash). "hand off to
  codex" (to another harness, or the next agent or session) is a request.

Linear in the prompt, and bounded: a prompt past ``MAX_CHARS`` is never
folded or matched (only its start is compared with the slash commands), and
no pattern run over a prompt backtracks (a file name is found in one pass:
``_names_marked``), so a pasted hex dump or a 50 MB log answers in
milliseconds.

Pure and cheap: only ``re`` (patterns compiled on first use, ``baton.domain.regexes``) and
``unicodedata``; the prompt is read here and
nowhere kept.
"""

from __future__ import annotations

import unicodedata

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a prompt hook runs this module)
if TYPE_CHECKING:
    import re

from baton.domain.regexes import lazy

MAX_WORDS = 14
MAX_CHARS = 1000
"""The longest prompt read as a request (a slash command aside): a request is at most
``MAX_WORDS`` words, and fourteen words with a path or two among them fit with room to
spare; a longer prompt (a pasted log, a hex dump) is no request, and is never folded."""

COMMANDS = ("/handoff", "/baton-handoff", "/baton handoff", "/baton:handoff", "/mcp__baton__handoff")

# Words dropped from the front and back of a clause before it is compared:
# politeness and hedges that never change what is asked.
_LEAD = (
    "please", "pls", "ok", "okay", "alright", "right", "now", "so", "then", "just", "lets", "let us", "let s",
    "can you", "could you", "would you", "will you", "go ahead and", "i want to", "i d like to", "id like to",
    "i would like to", "we should", "we need to", "i need to", "you should", "time to", "its time to",
    "it s time to", "kindly",
)
_TRAIL = ("please", "pls", "now", "thanks", "thank you", "for now", "for today", "for me", "here", "then")

_NOUN = r"(?:handoff|hand off|hand-off|baton|handover|hand over|handoff note|handoff summary)"
_LATER = r"(?:later|tomorrow|next time|another time|in a (?:new|fresh) (?:session|chat|conversation)|" \
         r"in another (?:session|chat|conversation)|in the next session|after a break|on monday|next week|after lunch)"
_TO_NEXT = (r"(?: to (?:claude(?:[ -]code)?|(?:openai )?codex(?:[ -]cli)?|gemini(?:[ -]cli)?|cursor|"
            r"the next (?:agent|session|model|assistant|one)|"
            r"another (?:agent|session|model|harness)|a (?:new|fresh) (?:agent|session|chat|conversation)|"
            r"(?:the )?next session))?")
"""Where the work goes: another harness Baton wires, or the next agent or session
("hand off to codex"). Anything else after "to" (a thread, a worker, a colleague's
name) is no request: "hand off the request to the worker thread"."""

_STOPPING = (r"(?:wrap up|wrap it up|wrap this up|stop here|stopping here|stop for today|stop for now|"
             r"call it a day|pause here|pause for now)")
"""The phrases that ask to stop: a request only when nothing but fillers or other
phrases follows them in their sentence ("stop here and fix the bug on line 3" is
debugger talk: stop there, and go on working)."""

#: The phrases a clause must be, whole (after normalising and dropping fillers).
PHRASES: tuple[str, ...] = (
    r"(?:handoff|hand-off|handover)(?: now| time)?" + _TO_NEXT,
    rf"(?:write|prepare|make|create|do|give me|produce|draft|save|leave|pass|hand) (?:a |an |the |me a |us a )?{_NOUN}"
    r"(?: for (?:later|tomorrow|the next session|next time|whoever comes next))?",
    r"(?:write|prepare|make|create|draft|leave) (?:a |the )?(?:note|summary) for the next session",
    r"hand (?:it |this |the work |things )?off" + _TO_NEXT,
    r"hand (?:it |this |the work )?over" + _TO_NEXT,
    rf"(?:we ll |well |we will |i ll |ill |i will )?(?:(?:continue|resume|finish)(?: this| it)?|pick (?:this|it) up|"
    rf"pick up|carry on|keep going|come back to this|get back to this|return to this) {_LATER}",
    r"(?:start|open|begin) (?:a )?(?:new|fresh) (?:session|conversation|chat)",
    r"new (?:session|conversation|chat)",
    _STOPPING,
    r"(?:save|record|write down) (?:your |our |the )?(?:progress|state|context) for (?:later|the next session|"
    r"next time|tomorrow)",
)
_WHOLE = lazy("^(?:" + "|".join(PHRASES) + ")$")
_STOP = lazy("^" + _STOPPING + "$")
_SENTENCE_CUT = lazy(r"\s*(?:[.!?]+(?:\s+|$)|;+\s*|\s-+\s)")
"""Sentences end at ``.``, ``!``, ``?``, and at ``;`` and a spaced dash (an em or en dash,
``--``): "Stop here — we are out of context" is "Stop here. We are out of context"."""
_CLAUSE_CUT = lazy(r"\s*(?:[,.;:!?]+|\s-\s|\band\b|\bthen\b|\bso\b)\s*")
_RUN = lazy(r"[\w./:-]+")
_JOINED = lazy(r"\w[./:]\w")
"""A file name, path or dotted name (``handoff.py``, ``src/handoff``, ``baton.handoff``): a word
and a dot, slash or colon joined with no space, which a clause cut must not split into its words."""
_NON_WORD = lazy(r"[^\w\s,.;:!?/-]+")
_SPACES = lazy(r"\s+")


_DASHES = str.maketrans({"—": " - ", "–": " - ", "―": " - "})
"""An em or en dash (what an editor or a phone makes of ``--``) cuts as `` - `` and `` -- `` do."""


def _fold(text: str) -> str:
    """Lower case, compatibility-folded, dashes spaced, apostrophes and quotes gone, spacing collapsed."""
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_DASHES).replace("’", "'").replace("'", " ")
    return _SPACES.sub(" ", _NON_WORD.sub(" ", folded)).strip()


def _names_marked(text: str) -> str:
    """``text`` with each file name, path or dotted name (``_JOINED``) made the word ``file``:
    each run of word characters, dots, slashes, colons and hyphens that holds a joint,
    up to its last word character (a name's closing dot stays: it may end a sentence).
    One pass over the text: what the pattern ``[\\w./:-]*\\w[./:]\\w(?:[\\w./:-]*\\w)?``
    replaced, without its backtracking (quadratic in a long run with no joint)."""
    return _RUN.sub(_name_marked, text)


def _name_marked(run: re.Match[str]) -> str:
    word = run.group()
    if _JOINED.search(word) is None:
        return word
    name = word.rstrip("./:-")
    return " file " + word[len(name):]


def _reduced(clause: str) -> str:
    """The clause once fillers are dropped, one by one, from its ends, until it is a
    phrase or none is left to drop ('' when it was only fillers)."""
    while clause:
        if _WHOLE.match(clause):
            return clause
        shorter = next((clause[len(lead) + 1:] for lead in _LEAD if clause.startswith(lead + " ")), None)
        if shorter is None:
            shorter = next((clause[: -len(trail) - 1] for trail in _TRAIL if clause.endswith(" " + trail)), None)
        if shorter is None:
            return "" if clause in _LEAD or clause in _TRAIL else clause
        clause = shorter
    return clause


def _is_phrase(clause: str) -> bool:
    """Whether the clause, or what is left of it as fillers are dropped one by one, is a phrase."""
    reduced = _reduced(clause)
    return bool(reduced) and _WHOLE.match(reduced) is not None


_WORK_VERBS = frozenset({
    "fix", "inspect", "print", "check", "run", "step", "look", "explain", "test", "log", "debug", "add", "remove",
    "change", "set", "try", "read", "open", "show", "tell", "commit", "push", "rerun", "retry", "watch", "dump",
    "trace", "evaluate", "eval", "continue", "go", "move", "rename", "refactor", "update", "edit", "write", "delete",
    "find", "compare", "verify", "examine", "break", "use", "call", "make", "build", "compile", "install", "revert",
})
"""The first words of a sentence that goes on working after one that asks to stop
("Stop here. Fix the bug on line 3."): debugger talk, as in one sentence."""


def _clauses(sentence: str) -> list[str]:
    return [_reduced(clause.strip(" -/")) for clause in _CLAUSE_CUT.split(sentence)]


def _goes_on_working(sentence: str) -> bool:
    """Whether the sentence's first clause with words starts with a verb of work."""
    first = next((clause for clause in _clauses(sentence) if clause), "")
    return first.split(" ", 1)[0] in _WORK_VERBS and _WHOLE.match(first) is None


def _asks(sentence: str, then: list[str]) -> bool:
    """Whether one of the sentence's clauses is a request: a phrase — one that asks to
    stop only when every clause after it is a phrase too, or only fillers, and no
    sentence after it (``then``) goes on working."""
    clauses = _clauses(sentence)
    phrases = [bool(clause) and _WHOLE.match(clause) is not None for clause in clauses]
    for at, clause in enumerate(clauses):
        if not phrases[at]:
            continue
        if not _STOP.match(clause):
            return True
        if (all(phrases[later] or not clauses[later] for later in range(at + 1, len(clauses)))
                and not any(_goes_on_working(later) for later in then)):
            return True
    return False


_COMMAND_CHARS = max(len(c) for c in COMMANDS) + 1


def is_explicit_request(prompt: str) -> bool:
    """Whether ``prompt`` asks for a handoff, by the documented phrase set (module docstring)."""
    if not isinstance(prompt, str):
        return False
    stripped = prompt.strip()
    head = stripped[:_COMMAND_CHARS].casefold()  # casefold maps each character on its own: a prefix's is the prefix
    whole = len(stripped) <= _COMMAND_CHARS  # then ``head`` is all of it
    if any(whole and head == c or head.startswith(c + " ") for c in COMMANDS):
        return True
    if len(stripped) > MAX_CHARS:
        return False
    folded = _fold(stripped)
    if not folded or len(folded.split()) > MAX_WORDS:
        return False
    named = _names_marked(folded)  # ``handoff.py`` is a file, not the clause ``handoff``
    sentences = [sentence for sentence in _SENTENCE_CUT.split(named) if sentence.strip()]
    return any(_asks(sentence, sentences[at + 1:]) for at, sentence in enumerate(sentences))
