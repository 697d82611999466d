"""One screen for every identifier that becomes a key, a stream, a file name
or a URL: owner, branch, session id, harness id, branch label.

Pure (no I/O). An identifier is never stored redacted — ``[REDACTED]`` in an
owner would merge two people's batons, in a session id two sessions — so a
secret-shaped identifier is *refused* (``SecretInIdentifier``, exit 5), never
kept. The redaction rules look for tokens with boundaries around them, and
the names Baton derives from an identifier move those boundaries: a baton
key glues ``__<branch>`` to the owner (no word boundary after a token), a
key part turns ``/`` into ``_`` (a URL loses ``://``), a stream or a file
name percent-encodes it. So each identifier is screened as given *and* in
every form Baton derives from it, before anything is appended or written
(issue 25). A finding names the field and the form, never the value.
"""

from __future__ import annotations

from collections.abc import Mapping

from baton.domain.batons import (
    KEY_SEPARATOR,
    baton_file,
    baton_stream,
    context_key,
    encode_key_part,
    objective_stream,
    session_stream,
)
from baton.domain.limits import SESSION_ID_MAX
from baton.domain.percent import quote, unquote
from baton.domain.redaction import RedactionPolicy, redact_strings, rule_label
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (baton/values.py)
if TYPE_CHECKING:
    from typing import Any, Iterable

OWNER = "owner"
BRANCH = "branch"
SESSION = "session id"
HARNESS = "harness"
LABEL = "branch label"
KEY = "baton key"
FIELDS = (OWNER, BRANCH, SESSION, HARNESS, LABEL, KEY)
"""The identifier fields, as a refusal names them."""

AS_GIVEN = "as given"


class IdentifierFinding(Value):
    """A rule matched ``field`` in ``form`` (``as given``, ``baton key``,
    ``stream name``, ``file name``, ``URL``...). Never holds the value."""

    field: str
    form: str
    rule: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"field": self.field, "form": self.form, "rule": self.rule, "reason": self.reason}


def _forms_of_one(value: str) -> list[tuple[str, str]]:
    """One identifier as given and as each name built from it alone."""
    part = encode_key_part(value)
    return [
        (AS_GIVEN, value),
        ("decoded form", unquote(value)),
        ("key part", part),
        ("key part, decoded", unquote(part)),
        ("URL", quote(value, safe="")),
    ]


def identifier_forms(field: str, value: str) -> list[tuple[str, str]]:
    """``(form, text)`` for every form Baton derives from one identifier."""
    forms = _forms_of_one(value)
    if field == SESSION:
        stream = session_stream(value)
        detector = f"detector/{quote(value, safe='')}"
        forms += [("stream name", stream), ("stream name", detector), ("stream name, decoded", unquote(detector))]
    return forms


def key_forms(key: str) -> list[tuple[str, str]]:
    """A baton key (``<owner>__<branch>``, percent-encoded) as stream names,
    a file name under ``.baton/batons/`` and a URL component, each also
    decoded, and each side of the separator alone (the separator glues a
    token to its neighbour: no boundary after it)."""
    forms = [("baton key", key), ("baton key, decoded", unquote(key)),
             ("baton key, decoded", unquote(key).replace("_", "/")),
             ("stream name", baton_stream(key)), ("stream name", objective_stream(key)),
             ("file name", baton_file(key)), ("file name, decoded", unquote(baton_file(key))),
             ("URL", quote(key, safe=""))]
    for piece in key.split(KEY_SEPARATOR):
        if piece:
            # A key part spells "/" as "_": put it back too, or a URL keeps its
            # password behind a scheme no rule knows ("postgres:__app:pw@db").
            forms += [("baton key part", piece), ("baton key part, decoded", unquote(piece)),
                      ("baton key part, decoded", unquote(piece).replace("_", "/"))]
    return forms


def screen_identifiers(identifiers: Mapping[str, Any] | Iterable[tuple[str, Any]],
                       policy: RedactionPolicy, clean: set[str] | None = None) -> list[IdentifierFinding]:
    """Every secret the policy's text rules find in an identifier, in any of
    its forms, one finding per (field, rule). ``identifiers`` maps a field of
    ``FIELDS`` to a value (``None`` and non-strings are skipped); an owner
    and a branch given together are also screened as the baton key, stream
    and file name they make. A ``KEY`` value is a key as stored.

    ``clean``: the texts ``policy``'s rules already found nothing in (a process screens the same session
    id, owner and branch in every event it appends: a session start's claim and its start): each is
    not screened again, and each text found clean here is added. A text's screen depends on the text
    and the policy alone, never on the field, so the findings are the same with it or without."""
    pairs = list(identifiers.items() if isinstance(identifiers, Mapping) else identifiers)
    forms: list[tuple[str, str, str]] = []
    for field, value in pairs:
        if not isinstance(value, str) or not value:
            continue
        if field == KEY:
            forms += [(KEY, form, text) for form, text in key_forms(value)]
        else:
            forms += [(field, form, text) for form, text in identifier_forms(field, value)]
    owners = [v for f, v in pairs if f == OWNER and isinstance(v, str) and v]
    branches = [v for f, v in pairs if f == BRANCH and isinstance(v, str) and v]
    for owner in owners:
        for branch in branches:
            forms += [(f"{OWNER} and {BRANCH}", form, text) for form, text in key_forms(context_key(owner, branch))]
    found: dict[tuple[str, str], IdentifierFinding] = {}
    seen: set[tuple[str, str]] = set()
    for field, form, text in forms:
        if (field, text) in seen or (clean is not None and text in clean):
            continue
        seen.add((field, text))
        outcome = redact_strings(text, policy)
        hits = (*outcome.redactions, *outcome.blocked)
        if not hits and clean is not None:
            clean.add(text)
        for r in hits:
            found.setdefault((field, r.rule), IdentifierFinding(field, form, r.rule, r.reason))
    # A secret the field holds as given is named once, by the field: drop the
    # combined key finding of a rule its owner or branch already reports alone.
    alone = {rule for (field, rule) in found if field != f"{OWNER} and {BRANCH}"}
    return [f for (field, rule), f in found.items() if not (field == f"{OWNER} and {BRANCH}" and rule in alone)]


_DATA_FIELDS = {"owner": OWNER, "branch": BRANCH, "session": SESSION, "previous_session": SESSION,
                "session_id": SESSION, "harness": HARNESS, "key": KEY, "branch_label": LABEL}
_NESTED = {"handoff": ("origin", "lineage"), "origin": (), "lineage": ()}


def event_identifiers(stream: str, session: str | None, data: Any) -> list[tuple[str, Any]]:
    """The identifiers an event about to be appended carries: its session, its
    stream's key, and the identifier members of its payload (top level, and
    a handoff's ``origin`` and ``lineage``)."""
    out: list[tuple[str, Any]] = [(SESSION, session)]
    family, _, key = stream.partition("/")
    if family in ("baton", "objective") and key:
        out.append((KEY, key))
    elif family == "session" and key:
        out.append((SESSION, key))
    elif family == "detector" and key and key != "-":
        out.append((SESSION, unquote(key)))
    if isinstance(data, Mapping):
        out += _members(data, top=True)
    return out


def handoff_identifiers(body: Any) -> list[tuple[str, Any]]:
    """The identifiers a handoff body carries (``origin.harness``,
    ``origin.session_id``, ``lineage.branch_label``), screened before the body
    is cleaned: cleaning would redact them where they must be refused."""
    return _members(body, top=False) if isinstance(body, Mapping) else []


def _members(data: Mapping[str, Any], *, top: bool) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for name, value in data.items():
        field = _DATA_FIELDS.get(name)
        if field is not None and isinstance(value, str):
            if field == KEY and not top:
                continue
            out.append((field, value))
        elif isinstance(value, Mapping) and name in ("handoff", "origin", "lineage"):
            out += _members(value, top=False)
    return out


BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Invisible characters that reorder the text around them (Trojan Source)."""


def name_problem(value: str) -> str | None:
    """Why ``value`` cannot be an owner or a branch, or None: it must hold a
    visible character, and no control character (C0, DEL, C1: a newline
    would split a log line, ESC recolour a terminal) nor bidirectional
    control (which would show the name as another)."""
    if not value.strip():
        return "is empty"
    for ch in value:
        code = ord(ch)
        if code < 0x20 or 0x7F <= code <= 0x9F or ch in BIDI_CONTROLS:
            return f"contains the control character U+{code:04X}"
    return None


_SHOWN_AS = {
    "owner": (OWNER, "an owner names a baton key, a stream and a file"),
    "branch": (BRANCH, "a branch names a baton key, a stream and a file"),
    "harness": (HARNESS, "a harness name is one line of visible text (codex, claude-code…), shown in the next "
                         "session's brief"),
    "label": (LABEL, "a branch label is one line of visible text, shown in briefs and lineage views"),
}
"""The named identifiers a use case takes (its parameter → the field, and why its shape matters)."""


def identifier_refusal(parameter: str, value: object) -> str | None:
    """Why ``value`` given for the use case's ``parameter`` (``owner``, ``branch``,
    ``harness``, ``label``) is refused, naming the parameter in backquotes, or None.
    Each is one line of visible text (``name_problem``): a newline in a harness
    name or a label, rendered into the next session's brief, would start a line
    of its own there — a heading, a next step nobody left. The message never
    repeats the value."""
    shown = _SHOWN_AS.get(parameter)
    if shown is None or not isinstance(value, str):
        return None
    problem = name_problem(value)
    if problem is None:
        return None
    hint = " (leave it out for the default)" if problem == "is empty" and parameter in ("owner", "branch") else \
        " (leave it out)" if problem == "is empty" else ""
    return f"`{parameter}` {problem}{hint}: {shown[1]}"


_BODY_IDENTIFIERS = (("origin", "harness", "harness"), ("lineage", "branch_label", "label"))


def handoff_identifier_problems(body: object) -> list[str]:
    """The problems of the identifiers a handoff body carries as text shown in briefs
    (``origin.harness``, ``lineage.branch_label``), as ``"<field path>: <message>"``,
    the way ``HandoffInputError`` lists them. An empty value is left to the body's
    own rules (it shows nothing)."""
    problems: list[str] = []
    if not isinstance(body, Mapping):
        return problems
    for section, member, parameter in _BODY_IDENTIFIERS:
        part = body.get(section)
        value = part.get(member) if isinstance(part, Mapping) else None
        if isinstance(value, str) and value and (problem := name_problem(value)) is not None:
            problems.append(f"{section}.{member}: {problem}: {_SHOWN_AS[parameter][1]}")
    return problems


SESSION_ID_RULE = ("one line of at most 200 printable characters, without whitespace, `/` or `\\`, "
                   "and not `.` or `..`")
"""A session id's shape, as docs/cli.md and refusals spell it."""


def session_id_problem(value: str) -> str | None:
    """Why ``value`` (already stripped) cannot be a session id, or None. A
    session id is opaque — every harness sends a UUID-like one — but it names
    a stream (``session/<id>``) and appears in briefs and log lines, so it
    holds no whitespace, no path separator and no control character, and is
    not ``.`` or ``..`` (which read as a path)."""
    if not value:
        return "must not be empty"
    if len(value) > SESSION_ID_MAX:
        return f"must be at most {SESSION_ID_MAX} characters"
    for ch in value:
        code = ord(ch)
        if code < 0x20 or 0x7F <= code <= 0x9F or ch in BIDI_CONTROLS:
            return "must not contain control characters"
        if ch.isspace():
            return "must not contain whitespace"
        if ch in "/\\":
            return "must not contain `/` or `\\`"
    if value in (".", ".."):
        return "must not be `.` or `..`"
    return None


def session_id_refusal(value: str) -> str | None:
    """Why a session id given as ``value`` (surrounding whitespace dropped) is refused, as the
    refusal says it, or None."""
    problem = session_id_problem(value.strip())
    return None if problem is None else f"a session id {problem} (a session id is {SESSION_ID_RULE})"


def describe(findings: list[IdentifierFinding]) -> str:
    """The refusal's message: which fields, by which rules; never a value."""
    fields: dict[str, list[str]] = {}
    for f in findings:
        fields.setdefault(f.field, []).append(rule_label(f.rule, f.reason) + ("" if f.form == AS_GIVEN else
                                                                       f", in its {f.form}"))
    named = "; ".join(f"the {field} looks like a secret ({', '.join(rules)})" for field, rules in fields.items())
    return (f"refused: {named}. An identifier becomes a key, a stream and a file name and is never stored "
            "redacted: choose another (the value is not repeated here)")
