"""The folds of the projections that need a decider: each module adds
``apply`` (and the writers of its documents' files and query tables) to the
light class of the same name's ``...Base`` in ``baton.projections``.

The routing classes are all a command's read path needs (the index's
signature, which documents an event touches, the queries); a fold module
imports its aggregate and the event classes, so ``baton.projections.registry``
imports one only when there is an event to fold (``Deferred``).
"""
