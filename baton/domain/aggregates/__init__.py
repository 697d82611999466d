"""One decider per aggregate: ``decide(state, command) -> events`` and
``evolve(state, event) -> state``, both pure.

``decide`` checks a command against the state folded so far and returns the
typed events (``baton.events``) that record it, or raises the error that
refuses it; it never appends. ``evolve`` folds one recorded event into the
state; the application object uses it for the write side and the
projections use the very same function for the read models, so a rule is
written once.
"""
