"""The status page (``baton status serve``): a loopback-only HTTP adapter over
``baton.commands.status_page``. Imported only by the commands that serve it."""
