"""A generated function's tree is kept pickled in its record (rulewright.dsl.compile.codegen
``Generated``) and rebuilt on first use, so that a machine held in memory is a few thousand
objects for the garbage collector to scan instead of some 60,000."""

from __future__ import annotations

import ast
import gc
import io
import pickle

import pytest

from rulewright.dsl.compile.codegen import Generated, generated_tree, unpack_tree
from rulewright.dsl.compile.compile import compile_checked
from rulewright.dsl.machine.machine import Exec
from rulewright.engines import machine_cache as mc
from rulewright.engines.game import load_spec


def _tracked(root: object) -> int:
    """Containers the collector tracks, reachable from ``root`` through its records."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or not gc.is_tracked(obj) or isinstance(obj, type):
            continue
        seen.add(id(obj))
        stack.extend(gc.get_referents(obj))
    return len(seen)


def test_a_compiled_machine_keeps_its_trees_packed_until_one_is_read() -> None:
    machine = compile_checked(load_spec("tic_tac_toe"), players=2)
    records = list(machine.code_space.sources.values())
    assert records and all(r._tree is None and type(r.packed) is bytes for r in records)
    # bytes and a dict of ints are not tracked: a record is itself and its linecache list
    assert _tracked(records) == 1 + len(records)
    run = next(i.run for r in machine.rules for i in r.code if isinstance(i, Exec)
               and generated_tree(i.run, machine.code_space) is not None)
    record = machine.code_space.sources[run.__code__.co_filename]
    tree = generated_tree(run, machine.code_space)
    assert tree is record.tree  # rebuilt once, then the same object (analyses key by ids)
    assert isinstance(tree, ast.FunctionDef) and tree.name == run.__code__.co_name
    assert ast.dump(tree) == ast.dump(pickle.loads(record.packed))
    assert sum(r._tree is not None for r in records) == 1


def test_a_stored_record_holds_the_packed_tree_only() -> None:
    machine = compile_checked(load_spec("tic_tac_toe"), players=2)
    record = next(iter(machine.code_space.sources.values()))
    record.tree  # rebuilt: must not be stored
    again = pickle.loads(pickle.dumps(record))
    assert (again.filename, again.packed, again.spec_lines, again._tree) == \
        (record.filename, record.packed, record.spec_lines, None)
    assert ast.dump(again.tree) == ast.dump(record.tree)


def test_a_machine_read_from_an_entry_reads_its_trees_as_compiled() -> None:
    parsed = load_spec("tic_tac_toe")
    machine = compile_checked(parsed, players=2)
    read = mc.decode(mc.encode(machine, "k" * 64, parsed), "k" * 64, parsed)
    names = sorted(machine.code_space.sources)
    assert sorted(read.code_space.sources) == names
    assert all(read.code_space.sources[n]._tree is None for n in names)
    assert [read.code_space.sources[n].text() for n in names] == \
        [machine.code_space.sources[n].text() for n in names]


def test_a_packed_tree_loads_ast_nodes_only() -> None:
    forged = pickle.dumps(io.BytesIO(b""))
    with pytest.raises(pickle.UnpicklingError,
                       match=r"^a generated tree may not name _io\.BytesIO$"):
        unpack_tree(forged)
    with pytest.raises(pickle.UnpicklingError,
                       match=r"^a generated tree is a Name, not a function definition$"):
        unpack_tree(pickle.dumps(ast.Name("x", ast.Load())))
    assert Generated.of("<f>", ast.parse("def f(): pass").body[0], {}).tree.name == "f"  # type: ignore[arg-type]
