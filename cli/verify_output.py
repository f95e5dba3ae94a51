"""How ``rulewright verify`` prints its results: tables that fit 80 columns, in plain words.

A game with few configurations gets one table (a row per check, a column per configuration);
one with more than fit across gets one line per configuration, with what went wrong on
indented lines below it. Rows carry names for rules editors (:data:`~rulewright.invariants.report.PLAIN_NAMES`), explained
once by :func:`legend`; the JSON output keeps the invariant ids ("engine finding",
"supplies") and its own keys ("examples").
"""

from __future__ import annotations

import shlex
import textwrap

from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

from rulewright.engines.game import bundled_specs
from rulewright.invariants.report import (PLAIN_NAMES, ConfigResult, GameResult, plain,
                                          sample_note, sampled_checks)

__all__ = ["OTHER_ROWS", "PLAIN_NAMES", "STATUS_MEANINGS", "config_lines", "covered_cell",
           "held_count", "legend", "normal_cell", "plain", "print_table", "replay_command",
           "wide_table"]

def replay_command(trace: str, source: str) -> str:
    """The exact command that replays a counterexample's trace: a spec given as a file
    (not a bundled name) needs ``--spec FILE``, as replay only finds bundled specs alone.
    Both are shell-quoted, so the line can be pasted as it is."""
    spec = "" if source in bundled_specs() else f" --spec {_quote(source)}"
    return f"rulewright replay {_quote(str(trace))}{spec}"


def _quote(text: str) -> str:
    """``text`` quoted for the shell on one line: a name with a newline or an escape in it
    as ``$'...'`` (bash, zsh) with those characters escaped, where shlex.quote keeps them
    raw and the line breaks."""
    if text.isprintable():
        return shlex.quote(text)
    return "$'" + "".join(_escaped(c) for c in text) + "'"


def _escaped(c: str) -> str:
    if c in "\\'":
        return "\\" + c
    if c.isprintable():
        return c
    return f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\U{ord(c):08x}"


#: The table's other rows, in order, with what they mean (the legend).
OTHER_ROWS: dict[str, str] = {
    "rulebook gaps reached": "places the rulebook is silent about (`gap` in the spec) that "
                             "play reached, with a provisional ruling or without; each is "
                             "listed below the table",
    "ended normally": "the share of the games played that reached the game's end, not a "
                      "gap without a ruling or a spec defect (going on under a ruling counts "
                      "as normal); column 'normal' when each configuration has a line",
    "rules/branches run": "the share of the configuration's rules, if/elif/else arms, "
                          "options, passes and gaps that some game ran (column 'covered'); "
                          "the places none ran are listed below the table",
    "test runs": "generated runs of one or more whole games (Hypothesis examples): every "
                 "move and shuffle is drawn by Hypothesis, so a failure shrinks to a short "
                 "game",
    "games played": "games played to their end",
    "actions": "moves and chance outcomes applied, in all games",
    "game length": "actions per game: mean / longest",
    "time": "seconds this configuration took",
}

STATUS_MEANINGS = ("held: checked after every step (a sampled check: on the states its row "
                   "names) and never broken; VIOLATED: broken, the "
                   "shortest game that breaks it is shown below; n/a: nothing to check in "
                   "this game or configuration (why, when the spec says: listed below as "
                   "'not applicable'); not reached: no game evaluated it (every game stopped "
                   "first, or none reached the choice or rule it watches: why is listed below "
                   "as 'not reached')")

_STYLE = {"held": "[green]held[/]", "violated": "[bold red]VIOLATED[/]", "n/a": "[dim]n/a[/]",
          "not reached": "[yellow]not reached[/]"}


def _gaps_cell(c: ConfigResult) -> str:
    return str(len(c.gaps)) if c.gaps else "[dim]none[/]"


def normal_cell(c: ConfigResult) -> str:
    """The share of games that ended normally, ``62%`` (``-`` when none finished)."""
    share = c.normal_share
    return "-" if share is None else f"{share:.0%}"


def covered_cell(c: ConfigResult) -> str:
    """The share of live coverage points some game ran, ``86%`` (``-`` without coverage)."""
    if c.coverage is None:
        return "-"
    run, live = c.coverage.counts()
    return f"{run / live:.0%}" if live else "-"


def wide_table(g: GameResult) -> Table:
    """One row per check, one column per configuration."""
    table = Table(title=escape(f"{g.title} ({g.spec})"), title_justify="left")
    table.add_column("check", no_wrap=True)
    for c in g.configs:
        table.add_column(escape(c.label), justify="center")
    for name in g.invariants:
        table.add_row(escape(plain(name)),
                      *(_STYLE.get(c.status.get(name, "n/a"), "?") for c in g.configs))
    table.add_row("rulebook gaps reached", *(_gaps_cell(c) for c in g.configs))
    table.add_row("ended normally", *(normal_cell(c) for c in g.configs))
    table.add_row("rules/branches run", *(covered_cell(c) for c in g.configs),
                  end_section=True)
    table.add_row("test runs", *(str(c.examples) for c in g.configs))
    table.add_row("games played", *(str(c.finished) for c in g.configs))
    table.add_row("actions", *(str(c.steps) for c in g.configs))
    table.add_row("game length", *(f"{c.mean_length:.0f} / {c.max_length}" for c in g.configs))
    table.add_row("time", *(f"{c.seconds:.1f}s" for c in g.configs))
    return table


def held_count(g: GameResult, c: ConfigResult) -> str:
    """``13 of 14``: checks that held, of those with something to check."""
    statuses = [c.status.get(name, "n/a") for name in g.invariants]
    return f"{statuses.count('held')} of {len(statuses) - statuses.count('n/a')}"


def config_lines(g: GameResult, width: int) -> list[str]:
    """One line per configuration (rich markup), problems on indented lines below it."""
    label_w = max([len("configuration"), *(len(c.label) for c in g.configs)])
    head = (f"  {'configuration':<{label_w}} {'checks':>8} {'games':>6} {'normal':>6} "
            f"{'covered':>7} {'length':>9} {'time':>6}")
    out = [f"[bold]{escape(g.title)} ({escape(g.spec)})[/]: {len(g.invariants)} checks, "
           f"{len(g.configs)} configurations", head]
    for c in g.configs:
        out.append(f"  {escape(c.label):<{label_w}} {held_count(g, c):>8} {c.finished:>6} "
                   f"{normal_cell(c):>6} {covered_cell(c):>7} "
                   f"{f'{c.mean_length:.0f} / {c.max_length}':>9} {f'{c.seconds:.1f}s':>6}")
        violated = [plain(n) for n in g.invariants if c.status.get(n) == "violated"]
        unreached = [plain(n) for n in g.invariants if c.status.get(n) == "not reached"]
        # no-break spaces keep "rule:12 (3 games)" on one line when wrapped
        gaps = [f"{gap.rule}:{gap.line}\u00a0({gap.count}\u00a0game"
                f"{'s' if gap.count != 1 else ''})" for gap in c.gaps]
        for label, style, items in (("VIOLATED", "bold red", violated),
                                    ("not reached", "yellow", unreached),
                                    ("rulebook gaps reached", "", gaps)):
            if not items:
                continue
            lines = [line.replace("\u00a0", " ") for line in textwrap.wrap(
                f"{label}: {', '.join(items)}", width=width - 6, break_on_hyphens=False,
                break_long_words=False)]
            head = f"[{style}]{label}[/]" if style else label
            out.append("      " + head + escape(lines[0][len(label):]))
            out += ["      " + escape(line) for line in lines[1:]]
    return out


def print_table(out: Console, g: GameResult) -> None:
    """The wide table when it fits the console's width unwrapped, else the per-configuration
    lines."""
    table = wide_table(g)
    unlimited = out.options.update_width(10_000)  # its natural width, not clamped to ours
    if Measurement.get(out, unlimited, table).maximum <= out.width:
        out.print(table)
        return
    for line in config_lines(g, out.width):
        out.print(line, highlight=False)


def sampled_notes(games: list[GameResult]) -> dict[str, str]:
    """Each sampled check of a sampled run -> :func:`sample_note` over every configuration
    (the trial's F17: "held: checked after every step" said more than a sample shows)."""
    totals: dict[str, list[int]] = {}
    schedule: dict[str, int] = {}
    for c in (c for g in games for c in g.configs if c.hidden_schedule):
        every = max((n for name, n in c.checks.items() if name not in sampled_checks()),
                    default=0)
        for name in (n for n in c.checks if n in sampled_checks()):   # the report's order
            t = totals.setdefault(name, [0, 0])
            t[0] += c.checks[name]
            t[1] += every
        for k, v in c.hidden_schedule.items():
            schedule[k] = schedule.get(k, 0) + v
    return {name: sample_note(name, done, every, schedule)
            for name, (done, every) in totals.items()}


def legend(games: list[GameResult], width: int) -> list[str]:
    """What each row of the tables means: the checks' titles, then the other rows."""
    meanings: dict[str, str] = {}
    for g in games:
        for name, title in g.invariants.items():
            meanings.setdefault(plain(name), title)
    for name, note in sampled_notes(games).items():
        if plain(name) in meanings:
            meanings[plain(name)] += f" - {note}"
    meanings.update(OTHER_ROWS)
    out = ["What the rows mean:"]
    for name, meaning in meanings.items():
        out += textwrap.wrap(f"{name}: {meaning}", width=width, initial_indent="  ",
                             subsequent_indent="      ", break_on_hyphens=False)
    out += textwrap.wrap(STATUS_MEANINGS, width=width, initial_indent="  ",
                         subsequent_indent="      ", break_on_hyphens=False)
    return out
