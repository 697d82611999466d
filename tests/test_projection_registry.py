"""The projections a project keeps (``baton.projections.registry``): a
projection that needs a decider is a light routing class plus a fold in
``baton.projections.folds``, loaded the first time an event touches it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from baton.projections.registry import Deferred, default_projections


def test_every_deferred_fold_is_named_versioned_and_routed_as_its_routing_class():
    for p in default_projections():
        if not isinstance(p, Deferred):
            continue
        fold = p.loaded
        assert (fold.name, fold.version, fold.order) == (p.name, p.version, p.order)
        assert type(fold).keys is type(p.keys.__self__).keys  # the fold subclasses its routing class
        assert isinstance(fold, type(p.keys.__self__))
        assert callable(fold.apply)


_FOLD_ONE_SESSION = textwrap.dedent("""
    import sys
    from pathlib import Path
    from baton.events.session import SessionBegun
    from baton.ledger import Ledger
    from baton.projections.registry import default_projections
    from baton.projections.runner import ProjectionRunner

    folder = Path(sys.argv[1])
    ledger = Ledger(folder, "w1", fsync="never")
    runner = ProjectionRunner(folder, ledger, default_projections())
    if sys.argv[2] == "append":
        with ledger.locked() as txn:
            txn.append([SessionBegun(key="s1", session="s1", harness="codex").draft()])
    runner.catch_up()
    runner.close()
    print(sorted(m for m in sys.modules if m.startswith("baton.projections.folds.")))
""")


def _folds_loaded(folder, step: str) -> str:
    r = subprocess.run([sys.executable, "-c", _FOLD_ONE_SESSION, str(folder), step], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.strip()


def test_a_catch_up_loads_only_the_folds_its_events_touch(tmp_path):
    _folds_loaded(tmp_path, "make the index")  # a new index: every fold makes its tables
    assert _folds_loaded(tmp_path, "nothing") == "[]"
    assert _folds_loaded(tmp_path, "append") == "['baton.projections.folds.sessions']"


def test_a_projection_that_names_its_types_routes_no_event_of_another_type():
    """``Projection.types``: the runner asks ``keys`` only of the projections
    that may route an event's type, so ``keys`` must route nothing else —
    whatever the stream, the payload, or an unknown type."""
    from baton.events.names import FAMILIES, MODULE_OF_TYPE
    from baton.ledger.envelope import Event

    known = sorted(MODULE_OF_TYPE) + ["bench.noted", "handoff.unknown", "baton.unknown"]
    handoff_id = "01a24243-e1c9-7219-aeed-5ba3f61ab39b"
    named = [p for p in default_projections() if getattr(p, "types", None) is not None]
    assert {p.name for p in named} >= {"handoffs", "lineage", "continuity_metrics", "detector", "sessions",
                                       "objectives", "baton_scopes"}
    routed_somewhere = set()
    for kind in known:
        for family in FAMILIES:
            stream = f"{family}/{handoff_id}" if family != "baton" else "baton/alice__main"
            event = Event(v=1, id="01a24243-e1c9-7219-aeed-5ba3f61ab39c", writer="w1", seq=1,
                          at="2026-12-05T00:00:00.000000Z", hlc=1, type=kind, stream=stream, stream_version=1,
                          actor=None, session=None, data={"handoff_id": handoff_id, "key": handoff_id},
                          digest="", prev=None, hash="")
            for p in named:
                keys = tuple(p.keys(event))
                if kind not in p.types:
                    assert keys == (), (p.name, kind, stream)
                elif keys:
                    routed_somewhere.add((p.name, kind))
    assert {name for name, _kind in routed_somewhere} == {p.name for p in named}  # the test reaches every one
