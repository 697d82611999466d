from baton.cli import run

run()
