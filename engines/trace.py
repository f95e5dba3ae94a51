"""Traces: a played game as JSON that replays exactly, and its readable play-by-play.

A trace holds the configuration, the spec's fingerprint, the seed and every applied action id
with its label and the site it was decided at; replaying re-applies the ids and checks that
every label matches, so any divergence (another spec version, a corrupt file) is named.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rulewright.engines.game import Game, load
from rulewright.engines.state import State
from rulewright.errors import TraceError, UsageError

FORMAT = "rulewright-trace/1"


def record_step(state: State, action: int) -> dict[str, Any]:
    """The trace entry for applying ``action`` at ``state`` (call before applying it)."""
    site = state.decision_site()
    return {"player": state.current_player(), "action": action,
            "label": state.action_label(action), "rule": site.rule if site else "",
            "line": site.span.line if site else 0, "turns": list(state.turns)}


def trace_json(game: Game, state: State, steps: list[dict[str, Any]]) -> dict[str, Any]:
    """A trace document for a game played from its initial state to ``state``."""
    return {"format": FORMAT, **game.describe(), "seed": state.seed,
            "history": list(state.history), "steps": steps,
            "terminal": state.is_terminal(),
            "finding": state.finding.to_json() if state.finding else None,
            "returns": state.returns() if state.is_terminal() else None,
            "ranking": state.ranking() if state.is_terminal() else None}


def write_trace(path: Path, doc: dict[str, Any]) -> None:
    """Write a trace file (sorted keys, so equal games give equal bytes)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                    encoding="utf-8")


def read_trace(path: Path) -> dict[str, Any]:
    """Read and validate a trace file's shape.

    Raises:
        TraceError: unreadable, not JSON, or missing fields; the message names the problem.
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise UsageError(f"{path}: cannot read the trace: {err.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise TraceError(f"{path}: not a JSON trace: {err}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise TraceError(f"{path}: not a rulewright trace (expected format {FORMAT!r})")
    for key, kind in (("spec", str), ("players", int), ("history", list), ("steps", list),
                      ("variants", list), ("errata", list), ("fingerprint", str)):
        if not isinstance(doc.get(key), kind):
            raise TraceError(f"{path}: field {key!r} is missing or not a {kind.__name__}")
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in doc["history"]):
        raise TraceError(f"{path}: 'history' must be a list of action ids")
    if not isinstance(doc.get("seed", 0), int) or isinstance(doc.get("seed"), bool):
        raise TraceError(f"{path}: 'seed' must be a whole number")
    if not all(isinstance(v, str) for v in doc["variants"] + doc["errata"]):
        raise TraceError(f"{path}: 'variants' and 'errata' must be lists of names")
    return doc


def replay(doc: dict[str, Any], spec: str | None = None,
           game: Game | None = None) -> tuple[Game, list[State]]:
    """Re-run a trace and check every step.

    Args:
        doc: a trace from :func:`read_trace`.
        spec: a spec path to use instead of the bundled spec named in the trace.
        game: an already loaded game to replay in (saves recompiling); it must have the
            trace's configuration.

    Returns:
        The game and the states before each step plus the final state.

    Raises:
        TraceError: the spec changed since the trace was made, or an action diverges.
    """
    if game is not None:
        want = (doc["spec"], doc["players"], tuple(sorted(doc["variants"])), tuple(doc["errata"]))
        if game.config != want:
            raise TraceError(f"the trace's configuration {want} is not the game's {game.config}")
    else:
        try:
            source = spec or doc.get("source") or doc["spec"]
            game = load(source, doc["players"], doc["variants"], doc["errata"])
        except UsageError as err:
            raise TraceError(f"the trace's configuration cannot be loaded: {err} "
                             "(give the spec file with --spec)") from None
    if game.machine.game.id != doc["spec"]:
        raise TraceError(f"the trace is a game of {doc['spec']!r}, not of "
                         f"{game.machine.game.id!r}")
    if game.machine.fingerprint != doc["fingerprint"]:
        raise TraceError(f"the trace was made with another version of spec {doc['spec']!r} "
                         f"(fingerprint {doc['fingerprint']}, now {game.machine.fingerprint}); "
                         "replay it with the spec version it was recorded from")
    state = game.new_initial_state(int(doc.get("seed", 0)))
    states = [state.clone()]
    steps = doc["steps"]
    for n, action in enumerate(doc["history"]):
        if state.is_terminal():
            raise TraceError(f"step {n + 1}: the game ended before this action")
        legal = state.legal_actions() or [o for o, _ in state.chance_outcomes()]
        if action not in legal:
            raise TraceError(f"step {n + 1}: action {action} is not legal here "
                             f"(legal: {legal[:12]})")
        if n < len(steps) and isinstance(steps[n], dict):
            want = steps[n].get("label")
            got = state.action_label(action)
            if want is not None and want != got:
                raise TraceError(f"step {n + 1}: the trace says {want!r}, the spec now "
                                 f"gives {got!r}")
        if n < len(steps) and isinstance(steps[n], dict) and "action" in steps[n] \
                and steps[n]["action"] != action:
            raise TraceError(f"step {n + 1}: 'steps' says action {steps[n]['action']}, "
                             f"'history' says {action}")
        state.apply_action(action)
        states.append(state.clone())
    _check_outcome(doc, state)
    return game, states


def _check_outcome(doc: dict[str, Any], state: State) -> None:
    """Compare what the trace records about the end with what replaying gives."""
    if len(doc["steps"]) != len(doc["history"]):
        raise TraceError(f"the trace has {len(doc['steps'])} steps but {len(doc['history'])} "
                         "actions in its history")
    if "terminal" in doc and bool(doc["terminal"]) != state.is_terminal():
        raise TraceError("the trace says the game " + ("ended" if doc["terminal"] else
                         "goes on") + " after its last action; replaying says otherwise")
    if state.is_terminal():
        for key, got in (("returns", state.returns()), ("ranking", state.ranking()),
                         ("finding", state.finding.to_json() if state.finding else None)):
            if key in doc and doc[key] != got:
                raise TraceError(f"the trace records {key} {doc[key]!r}; replaying gives {got!r}")


def play_by_play(game: Game, doc: dict[str, Any], states: list[State] | None = None) -> list[str]:
    """Readable lines, one per step: step, turn, who, action label, the rule and spec line it
    came from, and score changes (when ``states`` from :func:`replay` are given)."""
    lines = []
    scores = states[0].returns() if states else None
    for n, step in enumerate(doc["steps"], start=1):
        who = "chance" if step["player"] == -1 else f"player {step['player']}"
        turn = sum(step.get("turns", [])) or 0
        line = f"{n:4d}  turn {turn:3d}  {who:9s}  {step['label']}   [{step['rule']}, line {step['line']}]"
        if states is not None and n < len(states) and scores is not None:
            after = states[n].returns()
            changes = [f"p{p}{after[p] - scores[p]:+d}" for p in range(len(after))
                       if after[p] != scores[p]]
            if changes:
                line += "   score " + " ".join(changes)
            scores = after
        lines.append(line)
    if doc.get("finding"):
        f = doc["finding"]
        lines.append(f"FINDING {f['kind']}: {f['message']} (rule {f['rule']}, line {f['line']})")
        for c in f.get("cites", []):
            lines.append(f"      cites: {c}")
    if doc.get("returns") is not None:
        lines.append(f"final scores: {doc['returns']}   ranking: {doc['ranking']}")
    return lines
