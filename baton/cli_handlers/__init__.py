"""What each ``baton`` command does once its words are parsed: one module per
group of commands, each a set of handlers ``handler(app, args)`` (or
``handler(args)`` for the commands that open no project).

``baton.cli`` names every handler as ``"module:function"`` where it defines
the command's words, and imports a handler's module only when a run calls it
(``baton.cli.handler``): a command loads its own group's modules and nothing
else, and ``baton --help`` loads none. ``output`` prints and screens what
the handlers return; ``opened`` runs a handler on an opened project.
"""
