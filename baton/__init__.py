"""Baton: portable, verified continuity for AI coding agents.

The package is layered (see docs/architecture.md): ``ledger`` is the
append-only event store, ``domain`` holds pure handoff rules,
``projections`` fold events into state, ``commands`` decide, and ``cli`` is a
thin adapter. Importing ``baton`` must stay cheap: hooks call the CLI often.
"""

__version__ = "0.1.0"
