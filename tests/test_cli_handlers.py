"""Every command names its handler (``set_defaults(func="module:function")``),
and ``baton.cli.handler`` finds each one."""

from __future__ import annotations

import argparse

from baton import cli


def _handler_specs(parser: argparse.ArgumentParser) -> dict[str, str]:
    found: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                spec = sub.get_default("func")
                if spec:
                    found[f"{parser.prog} {name}"] = spec
                found |= _handler_specs(sub)
    return found


def test_every_command_names_a_handler_that_resolves_to_a_function():
    specs = _handler_specs(cli.build_parser())
    assert len(specs) >= 35
    for command, spec in specs.items():
        assert callable(cli.handler(spec)), command


def test_the_handlers_that_take_no_project_are_named_by_their_function():
    names = {cli.handler_name(spec) for spec in _handler_specs(cli.build_parser()).values()}
    assert cli.PROJECTLESS <= names
