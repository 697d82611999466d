"""The status page: one self-contained HTML document (inline CSS and JS, no
external resource of any kind) and the Content-Security-Policy that allows
exactly its own script and style, by hash.

The page never builds HTML from data: everything the API returns is put into
the document with ``textContent`` and ``setAttribute``. The per-server token
and the project id reach the script through ``<meta>`` tags (escaped), so the
script itself never changes and its hash is a constant.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re

import orjson

from baton.domain.lineage import PLACEHOLDERS

STYLE = """
:root { color-scheme: light dark; --bg: #f7f7f5; --fg: #1d1d1b; --muted: #6b6b66; --card: #fff;
  --line: #e2e1dc; --accent: #2f6f4f; --warn: #9a3b1b; --chip: #eef3ef; }
@media (prefers-color-scheme: dark) { :root { --bg: #17181a; --fg: #e8e6e1; --muted: #9a9893; --card: #202225;
  --line: #33353a; --accent: #7cc39b; --warn: #f0a07f; --chip: #26302a; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg);
  color: var(--fg); }
header { display: flex; align-items: baseline; gap: .5rem 1rem; flex-wrap: wrap; padding: 1rem 1.5rem .5rem; }
header h1 { font-size: 1.25rem; margin: 0; white-space: nowrap; }
#project-line { color: var(--muted); margin: 0; flex: 1 1 16rem; min-width: 0; font-size: .9rem;
  overflow-wrap: anywhere; }
button { font: inherit; border: 1px solid var(--line); background: var(--card); color: var(--fg); border-radius: 6px;
  padding: .25rem .75rem; cursor: pointer; }
button:hover { border-color: var(--accent); }
button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
nav { display: flex; flex-wrap: wrap; gap: 0 .25rem; padding: 0 1.5rem; border-bottom: 1px solid var(--line); }
nav [role="tab"] { border: none; border-bottom: 2px solid transparent; border-radius: 0; background: none;
  padding: .5rem .75rem; color: var(--muted); white-space: nowrap; }
nav [role="tab"][aria-selected="true"] { color: var(--fg); border-bottom-color: var(--accent); font-weight: 600; }
main { padding: 1rem 1.5rem 3rem; max-width: 72rem; }
.panel h2 { font-size: 1.1rem; margin: 0 0 .25rem; }
.hint { color: var(--muted); margin: 0 0 1rem; font-size: .9rem; }
.group { margin: 0 0 1.25rem; }
.group h3 { font-size: .95rem; margin: 0 0 .5rem; display: flex; flex-wrap: wrap; gap: .25rem .5rem;
  align-items: baseline; overflow-wrap: anywhere; }
.chip { background: var(--chip); border-radius: .75rem; padding: 0 .5rem; font-size: .8rem; font-weight: 500;
  overflow-wrap: anywhere; min-width: 0; }
.baton { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem;
  margin: 0 0 .5rem; display: grid; grid-template-columns: 1fr auto; gap: .25rem 1rem; }
.baton .meta { color: var(--muted); font-size: .85rem; overflow-wrap: anywhere; }
.baton .actions { grid-row: 1 / span 2; grid-column: 2; align-self: start; }
.baton h4 { margin: .5rem 0 .1rem; font-size: .8rem; text-transform: uppercase; letter-spacing: .04em;
  color: var(--muted); }
.baton ol, .baton ul { margin: 0; padding-left: 1.25rem; overflow-wrap: anywhere; }
.baton .failed li { color: var(--warn); }
.conflict { color: var(--warn); overflow-wrap: anywhere; }
.feed-notice { color: var(--warn); overflow-wrap: anywhere; }
.baton.unseen { border-color: var(--warn); }
.baton.unseen p { margin: .25rem 0; overflow-wrap: anywhere; }
button.dismiss.armed { border-color: var(--warn); color: var(--warn); font-weight: 600; }
.empty { color: var(--muted); background: var(--card); border: 1px dashed var(--line); border-radius: 8px;
  padding: 1rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85em; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; background: var(--card); border: 1px solid var(--line); }
tbody tr.row { cursor: pointer; }
tbody tr.row:hover, tbody tr.row:focus-visible { background: var(--chip); outline: none; }
.filters { display: flex; gap: .5rem; align-items: baseline; margin: 0 0 .75rem; flex-wrap: wrap; }
select { font: inherit; border: 1px solid var(--line); background: var(--card); color: var(--fg); border-radius: 6px;
  padding: .2rem .4rem; max-width: 100%; }
.fresh-stale, .fresh-partially_stale { color: var(--warn); font-weight: 600; }
#handoff-view .facts { display: flex; flex-wrap: wrap; gap: .25rem .5rem; margin: .5rem 0; }
#handoff-view .links { margin: .25rem 0 1rem; display: flex; flex-wrap: wrap; gap: .5rem; align-items: baseline; }
#view-body { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .5rem 1rem 1rem;
  overflow-wrap: anywhere; }
#view-body h3 { font-size: 1.1rem; margin: .75rem 0 .25rem; }
#view-body h4 { font-size: .95rem; margin: .75rem 0 .25rem; }
#view-body blockquote { margin: .5rem 0; padding: .25rem .75rem; border-left: 3px solid var(--warn); }
#view-body ul { margin: .25rem 0; padding-left: 1.25rem; }
#view-body p { margin: .35rem 0; }
#view-body em { font-style: italic; }
.panel + .panel { margin-top: 1.5rem; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th, td.nowrap { white-space: nowrap; }
/* break-word, not anywhere: a column is never narrower than its longest word
   (a branch or an email), yet an overlong one still wraps rather than overflow. */
td.branch, td.by { min-width: 6rem; overflow-wrap: break-word; }
td.mine { font-weight: 600; }
td.title { overflow-wrap: anywhere; }
th { font-size: .8rem; color: var(--muted); font-weight: 600; }
td.title { min-width: 12rem; }
/* A phone: each row of a table becomes a card, its title first and every
   other cell a labelled line (the label is the cell's data-label). */
@media (max-width: 640px) {
  .table-wrap { overflow-x: visible; }
  table.cards, table.cards tbody { display: block; border: none; background: none; }
  table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
    white-space: nowrap; }
  table.cards tr { display: flex; flex-direction: column; background: var(--card); border: 1px solid var(--line);
    border-radius: 8px; margin: 0 0 .5rem; padding: .5rem .75rem; }
  table.cards td { display: flex; gap: .75rem; border: none; padding: .05rem 0; white-space: normal;
    overflow-wrap: anywhere; min-width: 0; }
  table.cards td::before { content: attr(data-label); flex: 0 0 5.5rem; color: var(--muted); font-size: .8rem;
    font-weight: 400; line-height: 1.9; }
  table.cards td.title { order: -1; font-weight: 600; padding-bottom: .25rem; min-width: 0; }
  table.cards td.title::before, table.cards td.empty::before { content: none; }
}
.tree, .tree ul { list-style: none; margin: 0; padding-left: 1.25rem; }
.tree { padding-left: 0; }
.tree li { margin: .15rem 0; overflow-wrap: anywhere; }
.tree .rel { color: var(--muted); font-size: .8rem; margin-right: .4rem; }
.tree .placeholder { color: var(--muted); }
.tree .conflict, .conflicts li { color: var(--warn); font-weight: 600; }
#status-line { position: fixed; bottom: 0; left: 0; right: 0; margin: 0; padding: .4rem 1.5rem;
  background: var(--card); border-top: 1px solid var(--line); font-size: .9rem; min-height: 2rem; }
#status-line.error { color: var(--warn); }
main { padding-bottom: 4rem; }
@media (max-width: 600px) { header, nav, main { padding-left: .75rem; padding-right: .75rem; }
  nav { padding-left: .25rem; padding-right: .25rem; gap: 0; }
  nav [role="tab"] { padding: .5rem .5rem; font-size: .9rem; } }
"""

SCRIPT = """
"use strict";
(function () {
  var PROJECT = document.querySelector('meta[name="baton-project"]').getAttribute("content");
  var TOKEN = document.querySelector('meta[name="baton-token"]').getAttribute("content");
  var API = "/api/handoffs";
  var PLACEHOLDERS = @PLACEHOLDERS@;  // what a placeholder node stands for, worded as `baton lineage` words it
  var REFRESH_MS = 10000;
  var ARM_MS = 5000;
  var armedButton = null;  // the one Dismiss waiting for its confirming second click

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function say(text, isError) {
    var line = document.getElementById("status-line");
    line.textContent = text;
    line.className = isError ? "error" : "";
  }
  function when(iso) {
    var d = new Date(iso);
    return isNaN(d.getTime()) ? String(iso || "") : d.toLocaleString();
  }
  function errorText(body, response) {
    if (body && body.error && body.error.message) { return body.error.message; }
    return "HTTP " + response.status;
  }

  // -- tabs ---------------------------------------------------------------
  var tabs = Array.prototype.slice.call(document.querySelectorAll('[role="tab"]'));
  function openTab(id) {
    tabs.forEach(function (t) {
      var on = t.getAttribute("data-tab") === id;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("data-tab")).hidden = !on;
    });
  }
  tabs.forEach(function (t, i) {
    t.addEventListener("click", function () { openTab(t.getAttribute("data-tab")); });
    t.addEventListener("keydown", function (ev) {
      var step = ev.key === "ArrowRight" ? 1 : ev.key === "ArrowLeft" ? -1 : 0;
      if (!step) { return; }
      var next = tabs[(i + step + tabs.length) % tabs.length];
      openTab(next.getAttribute("data-tab"));
      next.focus();
    });
  });

  // -- the Active Handoffs panel ----------------------------------------------
  function list(title, items, cls, ordered) {
    var frag = document.createDocumentFragment();
    if (!items || !items.length) { return frag; }
    frag.appendChild(el("h4", null, title));
    var l = el(ordered ? "ol" : "ul", cls);
    items.forEach(function (item) { l.appendChild(el("li", null, item)); });
    frag.appendChild(l);
    return frag;
  }
  function batonCard(b) {
    var card = el("article", "baton");
    card.setAttribute("data-baton-id", b.id);
    var meta = el("div", "meta");
    meta.appendChild(el("code", null, b.shortId || b.id));
    var bits = [" · left " + when(b.createdAt)];
    if (b.writtenBy || b.writer) { bits.push("by " + markedBy(b.writtenBy, b.writer, b.mine, b.feedMark)); }
    if (b.sessionId) { bits.push("session " + b.sessionId); }
    if (b.harness) { bits.push(b.harness); }
    // A session baton's record stays a draft: that says nothing about the
    // baton (pending here). A handoff handed on with --from shows its status.
    if (b.handoffStatus && b.handoffStatus !== "draft") { bits.push("handoff " + b.handoffStatus); }
    meta.appendChild(document.createTextNode(bits.join(" · ")));
    meta.setAttribute("title", b.createdAt || "");
    card.appendChild(meta);
    var body = el("div", "content");
    // From a feed no trusted key vouches for: what a session would be told, in the same words
    // (a withheld baton's steps are not served at all).
    if (b.feedNotice) { body.appendChild(el("p", "feed-notice", b.feedNotice)); }
    body.appendChild(list("Next steps", b.nextSteps, "steps", true));
    body.appendChild(list("Failed approaches — do not retry", b.failedApproaches, "failed", false));
    body.appendChild(list("Open questions", b.openQuestions, "questions", false));
    card.appendChild(body);
    var actions = el("div", "actions");
    var button = el("button", "dismiss", "Dismiss");
    button.type = "button";
    button.setAttribute("data-id", b.id);
    button.setAttribute("aria-label", "Dismiss baton " + (b.shortId || b.id));
    button.addEventListener("click", function () { dismissClicked(button, b); });
    actions.appendChild(button);
    card.appendChild(actions);
    return card;
  }
  // Who wrote a record: its owner (the git identity it was captured under),
  // else the writer id of its feed; "(you)" marks the reader's own.
  function byLabel(owner, writer, mine) {
    var who = owner || (writer ? "writer " + writer : null);
    if (!who) { return null; }
    return who + (mine ? " (you)" : "");
  }
  // With the mark the server gives a record from a feed no trusted key vouches for ("feedMark").
  function markedBy(owner, writer, mine, mark) {
    var who = byLabel(owner, writer, mine);
    return who === null ? null : who + (mark || "");
  }
  function groupsOf(items) {
    var groups = {}, order = [], shared = [];
    items.forEach(function (b) {
      if (b.shared) { shared.push(b); return; }
      var key = JSON.stringify([b.owner, b.branch]);
      if (!groups[key]) { groups[key] = { owner: b.owner, branch: b.branch, items: [] }; order.push(key); }
      groups[key].items.push(b);
    });
    order.sort(function (a, b) {
      var ga = groups[a], gb = groups[b];
      return ga.owner < gb.owner ? -1 : ga.owner > gb.owner ? 1 : ga.branch < gb.branch ? -1 : ga.branch > gb.branch ? 1 : 0;
    });
    var out = order.map(function (k) { return groups[k]; });
    if (shared.length) { out.push({ shared: true, items: shared }); }
    return out;
  }
  // Rebuilding the panel (every refresh) keeps the keyboard where it was: on
  // the same baton's Dismiss, or -- that baton gone -- on the status line.
  function focusedBaton(host) {
    var active = document.activeElement;
    var on = active && host.contains(active) && active.classList.contains("dismiss");
    return on ? active.getAttribute("data-id") : null;
  }
  function refocus(host, id) {
    if (!id) { return; }
    var again = Array.prototype.filter.call(host.querySelectorAll("button.dismiss"), function (b) {
      return b.getAttribute("data-id") === id && !b.disabled;
    })[0];
    (again || document.getElementById("status-line")).focus();
  }
  function renderHandoffs(data, focused) {
    var host = document.getElementById("handoffs-list");
    focused = focused || focusedBaton(host);
    host.textContent = "";
    document.getElementById("handoffs-count").textContent = String(data.total);
    if (!data.items.length) {
      host.appendChild(el("p", "empty", "No pending batons. A session leaves one with " +
        "`baton session end ID --handoff-steps \\"A,B\\"`."));
      refocus(host, focused);
      return;
    }
    groupsOf(data.items).forEach(function (g) {
      var section = el("section", "group");
      section.setAttribute("data-group", g.shared ? "shared" : "private");
      var h = el("h3");
      if (g.shared) {
        h.appendChild(el("span", null, "Shared"));
        h.appendChild(el("span", "chip", "any owner, any branch"));
      } else {
        h.appendChild(el("span", null, g.owner));
        h.appendChild(el("span", "chip", g.branch));
      }
      section.appendChild(h);
      g.items.forEach(function (b) { section.appendChild(batonCard(b)); });
      host.appendChild(section);
    });
    refocus(host, focused);
  }
  // A baton replaced by a newer one before anyone on its owner and branch saw
  // it (the two were left on clones apart, then synced): worded as `baton
  // status` words it, with a button that opens it.
  function leftBy(u) {
    if (u.writer) { return "writer " + u.writer + (u.sessionId ? " (session " + u.sessionId + ")" : ""); }
    return u.sessionId ? "session " + u.sessionId : "another session";
  }
  function unseenCard(u) {
    var card = el("article", "baton unseen");
    card.setAttribute("data-unseen-id", u.id);
    var meta = el("div", "meta");
    meta.appendChild(el("code", null, u.id));
    meta.appendChild(document.createTextNode(" · left " + when(u.createdAt) + " by " + leftBy(u) +
      " · for " + (u.shared ? "every owner and branch" : u.owner + " on " + u.branch)));
    meta.setAttribute("title", u.createdAt || "");
    card.appendChild(meta);
    var body = el("div", "content");
    if (u.objective) {
      var objective = el("p", "objective");
      objective.appendChild(el("strong", null, "Objective: "));
      objective.appendChild(document.createTextNode(u.objective));
      body.appendChild(objective);
    }
    body.appendChild(el("p", "conflict", u.arrivedAfterClaim ?
      "Replaced by baton " + u.supersededBy + ", claimed before this one arrived (by a sync): " +
      "no brief named it." : u.unread ?
      "Replaced by baton " + u.supersededBy + ", left by another session before any session read this one: " +
      "no session will receive it." :
      "Replaced by baton " + u.supersededBy + ", left apart without seeing " +
      "it (on another clone, before a sync): no session will receive it."));
    var how = el("p", "read");
    how.appendChild(document.createTextNode("Read it with "));
    how.appendChild(el("code", null, "baton resume " + u.id));
    how.appendChild(document.createTextNode(" (or "));
    how.appendChild(el("code", null, "baton handoff show " + u.id));
    how.appendChild(document.createTextNode(")."));
    body.appendChild(how);
    card.appendChild(body);
    var actions = el("div", "actions");
    var open = el("button", "open-unseen", "Open");
    open.type = "button";
    open.setAttribute("data-open", u.id);
    open.setAttribute("aria-label", "Open baton " + u.id + ", superseded unseen");
    open.addEventListener("click", function () { openHandoff(u.id); });
    actions.appendChild(open);
    card.appendChild(actions);
    return card;
  }
  function renderUnseen(unseen) {
    var host = document.getElementById("unseen-list");
    host.textContent = "";
    if (!unseen || !unseen.length) { return; }
    var section = el("section", "group");
    section.setAttribute("data-group", "superseded-unseen");
    var h = el("h3");
    h.appendChild(el("span", null, "Superseded unseen"));
    h.appendChild(el("span", "chip", String(unseen.length)));
    section.appendChild(h);
    unseen.forEach(function (u) { section.appendChild(unseenCard(u)); });
    host.appendChild(section);
  }
  function renderConflicts(conflicts) {
    var host = document.getElementById("conflicts-list");
    host.textContent = "";
    (conflicts || []).forEach(function (c) {
      var w = c.winner || {};
      var why = w.status === "superseded" ? "it had been superseded" +
          (w.supersededBy ? " by baton " + w.supersededBy : "") + " first; the claim changed nothing."
        : (w.status === "cancelled" || w.status === "dismissed") ? "it had been " + w.status +
          " first; the claim changed nothing."
        : "session " + w.claimedBySession + " claimed it first; the earlier claim holds on every replica.";
      var p = el("p", "conflict", "Conflict: baton " + c.handoffId + " was also claimed by session " +
        c.sessionId + " (writer " + c.writer + ", " + c.claimedAt + "), but on another clone " + why);
      p.setAttribute("data-conflict-event", c.eventId || "");
      host.appendChild(p);
    });
  }
  function renderSigners(signers) {  // signed feeds (docs/sync.md): present only when signing is in play
    var host = document.getElementById("signers-list");
    host.textContent = "";
    (signers || []).forEach(function (s) {
      var text = s.status === "good"
        ? "Feed " + s.feed + ": signed by " + s.signer + " (" + s.key + ") through seq " + s.signedSeq + "."
        : "Feed " + s.feed + ": " + s.status + (s.message ? " \u2014 " + s.message : "") + ".";
      var p = el("p", s.status === "good" ? "signer" : "signer conflict", text);
      p.setAttribute("data-signer-feed", s.feed || "");
      host.appendChild(p);
    });
  }
  function renderSharing(sync, damaged) {  // after a sync (docs/status-page.md): this clone's work not yet on a remote
    var host = document.getElementById("sharing-line");
    host.textContent = "";
    if (damaged) { host.appendChild(el("p", "sharing unshared", "Shared: unknown: " + damaged)); }
    if (!sync) { return; }
    if (sync.sharedUnknown) {  // the last sync was an older Baton's: what a remote took is not recorded
      host.appendChild(el("p", "sharing", "Shared: not known yet \u2014 the last sync was made by an older Baton, " +
        "which kept no record of what a remote took of this clone's feed " + sync.writer + " (seq " + sync.seq +
        "): the next baton sync finds out and records it."));
      return;
    }
    if (sync.diverged) {  // this clone's feed no longer continues the remote's copy: nothing is published
      host.appendChild(el("p", "sharing unshared", "Not shared: this clone's feed " + sync.writer + " (seq " +
        sync.seq + ") does not continue the copy " + (sync.remote || "the remote") + " holds (seq " + sync.remoteSeq +
        ") \u2014 " + (sync.wayBack === "new_writer"
          ? "this .baton folder is a copy (a backup restored): the next baton sync gives it a writer id of its " +
            "own and catches feed " + sync.writer + " up from the remote; no baton repair is needed (docs/sync.md)."
          : sync.wayBack === "restore_own_feed"
          ? "a backup of .baton/ restored in place, nothing written here since: a plain baton sync is refused " +
            "until baton sync --restore-own-feed takes the published events back (docs/sync.md)."
          : "a backup of .baton/ restored in place and written to since, or a fork: every baton sync is refused " +
            "until baton repair puts the feed back as the remote holds it (docs/sync.md).")));
      return;
    }
    var n = sync.unshared;
    var counted = sync.remote && sync.remote !== "origin" ? " with remote " + sync.remote : "";  // docs/sync.md
    host.appendChild(el("p", n ? "sharing unshared" : "sharing", n
      ? "Not yet shared: " + n + " event" + (n === 1 ? "" : "s") + " of this clone's feed " + sync.writer +
        " (seq " + (n === 1 ? sync.seq : (sync.sharedSeq + 1) + "\u2013" + sync.seq) + "): " +
        (sync.signingKeyMissing ? "sync.require_signatures is set and git names no signing key here: set " +
          "user.signingkey and gpg.format ssh (docs/sync.md, \u201cSigned feeds\u201d), then run baton sync" + counted +
          "." : "run baton sync" + counted + ".")
      : !sync.seq ? "Shared: nothing written yet \u2014 this clone's feed " + sync.writer + " holds no event " +
        "(synced with " + (sync.remote || "a remote") + ")."
      : "Shared: every event of this clone's feed " + sync.writer + " is on " + (sync.remote || "a remote") +
        " (seq " + sync.seq + ")."));
  }
  // -- the Handoffs tab: rows, a branch filter, one handoff's view ----------------
  var latestRows = [], latestTotal = 0;
  function textCell(tr, text, cls, label) {
    var td = el("td", cls || null, text === null || text === undefined ? "—" : text);
    if (label) { td.setAttribute("data-label", label); }
    tr.appendChild(td);
    return td;
  }
  function idCell(tr, shortId) {
    var td = el("td", "nowrap");
    td.setAttribute("data-label", "ID");
    td.appendChild(el("code", null, shortId));
    tr.appendChild(td);
    return td;
  }
  function fillBranchFilter(rows) {
    var select = document.getElementById("branch-filter");
    var chosen = select.value;
    var seen = {}, names = [];
    rows.forEach(function (r) { var b = r.branch || ""; if (b && !seen[b]) { seen[b] = true; names.push(b); } });
    names.sort();
    while (select.options.length > 1) { select.remove(1); }
    names.forEach(function (name) {
      var option = el("option", null, name);
      option.value = name;
      select.appendChild(option);
    });
    select.value = seen[chosen] ? chosen : "";
  }
  function renderLatest(rows, total) {
    latestRows = rows || [];
    if (total !== undefined) { latestTotal = total || 0; }
    // The ten newest of how many: a year of a team's use holds thousands.
    document.getElementById("latest-count").textContent = latestTotal > latestRows.length
      ? latestRows.length + " of " + latestTotal.toLocaleString("en-US") : String(latestRows.length);
    fillBranchFilter(latestRows);
    var branch = document.getElementById("branch-filter").value;
    var body = document.getElementById("latest-rows");
    body.textContent = "";
    var shown = latestRows.filter(function (r) { return !branch || r.branch === branch; });
    if (!shown.length) {
      var tr = el("tr"), td = el("td", "empty", latestRows.length ? "No handoffs on this branch." : "No handoffs yet.");
      td.colSpan = 8;
      tr.appendChild(td);
      body.appendChild(tr);
      return;
    }
    shown.forEach(function (r) {
      var tr = el("tr", "row");
      tr.tabIndex = 0;
      tr.setAttribute("data-id", r.id);
      tr.setAttribute("aria-label", "Open handoff " + r.shortId);
      idCell(tr, r.shortId);
      textCell(tr, r.status + (r.flags && r.flags.length ? " [" + r.flags.join(", ") + "]" : ""), "status", "Status");
      textCell(tr, r.freshness, "nowrap fresh-" + String(r.freshness || "unknown"), "Freshness");
      textCell(tr, r.score === null || r.score === undefined ? null : String(r.score), "nowrap", "Score");
      textCell(tr, r.branch, "branch", "Branch");
      textCell(tr, markedBy(r.owner, r.writer, r.mine, r.feedMark), "by" + (r.mine ? " mine" : ""), "By");
      var created = textCell(tr, when(r.createdAt), "nowrap", "Created");
      created.setAttribute("title", r.createdAt || "");
      textCell(tr, r.title, "title", "Title");
      tr.addEventListener("click", function () { openHandoff(r.id); });
      tr.addEventListener("keydown", function (ev) {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); openHandoff(r.id); }
      });
      body.appendChild(tr);
    });
  }
  function renderBatonRecords(rows) {
    var body = document.getElementById("baton-rows");
    body.textContent = "";
    if (!rows || !rows.length) {
      var tr = el("tr"), td = el("td", "empty", "No session batons yet.");
      td.colSpan = 5;
      tr.appendChild(td);
      body.appendChild(tr);
      return;
    }
    rows.forEach(function (r) {
      var tr = el("tr", "row");
      tr.tabIndex = 0;
      tr.setAttribute("data-id", r.id);
      idCell(tr, r.shortId);
      // The baton's own state (pending, claimed, dismissed...), not its record's draft status.
      textCell(tr, r.batonStatus || r.status, "status", "Baton");
      textCell(tr, byLabel(r.owner, r.writer, r.mine), "by" + (r.mine ? " mine" : ""), "By");
      var created = textCell(tr, when(r.createdAt), "nowrap", "Left");
      created.setAttribute("title", r.createdAt || "");
      textCell(tr, r.title, "title", "Title");
      tr.addEventListener("click", function () { openHandoff(r.id); });
      tr.addEventListener("keydown", function (ev) {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); openHandoff(r.id); }
      });
      body.appendChild(tr);
    });
  }

  // Markdown as text: headings, quotes, list items and paragraphs become
  // elements; **bold**, _italic_ (or *italic*) and `code` spans become
  // <strong>/<em>/<code>. Every piece of data goes in with textContent:
  // nothing is ever parsed as HTML. An underscore inside a word
  // (snake_case) is not emphasis.
  var SPANS = /(`[^`]+`|\\*\\*[^*]+\\*\\*|(?<![\\w])_[^_\\s](?:[^_]*[^_\\s])?_(?![\\w])|(?<![\\w*])\\*[^*\\s](?:[^*]*[^*\\s])?\\*(?![\\w*]))/;
  function inline(parent, text) {
    var parts = String(text).split(SPANS);
    parts.forEach(function (part) {
      if (!part) { return; }
      var first = part.charAt(0), last = part.charAt(part.length - 1);
      if (part.length > 2 && first === "`" && last === "`") {
        parent.appendChild(el("code", null, part.slice(1, -1)));
      } else if (part.length > 4 && part.slice(0, 2) === "**" && part.slice(-2) === "**") {
        inline(parent.appendChild(el("strong")), part.slice(2, -2));
      } else if (part.length > 2 && (first === "_" || first === "*") && last === first && SPANS.test(part)) {
        inline(parent.appendChild(el("em")), part.slice(1, -1));
      } else {
        parent.appendChild(document.createTextNode(part));
      }
    });
    return parent;
  }
  function renderMarkdown(host, text) {
    host.textContent = "";
    var list = null;
    String(text || "").split("\\n").forEach(function (line) {
      var m;
      if ((m = /^\\s*[-*] (.*)$/.exec(line))) {
        if (!list) { list = el("ul"); host.appendChild(list); }
        list.appendChild(inline(el("li"), m[1]));
        return;
      }
      list = null;
      if (!line.trim()) { return; }
      if ((m = /^(#{1,6}) (.*)$/.exec(line))) {
        host.appendChild(inline(el(m[1].length === 1 ? "h3" : "h4"), m[2]));
      } else if ((m = /^> ?(.*)$/.exec(line))) {
        host.appendChild(inline(el("blockquote"), m[1]));
      } else {
        host.appendChild(inline(el("p"), line));
      }
    });
  }
  function linkButton(label, id) {
    var b = el("button", "link", label);
    b.type = "button";
    b.setAttribute("data-open", id);
    b.addEventListener("click", function () { openHandoff(id); });
    return b;
  }
  function showView(v, quiet) {
    document.getElementById("view-title").textContent = v.title || v.shortId;
    var facts = document.getElementById("view-facts");
    facts.textContent = "";
    var state = v.batonStatus ? ["baton", v.batonStatus]
      : ["status", v.status + (v.flags && v.flags.length ? " [" + v.flags.join(", ") + "]" : "")];
    [state,
     ["freshness", v.freshness], ["score", v.score === null || v.score === undefined ? null : v.score + "/100"],
     ["branch", v.branch], ["by", byLabel(v.owner, v.writer, v.mine)], ["validation", v.validation],
     ["validated on", v.validatedOn]].forEach(function (f) {
      if (f[1] === null || f[1] === undefined || f[1] === "") { return; }
      facts.appendChild(el("span", "chip", f[0] + (f[0] === "validated on" ? " " : ": ") + f[1]));
    });
    var links = document.getElementById("view-links");
    links.textContent = "";
    var lineage = v.lineage || {};
    if ((lineage.parents || []).length || lineage.supersededBy) {
      links.appendChild(el("span", "hint", "Lineage (" + (lineage.relation || "root") + "):"));
      (lineage.parents || []).forEach(function (p) { links.appendChild(linkButton("parent " + p.slice(-8), p)); });
      (lineage.mergeBasis || []).forEach(function (p) { links.appendChild(linkButton("merge basis " + p.slice(-8), p)); });
      if (lineage.supersededBy) {
        links.appendChild(linkButton("superseded by " + lineage.supersededBy.slice(-8), lineage.supersededBy));
      }
    }
    renderMarkdown(document.getElementById("view-body"), v.markdown);
    document.getElementById("latest-panel").hidden = true;
    var view = document.getElementById("handoff-view");
    view.hidden = false;
    view.setAttribute("data-id", v.id);
    if (!quiet) { document.getElementById("view-back").focus(); }
  }
  function closeView() {
    var view = document.getElementById("handoff-view");
    view.hidden = true;
    view.removeAttribute("data-id");
    ["view-title", "view-facts", "view-links", "view-body"].forEach(function (id) {
      document.getElementById(id).textContent = "";
    });
    document.getElementById("latest-panel").hidden = false;
    if (location.hash) { history.replaceState(null, "", location.pathname + location.search); }
  }
  // The open view is read again with every refresh: a handoff forgotten
  // (`baton forget`) or otherwise gone since closes, its text removed.
  function refreshView() {
    var view = document.getElementById("handoff-view");
    var id = view.getAttribute("data-id");
    if (view.hidden || !id) { return null; }
    return fetch(API + "/" + encodeURIComponent(id) + "?project=" + encodeURIComponent(PROJECT), {
      cache: "no-store", credentials: "same-origin", headers: { "Accept": "application/json" }
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (body) {
        if (view.getAttribute("data-id") !== id) { return; }
        if (response.status === 404) {
          closeView();
          say("Handoff " + id.slice(-8) + " is no longer there (forgotten or removed).", true);
          return;
        }
        if (response.ok && body) { showView(body, true); }
      });
    }).catch(function () { return null; });
  }
  function openHandoff(id) {
    openTab("tab-handoffs");
    return fetch(API + "/" + encodeURIComponent(id) + "?project=" + encodeURIComponent(PROJECT), {
      cache: "no-store", credentials: "same-origin", headers: { "Accept": "application/json" }
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (body) {
        if (!response.ok || !body) { throw new Error(errorText(body, response)); }
        showView(body);
        history.replaceState(null, "", "#handoff=" + encodeURIComponent(id));
      });
    }).catch(function (err) {
      say("Could not open handoff " + id + ": " + err.message, true);
    });
  }
  document.getElementById("view-back").addEventListener("click", closeView);
  document.getElementById("branch-filter").addEventListener("change", function () { renderLatest(latestRows); });
  // -- the Lineage panel: the graph as a tree, built with textContent only -----
  function renderLineage(graph) {
    var host = document.getElementById("lineage-tree");
    var list = document.getElementById("lineage-conflicts");
    host.textContent = "";
    list.textContent = "";
    var nodes = (graph && graph.nodes) || [];
    if (!nodes.length) { host.appendChild(el("p", "empty", "No handoffs yet.")); return; }
    var byId = {}, children = {};
    nodes.forEach(function (n) { byId[n.id] = n; });
    (graph.edges || []).forEach(function (e) {
      if (byId[e.parent]) { (children[e.parent] = children[e.parent] || []).push(e.child); }
    });
    var seen = {};
    function item(id) {
      var n = byId[id], li = el("li");
      var placeholder = !(n.parents || []).length && Object.prototype.hasOwnProperty.call(PLACEHOLDERS, n.status);
      if (placeholder) {  // a parent with no record (erased by `baton forget`, or missing): as `baton lineage` says it
        li.appendChild(el("code", null, n.shortId));
        li.appendChild(el("span", "placeholder", " (" + PLACEHOLDERS[n.status] + ")"));
      } else {
        li.appendChild(el("span", "rel", n.graphRelation + (n.branchLabel ? " [" + n.branchLabel + "]" : "")));
        li.appendChild(el("code", null, n.shortId));
        li.appendChild(el("span", null, " " + n.status + (n.flags && n.flags.length ? " [" + n.flags.join(", ") + "]" : "")
          + " · " + n.title));
      }
      if (n.conflicted) { li.appendChild(el("span", "conflict", " ⚠ conflict candidate")); }
      if (seen[id]) { li.appendChild(el("span", "rel", " (shown above)")); return li; }
      seen[id] = true;
      var kids = children[id] || [];
      if (kids.length) {
        var ul = el("ul");
        kids.forEach(function (k) { ul.appendChild(item(k)); });
        li.appendChild(ul);
      }
      return li;
    }
    var root = el("ul", "tree");
    nodes.forEach(function (n) {
      var hasParent = (n.parents || []).some(function (p) { return byId[p]; });
      if (!hasParent) { root.appendChild(item(n.id)); }
    });
    host.appendChild(root);
    (graph.conflicts || []).forEach(function (c) {
      var a = c.decisions[0], b = c.decisions[1];
      list.appendChild(el("li", null, (c.basis === "id" ? "decision " : "subject ") + c.key + ": "
        + (byId[a.handoff] ? byId[a.handoff].shortId : a.handoff) + " says \u201c" + a.decision + "\u201d, "
        + (byId[b.handoff] ? byId[b.handoff].shortId : b.handoff) + " says \u201c" + b.decision + "\u201d"));
    });
  }

  function load(quiet, focused) {
    return fetch(API + "?project=" + encodeURIComponent(PROJECT), {
      cache: "no-store", credentials: "same-origin", headers: { "Accept": "application/json" }
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (body) {
        if (!response.ok || !body) { throw new Error(errorText(body, response)); }
        document.getElementById("project-line").textContent = "project " + body.projectId + " · " + body.lastSeenRoot;
        renderHandoffs(body, focused);
        renderUnseen(body.supersededUnseen);
        renderConflicts(body.claimConflicts);
        renderSigners(body.signers);
        renderSharing(body.sync, body.syncStateDamaged);
        renderLatest(body.latestHandoffs, body.handoffTotal);
        renderBatonRecords(body.latestBatons);
        renderLineage(body.lineage);
        if (!quiet) { say("Updated " + new Date().toLocaleTimeString() + ".", false); }
        return refreshView();
      });
    }).catch(function (err) {
      say("Could not load the handoffs: " + err.message, true);
    });
  }

  // Dismiss takes two clicks on the same button. Anything else in between --
  // a click elsewhere, Escape, focus moving away, 5 seconds -- disarms it, so
  // a stray second click later never dismisses.
  function batonName(b) { return "baton " + (b.shortId || b.id); }
  function disarm(reason) {
    var button = armedButton;
    if (!button) { return; }
    armedButton = null;
    clearTimeout(button._disarm);
    button.classList.remove("armed");
    button.textContent = "Dismiss";
    button.setAttribute("aria-label", "Dismiss " + batonName(button._baton));
    if (reason) { say("Kept " + batonName(button._baton) + ": " + reason + ".", false); }
  }
  function arm(button, b) {
    disarm("");
    armedButton = button;
    button._baton = b;
    button.classList.add("armed");
    button.textContent = "Confirm dismiss";
    button.setAttribute("aria-label", "Confirm dismissing " + batonName(b));
    button._disarm = setTimeout(function () { disarm("not confirmed within 5 seconds"); }, ARM_MS);
    say("Press Confirm dismiss to drop " + batonName(b) + " undelivered; anything else keeps it.", false);
  }
  document.addEventListener("click", function (ev) {
    if (armedButton && ev.target !== armedButton) { disarm("dismiss not confirmed"); }
  }, true);
  document.addEventListener("keydown", function (ev) {
    if (armedButton && ev.key === "Escape") { disarm("dismiss cancelled"); }
  });
  document.addEventListener("focusout", function (ev) {
    if (armedButton && ev.target === armedButton && ev.relatedTarget) { disarm("dismiss not confirmed"); }
  });
  function dismissClicked(button, b) {
    if (armedButton !== button) { arm(button, b); return; }
    armedButton = null;
    clearTimeout(button._disarm);
    var focused = document.activeElement === button ? b.id : null;
    button.disabled = true;
    fetch(API + "/" + encodeURIComponent(b.id) + "?project=" + encodeURIComponent(PROJECT), {
      method: "DELETE", cache: "no-store", credentials: "same-origin",
      headers: { "X-Baton-Token": TOKEN, "Accept": "application/json" }
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (body) {
        if (!response.ok) { throw new Error(errorText(body, response)); }
        say("Dismissed " + batonName(b) + ": no session will receive it.", false);
      });
    }).catch(function (err) {
      say("Did not dismiss " + batonName(b) + ": " + String(err.message).replace(/\\.$/, "") + ".", true);
    }).then(function () { return load(true, focused); });
  }

  document.getElementById("refresh").addEventListener("click", function () { load(false); });
  setInterval(function () {
    if (document.visibilityState === "visible" && !armedButton) { load(true); }
  }, REFRESH_MS);
  var linked = /^#handoff=([0-9a-fA-F-]{36})$/.exec(location.hash);
  load(false).then(function () { if (linked) { return openHandoff(linked[1]); } });
})();
"""
SCRIPT = SCRIPT.replace("@PLACEHOLDERS@", orjson.dumps(PLACEHOLDERS).decode("utf-8"))
"""The placeholder wording comes from the domain (``baton lineage`` says the same), fixed at import: still one hash."""

_TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="baton-project" content="@PROJECT@">
<meta name="baton-token" content="@TOKEN@">
<title>Baton status</title>
<style>@STYLE@</style>
</head>
<body>
<header>
<h1>Baton status</h1>
<p id="project-line">project @PROJECT@</p>
<button type="button" id="refresh">Refresh</button>
</header>
<nav role="tablist" aria-label="Views">
<button type="button" role="tab" id="tabbtn-prompts" data-tab="tab-prompts" aria-controls="tab-prompts" aria-selected="true">Active handoffs</button>
<button type="button" role="tab" id="tabbtn-handoffs" data-tab="tab-handoffs" aria-controls="tab-handoffs" aria-selected="false" tabindex="-1">Handoffs</button>
<button type="button" role="tab" id="tabbtn-batons" data-tab="tab-batons" aria-controls="tab-batons" aria-selected="false" tabindex="-1">Batons</button>
<button type="button" role="tab" id="tabbtn-lineage" data-tab="tab-lineage" aria-controls="tab-lineage" aria-selected="false" tabindex="-1">Lineage</button>
</nav>
<main>
<section id="tab-prompts" role="tabpanel" aria-labelledby="tabbtn-prompts">
<div id="handoffs-panel" class="panel">
<h2>Active handoffs <span class="chip" id="handoffs-count">…</span></h2>
<p class="hint">Batons waiting for the next session: it picks up the one for its owner and branch, or a shared one. Dismiss drops a baton undelivered (recorded in the ledger).</p>
<div id="handoffs-list" aria-live="polite"><p class="empty">Loading…</p></div>
<div id="unseen-list" aria-live="polite"></div>
<div id="conflicts-list" aria-live="polite"></div>
<div id="signers-list"></div>
<div id="sharing-line"></div>
</div>
</section>
<section id="tab-handoffs" role="tabpanel" aria-labelledby="tabbtn-handoffs" hidden>
<div id="latest-panel" class="panel">
<h2>Latest handoffs <span class="chip" id="latest-count">…</span></h2>
<p class="hint">The newest handoff records, whatever their status; freshness is derived now. Open one to read it. `baton handoff list` lists every one.</p>
<div class="filters"><label for="branch-filter">Branch</label>
<select id="branch-filter"><option value="">All branches</option></select></div>
<div class="table-wrap"><table class="cards"><thead><tr><th>ID</th><th>Status</th><th>Freshness</th><th>Score</th><th>Branch</th><th>By</th><th>Created</th><th>Title</th></tr></thead>
<tbody id="latest-rows"></tbody></table></div>
</div>
<div id="handoff-view" class="panel" hidden>
<button type="button" id="view-back">Back to the list</button>
<h2 id="view-title"></h2>
<div class="facts" id="view-facts"></div>
<div class="links" id="view-links"></div>
<article id="view-body"></article>
</div>
</section>
<section id="tab-batons" role="tabpanel" aria-labelledby="tabbtn-batons" hidden>
<div id="batons-panel" class="panel">
<h2>Batons</h2>
<p class="hint">What <code>session end</code> left for the next session, newest first, with each baton's state: pending until a session claims it (once), or dismissed, cancelled, superseded. Open one to read it.</p>
<div class="table-wrap"><table class="cards"><thead><tr><th>ID</th><th>Baton</th><th>By</th><th>Left</th><th>Title</th></tr></thead>
<tbody id="baton-rows"></tbody></table></div>
</div>
</section>
<section id="tab-lineage" role="tabpanel" aria-labelledby="tabbtn-lineage" hidden>
<div id="lineage-panel" class="panel">
<h2>Lineage</h2>
<p class="hint">How the latest handoffs descend from one another: continue, fork, merge and amend. A conflict candidate is a decision two branches made differently; a merge with a written resolution settles it.</p>
<div id="lineage-tree" aria-live="polite"><p class="empty">Loading…</p></div>
<ul id="lineage-conflicts" class="conflicts"></ul>
</div>
</section>
</main>
<p id="status-line" role="status" tabindex="-1"></p>
<script>@SCRIPT@</script>
</body>
</html>
"""


_PLACEHOLDER = re.compile(r"@(STYLE|SCRIPT|PROJECT|TOKEN)@")


def _source_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


PAGE_CSP = "; ".join([
    "default-src 'none'",
    f"script-src {_source_hash(SCRIPT)}",
    f"style-src {_source_hash(STYLE)}",
    "connect-src 'self'",
    "img-src 'none'",
    "font-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
])
"""The page may run its own script and style (by hash) and talk to its own origin; nothing else."""

API_CSP = "default-src 'none'; frame-ancestors 'none'"


def render_page(*, project_id: str, token: str) -> bytes:
    """The page for one project and one server's token."""
    values = {"STYLE": STYLE, "SCRIPT": SCRIPT, "PROJECT": html.escape(project_id, quote=True),
              "TOKEN": html.escape(token, quote=True)}
    # One pass, so a value that happens to contain a placeholder is never expanded.
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], _TEMPLATE).encode("utf-8")
