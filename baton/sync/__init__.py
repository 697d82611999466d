"""``baton sync``'s subsystem: the ledger shared through a git ref (docs/sync.md).

``baton.commands.sync`` is the use case (one sync, retried when the remote
moves, and its result); these modules are its parts, each with its own format
or failure modes:

- ``ledger_ref`` — the ref's format: feeds as trees of segment blobs, read and written;
- ``transport`` — the git remote through dulwich: fetch, push, transport errors
  (``stale_locks``: the stale pack index locks a path remote may hold);
- ``local`` — the ledger's feed files as a sync reads them, its lock, its staging files;
  ``state`` — what a sync keeps between runs (``.baton/sync-state.json``);
- ``segments`` — where a feed's segments may be cut, and the lines found in them;
- ``refusals`` — the feeds a sync will not take, and why;
- ``work`` — one round's state; ``decide`` — the per-feed decision (fast-forward
  checks, own-feed rules); ``importing`` — verifying and staging a remote's bytes;
  ``ids`` — the duplicate-id check and its cache; ``erasures`` — copies that differ
  by erased payloads; ``publish`` — packing local feeds, the commit, the push;
- ``signing`` / ``signatures`` / ``signers`` — signed feed heads: keys and
  checks, the round's two hooks, what ``verify``, ``audit`` and the status page show.

Nothing is re-exported here: importing one module (``baton verify`` imports
``signers``) loads only what that module needs.
"""
