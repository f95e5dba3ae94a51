"""A rule's control flow as one generated function: the interpreter's fast path.

:meth:`Interpreter._advance <rulewright.engines.interpreter.Interpreter._advance>` runs a
rule one instruction at a time, dispatching on each instruction's class. For every rule,
:func:`flow_function` builds (as a Python syntax tree, never as text) one function that runs
the rule's *local* instructions -- :class:`~rulewright.dsl.machine.machine.Exec`,
:class:`~rulewright.dsl.machine.machine.JumpUnless`, :class:`~rulewright.dsl.machine.machine.Jump`,
:class:`~rulewright.dsl.machine.machine.ForNext`, :class:`~rulewright.dsl.machine.machine.Switch` -- with
the control flow written out: straight-line runs need no dispatch, and the instructions'
functions, targets, slots and coverage points are bound names and constants.

The generated function ``flow(st, fr, loc, pc, budget, cover) -> (pc, budget)`` starts at
``pc`` and returns at the first instruction it does not run (a decision, a draw, a chance
event, a gap, an expectation, a script, the end, any pc that is not the start of one of its
blocks, or a jump when the jump budget is used up); the interpreter runs that one
instruction as before and calls the flow again.

A game's flows also run rule calls and returns (:func:`lazy_flows` with ``nlocals``): a call
pushes the callee's frame exactly as the interpreter does and runs the callee's flow, a
nested Python call, while the call stack is less than :data:`NEST` frames deep (deeper
calls, and a call with no budget left, are the interpreter's); a return pops the frame and
returns :data:`RETURNED`, and the caller goes on after its call. A callee that stops
elsewhere (a draw, say) makes every flow that called it return that pc, which is the
callee's: the interpreter goes on in the frame on top of the stack. Those flows also set up
decisions (:func:`_choice`) and chance events (:func:`_chance`): the state then waits
there, and every flow and the interpreter return at once (:data:`PAUSED`). So the
interpreter loop remains the definition of what each instruction does; a flow is the same
steps without the dispatch:

- the state changes in the same order, the same coverage flags are set, and each jump
  costs one unit of the jump budget; a jump that would exhaust it is left to the
  interpreter (which reports the livelock at that jump);
- when an instruction's function raises :class:`~rulewright.dsl.machine.machine.SpecRuntimeError`,
  the flow writes that instruction's pc to ``fr[1]`` and re-raises, so the finding names the
  same site; a caller's flow writes its own pc, past the call (as the interpreter leaves a
  caller's frame), and the interpreter reads the failing site from the frame on top.

Nothing from the spec reaches the generated code: its names are the parameters, a few fixed
locals and ``f{pc}`` (the instruction's function), ``t{pc}`` (a switch's targets),
``n{pc}`` (a call's padding, a tuple of Nones), ``flows`` and ``error``, bound in the
function's own globals; its only attributes are the call stack's (``st.stack``, its
``append`` and ``pop``), a decision's (``st.script``, ``st.pending``, ``st.decide``,
``player.__class__``) and a chance event's (``st.chance``); its constants are whole
numbers. :func:`check_flow` verifies that before the tree is compiled.
"""

from __future__ import annotations

import ast
from functools import partial
from typing import Any, Callable, Sequence

from rulewright.dsl.compile.codegen import Namespace, UnsafeTree, check_inlined
from rulewright.dsl.machine.machine import (Call, Chance, Choice, Decision, Draw, Exec, ForNext, Instr,
                                    Jump, JumpUnless, Return, SpecRuntimeError, Switch)
from rulewright.engines.inline import OWN, TEST, Inliner
from rulewright.engines.twin_view import chooser_ids

#: ``flow(state, frame, locals, pc, budget, cover) -> (pc, budget)``.
Flow = Callable[[Any, list[Any], list[Any], int, int, Any], tuple[int, int]]
#: What a flow needs to run rule calls and decisions itself: every rule's flow (by rule
#: index; the list may fill later), every rule's number of locals (a frame's size), its
#: instructions, and the number of players (a chooser is one of 0 .. players - 1).
Calls = tuple[Sequence[Flow], Sequence[int], Callable[[int], Sequence[Instr]], int]

#: The instruction classes a flow runs itself.
LOCAL = (Exec, JumpUnless, Jump, ForNext, Switch)
#: ... and when it runs rule calls, decisions and chance events (see :func:`lazy_flows`).
RUNS = (*LOCAL, Call, Return, Choice, Draw, Chance)

_PARAMS = ("st", "fr", "l", "pc", "budget", "cover")
_LOCALS = frozenset({*_PARAMS, "items", "i", "k", "args", "nfr", "q", TEST,
                     "player", "values", "labels", "ids"})
#: The built-ins a flow's own code names (generated code has its own, see
#: rulewright.dsl.compile.codegen.BUILTINS, which include these).
_BUILTINS = {"len": len, "int": int}
#: Bound names a flow's decisions use besides their instructions' own (``c{pc}`` ...).
_DECIDE = {"Decision": Decision, "Labels": partial, "chooser_ids": chooser_ids}

#: A flow runs a rule call itself (the callee's flow, a nested Python call) while the call
#: stack is shallower than this; deeper calls are left to the interpreter, so a recursive
#: spec never nests Python calls more than this deep. At most the interpreter's
#: MAX_CALL_DEPTH, which the interpreter checks.
NEST = 24

#: What a flow returns for its pc when it ran its rule's ``return``: the frame is popped and
#: the caller goes on (a flow that called it inline, or the interpreter).
RETURNED = -1
#: What a flow returns for its pc when the state now waits at a decision or chance event
#: (``st.pending`` is set, the frame's pc is its instruction's) or has ended there (a
#: deadlock, say): as the interpreter after
#: :meth:`~rulewright.engines.interpreter.Interpreter._pause` returned False, every flow and
#: the interpreter return at once.
PAUSED = -2


def _n(ident: str) -> ast.Name:
    return ast.Name(ident, ast.Load())


def _store(ident: str) -> ast.Name:
    return ast.Name(ident, ast.Store())


def _int(v: int) -> ast.Constant:
    return ast.Constant(v)


def _set(ident: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([_store(ident)], value)


def _slot(slot: int, ctx: ast.expr_context) -> ast.Subscript:
    return ast.Subscript(_n("l"), _int(slot), ctx)


def _cover(point: int) -> list[ast.stmt]:
    """``if cover is not None: cover[point] = 1`` (nothing for the sink, point 0, which the
    interpreter sets but no report reads; set here too, to stay identical)."""
    test = ast.Compare(_n("cover"), [ast.IsNot()], [ast.Constant(None)])
    flag = ast.Assign([ast.Subscript(_n("cover"), _int(point), ast.Store())], _int(1))
    return [ast.If(test, [flag], [])]


def _back(pc: int) -> ast.Return:
    """Leave the flow at instruction ``pc`` for the interpreter."""
    return ast.Return(ast.Tuple([_int(pc), _n("budget")], ast.Load()))


def _goto(target: int, start: int) -> list[ast.stmt]:
    """Go on at ``target`` from the block at ``start``: blocks are tested in code order, so a
    later block is reached by falling through, an earlier one by starting the tests again."""
    return [_set("pc", _int(target))] + ([ast.Continue()] if target <= start else [])


#: The most jumps to jumps one block follows (the end of an ``if`` inside a loop jumps to
#: the loop's end, which jumps to its test).
CHAIN = 8


def _jump(code: Sequence[Instr], pc: int, start: int) -> list[ast.stmt]:
    """The jump at ``pc`` and the jumps it lands on, one unit of budget each. When they
    would use the budget up, the interpreter takes over at ``pc`` (it runs one jump, the flow
    the rest, until the jump that exhausts it, where the interpreter reports the livelock)."""
    at, jumps = pc, 0
    for _ in range(CHAIN):
        ins = code[at]
        assert isinstance(ins, Jump)
        at, jumps = ins.target, jumps + 1
        if not 0 <= at < len(code) or type(code[at]) is not Jump:
            break
    spend = ast.AugAssign(_store("budget"), ast.Sub(), _int(jumps))
    over = ast.If(ast.Compare(_n("budget"), [ast.Lt()], [_int(0)]),
                  [ast.AugAssign(_store("budget"), ast.Add(), _int(jumps)), _back(pc)], [])
    return [spend, over, *_goto(at, start)]


def _at(pc: int, start: int) -> list[ast.stmt]:
    """``pc = pc`` before an instruction that may raise (a finding names its site); the
    first instruction of a block is there already."""
    return [] if pc == start else [_set("pc", _int(pc))]


def _block(code: Sequence[Instr], start: int, leaders: frozenset[int],
           bound: dict[str, Any], calls: Calls | None,
           inline: Inliner | None) -> list[ast.stmt]:
    """The statements of the block starting at ``start``: up to a control instruction or
    the next leader (then the flow goes on there)."""
    out: list[ast.stmt] = []
    pc = start
    while True:
        ins = code[pc]
        cls = type(ins)
        if cls is Exec:
            assert isinstance(ins, Exec)
            body = inline.statements(ins.run) if inline is not None else None
            if body is None:
                bound[f"f{pc}"] = ins.run
                body = [ast.Expr(ast.Call(_n(f"f{pc}"), [_n("st"), _n("l")], []))]
            out += [*_at(pc, start), *body]
        elif cls is JumpUnless:
            assert isinstance(ins, JumpUnless)
            copied = inline.condition(ins.cond) if inline is not None else None
            if copied is None:
                bound[f"f{pc}"] = ins.cond
                copied = [], ast.Call(_n(f"f{pc}"), [_n("st"), _n("l")], [])
            yes = [*_cover(ins.yes), *_goto(pc + 1, start)]
            no = [*_cover(ins.no), *_goto(ins.target, start)]
            return out + [*_at(pc, start), *copied[0], ast.If(copied[1], yes, no)]
        elif cls is Jump:
            assert isinstance(ins, Jump)
            return out + _jump(code, pc, start)
        elif cls is ForNext:
            assert isinstance(ins, ForNext)
            done = [ast.Assign([_slot(ins.list_slot, ast.Store()),
                                _slot(ins.index_slot, ast.Store())], ast.Constant(None)),
                    *_goto(ins.exit, start)]
            step = [ast.Assign([_slot(ins.var_slot, ast.Store())],
                               ast.Subscript(_n("items"), _n("i"), ast.Load())),
                    ast.Assign([_slot(ins.index_slot, ast.Store())],
                               ast.BinOp(_n("i"), ast.Add(), _int(1))),
                    *_goto(pc + 1, start)]
            past = ast.Compare(_n("i"), [ast.GtE()],
                               [ast.Call(_n("len"), [_n("items")], [])])
            return out + [_set("items", _slot(ins.list_slot, ast.Load())),
                          _set("i", _slot(ins.index_slot, ast.Load())),
                          ast.If(past, done, step)]
        elif cls is Switch:
            assert isinstance(ins, Switch)
            bound[f"t{pc}"] = ins.targets
            out += [_set("k", _slot(ins.slot, ast.Load())),
                    _set("pc", ast.Subscript(_n(f"t{pc}"), _n("k"), ast.Load())),
                    ast.Assign([_slot(ins.slot, ast.Store())], ast.Constant(None))]
            covering = ast.Compare(_n("cover"), [ast.IsNot()], [ast.Constant(None)])
            at = ast.BinOp(_int(ins.point), ast.Add(), _n("k"))
            out.append(ast.If(covering, [ast.Assign([ast.Subscript(_n("cover"), at,
                                                                   ast.Store())], _int(1))], []))
            # the options' blocks follow the switch: reached by falling through
            return out + ([] if all(t > start for t in ins.targets) else [ast.Continue()])
        elif cls is Call and calls is not None:
            assert isinstance(ins, Call) and pc == start  # a call is always a leader
            return out + _call(ins, pc, bound, calls, inline)
        elif cls is Choice and calls is not None and calls[3] > 0:
            assert isinstance(ins, Choice) and pc == start  # a choice is always a leader
            return out + _choice(ins, pc, bound, calls[3])
        elif (cls is Draw or cls is Chance) and calls is not None and calls[3] > 0:
            assert pc == start  # a chance event is always a leader
            return out + _chance(ins, pc, bound)
        elif cls is Return and calls is not None:
            assert pc == start  # a return is always a leader
            pop = ast.Call(ast.Attribute(_stack(), "pop", ast.Load()), [], [])
            return out + [ast.Expr(pop),
                          ast.Return(ast.Tuple([_int(RETURNED), _n("budget")], ast.Load()))]
        else:
            return out + [_back(pc)]
        pc += 1
        if pc in leaders:
            return out + _goto(pc, start)


def _stack() -> ast.Attribute:
    return ast.Attribute(_n("st"), "stack", ast.Load())


def _call(ins: Call, pc: int, bound: dict[str, Any], calls: Calls,
          inline: Inliner | None = None) -> list[ast.stmt]:
    """The call at ``pc``, run here as the interpreter runs it: the arguments (padded to the
    callee's locals), the caller's pc past the call, the new frame, the coverage point and one
    unit of budget; then the callee's flow from its start. When it returns (RETURNED) the
    flow goes on after the call; when it stops anywhere else the flow returns that pc, which
    is the callee's (the interpreter goes on in the frame on top of the stack).

    Left to the interpreter (which reports a livelock or an over-deep recursion there): a
    call with no budget left or with the stack :data:`NEST` frames deep.
    """
    # the arguments' generated code copied in when it can be (see Inliner.value), else
    # called
    arguments = inline.value(ins.args, "args") if inline is not None else None
    if arguments is None:
        bound[f"f{pc}"] = ins.args
        arguments = [_set("args", ast.Call(_n(f"f{pc}"), [_n("st"), _n("l")], []))]
    nlocals = calls[1][ins.rule]
    test = ast.BoolOp(ast.And(), [
        ast.Compare(_n("budget"), [ast.Gt()], [_int(0)]),
        ast.Compare(ast.Call(_n("len"), [_stack()], []), [ast.Lt()], [_int(NEST)])])
    pad: list[ast.stmt]
    if ins.nargs >= 0:  # the padding is known: one bound tuple of Nones
        pad = []
        if nlocals > ins.nargs:
            bound[f"n{pc}"] = (None,) * (nlocals - ins.nargs)
            pad = [ast.AugAssign(_store("args"), ast.Add(), _n(f"n{pc}"))]
    else:
        pad = [_set("k", ast.BinOp(_int(nlocals), ast.Sub(),
                                   ast.Call(_n("len"), [_n("args")], []))),
               ast.If(ast.Compare(_n("k"), [ast.Gt()], [_int(0)]),
                      [ast.AugAssign(_store("args"), ast.Add(),
                                     ast.BinOp(ast.List([ast.Constant(None)], ast.Load()),
                                               ast.Mult(), _n("k")))], [])]
    callee = ast.Call(ast.Subscript(_n("flows"), _int(ins.rule), ast.Load()),
                      [_n("st"), _n("nfr"), _n("args"), _int(0), _n("budget"), _n("cover")], [])
    run = [*arguments,
           *pad,
           _set("pc", _int(pc + 1)),
           ast.Assign([ast.Subscript(_n("fr"), _int(1), ast.Store())], _int(pc + 1)),
           _set("nfr", ast.List([_int(ins.rule), _int(0), _n("args")], ast.Load())),
           ast.Expr(ast.Call(ast.Attribute(_stack(), "append", ast.Load()), [_n("nfr")], [])),
           *_cover(ins.point),
           ast.AugAssign(_store("budget"), ast.Sub(), _int(1))]
    if type(calls[2](ins.rule)[0]) in RUNS:
        run += [ast.Assign([ast.Tuple([_store("q"), _store("budget")], ast.Store())], callee),
                ast.If(ast.Compare(_n("q"), [ast.NotEq()], [_int(RETURNED)]),
                       [ast.Return(ast.Tuple([_n("q"), _n("budget")], ast.Load()))], [])]
    else:  # the callee starts with what its flow leaves to the interpreter (a gap, say)
        run.append(ast.Return(ast.Tuple([_int(0), _n("budget")], ast.Load())))
    # after the callee returned: on at pc + 1, the next block (reached by falling through)
    return [ast.If(test, run, [_back(pc)])]


def _choice(ins: Choice, pc: int, bound: dict[str, Any], players: int) -> list[ast.stmt]:
    """The decision at ``pc``, set up here as
    :meth:`~rulewright.engines.interpreter.Interpreter._pause` sets it up: the chooser, then
    the options (by the same function, in one call less where the compiler said how, see
    :class:`~rulewright.dsl.machine.machine.Choice`). With two options or more and no script, the
    state waits: ``st.pending`` is the decision and the flow returns :data:`PAUSED`. Any
    other case goes to ``st.decide`` (no option: a deadlock; one: resolved at once, and the
    flow goes on after the choice; a scripted label), as the interpreter does it.

    A chooser that is not a player is left to the interpreter (which reports it); nothing
    has run then. An error in the options leaves the choice's pc in the frame (the finding
    names the choice, as the interpreter's).
    """
    bound[f"c{pc}"] = ins
    bound.update(_DECIDE)
    chooser: ast.expr
    if ins.player_slot is not None:
        chooser = _slot(ins.player_slot, ast.Load())
    else:
        bound[f"w{pc}"] = ins.player
        chooser = ast.Call(_n(f"w{pc}"), [_n("st"), _n("l")], [])
    options: list[ast.stmt]
    if ins.fixed is not None:
        bound[f"o{pc}"], bound[f"b{pc}"], bound[f"i{pc}"] = ins.fixed
        options = [_set("values", _n(f"o{pc}")), _set("labels", _n(f"b{pc}")),
                   _set("ids", _n(f"i{pc}"))]
    elif ins.plain is not None:
        bound[f"o{pc}"], bound[f"b{pc}"] = ins.plain
        options = [ast.Assign([_store("values"), _store("ids")],
                              ast.Call(_n(f"o{pc}"), [_n("st"), _n("l")], [])),
                   _set("labels", ast.Call(_n("Labels"), [_n(f"b{pc}"), _n("values")], []))]
    else:
        bound[f"o{pc}"] = ins.options
        options = [ast.Assign([ast.Tuple([_store("values"), _store("labels"), _store("ids")],
                                         ast.Store())],
                              ast.Call(_n(f"o{pc}"), [_n("st"), _n("l")], []))]
    if ins.components:  # twins by the chooser's view, as the interpreter gives them
        options.append(_set("ids", ast.Call(_n("chooser_ids"), [_n("st"), _n("player"),
                                                                _n("ids")], [])))
    a_player = ast.BoolOp(ast.And(), [
        ast.Compare(ast.Attribute(_n("player"), "__class__", ast.Load()), [ast.Is()],
                    [_n("int")]),
        ast.Compare(_int(0), [ast.LtE(), ast.Lt()], [_n("player"), _int(players)])])
    node = ast.Call(_n("Decision"), [_n(n) for n in ("player", "values", "labels", "ids",
                                                     f"c{pc}")], [])
    paused = ast.Return(ast.Tuple([_int(PAUSED), _n("budget")], ast.Load()))
    waits = ast.BoolOp(ast.And(), [
        ast.Compare(ast.Call(_n("len"), [_n("values")], []), [ast.Gt()], [_int(1)]),
        ast.UnaryOp(ast.Not(), ast.Attribute(_n("st"), "script", ast.Load()))])
    decide = ast.Call(ast.Attribute(_n("st"), "decide", ast.Load()),
                      [_n(f"c{pc}"), _n("player"), _n("values"), _n("labels"), _n("ids")], [])
    run = [*options,
           ast.Assign([ast.Subscript(_n("fr"), _int(1), ast.Store())], _int(pc)),
           ast.If(waits, [ast.Assign([ast.Attribute(_n("st"), "pending", ast.Store())], node),
                          paused], []),
           ast.If(ast.UnaryOp(ast.Not(), decide), [paused], []),
           # resolved at once (fr[1] is past the choice): on in the next block
           _set("pc", _int(pc + 1))]
    return [_set("player", chooser), ast.If(a_player, run, [_back(pc)])]


def _chance(ins: Instr, pc: int, bound: dict[str, Any]) -> list[ast.stmt]:
    """The draw or chance event at ``pc``, set up by ``st.chance`` (the interpreter's own
    code, :meth:`~rulewright.engines.interpreter.Interpreter.chance`) without going back to
    the interpreter: the flow returns :data:`PAUSED` when the state waits, else (one
    outcome, resolved at once) it goes on after the event. An error leaves the event's pc in
    the frame (the finding names it, as the interpreter's)."""
    bound[f"c{pc}"] = ins
    event = ast.Call(ast.Attribute(_n("st"), "chance", ast.Load()), [_n(f"c{pc}"), _n("l")], [])
    return [ast.Assign([ast.Subscript(_n("fr"), _int(1), ast.Store())], _int(pc)),
            ast.If(ast.UnaryOp(ast.Not(), event),
                   [ast.Return(ast.Tuple([_int(PAUSED), _n("budget")], ast.Load()))], []),
            _set("pc", _int(pc + 1))]


def leaders_of(code: Sequence[Instr]) -> frozenset[int]:
    """The pcs where a flow can be entered: 0, every target, and every instruction after a
    control instruction or one the flow leaves to the interpreter (where it resumes)."""
    out = {0}
    for pc, ins in enumerate(code):
        if isinstance(ins, Exec):
            continue
        out.add(pc + 1)
        if isinstance(ins, (Jump, JumpUnless)):
            out.add(ins.target)
        elif isinstance(ins, ForNext):
            out.add(ins.exit)
        elif isinstance(ins, Switch):
            out.update(ins.targets)
        if not isinstance(ins, LOCAL):
            out.add(pc)
    return frozenset(p for p in out if 0 <= p < len(code))


def reserved_names(code: Sequence[Instr]) -> frozenset[str]:
    """Every name a flow of ``code`` binds itself: its parameters and locals, ``flows``,
    ``error``, each instruction's ``f{pc}``, ``t{pc}`` and ``n{pc}``, and a decision's
    ``c{pc}``, ``w{pc}``, ``o{pc}``, ``b{pc}``, ``i{pc}``, ``Decision`` and ``Labels`` (not
    ``len`` and ``int``: the built-ins, in generated code too)."""
    own = {f"{kind}{pc}" for kind in "ftncwobi" for pc in range(len(code))}
    return frozenset({*_LOCALS, "flows", "error", *_DECIDE, *own})


def flow_tree(code: Sequence[Instr], bound: dict[str, Any], calls: Calls | None = None,
              space: Namespace | None = None,
              roots: list[ast.AST] | None = None) -> ast.Module:
    """The syntax tree of a rule's flow function; fills ``bound`` with the names it uses.

    Args:
        calls: when given, the flow runs rule calls and returns itself (see :func:`_call`);
            else it leaves calls to the interpreter.
        space: when given, the generated code of Exec and JumpUnless instructions is copied
            into the flow (rulewright.engines.inline), and ``roots`` (which must be given
            too) receives the copied parts; the flow then runs in a copy of ``space``'s
            globals (:func:`flow_function`).
    """
    leaders = leaders_of(code)
    inline = None
    if space is not None:
        assert roots is not None
        inline = Inliner(space, reserved_names(code))
    bound["error"] = SpecRuntimeError
    if calls is not None:
        bound["flows"] = calls[0]
    # blocks in code order: falling through to the next block is one comparison
    chain: list[ast.stmt] = [ast.If(ast.Compare(_n("pc"), [ast.Eq()], [_int(start)]),
                                    _block(code, start, leaders, bound, calls, inline), [])
                             for start in sorted(leaders)]
    # a pc that starts no block falls through every test to the interpreter
    loop = ast.While(ast.Constant(True), [*chain, _back_any()], [])
    located = ast.ExceptHandler(_n("error"), None, [
        ast.Assign([ast.Subscript(_n("fr"), _int(1), ast.Store())], _n("pc")),
        ast.Raise(None, None)])
    body: list[ast.stmt] = [ast.Try([loop], [located], [], [])]
    fn = ast.FunctionDef("flow", ast.arguments([], [ast.arg(p) for p in _PARAMS], None, [],
                                               [], None, []), body, [], None)
    module = ast.Module([fn], [])
    if inline is not None and roots is not None:
        roots.extend(inline.roots)
    _place(module, {id(r) for r in inline.roots} if inline is not None else set())
    return module


def _place(tree: ast.AST, placed: set[int]) -> None:
    """Give every node of the flow's own line 1 (as ``ast.fix_missing_locations`` would),
    skipping the copied parts (ids in ``placed``): those have their positions already, and
    walking them again was a third of the time to build a flow."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if id(node) in placed:
            continue
        if "lineno" in node._attributes:
            node.lineno = node.end_lineno = 1  # type: ignore[attr-defined]
            node.col_offset = node.end_col_offset = 0  # type: ignore[attr-defined]
        stack.extend(ast.iter_child_nodes(node))


def _back_any() -> ast.Return:
    """After the last block: a pc that starts no block (the interpreter runs it) or a block
    that went on to an earlier one without ``continue`` (never built)."""
    return ast.Return(ast.Tuple([_n("pc"), _n("budget")], ast.Load()))


class UnsafeFlow(Exception):
    """A flow tree holds a node :func:`check_flow` does not allow: a bug in rulewright."""


_ALLOWED = frozenset({ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.While, ast.If,
                      ast.Try, ast.ExceptHandler, ast.Raise, ast.Return, ast.Continue,
                      ast.Assign, ast.AugAssign, ast.Expr, ast.Call, ast.Compare, ast.BinOp,
                      ast.Subscript, ast.Tuple, ast.Name, ast.Constant, ast.Load, ast.Store,
                      ast.Eq, ast.Lt, ast.GtE, ast.IsNot, ast.Add, ast.Sub,
                      # rule calls (_call): st.stack, its append and pop, a frame, padding
                      ast.Attribute, ast.List, ast.BoolOp, ast.And, ast.Gt, ast.Mult,
                      # decisions (_choice)
                      ast.NotEq, ast.Is, ast.LtE, ast.UnaryOp, ast.Not})

#: The attributes a flow may name, by the name they are read from: the call stack, and what a
#: decision reads and sets (the state's script and pending node, the chooser's class).
_NAMED_ATTRIBUTES = {"st": frozenset({"stack", "script", "pending", "decide", "chance"}),
                     "player": frozenset({"__class__"})}


def _attribute_ok(node: ast.Attribute) -> bool:
    """``st.stack`` (and its ``append`` and ``pop``), ``st.script``, ``st.pending``,
    ``st.decide``, ``st.chance`` and ``player.__class__``: the only attributes allowed."""
    v = node.value
    if isinstance(v, ast.Name):
        return node.attr in _NAMED_ATTRIBUTES.get(v.id, ())
    return isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) \
        and v.value.id == "st" and v.attr == "stack" and node.attr in ("append", "pop")


def check_flow(tree: ast.Module, bound: dict[str, Any], space: Namespace | None = None,
               roots: Sequence[ast.AST] = ()) -> None:
    """Every node of a flow tree is of an allowed class, every name a parameter, one of its
    fixed locals, ``len`` or a name in ``bound``, every attribute the call stack's (see
    :func:`_attribute_ok`), every constant a whole number, None or True.

    The parts in ``roots`` (generated code copied in, see rulewright.engines.inline) are
    checked instead by the generated code's rules in ``space``
    (:func:`~rulewright.dsl.compile.codegen.check_inlined`: its names, attributes and plain
    constants) and must not name any of the flow's own names but ``st``, ``l`` and ``err``.

    Raises:
        UnsafeFlow: the first offending node.
    """
    copied = {id(r) for r in roots}
    if copied and space is None:
        raise UnsafeFlow("a flow holds copied code but no namespace to check it by")
    own = {*_LOCALS, "flows", "error", *bound} - OWN
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if id(node) in copied:
            assert space is not None
            try:
                check_inlined(node, space, set(OWN), own)
            except UnsafeTree as err:
                raise UnsafeFlow(f"a flow's copied code: {err}") from err
            continue
        stack.extend(ast.iter_child_nodes(node))
        if type(node) not in _ALLOWED:
            raise UnsafeFlow(f"a flow holds a {type(node).__name__}")
        if isinstance(node, ast.Name) and node.id not in _LOCALS and node.id not in bound \
                and node.id not in _BUILTINS:
            raise UnsafeFlow(f"a flow names {node.id!r}")
        if isinstance(node, ast.Attribute) and not _attribute_ok(node):
            raise UnsafeFlow(f"a flow reads the attribute {node.attr!r}")
        if isinstance(node, ast.Constant) and node.value is not None and node.value is not True \
                and type(node.value) is not int:
            raise UnsafeFlow(f"a flow holds the constant {node.value!r}")


def flow_function(code: Sequence[Instr], label: str, calls: Calls | None = None,
                  space: Namespace | None = None) -> Flow:
    """Compile a rule's flow function (see the module docstring).

    Args:
        code: the rule's instructions. label: names the generated file in tracebacks
            (``<rulewright flow LABEL>``; reduced to letters, digits and ``_.:-``).
        calls, space: see :func:`flow_tree`.
    """
    bound: dict[str, Any] = {}
    roots: list[ast.AST] = []
    tree = flow_tree(code, bound, calls, space, roots)
    check_flow(tree, bound, space, roots)
    safe = "".join(ch if ch.isalnum() or ch in "_.:-" else "_" for ch in label)[:80]
    # copied code reads the generated code's globals (helpers, constants, functions); the
    # flow's own names are none of those (check_flow), so they may be laid over them
    glob: dict[str, Any] = {"__builtins__": dict(_BUILTINS)}
    if roots:
        assert space is not None
        glob = {**space.ns}
    glob.update(bound)
    exec(compile(tree, f"<rulewright flow {safe}>", "exec"), glob)  # checked above
    fn: Flow = glob["flow"]
    return fn


def lazy_flows(code_of: Callable[[int], Sequence[Instr]], rules: int, label: str,
               nlocals: Sequence[int] | None = None,
               space: Namespace | None = None, players: int = 0) -> list[Flow]:
    """One flow per rule, each compiled on its first call (most configurations loaded by a
    check or a mutation campaign run few of their rules, or none).

    Args:
        code_of: rule index -> its instructions, read when the flow is built.
        rules: how many rules. label: names the generated files (see :func:`flow_function`).
        nlocals: every rule's number of locals; when given, the flows run rule calls and
            returns themselves (calling each other through the returned list), so the
            interpreter may enter them at a call or a return too (:data:`RUNS`).
        space: the configuration's generated-code namespace; when given, the flows hold
            their instructions' generated code (see :func:`flow_tree`).
        players: the configuration's number of players; with ``nlocals``, the flows set up
            decisions themselves (see :func:`_choice`; with 0 they leave them to the
            interpreter).
    """
    flows: list[Flow] = []
    calls: Calls | None = None if nlocals is None else (flows, nlocals, code_of, players)

    def stub(r: int) -> Flow:
        def first_call(st: Any, fr: list[Any], loc: list[Any], pc: int, budget: int,
                       cover: Any) -> tuple[int, int]:
            fn = flows[r]
            if fn is first_call:  # a caller may hold this stub after the flow was built
                fn = flows[r] = flow_function(code_of(r), f"{label} {r}", calls, space)
            return fn(st, fr, loc, pc, budget, cover)
        return first_call
    flows.extend(stub(r) for r in range(rules))
    return flows
