"""The walkers over records: every string of a JSON-like value (dict keys
included) through a policy's rules, with the field path of each change.

``redact_payload`` judges a value by its key too (``password: …``) and treats
path-like fields as paths; ``redact_strings`` (the last screen before an event
is appended) runs the text rules only. Both record a :class:`Redaction` per
field and rule, never the removed value. Screened short strings are
remembered per rule set, so a long-lived process screens each once.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping

import orjson

from baton.domain.percent import escapes
from baton.domain.redaction.policy import RedactionPolicy
from baton.domain.redaction.rules import (
    BLOCK,
    MARKER,
    AssignmentRule,
    KeywordPrefilter,
    PathRule,
    Rule,
    apply_rule,
    marker_spans,
    replacement_for,
)
from baton.domain.regexes import compiled, lazy
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the output screen never needs it)
if TYPE_CHECKING:
    from typing import Any, Callable


class Redaction(Value):
    """One field changed by one rule. Never holds the removed value."""

    field: str
    rule: str
    reason: str
    replacement: str

    def to_json(self) -> dict[str, str]:
        return {"field": self.field, "rule": self.rule, "reason": self.reason, "replacement": self.replacement}


class RedactionOutcome(Value):
    """The cleaned payload and what was done to it.

    ``blocked`` lists matches of rules whose action is "block": their values
    are replaced in ``payload`` too, so nothing leaks even by mistake, but the
    caller must refuse the operation (``baton.policy.redact_or_block`` does).
    """

    payload: Any
    redactions: tuple[Redaction, ...] = ()
    blocked: tuple[Redaction, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.redactions or self.blocked)

    @property
    def is_blocked(self) -> bool:
        return bool(self.blocked)

    def records(self) -> list[dict[str, str]]:
        """The ``redactions`` array of a handoff (§7.2): redacted fields only."""
        return [r.to_json() for r in self.redactions]

    def to_json(self) -> dict[str, Any]:
        return {"redactions": self.records(), "blocked": [r.to_json() for r in self.blocked]}


_IDENT = r"^[A-Za-z_][A-Za-z0-9_]*$"
_MAX_PASSES = 64
_WIDEN_ROUNDS = 4
"""How many times a text whose redaction was widened is read again (each round only adds markers)."""


def _child(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    text = key if isinstance(key, str) else repr(key)
    name = text[:-1] if text[-1:] == "\n" else text  # ``_IDENT``'s ``$`` also matches before a last newline
    if name.isascii() and name.isidentifier():  # ``_IDENT``, without compiling it
        return f"{path}.{text}" if path else text
    return f"{path}[{orjson.dumps(text).decode('utf-8')}]"


_PREFILTERS: dict[int, tuple[tuple[Rule, ...], KeywordPrefilter]] = {}


def _prefilter(policy: RedactionPolicy) -> KeywordPrefilter:
    """The index of a policy's text rules' keywords, built once per rule set
    (a policy's rules are an immutable tuple; a command screens many payloads
    against it, and a long-lived process — the MCP server, the status page —
    thousands)."""
    rules = policy.rules
    known = _PREFILTERS.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    if len(_PREFILTERS) >= 16:
        _PREFILTERS.clear()
    built = KeywordPrefilter(policy.text_rules)
    # The rule sets a walk reads, derived once per rule set too.
    built.path_rules = policy.path_rules
    built.pair_rules = tuple(r for r in built.rules if isinstance(r, AssignmentRule))
    _PREFILTERS[id(rules)] = (rules, built)
    return built


SCRUB_MEMO_ENTRIES = 4096
"""Screened strings remembered per policy (at most ``SCRUB_MEMO_TEXT`` characters each)."""
SCRUB_MEMO_TEXT = 1024
_SCRUBBED: dict[tuple[int, float, int], tuple[tuple[Rule, ...], dict[str, tuple[str, tuple[Rule, ...]]]]] = {}


def scrub_memo(policy: RedactionPolicy) -> dict[str, tuple[str, tuple[Rule, ...]]]:
    """What ``_Walk.scrub`` answered for short strings under this policy's rules.

    Scrubbing is a pure function of the text, the rules and the two numbers a
    value test reads (entropy threshold, minimum length). An answer repeats the
    same short strings (keys, statuses, dates, ids: a list of 20 handoffs is 410
    strings, 95 distinct), and a long-lived process (the MCP server, the status
    page) lists the same handoffs call after call, so each distinct string is
    screened once. Bounded: the memo is emptied when full."""
    return per_policy(_SCRUBBED, policy)


def per_policy(store: dict[Any, Any], policy: RedactionPolicy) -> dict[Any, Any]:
    """``store``'s memo for this policy's rules and the two numbers a value
    test reads, made empty the first time; at most 16 policies are kept."""
    rules = policy.rules
    key = (id(rules), policy.entropy_threshold, policy.min_secret_length)
    known = store.get(key)
    if known is not None and known[0] is rules:
        kept: dict[Any, Any] = known[1]
        return kept
    if len(store) >= 16:
        store.clear()
    memo: dict[Any, Any] = {}
    store[key] = (rules, memo)
    return memo


class _Walk:
    def __init__(self, policy: RedactionPolicy) -> None:
        self.policy = policy
        self.prefilter = _prefilter(policy)
        self.text_rules = self.prefilter.rules
        self.path_rules: tuple[PathRule, ...] = self.prefilter.path_rules
        self.pair_rules: tuple[AssignmentRule, ...] = self.prefilter.pair_rules
        self.memo = scrub_memo(policy)
        self.hits: dict[tuple[str, str], Rule] = {}

    def note(self, field: str, rule: Rule) -> None:
        self.hits.setdefault((field, rule.name), rule)

    def value(self, value: Any, field: str, path_like: bool = False) -> Any:
        if isinstance(value, str):
            return self.string(value, field, path_like)
        if isinstance(value, Mapping):
            return self.mapping(value, field)
        if isinstance(value, (list, tuple)):
            return [self.value(item, _child(field, i), path_like) for i, item in enumerate(value)]
        return value

    def string(self, text: str, field: str, path_like: bool) -> str:
        text = self.text(text, field)
        if path_like:
            for rule in self.path_rules:
                if rule.matches(text):
                    self.note(field, rule)
                    return replacement_for(rule.name)
        return text

    def text(self, text: str, field: str) -> str:
        text, fired = self.scrub(text)
        for rule in fired:
            self.note(field, rule)
        return text

    def scrub(self, text: str) -> tuple[str, list[Rule]]:
        if len(text) > SCRUB_MEMO_TEXT:
            return self._scrub(text)
        known = self.memo.get(text)
        if known is None:
            screened, fired = self._scrub(text)
            if len(self.memo) >= SCRUB_MEMO_ENTRIES:
                self.memo.clear()
            known = self.memo[text] = (screened, tuple(fired))
        return known[0], list(known[1])

    def _scrub(self, text: str, depth: int = 0) -> tuple[str, list[Rule]]:
        # A text with a line break is read with each marker's place in the text as
        # given kept (``origins``): a value a continuation splits is widened there
        # afterwards (``_spread``), over exactly what this reading redacted.
        origins = _Origins() if "\n" in text else None
        given = text
        text, fired = self._fixed_point(text, [], origins)
        # Three views hide what the rules need from them in the text as written, and
        # the rules run once more over each: a line continuation (``API_KEY=\\``,
        # the value on the next line: ``joined``) parts a name from its value, and
        # percent-escaped separators (``token%3Dghp_…``, ``%22sk-…%22``) and
        # backslash-escaped ones (``\\nsk-…``, ``tok\\u003d…``) hide the
        # boundary and the ``=``. All views are read from the same text (the fixed
        # point's), and what either finds is replaced in it together (each span
        # mapped back: a continuation or a whole escape inside it included; spans
        # that overlap merged), then the fixed point again: no view can make
        # another miss what it finds (a name taken for a value by one view is
        # still a name to the other).
        found: list[tuple[int, int, Rule]] = []
        if "\n" in text or "%" in text or "\\" in text:
            markers = marker_spans(text)
            if "\n" in text:
                self._found(joined(text), markers, found)
            if "%" in text:
                self._found(percent_decoded(text), markers, found)
            if "\\" in text:
                self._found(backslash_decoded(text), markers, found)
        if found:
            made: list[tuple[int, int, Rule]] = []
            text, applied = _replace_spans(text, found, made)
            if origins is not None:
                origins.update(made)
            for rule in applied:
                _note_fired(fired, rule)
            text, fired = self._fixed_point(text, fired, origins)
        if origins is None:
            return text, fired
        covered = origins.covered()
        wider = self._spread(given, covered) if covered else []
        wider.extend(self._yaml_values(given))
        wider = _outside(wider, covered)
        if not wider:
            return self._again(given, text, fired, depth)
        # What this reading redacted, each marker widened and the YAML values added:
        # the text as given with the union replaced, so nothing it redacted can come
        # back; the fixed point only adds.
        text, applied = _replace_spans(given, covered + wider)
        for rule in applied:
            _note_fired(fired, rule)
        text, fired = self._fixed_point(text, fired)
        return self._again(given, text, fired, depth)

    def _again(self, given: str, text: str, fired: list[Rule], depth: int) -> tuple[str, list[Rule]]:
        """``text`` (``given`` redacted) read again while it changes: a marker can change
        how a line ends (a key's ``: |`` taken into a value, a mapping entry's colon), so
        a YAML value or a continuation appears only now; a second redaction must change
        nothing more. Each round only adds markers; ``_WIDEN_ROUNDS`` at most."""
        if text == given or depth >= _WIDEN_ROUNDS:
            return text, fired
        text, more = self._scrub(text, depth + 1)
        for rule in more:
            _note_fired(fired, rule)
        return text, fired

    def _spread(self, given: str, covered: list[tuple[int, int, Rule]]) -> list[tuple[int, int, Rule]]:
        """Spans of ``given`` that widen a redacted one (``covered``) over the rest of its
        value: a value split by a line continuation (``API_KEY=Zx9…\\`` and its rest
        below, one word to the shell), whose first piece alone the rules took for the
        whole value. A span the joined view of ``given`` finds that overlaps a redacted
        one, and the rest of a word a continuation splits after a redacted span."""
        wider: list[tuple[int, int, Rule]] = []
        starts = [start for start, _, _ in covered]
        spans = [(start, end) for start, end, _ in covered]
        view = joined(given)
        if view is not None:
            hits: list[tuple[int, int, Rule]] = []
            self._found(view, marker_spans(given), hits)
            for start, end, rule in hits:
                i = bisect.bisect_left(starts, end) - 1
                if i >= 0 and spans[i][1] > start and not (spans[i][0] <= start and end <= spans[i][1]):
                    wider.append((start, end, rule))
        # Each word's end and each continued word's rest are found once (``chains``):
        # many markers in one long word (minified JSON), or one on each of many lines
        # a continuation joins, read each character a bounded number of times.
        chains: dict[int, int] = {}
        word_from = word_end = -1
        for start, end, rule in covered:
            if not word_from <= end <= word_end:  # markers are in order: one word holds several
                word_from, word_end = end, _word_end(given, end)
            past = _chain_end(given, word_end, chains)
            if past > word_end and past > end:
                wider.append((end, past, rule))
        return wider

    def _found(self, decoded: tuple[str, list[int], list[int]] | None, markers: list[tuple[int, int]],
               found: list[tuple[int, int, Rule]]) -> None:
        """Add to ``found`` what the rules find in ``decoded`` (a view of the text, and where
        each of the view's characters came from), mapped back onto the text; a span
        overlapping one of ``markers`` (already redacted) is left out."""
        if decoded is None:
            return
        view, starts, ends = decoded
        for rule in self.prefilter.candidates(view.lower()):
            if isinstance(rule, PathRule):
                continue
            for start, end in rule.spans(view, self.policy):
                start, end = starts[start], ends[end - 1]
                if not _overlaps(start, end, markers):
                    found.append((start, end, rule))

    def _yaml_values(self, given: str) -> list[tuple[int, int, Rule]]:
        """The lines of each YAML value below its key (``yaml_values``) whose key the
        rules take, on the value's line, for a secret's name (``password: Zx9…`` as
        written on one line): every line of a block scalar or a plain scalar over
        several lines, each item of a sequence, found and replaced whole."""
        spans: list[tuple[int, int, Rule]] = []
        for key, values, item in yaml_values(given):
            # An item of a sequence is judged as its key's one: ``api_keys:`` / ``  - Zx9…`` as ``api_key: Zx9…``.
            names = (key, key[:-2] + ":") if item and key[-2:-1] in ("s", "S") else (key,)
            rule = next((rule for start, end in values for name in names
                         if (rule := self._names_a_secret(name, given[start:end]))), None)
            if rule is not None:
                spans.extend((start, end, rule) for start, end in values)
        return spans

    def _names_a_secret(self, key: str, value: str) -> Rule | None:
        """The rule that redacts (part of) ``value`` written on its key's line, if one does."""
        line = f"{key} {value}"
        for rule in self.prefilter.candidates(line.lower()):
            if isinstance(rule, PathRule):
                continue
            if any(end > len(key) + 1 for _, end in rule.spans(line, self.policy)):
                return rule
        return None

    def _fixed_point(self, text: str, fired: list[Rule],
                     origins: _Origins | None = None) -> tuple[str, list[Rule]]:
        # Run every rule until none fires: a replacement can split a string so
        # that an earlier rule now matches a piece, and a fixed point is what
        # makes redaction idempotent. Each pass turns unredacted characters
        # into markers, so the loop ends; the cap is only a guard.
        # The keyword prefilter, once: a replacement only removes text (its
        # marker is never searched), so a rule whose keywords are absent now
        # stays without a match in every later pass.
        candidates = self.prefilter.candidates(text.lower())
        for _ in range(_MAX_PASSES):
            any_hit = False
            markers = marker_spans(text)
            for rule in candidates:
                inside = getattr(rule, "names_inside", None)
                made: list[tuple[int, int]] | None = [] if origins is not None or inside else None
                before = text
                text, hit = apply_rule(text, rule, self.policy, markers, made)
                if hit:
                    if origins is not None and made:
                        origins.update([(start, end, rule) for start, end in made])
                    markers = marker_spans(text)
                    any_hit = True
                    _note_fired(fired, _named_inside(rule, inside, before, made) if inside and made else rule)
            if not any_hit:
                break
        return text, fired

    def mapping(self, value: Mapping[Any, Any], field: str) -> dict[Any, Any]:
        path_keys = {k for k in value if isinstance(k, str) and k.lower() in self.policy.path_fields}
        if value.get("type") == "file" and "ref" in value:
            path_keys.add("ref")
        cleaned: dict[Any, tuple[Any, Any]] = {}
        taken: set[Any] = set(value)
        for key in sorted(value, key=_sort_key):
            item = value[key]
            new_key = key
            if isinstance(key, str):
                # A secret in a key: the record's field path must use the
                # redacted key, or the path itself would leak the value.
                new_key, fired = self.scrub(key)
                if new_key != key:
                    new_key = _unique(new_key, taken)
                    taken.add(new_key)
                for rule in fired:
                    self.note(_child(field, new_key), rule)
            child = _child(field, new_key)
            if isinstance(item, str) and isinstance(key, str) and self.pair_rules:
                text = self.text(item, child)
                rest = MARKER.sub("", text)
                # Judge the name as it will be stored (markers removed), so a
                # second pass over the output decides exactly as this one did.
                name = MARKER.sub(" ", new_key)
                pair = next((r for r in self.pair_rules if r.matches_pair(name, rest, self.policy)), None)
                if pair is not None:
                    self.note(child, pair)
                    text = replacement_for(pair.name)
                elif key in path_keys:
                    text = self.string(text, child, True)
                cleaned[key] = (new_key, text)
                continue
            cleaned[key] = (new_key, self.value(item, child, key in path_keys))
        return {new_key: item for new_key, item in (cleaned[k] for k in value)}


def _named_inside(rule: Rule, inside: Callable[[str], str | None], text: str, made: list[tuple[int, int]]) -> Rule:
    """``rule`` as the record of its first match in ``text`` names it: its reason followed by
    what the match holds (``PatternRule.names_inside``: ``base64:github-token``)."""
    start, end = made[0]
    kind = inside(text[start:end])
    return rule._replace(reason=f"{rule.reason} ({kind})") if kind else rule  # type: ignore[union-attr]


def _note_fired(fired: list[Rule], rule: Rule) -> None:
    # By identity: a policy's rules are distinct objects, and comparing rules
    # by value (every field, the regex text included) on each hit made a text
    # holding many secrets quadratic in tuple equality.
    if not any(known is rule for known in fired):
        fired.append(rule)


def _sort_key(key: Any) -> tuple[str, str]:
    return (type(key).__name__, key if isinstance(key, str) else repr(key))


def _unique(key: str, taken: set[Any]) -> str:
    if key not in taken:
        return key
    n = 2
    while f"{key}#{n}" in taken:
        n += 1
    return f"{key}#{n}"


def _outcome(walk: _Walk, cleaned: Any) -> RedactionOutcome:
    redactions: list[Redaction] = []
    blocked: list[Redaction] = []
    for (field, rule_name), rule in walk.hits.items():
        record = Redaction(field=field or "$", rule=rule_name, reason=rule.reason,
                           replacement=replacement_for(rule_name))
        (blocked if rule.action == BLOCK else redactions).append(record)
    return RedactionOutcome(payload=cleaned, redactions=tuple(redactions), blocked=tuple(blocked))


def redact_payload(payload: Any, policy: RedactionPolicy, *, at: str = "") -> RedactionOutcome:
    """Walk a JSON-like value (dicts, lists, strings; other scalars pass
    through) and replace every secret the policy finds.

    ``at`` prefixes every field path (``at="evidence[2]"`` when redacting one
    item); a bare string at the top is reported as ``at`` or ``"$"``.
    Records come in a deterministic order: dict keys sorted, list order kept.
    """
    walk = _Walk(policy)
    cleaned = walk.value(payload, at)
    return _outcome(walk, cleaned)


def redact_text(text: str, policy: RedactionPolicy) -> str:
    """Just the cleaned string (for logs and rendering)."""
    cleaned: str = redact_payload(text, policy).payload
    return cleaned


_ESCAPED_QUOTE = lazy(r"""\\(['"])""")


def redact_strings(payload: Any, policy: RedactionPolicy, *, at: str = "", unescape: bool = False) -> RedactionOutcome:
    """The last line of defence before any event is appended: every string
    (dict keys included) goes through the text rules — token shapes, PEM
    blocks, JWTs and ``name = secret`` assignments written inside a string.

    Unlike ``redact_payload`` it does not judge a value by its key's name nor
    treat fields as paths: event payloads are Baton's own structures, whose
    ``key`` or ``session`` fields hold ids, not secrets. Inputs from people
    and agents are cleaned with ``redact_payload`` first, where the full
    rules apply; this pass catches whatever reached an event another way.
    """
    walk = _Walk(policy)
    scrub = walk.scrub

    def text(value: str, parent: str, key: Any) -> str:
        # The field's path is spelled only when a rule fires (most strings are clean).
        if unescape and "\\" in value:
            field = _child(parent, key) if key is not None else parent
            # Only an escaped quote is undone; without one the text is screened once, as it is.
            plain = _ESCAPED_QUOTE.sub(r"\1", value) if "\\'" in value or '\\"' in value else value
            screened = walk.text(plain, field)
            return screened if screened != plain or plain is value else walk.text(value, field)
        screened, fired = scrub(value)
        if fired:
            field = _child(parent, key) if key is not None else parent
            for rule in fired:
                walk.note(field, rule)
        return screened

    memo = walk.memo

    def clean(value: Any, parent: str, key: Any = None) -> Any:
        kind = type(value)
        if kind is str:
            known = memo.get(value)  # a string already screened and found clean: the common case
            if known is not None and not known[1] and not (unescape and "\\" in value):
                return value
            return text(value, parent, key)
        if isinstance(value, str):
            return text(value, parent, key)
        if kind is dict or kind is list or kind is tuple or isinstance(value, (Mapping, list, tuple)):
            field = _child(parent, key) if key is not None else parent
            if kind is list or kind is tuple or (kind is not dict and not isinstance(value, Mapping)):
                return [clean(item, field, i) for i, item in enumerate(value)]
            out: dict[Any, Any] = {}
            for name, item in value.items():
                if type(name) is str and (known := memo.get(name)) is not None and not known[1]:
                    out[name] = clean(item, field, name)
                    continue
                if isinstance(name, str):
                    new_name, fired = scrub(name)
                    if new_name != name:
                        new_name = _unique(new_name, set(value) | set(out))
                    for rule in fired:
                        walk.note(_child(field, new_name), rule)
                    name = new_name
                out[name] = clean(item, field, name)
            return out
        return value

    cleaned = clean(payload, at)
    return _outcome(walk, cleaned)


_ESCAPE = r"%(?:25)*[0-9A-Fa-f]{2}"
"""A percent escape, encoded once or more (``%3D``, ``%253D``, ``%25253D``: a
redirect parameter inside another one); read by ``baton.domain.percent.escapes``
without compiling it."""


def percent_decoded(text: str) -> tuple[str, list[int], list[int]] | None:
    """``text`` with each percent escape of a separator (an ASCII character
    that is not a letter or digit: ``%3D``, ``%22``, ``%26``, ``%2F``,
    ``%0A``; encoded again, ``%253D``) decoded, and for each character of
    that view where it came from in ``text`` (its first and past-its-last
    index: a whole escape for a decoded one); None when there is none. An
    escape of a letter or digit stays as it is: ``x%41KIA…`` is no more a
    boundary than the letter itself (``xAKIA…``)."""
    separators: list[tuple[int, int, str]] = []
    for start, end in escapes(text):
        char = chr(int(text[end - 2:end], 16))
        if char.isascii() and not char.isalnum() and (char.isprintable() or char in "\t\n\r"):
            separators.append((start, end, char))
    return _decoded_view(text, separators)


def _decoded_view(text: str, escaped: list[tuple[int, int, str]]) -> tuple[str, list[int], list[int]] | None:
    """``text`` with each of ``escaped`` (``start``, ``end``, the character it stands for; in
    order, apart) decoded, and for each character of that view its first and past-its-last
    index in ``text`` (a whole escape for a decoded one); None when there is none."""
    if not escaped:
        return None
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    last = 0
    for start, end, char in escaped:
        pieces.append(text[last:start])
        starts.extend(range(last, start))
        ends.extend(range(last + 1, start + 1))
        pieces.append(char)
        starts.append(start)
        ends.append(end)
        last = end
    pieces.append(text[last:])
    starts.extend(range(last, len(text)))
    ends.extend(range(last + 1, len(text) + 1))
    return "".join(pieces), starts, ends


_LETTER_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "a": "\a"}
"""The escapes of JSON, Python, C and a shell's ``$'…'`` written with a letter, and what each stands for."""
_CODE_ESCAPES = {"x": 2, "u": 4, "U": 8}
"""The escapes written with a character's code in hex (``\\x3d``, ``\\u003d``, ``\\U0000003d``): how many digits."""
_HEX = frozenset("0123456789ABCDEFabcdef")


def backslash_escapes(text: str) -> list[tuple[int, int, str]]:
    """Each backslash escape of a separator in ``text``: where it starts and ends, and the
    character it stands for. A run of backslashes counts as one (``\\\\n``: escaped twice,
    as JSON inside a JSON string is), then a letter escape (``\\n``, ``\\t``, ``\\r``…), a
    code escape of an ASCII character that is no letter or digit (``\\u003d``, ``\\x22``),
    or an ASCII character that is none (``\\"``, ``\\/``). An escape of a letter or digit
    (``\\x41``) is none: no boundary, as the letter itself is not. String tests only."""
    found: list[tuple[int, int, str]] = []
    at = text.find("\\")
    while at >= 0:
        past = at + 1
        while text.startswith("\\", past):
            past += 1
        char = text[past:past + 1]
        end, decoded = past + 1, _LETTER_ESCAPES.get(char)
        if char in _CODE_ESCAPES:
            digits = text[past + 1:past + 1 + _CODE_ESCAPES[char]]
            if len(digits) == _CODE_ESCAPES[char] and all(d in _HEX for d in digits) and int(digits, 16) < 128:
                end, decoded = past + 1 + len(digits), chr(int(digits, 16))
                if decoded.isalnum():
                    decoded = None
        elif decoded is None and char.isascii() and char.isprintable() and not char.isalnum() and char != " ":
            decoded = char
        if decoded is not None:
            found.append((at, end, decoded))
            at = text.find("\\", end)
        else:
            at = text.find("\\", past)
    return found


def backslash_decoded(text: str) -> tuple[str, list[int], list[int]] | None:
    """``text`` with each backslash escape of a separator (``backslash_escapes``: ``\\n``,
    ``\\t``, ``\\u003d``, ``\\"``, as JSON- or repr-escaped output pasted into a note holds
    them) decoded, and for each character of that view where it came from in ``text`` (its
    first and past-its-last index: a whole escape for a decoded one); None when there is none.
    ``done\\nsk-…`` hides the boundary a token rule needs behind the escape's letter, as
    ``%0A`` hides it behind a hex digit (``percent_decoded``)."""
    return _decoded_view(text, backslash_escapes(text))


# -- line continuations: a value on the line after its name (docs/security.md, "Line continuations") --

_SHELLS = ("\\", "`", "^")
"""The characters that continue a line: POSIX shells', PowerShell's and cmd's."""
_INDENTED = r"[ \t]+\S"
_ENTRY = r"(?m)[ \t]+[^\s:]+:(?:[ \t]|\r?$)"
"""An indented line that is a mapping entry (``  description: …``, ``  valueFrom:``): a
mapping below a YAML key, never that key's value."""


_DECORATED = r":(?:[ \t]+(?:![^\s:]*|&[^\s:]+))*(?:[ \t]+#.*)?$"
"""A YAML key's colon followed only by a tag (``!!str``), an anchor (``&db``) or a comment:
the value is still below it."""


def _escaped(line: str) -> bool:
    """Whether the backslash ending ``line`` is itself escaped: an even run of them
    (``\\\\``) is backslashes written as text, no line continuation."""
    if not line.endswith("\\"):
        return False
    return (len(line) - len(line.rstrip("\\"))) % 2 == 0


def _quoting(line: str) -> bool:
    """Whether the backquote ending ``line`` closes a Markdown code span (``Run `export
    API_KEY=```: another backquote before it, and no blank): PowerShell's continuation
    follows a blank (``$env:API_KEY = ```) or is the line's only backquote."""
    return line.endswith("`") and not line[-2:-1].isspace() and "`" in line[:-1]


def _continued(line: str) -> tuple[int, bool] | None:
    """Where ``line`` (without its newline) ends as a line continued on the next, and
    whether only when that line is indented (YAML): at its shell continuation, or past
    a YAML key's colon ending it; None when it does not. Only string methods: every
    line's end of a long text is read."""
    if line.endswith(_SHELLS) and not _escaped(line) and not _quoting(line):
        return len(line) - 1, False
    blank = line.rstrip(" \t")
    indicator = blank.rstrip("+-123456789")
    if indicator.endswith(("|", ">")) and len(blank) - len(indicator) <= 2:
        blank = indicator[:-1].rstrip(" \t")
    if blank.endswith(":"):
        return len(blank), True
    # The pattern opens with a colon: a line without one (a brief's "## Recent decisions")
    # compiles and searches nothing.
    if ":" in blank and ("#" in blank or "!" in blank or "&" in blank):
        decorated = compiled(_DECORATED).search(blank)
        if decorated is not None:
            return decorated.start() + 1, True
    return None


def _below(text: str, at: int) -> bool:
    """Whether the line at ``at`` is a YAML value below the key ending the line before it:
    indented, and no mapping entry of its own."""
    return bool(compiled(_INDENTED).match(text, at)) and not compiled(_ENTRY).match(text, at)


def joined(text: str) -> tuple[str, list[int], list[int]] | None:
    """``text`` with each line continuation removed (a shell's, with its newline; after a
    YAML key's colon, what follows it on its line and the newline, when the next line is
    indented), and for each character of that view its index in ``text`` and the index
    past it; None when ``text`` has none (the rules have read it as it is)."""
    pieces: list[str] = []
    starts: list[int] = []
    last = begin = 0
    newline = text.find("\n")
    while newline >= 0:
        end = newline - 1 if newline and text[newline - 1] == "\r" else newline
        continued = _continued(text[begin:end])
        if continued is not None and (not continued[1] or _below(text, newline + 1)):
            cut = begin + continued[0]
            pieces.append(text[last:cut])
            starts.extend(range(last, cut))
            last = newline + 1
        begin = newline + 1
        newline = text.find("\n", begin)
    if not pieces:
        return None
    pieces.append(text[last:])
    starts.extend(range(last, len(text)))
    return "".join(pieces), starts, [i + 1 for i in starts]


def _overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``start``–``end`` overlaps one of ``spans`` (sorted, apart)."""
    i = bisect.bisect_left(spans, (end,)) - 1  # the last span beginning before this one ends
    return i >= 0 and spans[i][1] > start


def _replace_spans(text: str, spans: list[tuple[int, int, Rule]],
                   made: list[tuple[int, int, Rule]] | None = None) -> tuple[str, list[Rule]]:
    """Each span replaced by its rule's marker; a span overlapping the one
    before it is covered by that marker. The rules whose marker was used;
    ``made``, when given, receives each replaced span (merged) with its rule."""
    merged: list[list[Any]] = []
    for start, end, rule in sorted(spans, key=lambda span: (span[0], -span[1])):
        if merged and start < merged[-1][1]:  # overlaps the span before it: that marker covers this one too
            merged[-1][1] = max(merged[-1][1], end)
            continue
        merged.append([start, end, rule])
    out, last, applied = [], 0, []
    for start, end, rule in merged:
        out.append(text[last:start])
        out.append(replacement_for(rule.name))
        applied.append(rule)
        last = end
        if made is not None:
            made.append((start, end, rule))
    out.append(text[last:])
    return "".join(out), applied


class _Origins:
    """The markers a walk made in a text, each with its place in the text as given
    (``marks``: place now, place in the text as given, rule; in order). Every
    replacement is of text between markers, so a place outside a marker is the
    given one shifted by the markers before it."""

    __slots__ = ("marks",)

    def __init__(self) -> None:
        self.marks: list[tuple[int, int, int, int, Rule]] = []

    def update(self, spans: list[tuple[int, int, Rule]]) -> None:
        """``spans`` (in the text now, in order, apart, none over a marker) were each
        replaced by their rule's marker."""
        marks, kept = self.marks, []
        i = shift = given = 0  # given: a place's shift into the text as given, past the last mark
        for start, end, rule in spans:
            while i < len(marks) and marks[i][0] < start:
                now, now_end, at, at_end, known = marks[i]
                kept.append((now + shift, now_end + shift, at, at_end, known))
                given = at_end - now_end
                i += 1
            width = len(replacement_for(rule.name))
            kept.append((start + shift, start + shift + width, start + given, end + given, rule))
            shift += width - (end - start)
        for now, now_end, at, at_end, known in marks[i:]:
            kept.append((now + shift, now_end + shift, at, at_end, known))
        self.marks = kept

    def covered(self) -> list[tuple[int, int, Rule]]:
        """Each marker's span in the text as given, with its rule."""
        return [(at, at_end, rule) for _, _, at, at_end, rule in self.marks]


def continued_word_end(text: str, end: int) -> int:
    """Past the rest of the word a line continuation splits after ``end``
    (``Zx9…\\`` or cmd's ``Zx9…^`` ending a line, its next line going on at once:
    one word to the shell, through every further continuation); ``end`` when no
    continuation is crossed. PowerShell's backquote is left out: it parts words."""
    word = _word_end(text, end)
    past = _chain_end(text, word, {})
    return past if past > word else end


def _word_end(text: str, at: int) -> int:
    """The first blank at or after ``at`` (``str.isspace``), or the text's end."""
    return compiled(_WORD_REST).match(text, at).end()  # type: ignore[union-attr]


_WORD_REST = r"\S*"
"""The rest of a word: up to a blank (``\\s`` is ``str.isspace`` on a ``str``)."""


def _chain_end(text: str, at: int, chains: dict[int, int]) -> int:
    """Where the word ending at ``at`` ends, past every line continuation that joins
    the next line's first word to it (``at`` when none does). ``chains`` remembers
    each word end already followed: a chain is read once whatever joins it."""
    path: list[int] = []
    while at not in chains:
        path.append(at)
        after = _continued_word(text, at)
        if after < 0:
            chains[at] = at
            break
        at = after
    past = chains[at]
    for word in path:
        chains[word] = past
    return past


def _continued_word(text: str, at: int) -> int:
    """The end of the next line's first word when the word ending at ``at`` is split
    there by a line continuation (its next line going on at once); -1 when not."""
    newline = at + 1 if text.startswith("\r\n", at) else at if text.startswith("\n", at) else -1
    if newline < 0 or newline + 1 >= len(text) or text[newline + 1].isspace():
        return -1
    line_start = text.rfind("\n", 0, at) + 1  # once per line: only its last word ends at its line break
    continued = _continued(text[line_start:at])
    if continued is None or continued[1] or text[at - 1] == "`" or at - line_start < 2 or text[at - 2].isspace():
        return -1
    return _word_end(text, newline + 1)


def _outside(spans: list[tuple[int, int, Rule]], covered: list[tuple[int, int, Rule]]) -> list[tuple[int, int, Rule]]:
    """``spans`` but those inside one of ``covered`` (in order, apart): nothing to widen."""
    starts = [start for start, _, _ in covered]
    kept = []
    for start, end, rule in spans:
        i = bisect.bisect_right(starts, start) - 1
        if not (i >= 0 and covered[i][1] >= end):
            kept.append((start, end, rule))
    return kept


_KEY_READ = 256
"""How much of a YAML key's line, before its colon, a value below it is judged with."""
_MAPPING_ENTRY = r"[^\s:]+:(?:[ \t]|$)"
"""A line's content that is a mapping entry (``description: …``, ``valueFrom:``)."""


def _lines(text: str) -> list[tuple[int, int]]:
    """Each line's span, without its line break (``\r\n`` too)."""
    spans, begin = [], 0
    while begin <= len(text):
        newline = text.find("\n", begin)
        end = len(text) if newline < 0 else newline
        spans.append((begin, end - 1 if end > begin and text[end - 1] == "\r" else end))
        if newline < 0:
            break
        begin = newline + 1
    return spans


def yaml_values(text: str) -> list[tuple[str, list[tuple[int, int]], bool]]:
    """Each YAML value written below its key: the key's line up to its colon, and the
    spans of the value's lines' content. A key ending its line (with a tag, an anchor,
    a comment or a block scalar's indicator after the colon, ``_continued``) has below
    it, more indented and across blank lines, a block scalar (``|``, ``>``: every
    line), a plain scalar (its lines up to a mapping entry) or a sequence (each item
    not itself a mapping, with its more indented lines: a value of its own); a
    mapping below the key is no value. Whether each is an item of a sequence. Linear:
    the lines of a scalar are read once, and a sequence's lines below as many keys as
    they are indented deep (``_values_below``)."""
    lines = _lines(text)
    found: list[tuple[str, list[tuple[int, int]], bool]] = []
    i = 0
    while i < len(lines):
        start, end = lines[i]
        line = text[start:end]
        continued = _key_ending(line)
        if continued is None:
            i += 1
            continue
        content = line.lstrip(" \t")
        indent = len(line) - len(content)
        block = line[continued[0]:].split("#")[0].rstrip(" \t+-123456789").endswith(("|", ">"))
        item = content == "-" or content.startswith(("- ", "-\t"))
        values, j, scalar = _values_below(text, lines, i + 1, indent, block, item)
        key = line[max(0, continued[0] - _KEY_READ):continued[0]]  # the name ends the line: a long one is read once
        found.extend((key, value, not scalar) for value in values)
        i = j if scalar else i + 1  # a scalar's lines are no keys; a sequence's items may hold some
    return found


def _key_ending(line: str) -> tuple[int, bool] | None:
    """``_continued`` of a line that is a YAML key ending it (``password:``, ``- a: |``,
    ``token: &db # prod``); None for any other line."""
    continued = _continued(line) if line.rstrip(" \t")[-1:] in ":|>+-0123456789&" or "#" in line else None
    return continued if continued is not None and continued[1] else None


def _values_below(text: str, lines: list[tuple[int, int]], j: int, indent: int,
                  block: bool, item_key: bool = False) -> tuple[list[list[tuple[int, int]]], int, bool]:
    """The values below a key indented by ``indent`` from line ``j`` on, the line
    after them, and whether they are one scalar's lines (no sequence). A key that is
    itself an item (``item_key``: ``- password:``) takes the sibling items after it
    up to the next one that is itself such a key (``- a:``), whose own they are then:
    each item is read below a bounded number of keys (a list of ``- a:`` lines was
    quadratic)."""
    values: list[list[tuple[int, int]]] = []
    item_indent = -1
    current: list[tuple[int, int]] | None = None
    bare = False
    while j < len(lines):
        start, end = lines[j]
        content = text[start:end].lstrip(" \t")
        if not content:
            j += 1
            continue
        at = end - len(content)
        depth = at - start
        item = content == "-" or content.startswith(("- ", "-\t"))
        if block:
            if depth <= indent:
                break
            if not values:
                values.append([])
            values[0].append((at, end))
        elif item and (item_indent < 0 and depth >= indent and not values or depth == item_indent):
            if item_key and depth == indent and _key_ending(text[start:end]) is not None:
                break
            item_indent = depth
            rest = content[1:].lstrip(" \t")
            while rest == "-" or rest.startswith(("- ", "-\t")):  # an item that is a sequence: its first item
                rest = rest[1:].lstrip(" \t")
            bare = not rest  # ``-`` alone: the item's value is on its more indented lines
            current = None if bare or compiled(_MAPPING_ENTRY).match(rest) else [(end - len(rest), end)]
            if current is not None:
                values.append(current)
        elif item_indent >= 0 and depth > item_indent:
            if bare:  # the first line of a ``-`` alone's value: a scalar's, unless a mapping entry
                bare = False
                if not compiled(_MAPPING_ENTRY).match(content):
                    current = []
                    values.append(current)
            if current is not None:
                current.append((at, end))
        elif depth <= indent or item_indent >= 0 or compiled(_MAPPING_ENTRY).match(content):
            break
        else:
            if not values:
                values.append([])
            values[0].append((at, end))
        j += 1
    return values, j, bool(values) and item_indent < 0
