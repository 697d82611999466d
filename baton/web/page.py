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

STYLE = """
:root { color-scheme: light dark; --bg: #f7f7f5; --fg: #1d1d1b; --muted: #6b6b66; --card: #fff;
  --line: #e2e1dc; --accent: #2f6f4f; --warn: #9a3b1b; --chip: #eef3ef; }
@media (prefers-color-scheme: dark) { :root { --bg: #17181a; --fg: #e8e6e1; --muted: #9a9893; --card: #202225;
  --line: #33353a; --accent: #7cc39b; --warn: #f0a07f; --chip: #26302a; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg);
  color: var(--fg); }
header { display: flex; align-items: baseline; gap: 1rem; flex-wrap: wrap; padding: 1rem 1.5rem .5rem; }
header h1 { font-size: 1.25rem; margin: 0; }
#project-line { color: var(--muted); margin: 0; flex: 1; font-size: .9rem; overflow-wrap: anywhere; }
button { font: inherit; border: 1px solid var(--line); background: var(--card); color: var(--fg); border-radius: 6px;
  padding: .25rem .75rem; cursor: pointer; }
button:hover { border-color: var(--accent); }
button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
nav { display: flex; gap: .25rem; padding: 0 1.5rem; border-bottom: 1px solid var(--line); }
nav [role="tab"] { border: none; border-bottom: 2px solid transparent; border-radius: 0; background: none;
  padding: .5rem .75rem; color: var(--muted); }
nav [role="tab"][aria-selected="true"] { color: var(--fg); border-bottom-color: var(--accent); font-weight: 600; }
main { padding: 1rem 1.5rem 3rem; max-width: 72rem; }
.panel h2 { font-size: 1.1rem; margin: 0 0 .25rem; }
.hint { color: var(--muted); margin: 0 0 1rem; font-size: .9rem; }
.group { margin: 0 0 1.25rem; }
.group h3 { font-size: .95rem; margin: 0 0 .5rem; display: flex; gap: .5rem; align-items: baseline; }
.chip { background: var(--chip); border-radius: 999px; padding: 0 .5rem; font-size: .8rem; font-weight: 500; }
.baton { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem;
  margin: 0 0 .5rem; display: grid; grid-template-columns: 1fr auto; gap: .25rem 1rem; }
.baton .meta { color: var(--muted); font-size: .85rem; overflow-wrap: anywhere; }
.baton .actions { grid-row: 1 / span 2; grid-column: 2; align-self: start; }
.baton h4 { margin: .5rem 0 .1rem; font-size: .8rem; text-transform: uppercase; letter-spacing: .04em;
  color: var(--muted); }
.baton ol, .baton ul { margin: 0; padding-left: 1.25rem; overflow-wrap: anywhere; }
.baton .failed li { color: var(--warn); }
button.dismiss.armed { border-color: var(--warn); color: var(--warn); font-weight: 600; }
.empty { color: var(--muted); background: var(--card); border: 1px dashed var(--line); border-radius: 8px;
  padding: 1rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85em; }
table { border-collapse: collapse; width: 100%; background: var(--card); border: 1px solid var(--line); }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th, td:not(:last-child) { white-space: nowrap; }
td:last-child { overflow-wrap: anywhere; }
th { font-size: .8rem; color: var(--muted); font-weight: 600; }
.tree, .tree ul { list-style: none; margin: 0; padding-left: 1.25rem; }
.tree { padding-left: 0; }
.tree li { margin: .15rem 0; overflow-wrap: anywhere; }
.tree .rel { color: var(--muted); font-size: .8rem; margin-right: .4rem; }
.tree .conflict, .conflicts li { color: var(--warn); font-weight: 600; }
#status-line { position: fixed; bottom: 0; left: 0; right: 0; margin: 0; padding: .4rem 1.5rem;
  background: var(--card); border-top: 1px solid var(--line); font-size: .9rem; min-height: 2rem; }
#status-line.error { color: var(--warn); }
"""

SCRIPT = """
"use strict";
(function () {
  var PROJECT = document.querySelector('meta[name="baton-project"]').getAttribute("content");
  var TOKEN = document.querySelector('meta[name="baton-token"]').getAttribute("content");
  var API = "/api/handoffs";
  var REFRESH_MS = 10000;
  var armed = 0;

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
    if (b.sessionId) { bits.push("session " + b.sessionId); }
    if (b.harness) { bits.push(b.harness); }
    if (b.handoffStatus) { bits.push("handoff " + b.handoffStatus); }
    meta.appendChild(document.createTextNode(bits.join(" · ")));
    meta.setAttribute("title", b.createdAt || "");
    card.appendChild(meta);
    var body = el("div", "content");
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
  function renderHandoffs(data) {
    var host = document.getElementById("handoffs-list");
    host.textContent = "";
    document.getElementById("handoffs-count").textContent = String(data.total);
    if (!data.items.length) {
      host.appendChild(el("p", "empty", "No pending batons. A session leaves one with " +
        "`baton session end ID --handoff-steps \\"A,B\\"`."));
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
  }
  function renderLatest(rows) {
    var body = document.getElementById("latest-rows");
    body.textContent = "";
    if (!rows || !rows.length) {
      var tr = el("tr"), td = el("td", "empty", "No handoffs yet.");
      td.colSpan = 4;
      tr.appendChild(td);
      body.appendChild(tr);
      return;
    }
    rows.forEach(function (r) {
      var tr = el("tr");
      var id = el("td");
      id.appendChild(el("code", null, r.short_id));
      tr.appendChild(id);
      tr.appendChild(el("td", null, r.status + (r.flags && r.flags.length ? " [" + r.flags.join(", ") + "]" : "")));
      var created = el("td", null, when(r.created_at));
      created.setAttribute("title", r.created_at || "");
      tr.appendChild(created);
      tr.appendChild(el("td", null, r.title));
      body.appendChild(tr);
    });
  }

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
      li.appendChild(el("span", "rel", n.graph_relation + (n.branch_label ? " [" + n.branch_label + "]" : "")));
      li.appendChild(el("code", null, n.short_id));
      li.appendChild(el("span", null, " " + n.status + (n.flags && n.flags.length ? " [" + n.flags.join(", ") + "]" : "")
        + " · " + n.title));
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
        + (byId[a.handoff] ? byId[a.handoff].short_id : a.handoff) + " says \u201c" + a.decision + "\u201d, "
        + (byId[b.handoff] ? byId[b.handoff].short_id : b.handoff) + " says \u201c" + b.decision + "\u201d"));
    });
  }

  function load(quiet) {
    return fetch(API + "?project=" + encodeURIComponent(PROJECT), {
      cache: "no-store", credentials: "same-origin", headers: { "Accept": "application/json" }
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (body) {
        if (!response.ok || !body) { throw new Error(errorText(body, response)); }
        document.getElementById("project-line").textContent = "project " + body.projectId + " · " + body.lastSeenRoot;
        renderHandoffs(body);
        renderLatest(body.latestHandoffs);
        renderLineage(body.lineage);
        if (!quiet) { say("Updated " + new Date().toLocaleTimeString() + ".", false); }
      });
    }).catch(function (err) {
      say("Could not load the handoffs: " + err.message, true);
    });
  }

  function dismissClicked(button, b) {
    if (!button.classList.contains("armed")) {
      button.classList.add("armed");
      button.textContent = "Confirm dismiss";
      armed += 1;
      button._disarm = setTimeout(function () {
        button.classList.remove("armed");
        button.textContent = "Dismiss";
        armed -= 1;
      }, 5000);
      return;
    }
    clearTimeout(button._disarm);
    armed -= 1;
    button.disabled = true;
    fetch(API + "/" + encodeURIComponent(b.id) + "?project=" + encodeURIComponent(PROJECT), {
      method: "DELETE", cache: "no-store", credentials: "same-origin",
      headers: { "X-Baton-Token": TOKEN, "Accept": "application/json" }
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (body) {
        if (!response.ok) { throw new Error(errorText(body, response)); }
        say("Dismissed baton " + (b.shortId || b.id) + ".", false);
      });
    }).catch(function (err) {
      say("Could not dismiss baton " + (b.shortId || b.id) + ": " + err.message, true);
    }).then(function () { return load(true); });
  }

  document.getElementById("refresh").addEventListener("click", function () { load(false); });
  setInterval(function () {
    if (document.visibilityState === "visible" && armed === 0) { load(true); }
  }, REFRESH_MS);
  load(false);
})();
"""

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
<button type="button" role="tab" id="tabbtn-prompts" data-tab="tab-prompts" aria-controls="tab-prompts" aria-selected="true">Prompts &amp; Intent Stories</button>
<button type="button" role="tab" id="tabbtn-handoffs" data-tab="tab-handoffs" aria-controls="tab-handoffs" aria-selected="false" tabindex="-1">Handoffs</button>
</nav>
<main>
<section id="tab-prompts" role="tabpanel" aria-labelledby="tabbtn-prompts">
<div id="handoffs-panel" class="panel">
<h2>Active Handoffs <span class="chip" id="handoffs-count">…</span></h2>
<p class="hint">Session batons waiting for the next session on the same owner and branch; shared batons go to any session. Dismiss drops a baton without delivering it (recorded in the ledger).</p>
<div id="handoffs-list" aria-live="polite"><p class="empty">Loading…</p></div>
</div>
</section>
<section id="tab-handoffs" role="tabpanel" aria-labelledby="tabbtn-handoffs" hidden>
<div id="latest-panel" class="panel">
<h2>Latest handoffs</h2>
<p class="hint">The newest handoff records, whatever their status.</p>
<table><thead><tr><th>ID</th><th>Status</th><th>Created</th><th>Title</th></tr></thead>
<tbody id="latest-rows"></tbody></table>
</div>
<div id="lineage-panel" class="panel">
<h2>Lineage</h2>
<p class="hint">How the latest handoffs descend from one another: continue, fork, merge and amend. A conflict candidate is a decision two branches made differently; a merge with a written resolution settles it.</p>
<div id="lineage-tree" aria-live="polite"><p class="empty">Loading…</p></div>
<ul id="lineage-conflicts" class="conflicts"></ul>
</div>
</section>
</main>
<p id="status-line" role="status"></p>
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
