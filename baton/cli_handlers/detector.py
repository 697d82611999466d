"""The detector: score signals, or snooze, disable and enable its recommendations."""

from __future__ import annotations

import argparse

from baton.app import Baton
from baton.cli import SNOOZE_DEFAULT
from baton.cli_read import read_json_bounded
from baton.errors import InputError


def detect(app: Baton, args: argparse.Namespace):
    controls = [flag for flag, given in (("--snooze", args.snooze is not None),
                                         ("--disable-for-session", args.disable_for_session),
                                         ("--enable", args.enable)) if given]
    if len(controls) > 1 or (controls and (args.prepare or args.event is not None)):
        others = controls + [f for f, given in (("--prepare", args.prepare), ("--event", args.event is not None))
                             if given]
        raise InputError(f"{' and '.join(others)} cannot be combined: give one of --snooze, "
                         "--disable-for-session, --enable, or signals to score")
    for action, given in (("snooze", args.snooze is not None), ("disable", args.disable_for_session),
                          ("enable", args.enable)):
        if given:
            minutes = None if args.snooze is None or args.snooze == SNOOZE_DEFAULT else args.snooze
            return app.control_detector(action, session=args.session, minutes=minutes)
    signals: dict = {}
    if args.event is not None:
        signals = read_json_bounded(args.event, "--event")
        if not isinstance(signals, dict):
            raise InputError("--event must hold a JSON object of signal names to numbers from 0 to 1 (or null)")
    return app.detect(signals, prepare=args.prepare, session=args.session, harness=args.harness)
