"""Traces: a played game as JSON that replays exactly, and its readable play-by-play.

A trace holds the configuration, the spec's fingerprint, the seed and every applied action id
with its label and the site it was decided at. A trace is checked against the published schema
(``schemas/trace.schema.json``) before use; replaying opens only a bundled spec or a file the
user names, checks its fingerprint and game id before compiling, re-applies the ids and checks
every recorded field, so any divergence (another spec version, a corrupt or forged file) is
named and everything the play-by-play prints has been reproduced.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import Any

from rulewright.dsl.language import ast
from rulewright.engines.game import (MAX_SPEC_BYTES, Game, bundled_specs, display_path, load,
                                     load_spec, spec_path)
from rulewright.engines.schema import read_json, validate
from rulewright.dsl.machine.machine import SpecRuntimeError
from rulewright.engines.state import State
from rulewright.dsl.language.near import did_you_mean
from rulewright.errors import SpecError, TraceError, UsageError

#: A trace's ``source`` that is a spec's name (a bundled spec's id), not a file's path.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

FORMAT = "rulewright-trace/1"


def record_step(state: State, action: int) -> dict[str, Any]:
    """The trace entry for applying ``action`` at ``state`` (call before applying it)."""
    site = state.decision_site()
    return {"player": state.current_player(), "action": action,
            "label": state.action_label(action), "rule": site.rule if site else "",
            "line": site.span.line if site else 0, "turns": list(state.turns)}


#: A trace records at most this many gaps reached under a ruling (the first ones).
MAX_RULINGS = 10_000


def rulings_json(state: State) -> list[dict[str, Any]]:
    """The gaps with a ruling a game reached (at most :data:`MAX_RULINGS`): step (actions
    applied then), rule, line, the gap's text and the ruling play went on under."""
    return [{"step": r.step, "rule": r.gap.site.rule, "line": r.gap.site.span.line,
             "message": r.gap.text, "ruling": r.gap.ruling or ""}
            for r in state.ruled[:MAX_RULINGS]]


def trace_json(game: Game, state: State, steps: list[dict[str, Any]]) -> dict[str, Any]:
    """A trace document for a game played from its initial state to ``state`` (with
    "rulings" when it went on past a gap under a ruling)."""
    doc = {"format": FORMAT, **game.describe(), "seed": state.seed,
           "history": list(state.history), "steps": steps,
           "terminal": state.is_terminal(),
           "finding": state.finding.to_json() if state.finding else None,
           "returns": state.returns() if state.is_terminal() else None,
           "ranking": state.ranking() if state.is_terminal() else None}
    if state.ruled:
        doc["rulings"] = rulings_json(state)
    return doc


def write_trace(path: Path, doc: dict[str, Any]) -> None:
    """Write a trace file (sorted keys, so equal games give equal bytes).

    Raises:
        UsageError: ``path`` is a symbolic link (a link planted in a trace folder, say a
            checkout's ``traces/``, would have the trace overwrite the file it names).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                     0o666)
    except OSError as err:
        if err.errno != errno.ELOOP:
            raise
        raise UsageError(f"{path} is a symbolic link: rulewright writes no trace through a "
                         "link; remove it or choose another --trace-dir") from None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def read_trace(path: Path) -> dict[str, Any]:
    """Read a trace file and check it against the published trace schema.

    Raises:
        UsageError: no such file, not a regular file, too large or unreadable.
        TraceError: not JSON or not a valid trace; the one-line message names the field.
    """
    doc = read_json(path, "trace")
    # the entries of history and steps are checked by replay, once the game bounds their number
    validate("trace", doc, str(path), entries=False, numbers=False)  # loads checked them
    return dict(doc)


def _spec_text(path: Path, shown: str) -> str:
    """The text of a spec file as parsing sees it (the fingerprint is a hash of this)."""
    try:
        size = path.stat().st_size
        if size > MAX_SPEC_BYTES:
            raise TraceError(f"{shown} is {size} bytes, larger than any spec "
                             f"({MAX_SPEC_BYTES} at most)")
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise UsageError(f"{shown}: cannot read the spec: {err.strerror}") from None
    except UnicodeDecodeError:
        raise TraceError(f"{shown} is not a spec file (not UTF-8 text)") from None
    return text[1:] if text.startswith("\ufeff") else text


def _load_for(doc: dict[str, Any], spec: str | None) -> Game:
    """Load the game a trace was made with, checking game id and fingerprint first.

    Only a bundled spec is opened on the trace's word; any other file must come from the
    user (``spec``). A file the user names that declares the trace's game (``game ID`` at
    the start of a line) is parsed first, so that its syntax errors are shown with their
    lines rather than reported as another version of the spec; of any other file no line is
    shown (only the id its first ``game ID`` line declares, to say it is another spec), and
    nothing is compiled until its fingerprint and game id match the trace's.

    Raises:
        SpecError: ``spec`` has syntax errors. TraceError: another version of the spec, a
            trace whose source is another bundled spec, or a configuration it cannot load.
        UsageError: ``spec`` names no file, or a file of another spec (or of none); no
            ``spec`` for a trace of a spec file that is not bundled.
    """
    source = doc.get("source") or doc["spec"]
    if spec is None:
        if source not in bundled_specs() and _NAME.fullmatch(source):
            # a name, as a trace of a bundled spec records it, but no bundled spec's
            close = did_you_mean(source, bundled_specs())
            raise UsageError(f"the trace names the spec {_short(source)}, which is no bundled "
                             f"spec{' (' + close + ')' if close else ''}; replay opens only "
                             "bundled specs on a trace's word, so give the spec's file with "
                             "--spec")
        if source not in bundled_specs():
            # a flag the trace needs is missing: the user's mistake, not the trace's
            raise UsageError(f"the trace was made from the spec file {_short(source)}, not a "
                             "bundled spec; replay opens only bundled specs on a trace's word, "
                             "so give the file with --spec")
        # the package's file itself: a file of that name in the working folder (which could
        # have come with the trace) must not stand in for the bundled spec
        path = Path(str(resources.files("rulewright.spec").joinpath(f"{source}.rules")))
    else:
        path = spec_path(spec)
    shown = display_path(path)
    text = _spec_text(path, shown)
    own = re.search(rf"^[ \t]*game\s+{re.escape(doc['spec'])}\b", text, re.M) is not None
    if spec is not None and own:
        # the user's own spec of the trace's game: its syntax errors, with their lines (a
        # file that declares no such game, e.g. one named by mistake, is never quoted)
        load_spec(path)
    got = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    if got != doc["fingerprint"] and not own:
        # not another version: another spec (or a file of none), named by mistake
        declared = _declared_game(text)
        named = f"spec {declared!r}" if declared is not None else "a file that declares no game"
        if spec is None:  # the trace's own source field names another bundled spec: forged
            raise TraceError(f"the trace is of spec {doc['spec']!r}, but its source names "
                             f"{named} ({shown})")
        raise _another_game(doc, source, named, shown)
    if got != doc["fingerprint"]:
        raise TraceError(f"the trace was made with another version of spec {doc['spec']!r} "
                         f"(fingerprint {doc['fingerprint']}; {shown} has {got}); replay it "
                         "with the spec version it was recorded from")
    try:
        parsed = load_spec(path)
    except (SpecError, UsageError):
        raise TraceError(f"{shown} does not parse as a spec; run 'rulewright check' on it") \
            from None
    header = next((d for d in parsed.decls if isinstance(d, ast.Game)), None)
    if header is None or header.id != doc["spec"]:
        if spec is not None:  # the file the user named is of another game, as above
            named = f"spec {header.id!r}" if header else "a file that declares no game"
            raise _another_game(doc, source, named, shown)
        raise TraceError(f"the trace is a game of {doc['spec']!r}, not of "
                         f"{header.id if header else 'no game'!r}")
    try:
        return load(path, doc["players"], doc["variants"], doc["errata"])
    except UsageError as err:
        raise TraceError(f"the trace's configuration cannot be loaded: {err}") from None


def replay(doc: dict[str, Any], spec: str | None = None,
           game: Game | None = None, what: str = "") -> tuple[Game, list[State]]:
    """Re-run a trace and check every step.

    Args:
        doc: a trace (from :func:`read_trace`, or any dict: it is checked against the schema).
        spec: a spec path to use instead of the bundled spec named in the trace; a trace
            made from a spec file that is not bundled replays only with this.
        game: an already loaded game to replay in (saves recompiling); it must have the
            trace's configuration.
        what: how messages name the trace (its file name).

    Returns:
        The game and the states before each step plus the final state.

    Raises:
        TraceError: a malformed trace, a spec that changed since the trace was made, or a
            recorded value (step, label, result) that replaying does not reproduce.
        UsageError: ``spec`` names no file, or the file of another spec; no ``spec`` for a
            trace made from a spec file that is not bundled.
    """
    validate("trace", doc, what, entries=False)  # what finding and loading the spec reads
    if game is not None:
        want = (doc["spec"], doc["players"], tuple(sorted(doc["variants"])), tuple(doc["errata"]))
        if game.config != want:
            raise TraceError(f"the trace's configuration {want} is not the game's {game.config}")
        if game.machine.fingerprint != doc["fingerprint"]:
            raise TraceError(f"the trace was made with another version of spec "
                             f"{doc['spec']!r} (fingerprint {doc['fingerprint']}, now "
                             f"{game.machine.fingerprint}); replay it with the spec version it "
                             "was recorded from")
    else:
        game = _load_for(doc, spec)
    if len(doc["steps"]) != len(doc["history"]):
        raise TraceError(f"the trace has {len(doc['steps'])} steps but {len(doc['history'])} "
                         "actions in its history")
    # every step's fields, now that the game bounds their number (a million take minutes)
    validate("trace", doc, what, at_most=game.bound, numbers=False)
    state = game.new_initial_state(doc["seed"])
    states = [state.clone()]
    for n, (action, step) in enumerate(zip(doc["history"], doc["steps"])):
        if state.is_terminal():
            raise TraceError(f"step {n + 1}: the game ended before this action")
        legal = state.legal_actions() or [o for o, _ in state.chance_outcomes()]
        if action not in legal:
            raise TraceError(f"step {n + 1}: action {action} is not legal here "
                             f"(legal: {legal[:12]})")
        if step["action"] != action:
            raise TraceError(f"step {n + 1}: 'steps' says action {step['action']}, "
                             f"'history' says {action}")
        got = record_step(state, action)
        for key in ("label", "player", "rule", "line", "turns"):
            if step[key] != got[key]:
                what = "the spec now gives" if key == "label" else "replaying gives"
                raise TraceError(f"step {n + 1}: the trace says {key} {_short(step[key])}, "
                                 f"{what} {_short(got[key])}")
        # the labels of this step: the action, then each one-option decision and chance
        # event the engine resolved by itself before the next one (play_by_play shows them)
        state.events = []
        state.apply_action(action)
        states.append(state.clone())
    state.events = None
    _check_outcome(doc, state)
    return game, states


#: A game declaration at the start of a line: ``game ID``, ID a name (ASCII, as the lexer's).
GAME_LINE = re.compile(r"^[ \t]*game\s+([A-Za-z_][A-Za-z0-9_]*)\b", re.M)


def _another_game(doc: dict[str, Any], source: str, named: str, shown: str) -> UsageError:
    """The usage error for a ``--spec`` file of another game than the trace's."""
    made = f"the bundled spec {source!r}" if source in bundled_specs() \
        else f"the spec file {_short(source)}"
    return UsageError(f"the trace is of spec {doc['spec']!r} (made from {made}), but "
                      f"--spec names {named} ({shown})")


def _declared_game(text: str) -> str | None:
    """The id of the first game a spec text declares, found without parsing it (a file the
    trace has not been matched to is never parsed or quoted); None when it declares none."""
    m = GAME_LINE.search(text)
    return m.group(1) if m else None


def _short(value: Any) -> str:
    """A value from a trace for a message, cut so that a forged trace cannot flood it."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _next(state: State) -> str:
    """Who is to move in a state that is not terminal, and the first options, for a message:
    ``player 1 is to move (options 'check', 'bet')``, ``a chance event is next (outcomes
    'deal: jack', ...)``."""
    labels = [state.action_label(a) for a in
              (state.legal_actions() or [o for o, _ in state.chance_outcomes()])]
    shown = ", ".join(_short(x) for x in labels[:6]) + (", ..." if len(labels) > 6 else "")
    if state.is_chance_node():
        return f"a chance event is next (outcomes {shown})"
    return f"player {state.current_player()} is to move (options {shown})"


def _check_outcome(doc: dict[str, Any], state: State) -> None:
    """Compare what the trace records about the end with what replaying gives."""
    if doc["terminal"] != state.is_terminal():
        n = len(doc["history"])
        after = f"after its last action (step {n})" if n else "before any action"
        if doc["terminal"]:
            raise TraceError(f"the trace says the game ended {after}; replaying, it goes on: "
                             f"{_next(state)}")
        raise TraceError(f"the trace says the game goes on {after}; replaying, it ended there "
                         f"(returns {_short(state.returns())})")
    end = state.is_terminal()
    for key, got in (("returns", state.returns() if end else None),
                     ("ranking", state.ranking() if end else None),
                     ("finding", state.finding.to_json() if state.finding else None)):
        if doc[key] != got:
            raise TraceError(f"the trace records {key} {_short(doc[key])}; replaying gives "
                             f"{_short(got)}")
    recorded, replayed = doc.get("rulings", []), rulings_json(state)
    if recorded != replayed:
        raise TraceError(_rulings_differ(recorded, replayed))


def _rulings_differ(recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> str:
    """Where a trace's rulings and the replay's first differ, readably: a ruling's repr was
    cut off after 80 characters, inside the first gap's text (a fresh user's trial)."""
    at = next(i for i in range(max(len(recorded), len(replayed)))
              if i >= len(recorded) or i >= len(replayed) or recorded[i] != replayed[i])

    def one(rulings: list[dict[str, Any]]) -> str:
        if at >= len(rulings):
            return "none"
        r = rulings[at]
        return (f"the gap at step {r['step']} in rule {_cut(r['rule'], 40)} (line {r['line']}) "
                f"{_cut(r['message'], 60)}, ruled {_cut(r['ruling'], 60)}")
    return (f"the trace records {len(recorded)} gap ruling(s), replaying gives "
            f"{len(replayed)}; ruling {at + 1} differs: the trace has {one(recorded)}; "
            f"replaying gives {one(replayed)}")


def _cut(text: str, most: int) -> str:
    """A text from a trace in quotes (escaped as Python shows it), cut after ``most``
    characters."""
    return repr(text if len(text) <= most else text[:most - 3] + "...")


def scores_or_reason(state: State) -> list[int] | str:
    """The state's scores, or why the spec's scoring cannot compute them there.

    For displays and comparisons in the middle of a game: before setup is done a scoring
    may read what is not there yet (Złap Kadr's undealt boards), which is no defect; a
    scoring that breaks later is one, and the run's violation or finding reports it.
    """
    try:
        return state.returns()
    except SpecRuntimeError as err:
        return str(err)


def play_by_play(game: Game, doc: dict[str, Any], states: list[State] | None = None) -> list[str]:
    """Readable lines, one per step: step, turn, who, action label, the rule and spec line it
    came from, and score changes (when ``states`` from :func:`replay` are given)."""
    lines = []
    first = scores_or_reason(states[0]) if states else None
    # before setup is done a scoring may read what is not there yet: no score column then
    scores = first if isinstance(first, list) else None
    said = False
    rulings: dict[int, list[dict[str, Any]]] = {}
    for r in doc.get("rulings", []):
        rulings.setdefault(r["step"], []).append(r)

    def ruled(step: int) -> None:
        for r in rulings.get(step, []):
            lines.append(f"      GAP {r['message']} (rule {r['rule']}, line {r['line']}): "
                         f"play goes on under the ruling: {r['ruling']}")
    ruled(0)
    for n, step in enumerate(doc["steps"], start=1):
        who = "chance" if step["player"] == -1 else f"player {step['player']}"
        turn = sum(step.get("turns", [])) or 0
        line = f"{n:4d}  turn {turn:3d}  {who:9s}  {step['label']}   [{step['rule']}, line {step['line']}]"
        if states is not None and n < len(states):
            after = scores_or_reason(states[n])
            if isinstance(after, str):
                if scores is not None and not said:
                    # computable before, not now (e.g. a counter set to none): said once;
                    # the violation or finding below explains the defect
                    line += f"   score cannot be computed: {after}"
                    said = True
                after_list = None
            else:
                after_list = after
                if scores is not None:
                    changes = [f"p{p}{after[p] - scores[p]:+d}" for p in range(len(after))
                               if after[p] != scores[p]]
                    if changes:
                        line += "   score " + " ".join(changes)
            scores = after_list
        lines.append(line)
        events = states[n].events if states is not None and n < len(states) else None
        if events:
            # what the engine did by itself after this step: a decision with one option, a
            # chance event with one outcome (no action of the trace's; replay hid them)
            for label in events[1:]:
                lines.append(f"{'':4s}  {'':8s}  {'engine':9s}  {label}   (the only option)")
        ruled(n)
    if doc.get("finding"):
        f = doc["finding"]
        lines.append(f"FINDING {f['kind']}: {f['message']} (rule {f['rule']}, line {f['line']})")
        for c in f.get("cites", []):
            lines.append(f"      cites: {c}")
    if doc.get("returns") is not None:
        # a game a finding stopped has no end of game: its scores are where play stopped
        what = "scores when play stopped" if doc.get("finding") else "final scores"
        lines.append(f"{what}: {doc['returns']}   ranking: {doc['ranking']}")
    return lines
