"""What the status page and ``baton status`` show, and what they may do.

The web layer (``baton.web``) only parses HTTP and calls one method of the
application object, which calls one function here; everything it decides
lives in this module:

- which project a request may address (``?project=`` must be this project's
  id; missing or ``all`` is an input error, another id is not found),
- what leaves the process: every string of every answer goes through the
  project's redaction policy (the spec's ``sanitizeToolOutput``), so a secret
  that reached a baton by a path redaction did not cover at capture time, or a
  rule added since, is still never shown,
- where a server may listen (loopback only: a policy block otherwise).

Each function takes the opened project of the caller's application object
(a long-running server keeps one, and catches up per request). One handoff's
view (the rendered record) is in ``baton.commands.status_handoff``: the
overview and ``baton status`` need none of its rendering.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from typing import TYPE_CHECKING, Any, cast

from baton.commands import archive_notices, forgotten_derived
from baton.commands.baton_cases import dismiss_baton, list_pending_batons, render_claim_conflicts, render_unseen
from baton.commands.edits_apart import open_edits
from baton.commands.handoff_facts import live_freshness
from baton.commands.identity import owner_stamp, owner_under
from baton.commands.listing import list_handoffs
from baton.commands.synced_feed import behind_ref, behind_ref_advice, synced_heads
from baton.commands.writer_claim import takes_new_writer
from baton.domain import lineage
from baton.domain.authorship import author_label, wrote
from baton.domain.batons import PENDING, same_owner
from baton.domain.feed_vouch import feed_mark
from baton.domain.handoff import stored_handoff
from baton.domain.quality import score_quality
from baton.domain.redaction import RedactionPolicy, redact_text
from baton.domain.short_ids import short_id
from baton.domain.tracked_files import tracked_problem
from baton.domain.visible import printable
from baton.domain.wording import clipped
from baton.errors import BatonError, ConfigError, HandoffInputError, InputError, NotFound, PolicyBlock, named_parameters
from baton.model import frozen
from baton.policy import load_policy
from baton.projections import handoffs
from baton.projections.batons import baton_creators
from baton.projections.lineage_graph import load_component
from baton.sync.signers import feed_signers
from baton.sync.signing import SIGNING_FORMATS, require_signatures, signers_problem, signing_setup_at
from baton.sync.state import DEFAULT_REMOTE, diverged_line, sharing, state_problem
from baton.sync.tracked import tracked_baton_files

if TYPE_CHECKING:
    from baton.commands.context import Project
    from baton.domain.feed_vouch import FeedVouch

LATEST_HANDOFFS = 10
"""How many of the newest handoffs the overview lists."""
LINEAGE_NODES = 200
"""At most this many nodes in the overview's lineage graph (the components of the latest handoffs)."""

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 3124

FULL_ID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
"""A resource id in a URL is a full handoff id (as for DELETE): never a prefix."""


# -- redaction of everything shown ------------------------------------------------

def sanitize_output(value: Any, redaction) -> Any:
    """``value`` with every string (at any depth) redacted by ``redaction``
    (a ``RedactionPolicy``). Keys are this module's own field names and stay."""
    if isinstance(value, str):
        return redact_text(value, redaction)
    if isinstance(value, dict):
        return {k: sanitize_output(v, redaction) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitize_output(v, redaction) for v in value]
    return value


def redaction_of(project):
    """The project's redaction policy. A malformed policy stops the answer
    (InputError naming the file): showing data under a policy we could not
    read would be failing open."""
    return load_policy(project.paths, project.config).redaction


def sanitize_for_project(project: "Project | None", value: Any) -> Any:
    """An answer of the status API (a result or an error body) as the page
    shows it: redacted with the project's policy, falling back to the
    built-in rules when the project or its policy cannot be read — an error
    message must never be the one thing left unredacted — and every string
    made printable as the command line prints text (``printable``: a
    bidirectional control shows as ``\\u202e``, ESC as ``\\x1b``), since the
    page puts each one before a person as it is."""
    if project is None:
        redaction = RedactionPolicy()
    else:
        try:
            redaction = redaction_of(project)
        except BatonError:
            redaction = RedactionPolicy()
    return _printable_strings(sanitize_output(value, redaction))


def _printable_strings(value: Any) -> Any:
    """``value`` with every string (at any depth) through ``printable``; keys stay."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {k: _printable_strings(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_printable_strings(v) for v in value]
    return value


# -- which project a request addresses -----------------------------------------------

def check_requested_project(requested: str | None, project_id: str) -> None:
    """The status API serves one project, named explicitly.

    Raises:
        InputError: ``project`` is missing, empty or ``all`` (the spec's 400).
        NotFound: it names another project (404).
    """
    if requested is None or not requested.strip() or requested.strip().lower() == "all":
        raise InputError("the status API needs ?project=<project id> (one project; 'all' is not served)",
                         details={"projectId": project_id})
    if requested.strip() != project_id:
        raise NotFound(f"this server serves project {project_id}, not {requested.strip()!r}",
                       details={"projectId": project_id})


# -- the overview -------------------------------------------------------------------

@frozen
class StatusOverview:
    """The status API object, already redacted: ``{items, total, projectId,
    lastSeenRoot}`` as the spec names it, plus ``latestHandoffs`` (handoffs
    proper, with branch, freshness and score) and ``latestBatons`` (the
    session batons' records, apart), every member camelCase."""

    payload: dict[str, Any]
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return self.payload

    def render(self) -> str:
        p = self.payload
        lines = [f"Project {p['projectId']}  ({p['lastSeenRoot']})", ""]
        items = p["items"]
        lines.append(f"Pending batons: {p['total']}")
        if items:
            rows: list[tuple[str, ...]] = [("ID", "CREATED", "FOR", "NEXT STEP")]
            for b in items:
                first = b["nextSteps"][0] if b["nextSteps"] else ""
                more = f" (+{len(b['nextSteps']) - 1})" if len(b["nextSteps"]) > 1 else ""
                if b.get("feed", {}).get("withheld"):
                    first, more = "(withheld)", ""
                rows.append((b["shortId"], b["createdAt"], _baton_scope(b) + (b.get("feedMark") or ""),
                             clipped(first, 40) + more))
            lines.extend(_table(rows))
            lines.extend(f"{b['shortId']}: {b['feedNotice']}" for b in items if b.get("feedNotice"))
        lines.extend(render_unseen(p.get("supersededUnseen") or []))
        lines.extend(render_claim_conflicts(p.get("claimConflicts") or []))
        for s in p.get("signers") or []:  # signed feeds (docs/sync.md)
            lines.append(f"Signer of feed {s['feed']}: " + (f"{s['signer']} ({s['key']})" if s["status"] == "good"
                                                           else f"{s['status']}: {s['message']}"))
        lines.extend(line.replace("`restore_own_feed`", "--restore-own-feed") for line in _render_sharing(p.get("sync")))
        if p.get("syncStateDamaged"):
            lines.append(f"Shared: unknown: {p['syncStateDamaged']}")
        if p.get("syncSignersDamaged"):
            lines.append(f"Signers: unknown: {p['syncSignersDamaged']}")
        if p.get("trackedByGit"):
            lines.append(f"Not safe: {p['trackedByGit']['problem']}")
        lines.extend(f"Missing: {named_parameters(b['advice'], {'restore_own_feed': '--restore-own-feed'})}"
                     for b in p.get("behindRef") or ())
        lines.extend(p.get("forgottenByTeammates") or [])
        lines.extend(p.get("archivedByTeammates") or [])
        lines.extend(e["line"] for e in p.get("concurrentEdits") or () if isinstance(e, dict) and e.get("line"))

        lines.extend(p.get("derivedOfForgotten") or [])
        latest = p["latestHandoffs"]
        lines.append("")
        total = p["handoffTotal"]
        lines.append(f"Latest {len(latest)} of {total} handoff{'' if total == 1 else 's'}" if latest
                     else "Latest handoffs: none yet")
        if latest:
            rows = [("ID", "STATUS", "CREATED", "BRANCH", "BY", "TITLE")]
            for h in latest:
                flags = f" [{','.join(h['flags'])}]" if h["flags"] else ""
                mark = " !! conflict candidate" if h.get("conflicts") else ""
                rows.append((h["shortId"], h["status"] + flags, h["createdAt"], clipped(h.get("branch") or "-", 24),
                             _by(h.get("owner"), h.get("writer"), h.get("mine")) + _feed_mark(h.get("feed")),
                             clipped(h["title"], 50) + mark))
            lines.extend(_table(rows))
        conflicts = (p.get("lineage") or {}).get("conflicts") or []
        if conflicts:
            lines.append("")
            lines.append(f"Conflict candidates: {len(conflicts)} (resolve with `baton merge`; see `baton lineage`)")
        return "\n".join(lines)


def _baton_scope(b: dict[str, Any]) -> str:
    """A pending baton's FOR cell, with who left it (``writtenBy``: its ``leftBy``,
    ``_add_authors``): a private baton left by the owner it is for (``same_owner``) is
    marked ``(you)`` when that is the reader; one left for someone else
    (``session end --owner``) and a shared one name who left it (``, by X``)."""
    by = author_label(b.get("writtenBy"), b.get("writer"))
    if not b["shared"]:
        scope = f"{clipped(b['owner'], 24)} on {clipped(b['branch'], 24)}"
        if not b.get("writtenBy") or same_owner(b["writtenBy"], b["owner"]):
            return scope + (" (you)" if b.get("mine") else "")
        return scope + (", by you" if b.get("mine") else f", by {clipped(by, 24)}")
    if b.get("mine"):
        return "shared (you)"
    return "shared" + (f", by {clipped(by, 24)}" if by != "-" else "")


def _by(owner: str | None, writer: str | None, mine: bool | None) -> str:
    """Who wrote a record, as the text table shows it: ``you`` for the reader's
    own (the table stays narrow: a baton's FOR column already names an owner),
    else its owner (or writer id), clipped like the owners of FOR."""
    return "you" if mine else clipped(author_label(owner, writer), 24)


def _feed(listed: Any, ident: str) -> dict[str, Any] | None:
    """The row's ``feed`` (``handoff list --json``'s): None when a trusted key vouches for it or it is this clone's own."""
    found = listed.feeds.get(ident) if listed is not None else None
    return found.to_json() if found is not None else None


def _feed_mark(feed: dict[str, Any] | None) -> str:
    """The BY column's mark, as ``handoff list`` shows it (``baton.domain.feed_vouch``)."""
    return feed_mark(bool(feed.get("withheld"))) if feed else ""


def _render_sharing(sync: dict[str, Any] | None) -> list[str]:
    """This clone's own work not yet on a remote (only once it synced)."""
    if not sync:
        return []
    if sync.get("sharedUnknown"):
        return [f"Shared: not known yet — the last sync was made by an older Baton, which kept no record of what "
                f"a remote took of this clone's feed {sync['writer']} (seq {sync['seq']}): the next `baton sync` "
                f"finds out and records it"]
    remote = sync.get("remote") or "a remote"
    if sync.get("diverged"):
        return [diverged_line(sync)]
    n = sync["unshared"]
    if not n and not sync["seq"]:  # synced, but this clone has written nothing of its own
        return [f"Shared: nothing written yet — this clone's feed {sync['writer']} holds no event (synced with "
                f"{remote})"]
    if not n:
        return [f"Shared: every event of this clone's feed {sync['writer']} is on {remote} (seq {sync['seq']})"]
    then = ("sync.require_signatures is set and git names no signing key here: set user.signingkey "
            "and gpg.format ssh (docs/sync.md, \"Signed feeds\"), then run `baton sync`"
            if sync.get("signingKeyMissing") else "run `baton sync`")
    if sync.get("remote") not in (None, DEFAULT_REMOTE):
        then += f" with remote {remote} (the remote this clone synced with last)"
    return [f"Not yet shared: {n} event{'' if n == 1 else 's'} of this clone's feed {sync['writer']} "
            f"(seq {seq_range(sync['sharedSeq'] + 1, sync['seq'])}): {then}"]



def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]


_CAMEL = {"short_id": "shortId", "created_at": "createdAt", "updated_at": "updatedAt"}


def _row_item(row, runner, project, policy) -> dict[str, Any]:
    """One handoff row as the page shows it (camelCase, like every member of
    the status API), with its freshness derived now and its continuity score."""
    item = {_CAMEL.get(k, k): v for k, v in row.to_json().items()}
    item["freshness"] = None
    item["score"] = None
    doc = runner.get("handoffs", row.id)
    if doc is not None:
        try:
            handoff = stored_handoff(doc)
        except HandoffInputError:
            return item
        freshness = live_freshness(project.paths.worktree, handoff, policy, history=False)
        item["freshness"] = freshness.state
        item["score"] = score_quality(handoff, freshness_state=freshness.state).overall
    return item


def _baton_item(record, runner, found: "FeedVouch | None" = None) -> dict[str, Any]:
    """A pending baton's card. One from a feed no trusted key vouches for (``found``, the rule a
    session start asks) says so in the words a session would be told (``feedNotice``: the line
    beside a delivered baton, or the notice of a withheld one, whose steps the card leaves out,
    as the session-start brief does); ``feedMark`` is the mark beside its author."""
    item = record.to_json()
    if found is not None:
        item.update(feed=found.to_json(), feedMark=found.mark,
                    feedNotice=found.withheld_notice("baton", record.id) if found.withheld
                    else found.line(record.owner if record.shared else None).removeprefix("> "))
        if found.withheld:
            item.update(nextSteps=[], failedApproaches=[], openQuestions=[])
    item["shortId"] = short_id(record.id)
    handoff = runner.get("handoffs", record.id) if "handoffs" in runner.by_name else None
    status = handoff.get("status") if isinstance(handoff, dict) else None
    item["handoffStatus"] = status if isinstance(status, str) else None
    return item


def _add_authors(project: "Project", items: list[dict[str, Any]], me: str) -> None:
    """Each pending baton's author, read where the brief reads who left it: ``writtenBy``, the
    baton's ``leftBy`` (the actor of its ``baton.created``), ``writer``, the feed that wrote that
    event (``baton_creators``), and ``mine`` (the reader, owner ``me``, left it). A handoff handed
    on with ``--from`` was captured by someone else: its capture names who wrote the handoff, not
    who left the baton. Only a baton whose event names neither (a ledger from before Baton kept
    them) is attributed to the capture of the handoff it carries."""
    if not items:
        return
    runner = project.reading()
    captured = handoffs.authors_of(runner.db, [item["id"] for item in items if not item.get("leftBy")])
    for item in items:
        doc = runner.get("batons", item["key"])
        writer = baton_creators([(item["key"], doc)]).get(item["id"]) if isinstance(doc, dict) else None
        owner = item.get("leftBy")
        if not owner:
            capture_writer, owner = captured.get(item["id"], ("", ""))
            writer = writer or capture_writer
        item.update(writer=writer or None, writtenBy=owner or None,
                    mine=wrote(owner, writer, my_owner=me, my_writer=project.writer))


def baton_states(runner) -> dict[str, str]:
    """Per handoff id, the state of the baton that carries it (``pending``,
    ``claimed``, ``superseded``, ``cancelled``, ``dismissed``): what the page
    shows for a session baton, whose handoff record stays a draft. One
    handoff handed on several times is pending while any of its batons is."""
    states: dict[str, str] = {}
    if "batons" not in runner.by_name:
        return states
    for _key, doc in runner.docs("batons"):
        if not isinstance(doc, dict):
            continue
        for record in [doc.get("current"), *(doc.get("previous") or ())]:
            if not isinstance(record, dict) or not isinstance(record.get("id"), str):
                continue
            status = record["status"] if isinstance(record.get("status"), str) else PENDING
            if states.get(record["id"]) != PENDING:
                states[record["id"]] = status
    return states


def status_overview(
    project: "Project",
    *,
    requested_project: str | None = None,
    check_project: bool = False,
    latest: int = LATEST_HANDOFFS,
    clip_titles: bool = False,
) -> StatusOverview:
    """Pending batons (newest first) and the latest handoffs of one project, redacted.

    With ``check_project`` (the HTTP API), ``requested_project`` must be this
    project's id (see :func:`check_requested_project`). With ``clip_titles``
    (the page's tables), each title of ``latestHandoffs``, ``latestBatons``
    and the lineage's nodes is clipped as ``handoff list`` clips it
    (``wording.clipped``): a title has no length limit, and one pasted
    document must not be the whole page (the handoff's own view has it whole).

    Raises:
        NotInitialized: no project at the root.
        InputError / NotFound: the requested project is missing, ``all`` or another.
        InputError: the project's policy is malformed (nothing is shown).
    """
    opened = project
    project_id = opened.config.project_id
    if check_project:
        check_requested_project(requested_project, project_id)
    redaction = redaction_of(opened)
    listed = list_pending_batons(opened)  # brings the projections up to date
    items = [_baton_item(r, opened.runner, listed.feeds.get(r.id)) for r in listed.records]
    # The reader's owner, once for the whole page: read again only when git's identity moved.
    me = owner_under(opened, owner_stamp(opened))
    _add_authors(opened, items, me)
    root = opened.root
    listed_rows = list_handoffs(opened, limit=latest, count_total=False, owner=me) if latest > 0 else None
    listed_batons = list_handoffs(opened, limit=latest, kind="baton", count_total=False, owner=me) if latest > 0 else None
    rows = listed_rows.rows if listed_rows is not None else ()
    baton_rows = listed_batons.rows if listed_batons is not None else ()
    policy = opened.policy
    states = baton_states(opened.runner) if baton_rows else {}
    payload = {
        "items": items,
        "total": len(items),
        "projectId": project_id,
        "lastSeenRoot": str(root),
        "handoffTotal": handoffs.count(opened.runner.db, kind="handoff"),
        "latestHandoffs": [{**_row_item(r, opened.runner, opened, policy), "conflicts": [],
                            "mine": cast(Any, listed_rows).mine(r), "feed": _feed(listed_rows, r.id),
                            "feedMark": _feed_mark(_feed(listed_rows, r.id)) or None} for r in rows],
        "latestBatons": [{**{_CAMEL.get(k, k): v for k, v in r.to_json().items()}, "batonStatus": states.get(r.id),
                          "mine": cast(Any, listed_batons).mine(r)} for r in baton_rows],
        "lineage": _camel_keys(lineage_of(opened.runner, [r.id for r in rows])),
    }
    by_id = {h["id"]: h for h in payload["latestHandoffs"]}
    for c in payload["lineage"]["conflicts"]:
        for ident in c["handoffs"]:
            if ident in by_id:
                by_id[ident]["conflicts"].append(c)
    if listed.conflicts:  # only with sync: the spec's shape otherwise
        payload["claimConflicts"] = list(listed.conflicts)
    if listed.unseen:  # likewise: batons superseded before anyone on their key saw them
        payload["supersededUnseen"] = list(listed.unseen)
    payload.update(_sync_members(opened))
    forgotten, archived = archive_notices.pending(opened)  # a teammate's forget or archive of the reader's handoffs
    payload.update({k: v for k, v in (("forgottenByTeammates", forgotten), ("archivedByTeammates", archived)) if v})
    apart = open_edits(opened.runner)  # handoff edits made apart that records list (docs/handoffs.md)
    if apart:
        payload["concurrentEdits"] = _camel_keys(apart)

    derived = forgotten_derived.held_copies(opened.runner)  # a fork made apart keeps a forgotten handoff's content
    if derived:
        payload["derivedOfForgotten"] = [d.line() for d in derived]
    shown = sanitize_output(payload, redaction)
    if clip_titles:  # after redaction: a secret cut short by the clip would no longer be recognised
        for row in [*shown["latestHandoffs"], *shown["latestBatons"], *shown["lineage"]["nodes"]]:
            if isinstance(row.get("title"), str):
                row["title"] = clipped(row["title"])
    return StatusOverview(shown)


def _sync_members(opened: "Project") -> dict[str, Any]:
    """What the last sync left to show: ``signers``, ``sync`` (or ``syncStateDamaged``) and
    ``syncSignersDamaged``, each only when there is something to say."""
    members: dict[str, Any] = {}
    signers = feed_signers(opened, [])  # signed feeds, as the last sync checked them: only when in play
    if signers:
        members["signers"] = [_camel_keys(s.to_json()) for s in signers]
    # only once this clone synced: how much of its own feed a remote holds
    shared = sharing(opened, copied=takes_new_writer(opened))
    if shared is not None:
        if shared["unshared"] and _cannot_sign_as_required(opened):
            shared["signingKeyMissing"] = True
        members["sync"] = shared
    elif (damaged := state_problem(opened)) is not None:  # what status cannot tell, and what mends it
        members["syncStateDamaged"] = damaged
    if (damaged := signers_problem(opened)) is not None:  # no feed's verdict is known until the next sync
        members["syncSignersDamaged"] = damaged
    tracked, prefix = tracked_baton_files(opened)  # committed by mistake: git replaces or deletes them
    if tracked:
        members["trackedByGit"] = {"files": [prefix + path for path in tracked],
                                   "problem": tracked_problem(tracked, prefix)}
    heads = synced_heads(opened)  # feeds git (or a person) cut or deleted that the ledger ref still holds
    if heads:
        local = {feed: head[0] for feed, head in opened.runner.feed_heads().items()}
        # this clone's own feed not continuing the remote's copy is said by ``sync.diverged`` already
        behind = [b for b in behind_ref(opened, heads, local) if not (b["own"] and (shared or {}).get("diverged"))]
        if behind:
            members["behindRef"] = [{"feed": b["feed"], "seq": b["seq"], "localSeq": b["local_seq"], "own": b["own"],
                                     "advice": behind_ref_advice(b)} for b in behind]
    return members


def _cannot_sign_as_required(project: "Project") -> bool:
    """``sync.require_signatures`` applies and git names no key Baton signs with here: a sync
    refuses to publish this clone's feed (docs/sync.md, "Signed feeds") until one is set up."""
    try:
        if not require_signatures(project):
            return False
    except ConfigError:
        return False  # a malformed setting: every command that syncs says so
    key = signing_setup_at(project.root)[0]
    return key is None or key.format not in SIGNING_FORMATS


def _camel_keys(value: Any) -> Any:
    """The status API's members are camelCase, nested ones included."""
    if isinstance(value, dict):
        return {_camel(k): _camel_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_camel_keys(v) for v in value]
    return value


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def lineage_of(runner: Any, ids: list[str]) -> dict[str, Any]:
    """The lineage graph around ``ids`` (their connected handoffs, at most
    ``LINEAGE_NODES``), with conflict candidates: the page's Lineage panel."""
    if "lineage" not in runner.by_name or not ids:
        return {"nodes": [], "edges": [], "conflicts": [], "truncated": False}
    graph = load_component(runner, ids)
    shown: set[str] = set()
    truncated = False
    for ident in ids:
        if ident in shown or ident not in graph:
            continue
        part = graph.component(ident)
        if len(shown) + len(part) > LINEAGE_NODES:
            truncated = True
            continue
        shown |= part
    view = lineage.to_json(graph, shown, lineage.conflict_candidates(graph))
    view["conflicts"] = [c for c in view["conflicts"] if set(c["handoffs"]) <= shown]
    view["truncated"] = truncated
    return view


# -- dismissal ----------------------------------------------------------------------

@frozen
class StatusDismissal:
    """The answer to the panel's Dismiss, already redacted."""

    payload: dict[str, Any]
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return self.payload

    def render(self) -> str:
        return f"Dismissed baton {self.payload['handoffId']}."


def dismiss_from_status_page(
    project: "Project",
    requested_project: str | None,
    baton_id: str,
) -> StatusDismissal:
    """Dismiss one unclaimed baton named by its full id (the spec's dismissHandoffById).

    A resource id in a URL is exact: unlike ``baton session handoff --dismiss``,
    a prefix names nothing here, so a DELETE can never reach a baton the caller
    did not name.

    Raises:
        InputError / NotFound: the requested project is missing, ``all`` or another.
        NotFound: no baton has that id.
        BatonAlreadyClaimed / BatonNotPending (Conflict): it is claimed, superseded,
            cancelled or dismissed already.
    """
    opened = project
    check_requested_project(requested_project, opened.config.project_id)
    redaction = redaction_of(opened)
    if not FULL_ID.match(baton_id or ""):
        raise NotFound(f"no baton with id {baton_id!r} (the status API takes full ids)",
                       details={"handoff_id": baton_id})
    result = dismiss_baton(opened, baton_id.lower(), via="status")
    payload = {**result.to_json(), "projectId": opened.config.project_id}
    return StatusDismissal(sanitize_output(payload, redaction))


# -- where a server may listen --------------------------------------------------------

@frozen
class ListenTarget:
    """A checked loopback address to bind, and the project it serves."""

    host: str
    """The literal address bound (``127.0.0.1``, ``::1``...)."""
    family: int
    port: int
    root: str
    project_id: str


def loopback_address(host: str) -> tuple[str, int]:
    """The literal loopback address to bind for ``host``, and its family.

    Only ``localhost`` (bound as 127.0.0.1, never resolved: a name is not
    trusted to stay loopback), 127.0.0.0/8 and ::1 are accepted.

    Raises:
        PolicyBlock: any other host (exit 5): the status page can dismiss
            batons and must never be reachable from another machine.
    """
    text = (host or "").strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if text.lower() == "localhost":
        return "127.0.0.1", socket.AF_INET
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        address = None
    if address is None or not address.is_loopback:
        raise PolicyBlock(
            f"refusing to serve the status page on {host!r}: only loopback addresses "
            f"(127.0.0.0/8, ::1, localhost) are allowed",
            details={"host": host},
        )
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    return str(address), family


def listen_target(project: "Project", *, host: str = DEFAULT_HOST,
                  port: int = DEFAULT_PORT) -> ListenTarget:
    """Check where ``baton status serve`` may listen and which project it serves.

    Raises:
        PolicyBlock: a non-loopback host (exit 5).
        InputError: a port outside 0..65535 (exit 2).
        NotInitialized: no project at the root.
    """
    literal, family = loopback_address(host)
    if not isinstance(port, int) or not 0 <= port <= 65535:
        raise InputError(f"`port` must be between 0 and 65535, not {port!r}")
    opened = project
    return ListenTarget(literal, family, port, str(opened.root), opened.config.project_id)


def seq_range(first: int, last: int) -> str:
    """``12–14``, or ``12`` for one event."""
    return str(last) if first == last else f"{first}–{last}"
