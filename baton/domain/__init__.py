"""Pure handoff rules: the model, its lifecycle, validation, scoring, rendering.

Nothing in this package touches the file system, the clock, git, SQLite or the
environment: commands gather facts and pass them in. Modules are imported
directly (``baton.domain.handoff``...); this package re-exports nothing so
importing it stays free.
"""
