from baton.cli_run import run

run()
