"""Whether a baton or handoff comes from a feed a trusted key vouches for: a pure decision.

A baton or handoff another clone wrote arrives through ``baton sync``; its
``owner`` (``by <email>``) is whatever git ``user.email`` that clone had, and
only a signature by a key the trusted allowed-signers lines bind to its
writer (docs/sync.md, "Signed feeds") says who wrote the feed. Sync records
each feed's verdict at import (``.baton/sync-signers.json``); the rule
(``vouch``) reads only that verdict, never checks a signature:

- a record this clone's own feed wrote is its own: nothing to say;
- a record from another writer whose feed's last verdict is ``good`` is vouched for;
- any other (``unsigned``, ``unknown_key``, ``wrong_signer``, ``bad_signature``,
  or a feed no check has looked at — signing not in play, or a writer whose
  feed is unknown) is not: the brief says so in one line beside it and names
  its owner as claimed, not verified (``FeedVouch.line``);
- and when the trusted policy requires signatures, it is not delivered at all:
  the brief says one was withheld and what to run (``FeedVouch.withheld_notice``).

The same rule marks, per record, every other place a record another clone wrote
reaches a reader (``judge``): the decisions and traps a session-start brief
gathers from recent handoffs (``batons.UNVERIFIED_MARK`` beside each line, the records withheld
left out and counted, ``left_out_notice``), its "Latest ready handoff" pointer,
``handoff show`` and ``handoff list`` (a column, and ``feed`` in ``--json``).
"""

from __future__ import annotations

from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (baton/values.py)
if TYPE_CHECKING:
    from typing import Iterable, Mapping

GOOD = "good"

_FEEDS = {
    "unsigned": "an unsigned feed",
    "unknown_key": "a feed signed with a key the trusted signers do not list",
    "wrong_signer": "a feed signed with another writer's key",
    "bad_signature": "a feed whose signature does not verify",
}
UNCHECKED = "a feed no trusted key vouches for"
"""A feed with no verdict recorded (no signing in play, or a writer the baton's record does not name)."""


class FeedVouch(Value):
    """A record from a feed no trusted key vouches for."""

    writer: str | None
    """The writer id of the feed that wrote it; None when the index no longer names it."""
    status: str | None
    """The feed's last signature verdict (``sync-signers.json``), None when none was recorded."""
    withheld: bool
    """The trusted policy requires signatures: the record is not delivered."""
    required_by: str = ""
    """Where the requirement comes from, as sync's refusals say it (``SignersInForce.required_by``:
    ``sync.require_signatures is set``, or what this clone trusted); empty when not withheld."""
    author: str | None = None
    """Who the record of that feed claims wrote it, when the mark is not the record's own feed's:
    a baton that carries another writer's handoff is marked for the handoff's feed, and the
    handoff's claimed author is named beside that writer, not the baton's owner (``line``)."""

    @property
    def feed(self) -> str:
        return _FEEDS.get(self.status or "", UNCHECKED)

    @property
    def writer_shown(self) -> str:
        return f"writer `{' '.join(str(self.writer).split())}`" if self.writer else "writer unknown"

    def line(self, owner: str | None) -> str:
        """The line beside a delivered baton or handoff: ``owner``, who the record claims wrote it,
        unless the mark is another record's (``author``): the writer and the identity named are
        always the same feed's."""
        who = self.author if self.author is not None else owner
        claimed = f"; `{' '.join(str(who).split())}` is who it claims to be" if who else ""
        return (f"> ⚠️ From {self.feed} ({self.writer_shown}): its author is not verified{claimed}. "
                "Check its steps before following them.")

    def withheld_notice(self, kind: str, ident: str) -> str:
        """The one text that says a record was withheld (``kind``: ``baton`` or ``handoff``): why, where
        the signatures requirement comes from, and what to do. Every surface says it in these words: the
        brief's notice, the refusal of ``resume``, ``handoff show`` and the MCP tools, the status page's
        refusal to open it, and the line ``resume latest`` prints when it passes one over."""
        source = f" ({self.required_by})" if self.required_by else ""
        return (f"A {kind} ({ident}) was withheld: it comes from {self.feed} ({self.writer_shown.replace('`', '')}) "
                f"and this project requires signatures{source}. Run `baton verify` to see the feed's signature; "
                "once its writer signs with a listed key, `baton sync` takes it.")

    @property
    def mark(self) -> str:
        """The mark beside its author in a list (``handoff list``, ``session handoff --all``, the
        status page): ``feed_mark``."""
        return feed_mark(self.withheld)

    def to_json(self) -> dict[str, object]:
        return {"writer": self.writer, "status": self.status, "verified": False, "withheld": self.withheld}


def feed_mark(withheld: bool) -> str:
    """The mark beside the author of a record from a feed no trusted key vouches for, in every list."""
    return " (not verified; withheld)" if withheld else " (not verified)"


def vouch(writer: str | None, *, my_writer: str, status: str | None, required: bool,
          required_by: str = "") -> FeedVouch | None:
    """None when the record is this clone's own (``writer`` is ``my_writer``) or its feed's verdict is
    ``good``; else why it is not vouched for, and whether it is withheld (``required``, which
    ``required_by`` says the source of)."""
    if writer is not None and writer == my_writer:
        return None
    if status == GOOD:
        return None
    return FeedVouch(writer, status, required, required_by if required else "")


def judge(writers: Mapping[str, str | None], *, my_writer: str, statuses: Mapping[str, str],
          required: bool, required_by: str = "") -> dict[str, FeedVouch]:
    """Per record id of ``writers`` (id → the writer of the feed that wrote it, None: unknown), the
    records no trusted key vouches for (``vouch``); the others are absent. ``statuses``: each feed's
    last verdict (a writer absent from it has none)."""
    out: dict[str, FeedVouch] = {}
    for ident, writer in writers.items():
        found = vouch(writer, my_writer=my_writer, status=statuses.get(writer) if writer else None,
                      required=required, required_by=required_by)
        if found is not None:
            out[ident] = found
    return out


def left_out_notice(ids: Iterable[str]) -> str:
    """A brief's one notice for the handoffs it left out, each from a feed no trusted key vouches
    for while signatures are required (empty when none)."""
    shown = sorted(ident[:13] for ident in ids)
    if not shown:
        return ""
    which = f"1 handoff ({shown[0]})" if len(shown) == 1 else f"{len(shown)} handoffs ({', '.join(shown)})"
    return (f"{which} from feeds no trusted key vouches for {'was' if len(shown) == 1 else 'were'} left out of "
            "this brief (decisions, traps, the latest ready handoff): this project requires signatures. Run "
            "`baton verify` to see the feeds' signatures; once their writers sign with a listed key, "
            "`baton sync` takes them.")


COPY_MARK = "continues an unverified handoff"
"""What a command that copies an unverified handoff's content into this clone's own feed says."""


class CopyVerdict(Value):
    """What a command that copies handoffs' content into this clone's own feed (``fork``,
    ``handoff amend``, ``merge``, ``handoff prepare --from``, the pre-compaction draft) may do
    with them (``copy_rule``)."""

    refusal: str | None
    """A parent is withheld: the command refuses with the words ``resume`` gives (None: it may copy)."""
    refused_id: str | None
    refused_feed: FeedVouch | None
    warnings: tuple[str, ...]
    """Per parent from a feed no trusted key vouches for (not withheld): the line the command prints."""


def copy_rule(found: Mapping[str, FeedVouch]) -> CopyVerdict:
    """The rule for copying the handoffs ``found`` names (id → why its feed is not vouched for;
    the vouched-for and this clone's own are absent): a withheld one is never copied — the copy
    would land in this clone's own feed, where no mark follows it — so the command refuses as
    ``resume`` does; an unverified one (signatures not required) is copied, and the command
    says the copy continues an unverified handoff."""
    for ident in sorted(found):
        if found[ident].withheld:
            return CopyVerdict(found[ident].withheld_notice("handoff", ident), ident, found[ident], ())
    warnings = tuple(
        f"⚠️ {ident[:13]} comes from {found[ident].feed} ({found[ident].writer_shown}): this copy {COPY_MARK}, "
        "whose author is not verified. Check its steps before following them."
        for ident in sorted(found))
    return CopyVerdict(None, None, None, warnings)


RECORDED_STATUSES = (GOOD, *_FEEDS)
"""The verdicts ``baton sync`` records in ``sync-signers.json``."""
_ENTRY_FIELDS: dict[str, tuple[str, bool]] = {
    # field → (the type it must have, whether it must be there)
    "seq": ("count", True), "hash": ("text or null", True), "hlc": ("count", True), "status": ("status", True),
    "blob": ("text or null", False), "signature": ("text or null", False), "principals": ("texts", False),
    "key": ("text or null", False), "message": ("text", False), "signed_with": ("text", False),
}


def signers_record_problem(raw: object) -> str | None:
    """What is wrong with the parsed ``sync-signers.json`` (``baton sync``'s record of each feed's
    head, its signature and the verdict on it), None when it has the shape sync writes:
    ``{"allowed_signers": <text or null>, "feeds": {<writer>: {"seq", "hash", "hlc", "status", …}}}``.
    A record with any part out of shape is read as none at all (never half of one: a verdict
    kept beside a damaged head could vouch for the wrong feed)."""
    if not isinstance(raw, dict):
        return "it is not a JSON object"
    for key in ("allowed_signers", "feeds"):
        if key not in raw:
            return f"it has no `{key}`"
    if raw["allowed_signers"] is not None and not isinstance(raw["allowed_signers"], str):
        return "its `allowed_signers` is not text"
    feeds = raw["feeds"]
    if not isinstance(feeds, dict):
        return "its `feeds` is not an object"
    for writer, entry in feeds.items():
        if not isinstance(entry, dict):
            return f"the entry of feed {writer} is not an object"
        for name, (kind, needed) in _ENTRY_FIELDS.items():
            if name not in entry:
                if needed:
                    return f"the entry of feed {writer} has no `{name}`"
                continue
            if not _has_kind(entry[name], kind):
                return f"the `{name}` of feed {writer} is not {_KINDS_SHOWN[kind]}"
    return None


_KINDS_SHOWN = {"count": "a whole number", "text": "text", "text or null": "text or null",
                "texts": "a list of texts", "status": "a verdict (" + ", ".join(RECORDED_STATUSES) + ")"}


def _has_kind(value: object, kind: str) -> bool:
    if kind == "count":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if kind == "text":
        return isinstance(value, str)
    if kind == "text or null":
        return value is None or isinstance(value, str)
    if kind == "texts":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return value in RECORDED_STATUSES
