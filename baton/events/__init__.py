"""The event catalogue: every fact Baton records, one frozen class per type.

- ``names``: the stream families and type names (what the read path routes by,
  without defining a class), and ``load_family`` (the module of a type's class);
- ``base``: ``DomainEvent``, the registry of classes by type, ``decode``;
- one module per aggregate: ``project``, ``handoff``, ``session`` (sessions and
  objectives), ``baton`` (session batons), ``detector``;
- ``catalogue``: all of them, importable from one place.

This package file imports nothing, so importing ``baton.events.names`` defines
no event class.
"""
