"""The record model's ``__init__``s compiled with ``baton.domain.record_inits`` (issue 27).

attrs writes each class's ``__init__`` as source and compiles it when the class is
defined; ``baton.model.precompiled`` has it take a form compiled with
``record_inits`` instead, for the exact source it would compile. These tests hold
that form to attrs' own: the module is what ``scripts/record_inits.py`` writes from
this attrs, each function has the bytecode attrs' ``compile`` gives, the classes
built from it behave as attrs' (the model's own tests), and a source not there is
compiled as before.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import types

import attrs
import pytest

from baton.domain import handoff, record_inits
from baton.model import frozen

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_the_precompiled_inits_are_what_attrs_writes_for_the_record_model_now():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "record_inits.py"), "--check"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_class_of_the_record_model_has_its_init_precompiled():
    classes = [c for c in vars(handoff).values()
               if isinstance(c, type) and c.__module__ == handoff.__name__ and attrs.has(c)]
    assert len(classes) == 19
    assert {c.__init__.__code__.co_filename for c in classes} == {record_inits.__file__}


def _functions(code: types.CodeType) -> dict[str, types.CodeType]:
    return {c.co_name: c for c in code.co_consts if isinstance(c, types.CodeType)}


_NESTED = 0x10
"""``CO_NESTED``: the precompiled function is defined inside another (which changes nothing it runs)."""
_FUTURE_ANNOTATIONS = 0x1000000
"""Inherited by ``compile`` from its caller's ``__future__`` imports: the source has no annotations."""


def _shape(code: types.CodeType) -> tuple:
    consts = tuple(c for c in code.co_consts if not isinstance(c, types.CodeType))
    return (code.co_code, code.co_names, code.co_varnames, consts, code.co_argcount, code.co_kwonlyargcount,
            code.co_posonlyargcount, code.co_flags & ~(_NESTED | _FUTURE_ANNOTATIONS), code.co_freevars,
            code.co_cellvars)


@pytest.mark.parametrize("script", list(record_inits.MADE), ids=lambda s: record_inits.MADE[s].__name__[1:])
def test_each_precompiled_function_has_the_bytecode_attrs_compile_gives(script):
    """The function defined by the precompiled form is the one ``compile(script)`` defines
    (same bytecode, names, constants and arguments), and its defaults are read from the
    same globals by the same instructions."""
    compiled = _functions(compile(script, "<attrs>", "exec"))
    made = record_inits.MADE[script]
    precompiled = _functions(made.__code__)
    assert set(precompiled) == set(compiled)
    for name, code in compiled.items():
        assert _shape(precompiled[name]) == _shape(code), name
    script_names = set(compile(script, "<attrs>", "exec").co_names) - set(compiled)  # less what it defines
    assert set(made.__code__.co_names) == script_names


def test_a_class_whose_source_is_not_precompiled_is_compiled_by_attrs_as_before():
    @frozen
    class Elsewhere:
        name: str
        count: int = 0

    assert Elsewhere.__init__.__code__.co_filename.startswith("<attrs generated")
    assert Elsewhere("a") == Elsewhere("a", 0) and Elsewhere("a", 2).count == 2


def test_attrs_own_compiler_is_back_in_place_after_a_class_is_built():
    import attr._make

    from baton import model

    assert attr._make._linecache_and_compile is model._ATTRS_COMPILE


def test_a_precompiled_init_converts_and_defaults_as_attrs_generated_one():
    d = handoff.Decision(id="D-1", decision="use it", alternatives_considered=["a", "b"])
    assert d.alternatives_considered == ("a", "b") and d.evidence_ids == () and d.extra == {}
    assert handoff.Decision(id="D-2", decision="x").extra is not handoff.Decision(id="D-3", decision="y").extra
    with pytest.raises(TypeError):
        handoff.Decision(id="D-4")  # the decision is required
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        d.decision = "no"  # type: ignore[misc]
